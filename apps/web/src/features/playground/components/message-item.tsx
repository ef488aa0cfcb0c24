import { Avatar, Button, Image, Popconfirm, Spin, Tag, TextArea, Tooltip, Typography } from '@douyinfe/semi-ui';
import { IconAlertCircle, IconCopy, IconDelete, IconEdit, IconRefresh, IconUser } from '@douyinfe/semi-icons';
import DOMPurify from 'dompurify';
import { memo, useMemo, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../../lib/clipboard';
import type { ChatMessage } from '../conversation';
import { imageLabel } from '../image-input';
import { copyText } from '../message-edits';
import { replyToHtml } from '../reply-markdown';

function ReplyBody({ content }: { content: string }) {
  const html = useMemo(() => DOMPurify.sanitize(replyToHtml(content)), [content]);
  return <div className="mg-markdown mg-pg-markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}

/** The images of a question as thumbnails; a click opens the full image. */
export function Thumbnails({ images }: { images: string[] }) {
  const { t } = useTranslation('playground');
  return (
    <div className="mg-pg-thumbnails" data-testid="pg-thumbnails">
      {images.map((url) => (
        <span key={url} className="mg-pg-thumbnail" data-testid="pg-thumbnail">
          <Image src={url} width={72} height={72} alt={imageLabel(url) ?? t('images.pasted')} />
        </span>
      ))}
    </div>
  );
}

interface MessageActions {
  /** A reply is streaming: nothing may change the conversation. */
  busy: boolean;
  /** This reply is the last one and may be asked for again. */
  regenerable: boolean;
  onEdit: (id: string, text: string, images: string[]) => void;
  onRegenerate: (id: string) => void;
  onDelete: (id: string) => void;
}

function QuestionEditor({ message, onSend, onCancel }: { message: ChatMessage; onSend: (text: string) => void; onCancel: () => void }) {
  const { t } = useTranslation(['playground', 'common']);
  const [text, setText] = useState(message.content);
  const empty = text.trim() === '' && !message.images?.length;
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Escape') onCancel();
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing && event.keyCode !== 229 && !empty) {
      event.preventDefault();
      onSend(text);
    }
  };
  return (
    <div className="mg-pg-editor" data-testid="pg-editor">
      <TextArea value={text} onChange={setText} onKeyDown={onKeyDown} autosize={{ minRows: 2, maxRows: 10 }} autoFocus aria-label={t('messages.edit')} />
      <Typography.Text type="tertiary" size="small">
        {t('messages.editHint')}
      </Typography.Text>
      <div className="mg-pg-editor-actions">
        <Button size="small" onClick={onCancel}>
          {t('common:actions.cancel')}
        </Button>
        <Button size="small" theme="solid" disabled={empty} onClick={() => onSend(text)} data-testid="pg-edit-send">
          {t('messages.saveAndSend')}
        </Button>
      </div>
    </div>
  );
}

/**
 * One message. A reply renders as Markdown as it streams; a stopped one says so; a failed one keeps
 * what arrived and shows the error's own words below it, marked as an error (spec 02 §8). Under a
 * finished message: copy, edit and re-send (questions), regenerate (the last reply), delete.
 */
export const MessageItem = memo(function MessageItem({
  message,
  busy,
  regenerable,
  onEdit,
  onRegenerate,
  onDelete,
}: { message: ChatMessage } & MessageActions) {
  const { t } = useTranslation(['playground', 'common']);
  const [editing, setEditing] = useState(false);
  const mine = message.role === 'user';
  const waiting = message.status === 'streaming' && message.content === '';
  const settled = message.status !== 'streaming';

  return (
    <div
      className={`mg-pg-message mg-pg-message-${message.role} mg-pg-status-${message.status}`}
      data-testid={`pg-message-${message.role}`}
      data-status={message.status}
    >
      <Avatar size="small" color={mine ? 'light-blue' : 'green'} className="mg-pg-avatar" alt={mine ? t('chat.you') : t('chat.assistant')}>
        {mine ? <IconUser /> : 'AI'}
      </Avatar>
      <div className={`mg-pg-bubble-wrap${editing ? ' mg-pg-bubble-wrap-editing' : ''}`}>
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
          {editing ? (
            <QuestionEditor
              message={message}
              onCancel={() => setEditing(false)}
              onSend={(text) => {
                setEditing(false);
                onEdit(message.id, text, message.images ?? []);
              }}
            />
          ) : mine ? (
            message.content !== '' && <div className="mg-pg-plain">{message.content}</div>
          ) : waiting ? (
            <span className="mg-pg-thinking">
              <Spin size="small" /> {t('chat.thinking')}
            </span>
          ) : (
            message.content !== '' && <ReplyBody content={message.content} />
          )}
          {message.images && message.images.length > 0 && <Thumbnails images={message.images} />}
          {message.omittedImages !== undefined && (
            <Typography.Text type="tertiary" size="small" className="mg-pg-omitted">
              {t('images.omitted', { count: message.omittedImages })}
            </Typography.Text>
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
        {settled && !editing && (
          <div className="mg-pg-actions" data-testid="pg-message-actions">
            {copyText(message) !== '' && (
              <Tooltip content={t('chat.copy')}>
                <Button
                  size="small"
                  theme="borderless"
                  type="tertiary"
                  icon={<IconCopy />}
                  aria-label={t('chat.copy')}
                  onClick={() => void copyWithFeedback(copyText(message), mine ? t('messages.copied') : t('chat.copied'))}
                />
              </Tooltip>
            )}
            {mine && (
              <Tooltip content={t('messages.edit')}>
                <Button
                  size="small"
                  theme="borderless"
                  type="tertiary"
                  icon={<IconEdit />}
                  disabled={busy}
                  aria-label={t('messages.edit')}
                  onClick={() => setEditing(true)}
                  data-testid="pg-message-edit"
                />
              </Tooltip>
            )}
            {regenerable && (
              <Tooltip content={t('messages.regenerate')}>
                <Button
                  size="small"
                  theme="borderless"
                  type="tertiary"
                  icon={<IconRefresh />}
                  disabled={busy}
                  aria-label={t('messages.regenerate')}
                  onClick={() => onRegenerate(message.id)}
                  data-testid="pg-message-regenerate"
                />
              </Tooltip>
            )}
            <Popconfirm
              title={mine ? t('messages.deleteQuestionConfirm') : t('messages.deleteReplyConfirm')}
              okText={t('common:actions.confirm')}
              cancelText={t('common:actions.cancel')}
              onConfirm={() => onDelete(message.id)}
              disabled={busy}
            >
              <Button
                size="small"
                theme="borderless"
                type="tertiary"
                icon={<IconDelete />}
                disabled={busy}
                aria-label={t('messages.delete')}
                data-testid="pg-message-delete"
              />
            </Popconfirm>
          </div>
        )}
      </div>
    </div>
  );
});
