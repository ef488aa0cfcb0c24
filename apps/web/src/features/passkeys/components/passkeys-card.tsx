import { Button, Card, Empty, Input, Modal, Popconfirm, Tag, Toast, Typography } from '@douyinfe/semi-ui';
import { IconDelete, IconKey, IconPlus } from '@douyinfe/semi-icons';
import type { Passkey } from '@modelgate/contract';
import { browserSupportsWebAuthn } from '@simplewebauthn/browser';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatTimestamp } from '../../../lib/date-time';
import { modalButtonLabels } from '../../../lib/modal-labels';
import { useStatus } from '../../status/queries';
import { removePasskey } from '../api';
import { registerPasskey } from '../passkey-ceremonies';
import { usePasskeys, useRefreshPasskeys } from '../queries';
import '../passkeys.css';

/** 通行密钥 in the personal settings: the user's passkeys, adding one and removing one (both after a security verification). */
export function PasskeysCard() {
  const { t } = useTranslation(['passkeys', 'common']);
  const status = useStatus();
  const passkeys = usePasskeys();
  const refresh = useRefreshPasskeys();
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);

  // Adding and removing need a fresh security verification: the API client opens the shared
  // verification modal when the server asks for one and sends the call again after it.
  const perform = (action: () => Promise<void>) => {
    setBusy(true);
    action()
      .catch(() => {
        /* the API client, the verification modal or the ceremony showed why */
      })
      .finally(() => {
        setBusy(false);
        void refresh();
      });
  };

  const add = () => {
    setNaming(false);
    const chosen = name.trim();
    perform(async () => {
      await registerPasskey(chosen);
      Toast.success(t('card.added'));
      setName('');
    });
  };

  const remove = (passkey: Passkey) =>
    perform(async () => {
      await removePasskey(passkey.id);
      Toast.success(t('card.removed'));
    });

  const enabled = status.passkey_login !== false;
  const supported = browserSupportsWebAuthn();
  const list = passkeys.data?.passkeys ?? [];

  return (
    <Card
      className="mg-settings-card mg-passkeys-card"
      data-testid="passkeys-card"
      title={
        <span className="mg-card-title">
          <IconKey /> {t('card.title')}
        </span>
      }
    >
      <div className="mg-passkeys-head">
        <Typography.Text type="tertiary" size="small">
          {!enabled ? t('card.disabled') : supported ? t('card.description') : t('card.unsupported')}
        </Typography.Text>
        <Button size="small" theme="light" type="primary" icon={<IconPlus />} disabled={!enabled || !supported} loading={busy} onClick={() => setNaming(true)}>
          {t('card.add')}
        </Button>
      </div>
      {list.length === 0 ? (
        <Empty className="mg-passkeys-empty" description={t('card.empty')} />
      ) : (
        <ul className="mg-passkeys-list">
          {list.map((passkey) => (
            <li key={passkey.id} className="mg-passkey-row" data-testid="passkey-row">
              <span className="mg-binding-icon">
                <IconKey />
              </span>
              <div className="mg-passkey-text">
                <Typography.Text strong ellipsis={{ showTooltip: true }}>
                  {passkey.name || t('card.unnamed', { id: passkey.id })}
                  {passkey.backup_eligible && (
                    <Tag size="small" color="green" className="mg-passkey-tag">
                      {t('card.synced')}
                    </Tag>
                  )}
                </Typography.Text>
                <Typography.Text type="tertiary" size="small">
                  {t('card.created', { time: formatTimestamp(passkey.created_at) })}
                  {' · '}
                  {passkey.last_used_at ? t('card.lastUsed', { time: formatTimestamp(passkey.last_used_at) }) : t('card.neverUsed')}
                </Typography.Text>
              </div>
              <Popconfirm
                title={t('card.removeTitle')}
                content={t('card.removeContent')}
                okType="danger"
                okText={t('common:actions.confirm')}
                cancelText={t('common:actions.cancel')}
                onConfirm={() => remove(passkey)}
              >
                <Button size="small" theme="borderless" type="danger" icon={<IconDelete />} disabled={busy} aria-label={t('card.remove')}>
                  {t('card.remove')}
                </Button>
              </Popconfirm>
            </li>
          ))}
        </ul>
      )}
      <Modal
        title={t('name.title')}
        visible={naming}
        onCancel={() => setNaming(false)}
        onOk={add}
        okText={t('name.next')}
        cancelText={t('common:actions.cancel')}
        {...modalButtonLabels(t('name.next'), t('common:actions.cancel'))}
        centered
      >
        <form
          className="mg-passkey-name"
          onSubmit={(event) => {
            event.preventDefault();
            add();
          }}
        >
          <Typography.Text strong>{t('name.label')}</Typography.Text>
          <Input value={name} onChange={setName} maxLength={64} placeholder={t('name.placeholder')} aria-label={t('name.label')} autoFocus />
          <Typography.Text type="tertiary" size="small">
            {t('name.hint')}
          </Typography.Text>
        </form>
      </Modal>
    </Card>
  );
}
