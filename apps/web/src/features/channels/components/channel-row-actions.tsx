import { Button, Dropdown, Modal, Space, SplitButtonGroup } from '@douyinfe/semi-ui';
import { IconMore, IconTreeTriangleDown } from '@douyinfe/semi-icons';
import { ChannelStatus } from '@modelgate/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { rethrowUnlessApiError, type Channel } from '../api';
import { splitList } from '../channel-display';
import type { ChannelActions } from '../use-channel-actions';

interface ChannelRowActionsProps {
  channel: Channel;
  actions: ChannelActions;
  onEdit: (channel: Channel) => void;
}

/** The API client has already shown an API error; a bug still surfaces. */
const quietly = (work: Promise<void>) => work.catch(rethrowUnlessApiError);

/** Spec 02 §2 row operations: test (with a per-model menu), enable/disable, edit, and copy and delete under "more". */
export function ChannelRowActions({ channel, actions, onEdit }: ChannelRowActionsProps) {
  const { t } = useTranslation('channels');
  const { t: tCommon } = useTranslation('common');
  const [busy, setBusy] = useState<'test' | 'status' | 'copy' | null>(null);
  const models = splitList(channel.models);

  const run = async (kind: 'test' | 'status' | 'copy', work: () => Promise<void>) => {
    setBusy(kind);
    await quietly(work());
    setBusy(null);
  };

  const enabled = channel.status === ChannelStatus.Enabled;
  const confirmDelete = () =>
    Modal.confirm({
      title: t('confirm.delete'),
      content: t('confirm.deleteContent'),
      okText: tCommon('actions.confirm'),
      cancelText: tCommon('actions.cancel'),
      okButtonProps: { type: 'danger', theme: 'solid' },
      centered: true,
      onOk: () => quietly(actions.remove(channel)),
    });

  return (
    <Space spacing={4} wrap={false}>
      <SplitButtonGroup className="mg-nowrap">
        <Button
          size="small"
          theme="light"
          loading={busy === 'test'}
          onClick={() => void run('test', () => actions.test(channel))}
          data-testid={`channel-test-${channel.id}`}
        >
          {t('actions.test')}
        </Button>
        <Dropdown
          trigger="click"
          clickToHide
          position="bottomRight"
          render={
            <Dropdown.Menu className="mg-channel-model-menu">
              <Dropdown.Title>{t('actions.testModels')}</Dropdown.Title>
              {models.map((model) => (
                <Dropdown.Item key={model} onClick={() => void run('test', () => actions.test(channel, model))}>
                  {model}
                </Dropdown.Item>
              ))}
            </Dropdown.Menu>
          }
        >
          <Button
            size="small"
            theme="light"
            icon={<IconTreeTriangleDown />}
            disabled={models.length === 0 || busy === 'test'}
            aria-label={t('actions.testModels')}
            data-testid={`channel-test-menu-${channel.id}`}
          />
        </Dropdown>
      </SplitButtonGroup>
      <Button
        size="small"
        theme="light"
        type={enabled ? 'warning' : 'secondary'}
        loading={busy === 'status'}
        onClick={() => void run('status', () => actions.setStatus(channel, enabled ? ChannelStatus.ManuallyDisabled : ChannelStatus.Enabled))}
      >
        {enabled ? t('actions.disable') : t('actions.enable')}
      </Button>
      <Button size="small" theme="light" type="tertiary" onClick={() => onEdit(channel)} data-testid={`channel-edit-${channel.id}`}>
        {t('actions.edit')}
      </Button>
      <Dropdown
        trigger="click"
        clickToHide
        position="bottomRight"
        render={
          <Dropdown.Menu>
            <Dropdown.Item onClick={() => void run('copy', () => actions.copy(channel))}>{t('actions.copy')}</Dropdown.Item>
            <Dropdown.Item type="danger" onClick={confirmDelete}>
              {t('actions.delete')}
            </Dropdown.Item>
          </Dropdown.Menu>
        }
      >
        <Button
          size="small"
          theme="light"
          type="tertiary"
          icon={<IconMore />}
          loading={busy === 'copy'}
          aria-label={t('actions.more')}
          data-testid={`channel-more-${channel.id}`}
        />
      </Dropdown>
    </Space>
  );
}

interface TagRowActionsProps {
  tag: string;
  actions: ChannelActions;
  onEditTag: (tag: string) => void;
}

/** Tag rows (aggregation mode): enable all, disable all, edit. */
export function TagRowActions({ tag, actions, onEditTag }: TagRowActionsProps) {
  const { t } = useTranslation('channels');
  const [busy, setBusy] = useState<'enable' | 'disable' | null>(null);
  const toggle = async (enabled: boolean) => {
    setBusy(enabled ? 'enable' : 'disable');
    await quietly(actions.setTagEnabled(tag, enabled));
    setBusy(null);
  };
  return (
    <Space spacing={4} wrap={false}>
      <Button size="small" theme="light" loading={busy === 'enable'} onClick={() => void toggle(true)}>
        {t('actions.enableAll')}
      </Button>
      <Button size="small" theme="light" type="warning" loading={busy === 'disable'} onClick={() => void toggle(false)}>
        {t('actions.disableAll')}
      </Button>
      <Button size="small" theme="light" type="tertiary" onClick={() => onEditTag(tag)} data-testid={`tag-edit-${tag}`}>
        {t('actions.edit')}
      </Button>
    </Space>
  );
}
