import { Button, Tag, Toast, Typography } from '@douyinfe/semi-ui';
import { IconChevronDown, IconChevronUp } from '@douyinfe/semi-icons';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSessionUser } from '../../lib/session';
import { useNarrowScreen } from '../../lib/use-narrow-screen';
import { checkRequest } from './chat-request';
import { Composer } from './components/composer';
import { MessageList } from './components/message-list';
import { SettingsPanel } from './components/settings-panel';
import { useUserGroups, useUserModels } from './queries';
import { useConversation } from './use-conversation';
import { usePlaygroundSettings } from './use-playground-settings';
import './playground.css';

function Playground({ userId, userGroup }: { userId: number; userGroup: string | undefined }) {
  const { t } = useTranslation('playground');
  const narrow = useNarrowScreen();
  const [settingsOpen, setSettingsOpen] = useState(false);
  const models = useUserModels();
  const groups = useUserGroups();
  const { settings, update, groupNames } = usePlaygroundSettings(userId, userGroup, models.data, groups.data);
  const conversation = useConversation(userId);
  const { send } = conversation;

  const onSend = useCallback(
    (text: string) => {
      const problem = checkRequest(settings, text);
      if (problem === 'emptyMessage') return false;
      if (problem) {
        Toast.warning(t(`problems.${problem}`));
        return false;
      }
      void send(text, settings);
      return true;
    },
    [settings, send, t],
  );

  const onClear = useCallback(() => {
    conversation.clear();
    Toast.success(t('chat.cleared'));
  }, [conversation, t]);

  const showSettings = !narrow || settingsOpen;

  return (
    <div className="mg-pg-page">
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
            onChange={update}
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
          <Typography.Title heading={4} className="mg-pg-heading">
            {t('title')}
          </Typography.Title>
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
        </header>
        <MessageList messages={conversation.messages} />
        <Composer
          streaming={conversation.streaming}
          hasMessages={conversation.messages.length > 0}
          onSend={onSend}
          onStop={conversation.stop}
          onClear={onClear}
        />
      </section>
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
