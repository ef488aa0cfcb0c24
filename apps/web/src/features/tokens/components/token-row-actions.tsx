import { Button, Dropdown, Modal, Space, SplitButtonGroup, Toast } from '@douyinfe/semi-ui';
import { IconEyeClosed, IconEyeOpened, IconMore, IconTreeTriangleDown } from '@douyinfe/semi-icons';
import { TokenStatus } from '@modelgate/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../../lib/clipboard';
import { buildChatUrl, type ChatLink } from '../../chat/chat-links';
import { fetchTokenKey, rethrowUnlessApiError, type Token } from '../api';
import type { ChatMenu } from '../chat-menu';
import { enableBlocker, fullKey } from '../token-rules';

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

/** Spec 02 §2 token actions: view key, copy, chat menu, enable/disable, edit, and delete under "more". */
export function TokenRowActions(props: TokenRowActionsProps) {
  const { t } = useTranslation('tokens');
  const { t: tCommon } = useTranslation('common');
  const { token } = props;
  const [switching, setSwitching] = useState(false);
  const [revealing, setRevealing] = useState(false);
  const [copying, setCopying] = useState(false);
  const enabled = token.status === TokenStatus.Enabled;

  // The list holds masked keys only: each use reads the full key from the server and drops it.
  const copyKey = async () => {
    setCopying(true);
    try {
      await copyWithFeedback(fullKey(await fetchTokenKey(token.id)));
    } catch (error) {
      rethrowUnlessApiError(error);
    } finally {
      setCopying(false);
    }
  };

  const toggleKey = async () => {
    setRevealing(true);
    await props.onToggleKey(token).catch(rethrowUnlessApiError);
    setRevealing(false);
  };

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

  const toggleStatus = async () => {
    if (!enabled) {
      // Spec 02 §4: an expired or used-up token cannot be enabled; say what to fix first.
      const blocker = enableBlocker(token, Math.floor(Date.now() / 1000));
      if (blocker) return void Toast.error(t(blocker === 'expired' ? 'messages.cannotEnableExpired' : 'messages.cannotEnableExhausted'));
    }
    setSwitching(true);
    await props.onSetStatus(token, enabled ? TokenStatus.Disabled : TokenStatus.Enabled).catch(rethrowUnlessApiError);
    setSwitching(false);
  };

  const confirmDelete = () =>
    Modal.confirm({
      title: t('confirm.delete'),
      content: t('confirm.deleteContent', { name: token.name }),
      okText: tCommon('actions.confirm'),
      cancelText: tCommon('actions.cancel'),
      okButtonProps: { type: 'danger', theme: 'solid' },
      centered: true,
      onOk: () => props.onDelete(token).catch(rethrowUnlessApiError),
    });

  const links = props.chat.kind === 'links' ? props.chat.links : [];

  return (
    <Space spacing={4} wrap={false}>
      <Button
        size="small"
        theme="borderless"
        type="tertiary"
        icon={props.keyVisible ? <IconEyeClosed /> : <IconEyeOpened />}
        loading={revealing}
        onClick={() => void toggleKey()}
        aria-label={props.keyVisible ? t('actions.hideKey') : t('actions.viewKey')}
        data-testid={`token-view-${token.id}`}
      />
      <Button size="small" theme="light" loading={copying} onClick={() => void copyKey()} data-testid={`token-copy-${token.id}`}>
        {t('actions.copy')}
      </Button>
      <SplitButtonGroup className="mg-token-split">
        <Button size="small" theme="light" type="tertiary" onClick={onChat}>
          {t('actions.chat')}
        </Button>
        <Dropdown
          trigger="click"
          clickToHide
          position="bottomRight"
          render={
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
        >
          <Button
            size="small"
            theme="light"
            type="tertiary"
            icon={<IconTreeTriangleDown />}
            aria-label={t('actions.chatMenu')}
            data-testid={`token-chat-menu-${token.id}`}
          />
        </Dropdown>
      </SplitButtonGroup>
      <Button
        size="small"
        theme="light"
        type={enabled ? 'warning' : 'secondary'}
        loading={switching}
        onClick={() => void toggleStatus()}
        data-testid={`token-status-${token.id}`}
      >
        {enabled ? t('actions.disable') : t('actions.enable')}
      </Button>
      <Button size="small" theme="light" type="tertiary" onClick={() => props.onEdit(token)} data-testid={`token-edit-${token.id}`}>
        {t('actions.edit')}
      </Button>
      <Dropdown
        trigger="click"
        clickToHide
        position="bottomRight"
        render={
          <Dropdown.Menu>
            <Dropdown.Item type="danger" onClick={confirmDelete}>
              {t('actions.delete')}
            </Dropdown.Item>
          </Dropdown.Menu>
        }
      >
        <Button size="small" theme="light" type="tertiary" icon={<IconMore />} aria-label={t('actions.more')} data-testid={`token-more-${token.id}`} />
      </Dropdown>
    </Space>
  );
}
