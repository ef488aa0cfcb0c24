import { Button, Input, Modal, Toast, Typography } from '@douyinfe/semi-ui';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { bindWeChat } from '../api';
import { useRefreshSelf } from '../queries';

interface WeChatBindModalProps {
  visible: boolean;
  qrCodeUrl: string;
  onClose: () => void;
}

/** The WeChat server hands out a code through its official account; GET /api/oauth/wechat/bind checks it. */
export function WeChatBindModal({ visible, qrCodeUrl, onClose }: WeChatBindModalProps) {
  const { t } = useTranslation('settings');
  const refreshSelf = useRefreshSelf();
  const [code, setCode] = useState('');
  const [submitting, setSubmitting] = useState(false);

  useEffect(() => {
    if (visible) setCode('');
  }, [visible]);

  const submit = async () => {
    if (!code.trim()) {
      Toast.warning(t('wechatBind.codeRequired'));
      return;
    }
    setSubmitting(true);
    try {
      await bindWeChat(code.trim());
      Toast.success(t('wechatBind.success'));
      await refreshSelf();
      onClose();
    } catch {
      /* the API client showed the server's reason */
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <Modal title={t('wechatBind.title')} visible={visible} onCancel={onClose} footer={null} centered width={380}>
      <div className="mg-wechat-modal">
        {qrCodeUrl && <img src={qrCodeUrl} alt={t('wechatBind.title')} className="mg-wechat-qrcode" />}
        <Typography.Text type="tertiary" className="mg-wechat-hint">
          {t('wechatBind.hint')}
        </Typography.Text>
        <Input
          value={code}
          onChange={setCode}
          placeholder={t('wechatBind.codePlaceholder')}
          aria-label={t('wechatBind.code')}
          onEnterPress={() => void submit()}
        />
        <Button theme="solid" type="primary" block loading={submitting} onClick={() => void submit()}>
          {t('wechatBind.submit')}
        </Button>
      </div>
    </Modal>
  );
}
