import { Button, Dropdown } from '@douyinfe/semi-ui';
import { ChannelStatus } from '@modelgate/contract';
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
import { rethrowUnlessApiError, type Channel } from '../api';
import { splitList } from '../channel-display';
import type { ChannelActions } from '../use-channel-actions';
import { ChannelCopyModal } from './channel-copy-modal';
import { ChannelModelTestModal } from './channel-model-test-modal';

interface ChannelRowActionsProps {
  channel: Channel;
  actions: ChannelActions;
  onEdit: (channel: Channel) => void;
  /** Opens the key list of a multi-key channel. */
  onManageKeys: (channel: Channel) => void;
}

/** Spec 02 §2 row operations: test (with a per-model menu that also opens the model test dialog), enable/disable, edit, and copy and delete under "more". */
export function ChannelRowActions({ channel, actions, onEdit, onManageKeys }: ChannelRowActionsProps) {
  const { t } = useTranslation('channels');
  const { busy, run } = useRowBusy<'test' | 'status'>();
  const [dialog, setDialog] = useState<'test' | 'copy' | null>(null);
  const confirmDelete = useConfirmDelete();
  const models = splitList(channel.models);
  const enabled = channel.status === ChannelStatus.Enabled;

  return (
    <RowActionGroup>
      <SplitMenuButton
        className="mg-nowrap"
        label={t('actions.test')}
        loading={busy('test')}
        onClick={() => void run('test', () => actions.test(channel))}
        testId={`channel-test-${channel.id}`}
        menu={
          <Dropdown.Menu className="mg-channel-model-menu">
            <Dropdown.Item onClick={() => setDialog('test')} data-testid={`channel-model-test-${channel.id}`}>
              {t('actions.openModelTest')}
            </Dropdown.Item>
            <Dropdown.Divider />
            <Dropdown.Title>{t('actions.testModels')}</Dropdown.Title>
            {models.map((model) => (
              <Dropdown.Item key={model} onClick={() => void run('test', () => actions.test(channel, model))}>
                {model}
              </Dropdown.Item>
            ))}
          </Dropdown.Menu>
        }
        menuLabel={t('actions.testModels')}
        menuDisabled={models.length === 0 || busy('test')}
        menuTestId={`channel-test-menu-${channel.id}`}
      />
      <StatusToggleButton
        enabled={enabled}
        loading={busy('status')}
        labels={{ enable: t('actions.enable'), disable: t('actions.disable') }}
        onClick={() => void run('status', () => actions.setStatus(channel, enabled ? ChannelStatus.ManuallyDisabled : ChannelStatus.Enabled))}
      />
      <RowEditButton label={t('actions.edit')} onClick={() => onEdit(channel)} testId={`channel-edit-${channel.id}`} />
      <RowMoreMenu label={t('actions.more')} testId={`channel-more-${channel.id}`}>
        {channel.channel_info.is_multi_key && (
          <Dropdown.Item onClick={() => onManageKeys(channel)} data-testid={`channel-keys-${channel.id}`}>
            {t('actions.manageKeys')}
          </Dropdown.Item>
        )}
        <Dropdown.Item onClick={() => setDialog('copy')}>{t('actions.copy')}</Dropdown.Item>
        <Dropdown.Item
          type="danger"
          onClick={() =>
            confirmDelete({
              title: t('confirm.delete'),
              content: t('confirm.deleteContent'),
              onOk: () => actions.remove(channel).catch(rethrowUnlessApiError),
            })
          }
        >
          {t('actions.delete')}
        </Dropdown.Item>
      </RowMoreMenu>
      {dialog === 'test' && <ChannelModelTestModal channel={channel} visible onClose={() => setDialog(null)} />}
      {dialog === 'copy' && <ChannelCopyModal channel={channel} actions={actions} visible onClose={() => setDialog(null)} />}
    </RowActionGroup>
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
  const { busy, run } = useRowBusy<'enable' | 'disable'>();
  const toggle = (enabled: boolean) => void run(enabled ? 'enable' : 'disable', () => actions.setTagEnabled(tag, enabled));
  return (
    <RowActionGroup>
      <Button size="small" theme="light" loading={busy('enable')} onClick={() => toggle(true)}>
        {t('actions.enableAll')}
      </Button>
      <Button size="small" theme="light" type="warning" loading={busy('disable')} onClick={() => toggle(false)}>
        {t('actions.disableAll')}
      </Button>
      <RowEditButton label={t('actions.edit')} onClick={() => onEditTag(tag)} testId={`tag-edit-${tag}`} />
    </RowActionGroup>
  );
}
