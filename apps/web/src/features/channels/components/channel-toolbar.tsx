import { Button, Popconfirm, Space, Switch, Typography } from '@douyinfe/semi-ui';
import { IconPlus, IconRefresh } from '@douyinfe/semi-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { rethrowUnlessApiError } from '../api';

export interface ToolbarToggles {
  idSort: boolean;
  batch: boolean;
  tagMode: boolean;
}

interface ChannelToolbarProps {
  toggles: ToolbarToggles;
  onToggle: (name: keyof ToolbarToggles, value: boolean) => void;
  onAdd: () => void;
  onRefresh: () => void;
  refreshing: boolean;
  onTestAll: () => Promise<void>;
  onUpdateAllBalances: () => Promise<void>;
  onDeleteDisabled: () => Promise<void>;
  onFix: () => Promise<void>;
  selectedCount: number;
  onDeleteSelected: () => Promise<void>;
  onBatchTag: () => void;
}

type LongTask = 'testAll' | 'balances' | 'deleteDisabled' | 'fix' | 'deleteSelected';

/** The buttons and switches of spec 02 §2; long calls keep their button spinning until done. */
export function ChannelToolbar(props: ChannelToolbarProps) {
  const { t } = useTranslation('channels');
  const [running, setRunning] = useState<LongTask | null>(null);
  const run = (task: LongTask, work: () => Promise<void>) => async () => {
    setRunning(task);
    try {
      await work();
    } catch (error) {
      rethrowUnlessApiError(error);
    } finally {
      setRunning(null);
    }
  };

  const toggle = (name: keyof ToolbarToggles, testId: string) => (
    <label className="mg-channel-toggle">
      <Switch size="small" checked={props.toggles[name]} onChange={(value) => props.onToggle(name, value)} data-testid={testId} />
      <Typography.Text>{t(`toggles.${name}`)}</Typography.Text>
    </label>
  );

  return (
    <div className="mg-channel-toolbar">
      <Space wrap spacing={8}>
        <Button theme="solid" type="primary" icon={<IconPlus />} onClick={props.onAdd} data-testid="channel-add">
          {t('actions.add')}
        </Button>
        <Popconfirm title={t('confirm.testAll')} content={t('confirm.testAllContent')} onConfirm={run('testAll', props.onTestAll)}>
          <Button loading={running === 'testAll'}>{t('actions.testAll')}</Button>
        </Popconfirm>
        <Button loading={running === 'balances'} onClick={run('balances', props.onUpdateAllBalances)}>
          {t('actions.updateAllBalances')}
        </Button>
        <Popconfirm
          title={t('confirm.deleteDisabled')}
          content={t('confirm.deleteContent')}
          okType="danger"
          onConfirm={run('deleteDisabled', props.onDeleteDisabled)}
        >
          <Button type="danger" loading={running === 'deleteDisabled'} data-testid="channel-delete-disabled">
            {t('actions.deleteDisabled')}
          </Button>
        </Popconfirm>
        <Popconfirm title={t('confirm.fix')} content={t('confirm.fixContent')} okType="warning" onConfirm={run('fix', props.onFix)}>
          <Button type="warning" loading={running === 'fix'}>
            {t('actions.fix')}
          </Button>
        </Popconfirm>
        <Button icon={<IconRefresh />} loading={props.refreshing} onClick={props.onRefresh}>
          {t('actions.refresh')}
        </Button>
      </Space>
      <Space wrap spacing={16}>
        {toggle('idSort', 'channel-toggle-id-sort')}
        {toggle('batch', 'channel-toggle-batch')}
        {toggle('tagMode', 'channel-toggle-tag-mode')}
      </Space>
      {props.toggles.batch && (
        <Space wrap spacing={8} className="mg-channel-batch-bar">
          <Typography.Text type="tertiary">{t('messages.selected', { count: props.selectedCount })}</Typography.Text>
          <Popconfirm
            title={t('confirm.deleteSelected')}
            content={t('confirm.deleteSelectedContent', { count: props.selectedCount })}
            okType="danger"
            disabled={props.selectedCount === 0}
            onConfirm={run('deleteSelected', props.onDeleteSelected)}
          >
            <Button
              type="danger"
              theme="light"
              loading={running === 'deleteSelected'}
              onClick={props.selectedCount === 0 ? run('deleteSelected', props.onDeleteSelected) : undefined}
            >
              {t('actions.deleteSelected')}
            </Button>
          </Popconfirm>
          <Button theme="light" onClick={props.onBatchTag} data-testid="channel-batch-tag">
            {t('actions.batchTag')}
          </Button>
        </Space>
      )}
    </div>
  );
}
