import { Button, Empty, Spin, Toast, Typography } from '@douyinfe/semi-ui';
import { IconCommentStroked, IconKey } from '@douyinfe/semi-icons';
import { useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { ChatTarget } from '../queries';

/** Spec 02 §8: with no enabled token the user is told so and sent to /token after 1.5 s. */
export const NO_TOKEN_REDIRECT_MS = 1500;

type NoticeTarget = Exclude<ChatTarget, { state: 'ready' }>;

/** Everything the chat pages show instead of the chat: loading, misconfiguration, no token. */
export function ChatNotice({ target, loadingText }: { target: NoticeTarget; loadingText: string }) {
  const { t } = useTranslation(['chat', 'common']);
  const navigate = useNavigate();
  const noToken = target.state === 'no-token';

  useEffect(() => {
    if (!noToken) return;
    Toast.error(t('chat:noToken'));
    const timer = setTimeout(() => navigate('/token', { replace: true }), NO_TOKEN_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [noToken, navigate, t]);

  if (target.state === 'loading') {
    return (
      <div className="mg-centered-page">
        <Spin size="large" tip={loadingText} />
      </div>
    );
  }

  if (target.state === 'no-token') {
    return (
      <div className="mg-centered-page" data-testid="chat-no-token">
        <Empty
          image={<NoticeIcon icon={<IconKey size="inherit" />} />}
          title={t('chat:noToken')}
          description={<Typography.Text type="tertiary">{t('chat:redirecting')}</Typography.Text>}
        />
      </div>
    );
  }

  const message = target.state === 'invalid-config' ? t('chat:configError') : target.state === 'no-link' ? t('chat:noLink') : t('common:errors.unknown');
  return (
    <div className="mg-centered-page" data-testid="chat-unavailable">
      <Empty image={<NoticeIcon icon={<IconCommentStroked size="inherit" />} />} title={message}>
        {target.state === 'failed' && <Button onClick={target.retry}>{t('common:actions.reload')}</Button>}
      </Empty>
    </div>
  );
}

function NoticeIcon({ icon }: { icon: ReactNode }) {
  return (
    <span className="mg-chat-notice-icon" aria-hidden>
      {icon}
    </span>
  );
}
