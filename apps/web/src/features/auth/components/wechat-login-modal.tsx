import { Button, Input, Modal, Toast, Typography } from '@douyinfe/semi-ui';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { loginWithWeChat, type UserInfo } from '../api';

interface WeChatLoginModalProps {
  visible: boolean;
  qrCodeUrl: string;
  onClose: () => void;
  onSignedIn: (user: UserInfo) => void;
}

export function WeChatLoginModal({ visible, qrCodeUrl, onClose, onSignedIn }: WeChatLoginModalProps) {
  const { t } = useTranslation('auth');
  const [code, setCode] = useState('');
  const [submitting, setSubmitting] = useState(false);

  const submit = async () => {
    if (!code.trim()) {
      Toast.warning(t('oauth.wechatCodeRequired'));
      return;
    }
    setSubmitting(true);
    try {
      onSignedIn(await loginWithWeChat(code.trim()));
    } catch {
      /* the API client already showed the server's message */
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <Modal title={t('oauth.wechatTitle')} visible={visible} onCancel={onClose} footer={null} centered width={380}>
      <div className="mg-wechat-modal">
        {qrCodeUrl && <img src={qrCodeUrl} alt={t('oauth.wechatTitle')} className="mg-wechat-qrcode" />}
        <Typography.Text type="tertiary" className="mg-wechat-hint">
          {t('oauth.wechatHint')}
        </Typography.Text>
        <Input
          value={code}
          onChange={setCode}
          placeholder={t('oauth.wechatCodePlaceholder')}
          aria-label={t('oauth.wechatCode')}
          onEnterPress={() => void submit()}
        />
        <Button theme="solid" type="primary" block loading={submitting} onClick={() => void submit()}>
          {t('oauth.wechatSubmit')}
        </Button>
      </div>
    </Modal>
  );
}
