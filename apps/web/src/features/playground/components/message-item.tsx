import { Avatar, Button, Spin, Tag, Tooltip, Typography } from '@douyinfe/semi-ui';
import { IconAlertCircle, IconCopy, IconUser } from '@douyinfe/semi-icons';
import DOMPurify from 'dompurify';
import { memo, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../../lib/clipboard';
import type { ChatMessage } from '../conversation';
import { replyToHtml } from '../reply-markdown';

function ReplyBody({ content }: { content: string }) {
  const html = useMemo(() => DOMPurify.sanitize(replyToHtml(content)), [content]);
  return <div className="mg-markdown mg-pg-markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}

/**
 * One message. A reply renders as Markdown as it streams; a stopped one says so; a failed one keeps
 * what arrived and shows the error's own words below it, marked as an error (spec 02 §8).
 */
export const MessageItem = memo(function MessageItem({ message }: { message: ChatMessage }) {
  const { t } = useTranslation('playground');
  const mine = message.role === 'user';
  const waiting = message.status === 'streaming' && message.content === '';

  return (
    <div
      className={`mg-pg-message mg-pg-message-${message.role} mg-pg-status-${message.status}`}
      data-testid={`pg-message-${message.role}`}
      data-status={message.status}
    >
      <Avatar size="small" color={mine ? 'light-blue' : 'green'} className="mg-pg-avatar" alt={mine ? t('chat.you') : t('chat.assistant')}>
        {mine ? <IconUser /> : 'AI'}
      </Avatar>
      <div className="mg-pg-bubble-wrap">
        <div className="mg-pg-meta">
          <Typography.Text type="tertiary" size="small">
            {mine ? t('chat.you') : message.model || t('chat.assistant')}
          </Typography.Text>
          {message.status === 'stopped' && (
            <Tag size="small" color="orange" data-testid="pg-status-stopped">
              {t('chat.status.stopped')}
            </Tag>
          )}
          {message.status === 'error' && (
            <Tag size="small" color="red" prefixIcon={<IconAlertCircle />} data-testid="pg-status-error">
              {t('chat.status.error')}
            </Tag>
          )}
        </div>
        <div className="mg-pg-bubble">
          {mine ? (
            <div className="mg-pg-plain">{message.content}</div>
          ) : waiting ? (
            <span className="mg-pg-thinking">
              <Spin size="small" /> {t('chat.thinking')}
            </span>
          ) : (
            message.content !== '' && <ReplyBody content={message.content} />
          )}
          {message.status === 'error' && (
            <div className="mg-pg-error" role="alert" data-testid="pg-error">
              <Typography.Text strong type="danger">
                {t('chat.errorTitle')}
              </Typography.Text>
              <pre className="mg-pg-error-text">{message.error}</pre>
            </div>
          )}
        </div>
        {!mine && message.status !== 'streaming' && message.content !== '' && (
          <div className="mg-pg-actions">
            <Tooltip content={t('chat.copy')}>
              <Button
                size="small"
                theme="borderless"
                type="tertiary"
                icon={<IconCopy />}
                aria-label={t('chat.copy')}
                onClick={() => void copyWithFeedback(message.content, t('chat.copied'))}
              />
            </Tooltip>
          </div>
        )}
      </div>
    </div>
  );
});
