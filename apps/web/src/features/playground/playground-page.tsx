import { Button, SideSheet, Tag, Toast, Typography } from '@douyinfe/semi-ui';
import { IconChevronDown, IconChevronUp, IconCode, IconList } from '@douyinfe/semi-icons';
import { useCallback, useMemo, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { useSessionUser } from '../../lib/session';
import { useNarrowScreen } from '../../lib/use-narrow-screen';
import { buildChatRequest, checkRequest } from './chat-request';
import { conversationTitle } from './conversation-store';
import { Composer } from './components/composer';
import { ConversationList } from './components/conversation-list';
import { DebugPanel } from './components/debug-panel';
import { MessageList } from './components/message-list';
import { SettingsPanel } from './components/settings-panel';
import { useUserGroups, useUserModels } from './queries';
import { useConversations } from './use-conversations';
import { usePlaygroundSettings } from './use-playground-settings';
import './playground.css';

/** Below this width the conversation list leaves its column for a drawer (three columns no longer fit). */
const LIST_IN_DRAWER = '(max-width: 1360px)';
const subscribeListQuery = (onChange: () => void) => {
  const query = window.matchMedia?.(LIST_IN_DRAWER);
  query?.addEventListener('change', onChange);
  return () => query?.removeEventListener('change', onChange);
};
const listInDrawer = () => window.matchMedia?.(LIST_IN_DRAWER).matches ?? false;

function Playground({ userId, userGroup }: { userId: number; userGroup: string | undefined }) {
  const { t } = useTranslation('playground');
  const narrow = useNarrowScreen();
  const compact = useSyncExternalStore(subscribeListQuery, listInDrawer, () => false);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [listOpen, setListOpen] = useState(false);
  const [debugOpen, setDebugOpen] = useState(false);
  const models = useUserModels();
  const groups = useUserGroups();
  const conversations = useConversations(userId);
  const { active, send, updateSettings } = conversations;
  const settings = active.settings;
  const groupNames = usePlaygroundSettings(settings, updateSettings, userGroup, models.data, groups.data);

  const onSend = useCallback(
    (text: string, images: string[]) => {
      const problem = checkRequest(settings, text, images.length);
      if (problem === 'emptyMessage') return false;
      if (problem) {
        Toast.warning(t(`problems.${problem}`));
        return false;
      }
      send(text, images);
      return true;
    },
    [settings, send, t],
  );

  const onClear = useCallback(() => {
    conversations.clear();
    Toast.success(t('chat.cleared'));
  }, [conversations, t]);

  const preview = useMemo(() => buildChatRequest(settings, active.messages), [settings, active.messages]);
  const showSettings = !narrow || settingsOpen;

  const list = (
    <ConversationList
      conversations={conversations.conversations}
      activeId={active.id}
      busy={conversations.streaming}
      onCreate={() => {
        conversations.create();
        setListOpen(false);
      }}
      onSelect={(id) => {
        conversations.select(id);
        setListOpen(false);
      }}
      onRename={conversations.rename}
      onDelete={conversations.remove}
    />
  );

  return (
    <div className="mg-pg-page">
      {compact ? (
        <SideSheet
          title={t('conversations.title')}
          visible={listOpen}
          onCancel={() => setListOpen(false)}
          placement="left"
          width={narrow ? '86vw' : 320}
          className="mg-pg-list-sheet"
        >
          {list}
        </SideSheet>
      ) : (
        <nav className="mg-pg-list-column" aria-label={t('conversations.title')}>
          {list}
        </nav>
      )}
      <aside className="mg-pg-sidebar" aria-label={t('settings.title')}>
        <div className="mg-pg-sidebar-header">
          <Typography.Title heading={5} className="mg-pg-heading">
            {t('settings.title')}
          </Typography.Title>
          {narrow && (
            <Button
              size="small"
              theme="borderless"
              icon={settingsOpen ? <IconChevronUp /> : <IconChevronDown />}
              aria-expanded={settingsOpen}
              onClick={() => setSettingsOpen((open) => !open)}
              data-testid="pg-settings-toggle"
            >
              {settingsOpen ? t('settings.hide') : t('settings.show')}
            </Button>
          )}
        </div>
        {showSettings && (
          <SettingsPanel
            settings={settings}
            onChange={updateSettings}
            groupNames={groupNames}
            groups={groups.data ?? {}}
            models={models.data ?? []}
            loadingModels={models.isLoading}
            loadingGroups={groups.isLoading}
          />
        )}
      </aside>
      <section className="mg-pg-chat">
        <header className="mg-pg-chat-header">
          <div className="mg-pg-chat-title">
            <Typography.Title heading={4} className="mg-pg-heading">
              {t('title')}
            </Typography.Title>
            <Typography.Text type="tertiary" ellipsis={{ showTooltip: true }} className="mg-pg-chat-subtitle" data-testid="pg-active-title">
              {conversationTitle(active) ?? t('conversations.untitled')}
            </Typography.Text>
          </div>
          <div className="mg-pg-chat-tags">
            {settings.model && (
              <Tag color="green" data-testid="pg-current-model">
                {settings.model}
              </Tag>
            )}
            <Tag color="blue" data-testid="pg-current-group">
              {settings.group || t('settings.ownGroup')}
            </Tag>
          </div>
          <div className="mg-pg-chat-tools">
            {compact && (
              <Button icon={<IconList />} theme="borderless" onClick={() => setListOpen(true)} data-testid="pg-conversations-open">
                {t('conversations.open', { count: conversations.conversations.length })}
              </Button>
            )}
            <Button
              icon={<IconCode />}
              theme={debugOpen ? 'light' : 'borderless'}
              aria-pressed={debugOpen}
              onClick={() => setDebugOpen((open) => !open)}
              data-testid="pg-debug-toggle"
            >
              {t('debug.toggle')}
            </Button>
          </div>
        </header>
        <MessageList
          messages={active.messages}
          busy={conversations.streaming}
          onEdit={conversations.editAndResend}
          onRegenerate={conversations.regenerate}
          onDelete={conversations.removeMessage}
        />
        <Composer
          key={active.id}
          streaming={conversations.streaming}
          hasMessages={active.messages.length > 0}
          onSend={onSend}
          onStop={conversations.stop}
          onClear={onClear}
        />
      </section>
      <DebugPanel
        open={debugOpen}
        narrow={narrow}
        record={conversations.debug}
        preview={preview}
        busy={conversations.streaming}
        onClose={() => setDebugOpen(false)}
        onSendCustom={conversations.sendCustom}
      />
    </div>
  );
}

/** /playground (spec 02 §2): chat with the user's models through POST /pg/chat/completions, billed to the user. */
export default function PlaygroundPage() {
  const user = useSessionUser();
  // The route guard renders this page only for a signed-in user; keyed so another user gets fresh state.
  if (!user) return null;
  return <Playground key={user.id} userId={user.id} userGroup={user.group} />;
}
