import { Button, Dropdown } from '@douyinfe/semi-ui';
import { IconLanguage } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import { normalizeLanguage, SUPPORTED_LANGUAGES } from '../../i18n';

export function LanguageSwitch() {
  const { t, i18n } = useTranslation('layout');
  const current = normalizeLanguage(i18n.language);
  return (
    <Dropdown
      position="bottomRight"
      render={
        <Dropdown.Menu>
          {SUPPORTED_LANGUAGES.map((language) => (
            <Dropdown.Item key={language} active={language === current} data-testid={`language-${language}`} onClick={() => void i18n.changeLanguage(language)}>
              {t(`languages.${language}`)}
            </Dropdown.Item>
          ))}
        </Dropdown.Menu>
      }
    >
      <Button theme="borderless" type="tertiary" aria-label={t('header.language')} data-testid="language-switch" icon={<IconLanguage size="large" />} />
    </Dropdown>
  );
}
