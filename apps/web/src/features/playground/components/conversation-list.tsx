import { Button, Input, Popconfirm, Tooltip, Typography } from '@douyinfe/semi-ui';
import { IconComment, IconDelete, IconEdit, IconPlus } from '@douyinfe/semi-icons';
import { useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { conversationTitle, MAX_TITLE_LENGTH, type SavedConversation } from '../conversation-store';

interface ConversationListProps {
  conversations: SavedConversation[];
  activeId: string;
  /** While a reply streams the list cannot change (the reply belongs to the conversation on screen). */
  busy: boolean;
  onCreate: () => void;
  onSelect: (id: string) => void;
  onRename: (id: string, title: string) => void;
  onDelete: (id: string) => void;
}

function TitleEditor({ initial, onDone }: { initial: string; onDone: (title: string | null) => void }) {
  const { t } = useTranslation('playground');
  const [title, setTitle] = useState(initial);
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') onDone(title);
    if (event.key === 'Escape') onDone(null);
  };
  return (
    <Input
      size="small"
      autoFocus
      value={title}
      maxLength={MAX_TITLE_LENGTH}
      onChange={setTitle}
      onKeyDown={onKeyDown}
      onBlur={() => onDone(title)}
      placeholder={t('conversations.untitled')}
      aria-label={t('conversations.rename')}
      data-testid="pg-conversation-title-input"
    />
  );
}

/** The conversations, newest first: a click switches, the pencil renames (Enter keeps, Esc drops), the bin deletes after confirming. */
export function ConversationList({ conversations, activeId, busy, onCreate, onSelect, onRename, onDelete }: ConversationListProps) {
  const { t } = useTranslation(['playground', 'common']);
  const [editingId, setEditingId] = useState<string | null>(null);

  return (
    <div className="mg-pg-conversations" data-testid="pg-conversations">
      <div className="mg-pg-conversations-header">
        <Typography.Title heading={5} className="mg-pg-heading">
          {t('conversations.title')}
        </Typography.Title>
        <Tooltip content={busy ? t('conversations.busy') : t('conversations.new')}>
          <Button icon={<IconPlus />} size="small" theme="light" disabled={busy} onClick={onCreate} data-testid="pg-conversation-new">
            {t('conversations.newShort')}
          </Button>
        </Tooltip>
      </div>
      <ul className="mg-pg-conversation-items" aria-label={t('conversations.title')}>
        {conversations.map((conversation) => {
          const active = conversation.id === activeId;
          const title = conversationTitle(conversation);
          return (
            <li
              key={conversation.id}
              className={`mg-pg-conversation${active ? ' mg-pg-conversation-active' : ''}`}
              data-testid="pg-conversation"
              data-active={active}
            >
              {editingId === conversation.id ? (
                <TitleEditor
                  initial={conversation.title || title || ''}
                  onDone={(value) => {
                    setEditingId(null);
                    if (value !== null) onRename(conversation.id, value);
                  }}
                />
              ) : (
                <>
                  <button
                    type="button"
                    className="mg-pg-conversation-pick"
                    aria-current={active ? 'true' : undefined}
                    disabled={busy && !active}
                    onClick={() => onSelect(conversation.id)}
                  >
                    <IconComment size="small" className="mg-pg-conversation-icon" />
                    <span className="mg-pg-conversation-name" data-testid="pg-conversation-name">
                      {title ?? t('conversations.untitled')}
                    </span>
                  </button>
                  <span className="mg-pg-conversation-tools">
                    <Button
                      size="small"
                      theme="borderless"
                      type="tertiary"
                      icon={<IconEdit />}
                      aria-label={t('conversations.rename')}
                      onClick={() => setEditingId(conversation.id)}
                      data-testid="pg-conversation-rename"
                    />
                    <Popconfirm
                      title={t('conversations.deleteConfirm')}
                      content={t('conversations.deleteContent')}
                      okText={t('common:actions.confirm')}
                      cancelText={t('common:actions.cancel')}
                      onConfirm={() => onDelete(conversation.id)}
                      disabled={busy}
                    >
                      <Button
                        size="small"
                        theme="borderless"
                        type="tertiary"
                        icon={<IconDelete />}
                        disabled={busy}
                        aria-label={t('conversations.delete')}
                        data-testid="pg-conversation-delete"
                      />
                    </Popconfirm>
                  </span>
                </>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
