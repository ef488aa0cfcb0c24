import { Button, Tooltip } from '@douyinfe/semi-ui';
import { IconMoon, IconSun } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import { useThemeMode } from '../../lib/theme';

export function ThemeToggle() {
  const { t } = useTranslation('layout');
  const [mode, setMode] = useThemeMode();
  const label = mode === 'dark' ? t('header.switchToLight') : t('header.switchToDark');
  return (
    <Tooltip content={label}>
      <Button
        theme="borderless"
        type="tertiary"
        aria-label={label}
        data-testid="theme-toggle"
        icon={mode === 'dark' ? <IconSun size="large" /> : <IconMoon size="large" />}
        onClick={() => setMode(mode === 'dark' ? 'light' : 'dark')}
      />
    </Tooltip>
  );
}
