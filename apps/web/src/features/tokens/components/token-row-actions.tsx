import { Button, Dropdown, Toast } from '@douyinfe/semi-ui';
import { IconEyeClosed, IconEyeOpened } from '@douyinfe/semi-icons';
import { TokenStatus } from '@modelgate/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  RowActionGroup,
  RowEditButton,
  RowMoreMenu,
  RowPrimaryButton,
  SplitMenuButton,
  StatusToggleItem,
  useConfirmDelete,
  useRowBusy,
} from '../../../components/shared/row-actions';
import { copyWithFeedback } from '../../../lib/clipboard';
import { useNarrowScreen } from '../../../lib/use-narrow-screen';
import { buildChatUrl, type ChatLink } from '../../chat/chat-links';
import { fetchTokenKey, rethrowUnlessApiError, type Token } from '../api';
import type { ChatMenu } from '../chat-menu';
import { enableBlocker, fullKey } from '../token-rules';
import { TokenConnectionModal } from './token-connection-modal';

interface TokenRowActionsProps {
  token: Token;
  keyVisible: boolean;
  onToggleKey: (token: Token) => Promise<void>;
  chat: ChatMenu;
  serverAddress: string;
  onEdit: (token: Token) => void;
  onDelete: (token: Token) => Promise<void>;
  onSetStatus: (token: Token, status: number) => Promise<void>;
}

/**
 * Spec 02 §2 token actions: view key, copy (the main one), chat menu, edit, and enable/disable,
 * connection info and delete under "more"; on a phone the chat links and edit move under "more" too.
 */
export function TokenRowActions(props: TokenRowActionsProps) {
  const { t } = useTranslation('tokens');
  const { token } = props;
  const { busy, run } = useRowBusy<'status' | 'reveal' | 'copy'>();
  const confirmDelete = useConfirmDelete();
  const [connectionOpen, setConnectionOpen] = useState(false);
  const enabled = token.status === TokenStatus.Enabled;
  const narrow = useNarrowScreen();

  // The list holds masked keys only: each use reads the full key from the server and drops it.
  const copyKey = () =>
    run('copy', async () => {
      await copyWithFeedback(fullKey(await fetchTokenKey(token.id)));
    });

  const openChat = async (link: ChatLink) => {
    // Opened now, while the click still counts as the user's: a window opened after the key
    // arrives would be taken for a pop-up. It is cut from this page before it gets the address.
    const popup = window.open('', '_blank');
    if (popup) popup.opener = null;
    try {
      const url = buildChatUrl(link, fullKey(await fetchTokenKey(token.id)), props.serverAddress);
      if (popup) popup.location.href = url;
      else window.open(url, '_blank', 'noopener');
    } catch (error) {
      popup?.close();
      rethrowUnlessApiError(error);
    }
  };

  const onChat = () => {
    if (props.chat.kind === 'configError') return void Toast.error(t('chat.configError'));
    const [first] = props.chat.links;
    if (!first) return void Toast.info(t('chat.notConfigured'));
    void openChat(first);
  };

  const toggleStatus = () => {
    if (!enabled) {
      // Spec 02 §4: an expired or used-up token cannot be enabled; say what to fix first.
      const blocker = enableBlocker(token, Math.floor(Date.now() / 1000));
      if (blocker) return void Toast.error(t(blocker === 'expired' ? 'messages.cannotEnableExpired' : 'messages.cannotEnableExhausted'));
    }
    void run('status', () => props.onSetStatus(token, enabled ? TokenStatus.Disabled : TokenStatus.Enabled));
  };

  const links = props.chat.kind === 'links' ? props.chat.links : [];

  const chatItems =
    props.chat.kind === 'configError' ? (
      <Dropdown.Item disabled>{t('chat.configError')}</Dropdown.Item>
    ) : links.length === 0 ? (
      <Dropdown.Item disabled>{t('chat.notConfigured')}</Dropdown.Item>
    ) : (
      links.map((link) => (
        <Dropdown.Item key={`${link.name}-${link.template}`} onClick={() => void openChat(link)}>
          {link.name}
        </Dropdown.Item>
      ))
    );

  return (
    <RowActionGroup>
      {!narrow && (
        <Button
          size="small"
          theme="borderless"
          type="tertiary"
          icon={props.keyVisible ? <IconEyeClosed /> : <IconEyeOpened />}
          loading={busy('reveal')}
          onClick={() => void run('reveal', () => props.onToggleKey(token))}
          aria-label={props.keyVisible ? t('actions.hideKey') : t('actions.viewKey')}
          data-testid={`token-view-${token.id}`}
        />
      )}
      <RowPrimaryButton label={t('actions.copy')} loading={busy('copy')} onClick={() => void copyKey()} testId={`token-copy-${token.id}`} />
      {!narrow && (
        <SplitMenuButton
          className="mg-token-split"
          type="tertiary"
          label={t('actions.chat')}
          onClick={onChat}
          menu={<Dropdown.Menu>{chatItems}</Dropdown.Menu>}
          menuLabel={t('actions.chatMenu')}
          menuTestId={`token-chat-menu-${token.id}`}
        />
      )}
      {!narrow && <RowEditButton label={t('actions.edit')} onClick={() => props.onEdit(token)} testId={`token-edit-${token.id}`} />}
      <RowMoreMenu label={t('actions.more')} loading={busy('status') || (narrow && busy('reveal'))} testId={`token-more-${token.id}`}>
        {narrow && (
          <>
            <Dropdown.Item onClick={() => void run('reveal', () => props.onToggleKey(token))} data-testid={`token-view-${token.id}`}>
              {props.keyVisible ? t('actions.hideKey') : t('actions.viewKey')}
            </Dropdown.Item>
            <Dropdown.Title>{t('actions.chat')}</Dropdown.Title>
            {chatItems}
            <Dropdown.Divider />
            <Dropdown.Item onClick={() => props.onEdit(token)} data-testid={`token-edit-${token.id}`}>
              {t('actions.edit')}
            </Dropdown.Item>
          </>
        )}
        <Dropdown.Item onClick={() => setConnectionOpen(true)} data-testid={`token-connection-${token.id}`}>
          {t('actions.connection')}
        </Dropdown.Item>
        <StatusToggleItem
          enabled={enabled}
          labels={{ enable: t('actions.enable'), disable: t('actions.disable') }}
          onClick={toggleStatus}
          testId={`token-status-${token.id}`}
        />
        <Dropdown.Divider />
        <Dropdown.Item
          type="danger"
          onClick={() =>
            confirmDelete({
              title: t('confirm.delete'),
              content: t('confirm.deleteContent', { name: token.name }),
              onOk: () => props.onDelete(token).catch(rethrowUnlessApiError),
            })
          }
        >
          {t('actions.delete')}
        </Dropdown.Item>
      </RowMoreMenu>
      {connectionOpen && <TokenConnectionModal token={token} serverAddress={props.serverAddress} onClose={() => setConnectionOpen(false)} />}
    </RowActionGroup>
  );
}
