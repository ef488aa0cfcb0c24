import { IconComment } from '@douyinfe/semi-icons';
import { Banner, Button, Tag } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { parseChats } from '../../chat/chat-links';
import type { OptionValues } from '../options/options-api';
import { isValidJson } from '../options/option-rules';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { OptionTextAreaField } from './option-fields';
import { chatsIssue } from './operation-rules';

const KEYS = ['Chats'] as const;

/** What new-api's console ships as its example: ChatGPT Next Web, given the key and address in its settings fragment. */
const EXAMPLE = JSON.stringify([{ 'ChatGPT Next Web': 'https://app.nextchat.dev/#/?settings={"key":"{key}","url":"{address}"}' }], null, 2);

/** The chat clients of the Chats text, for the read-out; none while it does not parse. */
function configuredChats(text: string): string[] {
  if (!isValidJson(text) || chatsIssue(text)) return [];
  return parseChats(text).map((chat) => chat.name);
}

/** 令牌聊天设置: the Chats JSON (chat clients offered on each token), checked before saving. */
export function ChatsCard() {
  const { t } = useTranslation('settings-operation');
  const name = t('fields.Chats.label');
  const validate = (values: OptionValues) => {
    const issue = chatsIssue(values.Chats ?? '[]');
    return issue ? t(`json.${issue.problem}`, { name }) : null;
  };
  const card = useOptionCard(KEYS, { validate, jsonNames: { Chats: name } });
  const names = configuredChats(card.value('Chats'));
  return (
    <OptionCardFrame
      card={card}
      title={t('cards.chats.title')}
      icon={<IconComment />}
      description={t('cards.chats.description')}
      testId="op-card-chats"
      actions={
        <Button theme="light" onClick={() => card.set('Chats', EXAMPLE)}>
          {t('chats.example')}
        </Button>
      }
    >
      <Banner type="info" fullMode={false} closeIcon={null} className="mg-op-banner" description={t('chats.format')} />
      <div className="mg-option-grid">
        <OptionTextAreaField card={card} optionKey="Chats" json={{ name }} minRows={5} />
      </div>
      <div className="mg-op-readout" data-testid="op-chats-readout">
        <span className="mg-op-readout-label">{t('chats.configured', { count: names.length })}</span>
        {names.map((chat) => (
          <Tag key={chat} color="light-blue" size="large">
            {chat}
          </Tag>
        ))}
      </div>
    </OptionCardFrame>
  );
}
