import { Button, Space } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';

interface DrawerFooterProps {
  submitting: boolean;
  disabled?: boolean;
  onSubmit: () => void;
  onCancel: () => void;
}

export function DrawerFooter({ submitting, disabled, onSubmit, onCancel }: DrawerFooterProps) {
  const { t } = useTranslation('users');
  return (
    <div className="mg-drawer-footer">
      <Space>
        <Button onClick={onCancel}>{t('form.cancel')}</Button>
        <Button theme="solid" type="primary" loading={submitting} disabled={disabled} onClick={onSubmit} data-testid="drawer-submit">
          {t('form.submit')}
        </Button>
      </Space>
    </div>
  );
}

/** A drawer fills a phone's screen and keeps a comfortable width elsewhere. */
export function drawerWidth(): number | string {
  return typeof window !== 'undefined' && window.innerWidth < 640 ? '100%' : 560;
}
