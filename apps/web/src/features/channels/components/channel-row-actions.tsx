import { Dropdown } from '@douyinfe/semi-ui';
import { ChannelStatus } from '@modelgate/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  RowActionGroup,
  RowMoreMenu,
  RowPrimaryButton,
  SplitMenuButton,
  StatusToggleItem,
  useConfirmDelete,
  useRowBusy,
} from '../../../components/shared/row-actions';
import { useNarrowScreen } from '../../../lib/use-narrow-screen';
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

/**
 * Spec 02 §2 row operations: edit, test (with a per-model menu), and under "more" enable/disable,
 * the key list, copy (a dialog) and delete; the test's menu also opens the model test dialog. On a phone the test moves into "more" as well.
 */
export function ChannelRowActions({ channel, actions, onEdit, onManageKeys }: ChannelRowActionsProps) {
  const { t } = useTranslation('channels');
  const narrow = useNarrowScreen();
  const { busy, run } = useRowBusy<'test' | 'status'>();
  const [dialog, setDialog] = useState<'test' | 'copy' | null>(null);
  const confirmDelete = useConfirmDelete();
  const models = splitList(channel.models);
  const enabled = channel.status === ChannelStatus.Enabled;
  const test = () => void run('test', () => actions.test(channel));

  return (
    <RowActionGroup>
      <RowPrimaryButton label={t('actions.edit')} onClick={() => onEdit(channel)} testId={`channel-edit-${channel.id}`} />
      {!narrow && (
        <SplitMenuButton
          className="mg-nowrap"
          type="tertiary"
          label={t('actions.test')}
          loading={busy('test')}
          onClick={test}
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
      )}
      <RowMoreMenu label={t('actions.more')} loading={busy('status') || (narrow && busy('test'))} testId={`channel-more-${channel.id}`}>
        {narrow && <Dropdown.Item onClick={test}>{t('actions.test')}</Dropdown.Item>}
        {narrow && (
          <Dropdown.Item onClick={() => setDialog('test')} data-testid={`channel-model-test-${channel.id}`}>
            {t('actions.openModelTest')}
          </Dropdown.Item>
        )}
        <StatusToggleItem
          enabled={enabled}
          labels={{ enable: t('actions.enable'), disable: t('actions.disable') }}
          onClick={() => void run('status', () => actions.setStatus(channel, enabled ? ChannelStatus.ManuallyDisabled : ChannelStatus.Enabled))}
          testId={`channel-toggle-${channel.id}`}
        />
        {channel.channel_info.is_multi_key && (
          <Dropdown.Item onClick={() => onManageKeys(channel)} data-testid={`channel-keys-${channel.id}`}>
            {t('actions.manageKeys')}
          </Dropdown.Item>
        )}
        <Dropdown.Item onClick={() => setDialog('copy')}>{t('actions.copy')}</Dropdown.Item>
        <Dropdown.Divider />
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

/** Tag rows (aggregation mode): edit, and enable all and disable all under "more". */
export function TagRowActions({ tag, actions, onEditTag }: TagRowActionsProps) {
  const { t } = useTranslation('channels');
  const { busy, run } = useRowBusy<'toggle'>();
  const toggle = (enabled: boolean) => void run('toggle', () => actions.setTagEnabled(tag, enabled));
  return (
    <RowActionGroup>
      <RowPrimaryButton label={t('actions.edit')} onClick={() => onEditTag(tag)} testId={`tag-edit-${tag}`} />
      <RowMoreMenu label={t('actions.more')} loading={busy('toggle')} testId={`tag-more-${tag}`}>
        <Dropdown.Item onClick={() => toggle(true)}>{t('actions.enableAll')}</Dropdown.Item>
        <Dropdown.Item onClick={() => toggle(false)}>{t('actions.disableAll')}</Dropdown.Item>
      </RowMoreMenu>
    </RowActionGroup>
  );
}
