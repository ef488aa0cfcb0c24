import { Button, Dropdown, Toast } from '@douyinfe/semi-ui';
import { IconEyeClosed, IconEyeOpened } from '@douyinfe/semi-icons';
import { TokenStatus } from '@modelgate/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  RowActionGroup,
  RowEditButton,
  RowMoreMenu,
  SplitMenuButton,
  StatusToggleButton,
  useConfirmDelete,
  useRowBusy,
} from '../../../components/shared/row-actions';
import { copyWithFeedback } from '../../../lib/clipboard';
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

/** Spec 02 §2 token actions: view key, copy, chat menu, enable/disable, edit, and connection info and delete under "more". */
export function TokenRowActions(props: TokenRowActionsProps) {
  const { t } = useTranslation('tokens');
  const { token } = props;
  const { busy, run } = useRowBusy<'status' | 'reveal' | 'copy'>();
  const confirmDelete = useConfirmDelete();
  const [connectionOpen, setConnectionOpen] = useState(false);
  const enabled = token.status === TokenStatus.Enabled;

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

  return (
    <RowActionGroup>
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
      <Button size="small" theme="light" loading={busy('copy')} onClick={() => void copyKey()} data-testid={`token-copy-${token.id}`}>
        {t('actions.copy')}
      </Button>
      <SplitMenuButton
        className="mg-token-split"
        type="tertiary"
        label={t('actions.chat')}
        onClick={onChat}
        menu={
          <Dropdown.Menu>
            {props.chat.kind === 'configError' ? (
              <Dropdown.Item disabled>{t('chat.configError')}</Dropdown.Item>
            ) : links.length === 0 ? (
              <Dropdown.Item disabled>{t('chat.notConfigured')}</Dropdown.Item>
            ) : (
              links.map((link) => (
                <Dropdown.Item key={`${link.name}-${link.template}`} onClick={() => void openChat(link)}>
                  {link.name}
                </Dropdown.Item>
              ))
            )}
          </Dropdown.Menu>
        }
        menuLabel={t('actions.chatMenu')}
        menuTestId={`token-chat-menu-${token.id}`}
      />
      <StatusToggleButton
        enabled={enabled}
        loading={busy('status')}
        labels={{ enable: t('actions.enable'), disable: t('actions.disable') }}
        onClick={toggleStatus}
        testId={`token-status-${token.id}`}
      />
      <RowEditButton label={t('actions.edit')} onClick={() => props.onEdit(token)} testId={`token-edit-${token.id}`} />
      <RowMoreMenu label={t('actions.more')} testId={`token-more-${token.id}`}>
        <Dropdown.Item onClick={() => setConnectionOpen(true)} data-testid={`token-connection-${token.id}`}>
          {t('actions.connection')}
        </Dropdown.Item>
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
