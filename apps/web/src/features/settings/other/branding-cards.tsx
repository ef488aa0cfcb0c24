import { Input, Typography } from '@douyinfe/semi-ui';
import { IconImage, IconText } from '@douyinfe/semi-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DEFAULT_SYSTEM_NAME } from '../../../lib/project';
import { useStatus } from '../../status/queries';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { DiscardButton } from './discard-button';
import { isUsableLogoAddress } from './other-rules';
import { PreviewPane } from './preview-pane';

const DEFAULT_LOGO = '/logo.svg';

/** The header's brand as it will look: logo and name, drawn with the header's own classes. */
function BrandPreview({ logo, name, testId }: { logo: string; name: string; testId: string }) {
  return (
    <div className="mg-other-brand" data-testid={testId}>
      <img src={logo.trim() || DEFAULT_LOGO} alt="" className="mg-brand-logo" />
      <span className="mg-brand-name">{name || DEFAULT_SYSTEM_NAME}</span>
    </div>
  );
}

const NAME_KEYS = ['SystemName'] as const;

/** SystemName: the header, the browser title and the default footer follow it once saved. */
export function SystemNameCard() {
  const { t } = useTranslation('settings-other');
  const status = useStatus();
  const card = useOptionCard(NAME_KEYS);
  const name = card.value('SystemName');

  return (
    <OptionCardFrame
      card={card}
      title={t('systemName.title')}
      icon={<IconText />}
      description={t('systemName.description')}
      actions={<DiscardButton card={card} />}
      testId="other-system-name"
    >
      <Input
        value={name}
        onChange={(value) => card.set('SystemName', value)}
        placeholder={t('systemName.placeholder')}
        aria-label={t('systemName.title')}
        showClear
        data-testid="other-system-name-input"
      />
      {!name.trim() && (
        <Typography.Text type="tertiary" size="small" className="mg-other-field-hint">
          {t('systemName.emptyHint', { name: DEFAULT_SYSTEM_NAME })}
        </Typography.Text>
      )}
      <PreviewPane testId="other-system-name-preview" className="mg-other-below">
        <BrandPreview logo={status.logo ?? ''} name={name.trim()} testId="other-system-name-brand" />
      </PreviewPane>
    </OptionCardFrame>
  );
}

const LOGO_KEYS = ['Logo'] as const;

/** Logo: an image address for the header, the login page and the tab icon. */
export function LogoCard() {
  const { t } = useTranslation('settings-other');
  const status = useStatus();
  const card = useOptionCard(LOGO_KEYS, {
    validate: (values) => (isUsableLogoAddress(values.Logo ?? '') ? null : t('logo.invalid')),
  });
  const logo = card.value('Logo');
  const usable = isUsableLogoAddress(logo);
  // The address whose image failed to load; another address clears the warning.
  const [brokenSource, setBrokenSource] = useState<string | null>(null);
  const source = logo.trim() || DEFAULT_LOGO;
  const broken = brokenSource === source;

  return (
    <OptionCardFrame
      card={card}
      title={t('logo.title')}
      icon={<IconImage />}
      description={t('logo.description')}
      actions={<DiscardButton card={card} />}
      testId="other-logo"
    >
      <Input
        value={logo}
        onChange={(value) => card.set('Logo', value)}
        placeholder={t('logo.placeholder')}
        aria-label={t('logo.label')}
        validateStatus={usable ? 'default' : 'error'}
        showClear
        data-testid="other-logo-input"
      />
      {!usable ? (
        <Typography.Text type="danger" size="small" className="mg-other-field-hint" data-testid="other-logo-invalid">
          {t('logo.invalid')}
        </Typography.Text>
      ) : (
        !logo.trim() && (
          <Typography.Text type="tertiary" size="small" className="mg-other-field-hint">
            {t('logo.emptyHint')}
          </Typography.Text>
        )
      )}
      <PreviewPane testId="other-logo-preview" className="mg-other-below">
        <div className="mg-other-logo-row">
          {usable && (
            <img
              key={source}
              src={source}
              alt={t('logo.label')}
              className="mg-other-logo-large"
              data-testid="other-logo-image"
              onError={() => setBrokenSource(source)}
              onLoad={() => setBrokenSource((current) => (current === source ? null : current))}
            />
          )}
          <BrandPreview logo={usable ? logo : ''} name={status.system_name ?? ''} testId="other-logo-brand" />
        </div>
        {broken && (
          <Typography.Text type="danger" size="small" data-testid="other-logo-broken">
            {t('logo.broken')}
          </Typography.Text>
        )}
      </PreviewPane>
    </OptionCardFrame>
  );
}
