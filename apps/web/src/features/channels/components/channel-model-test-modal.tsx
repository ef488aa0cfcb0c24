import { Button, Input, Modal, Table, Tag, Typography } from '@douyinfe/semi-ui';
import type { ColumnProps } from '@douyinfe/semi-ui/lib/es/table';
import { IconSearch } from '@douyinfe/semi-icons';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNarrowScreen } from '../../../lib/use-narrow-screen';
import { testChannelModel, type Channel, type ModelTestResult } from '../api';
import { splitList } from '../channel-display';
import { useRefreshChannels } from '../queries';

interface ChannelModelTestModalProps {
  channel: Channel;
  visible: boolean;
  onClose: () => void;
}

type RowState = ModelTestResult | 'testing';

interface ModelRow {
  model: string;
}

/**
 * A channel's models, searchable, each testable on its own or all the selected ones one after
 * another (the upstream sees one test at a time, as new-api's batch test does).
 */
export function ChannelModelTestModal({ channel, visible, onClose }: ChannelModelTestModalProps) {
  const { t } = useTranslation('channels');
  const refresh = useRefreshChannels();
  const narrow = useNarrowScreen();
  const models = useMemo(() => splitList(channel.models), [channel.models]);
  const [search, setSearch] = useState('');
  const [selected, setSelected] = useState<string[]>([]);
  const [results, setResults] = useState<Record<string, RowState>>({});
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  // Closing the dialog stops a batch after the test in flight.
  const stopped = useRef(false);

  useEffect(
    () => () => {
      stopped.current = true;
    },
    [],
  );

  const needle = search.trim().toLowerCase();
  const shown = useMemo<ModelRow[]>(() => models.filter((model) => model.toLowerCase().includes(needle)).map((model) => ({ model })), [models, needle]);

  const testOne = async (model: string) => {
    setResults((current) => ({ ...current, [model]: 'testing' }));
    const result = await testChannelModel(channel.id, model);
    setResults((current) => ({ ...current, [model]: result }));
  };

  const testSelected = async () => {
    const queue = models.filter((model) => selected.includes(model));
    setProgress({ done: 0, total: queue.length });
    for (const [index, model] of queue.entries()) {
      if (stopped.current) break;
      await testOne(model);
      setProgress({ done: index + 1, total: queue.length });
    }
    setProgress(null);
    // A test records the channel's response time and may disable it.
    await refresh();
  };

  const running = progress !== null || Object.values(results).includes('testing');

  const columns: ColumnProps<ModelRow>[] = [
    {
      title: t('modelTest.columns.model'),
      dataIndex: 'model',
      // Phones have no room for a result column: the result goes under the name.
      render: (_value, row) => (
        <div className="mg-model-test-name">
          <Typography.Text copyable={{ content: row.model }}>{row.model}</Typography.Text>
          {narrow && <ResultCell state={results[row.model]} />}
        </div>
      ),
    },
    ...(narrow
      ? []
      : [
          {
            title: t('modelTest.columns.result'),
            key: 'result',
            width: 190,
            render: (_value: unknown, row: ModelRow) => <ResultCell state={results[row.model]} />,
          },
        ]),
    {
      title: t('columns.operations'),
      key: 'action',
      width: narrow ? undefined : 90,
      render: (_value, row) => (
        <Button
          size="small"
          theme="light"
          loading={results[row.model] === 'testing'}
          disabled={progress !== null}
          onClick={async () => {
            await testOne(row.model);
            await refresh();
          }}
          data-testid={`model-test-one-${row.model}`}
        >
          {t('actions.test')}
        </Button>
      ),
    },
  ];

  return (
    <Modal
      title={t('modelTest.title', { name: channel.name })}
      visible={visible}
      onCancel={onClose}
      width="min(720px, calc(100vw - 24px))"
      className="mg-model-test-modal"
      bodyStyle={{ paddingBottom: 8 }}
      footer={
        <div className="mg-model-test-footer">
          <Typography.Text type="tertiary" data-testid="model-test-progress">
            {progress ? t('modelTest.progress', { done: progress.done, total: progress.total }) : t('modelTest.selected', { count: selected.length })}
          </Typography.Text>
          <div>
            <Button onClick={onClose}>{progress ? t('modelTest.stop') : t('modelTest.close')}</Button>
            <Button
              theme="solid"
              type="primary"
              disabled={selected.length === 0 || running}
              loading={progress !== null}
              onClick={() => void testSelected()}
              data-testid="model-test-selected"
            >
              {t('modelTest.testSelected', { count: selected.length })}
            </Button>
          </div>
        </div>
      }
    >
      <Input
        prefix={<IconSearch />}
        placeholder={t('modelTest.search')}
        value={search}
        onChange={setSearch}
        showClear
        className="mg-model-test-search"
        data-testid="model-test-search"
      />
      <Table<ModelRow>
        rowKey="model"
        size="small"
        columns={columns}
        dataSource={shown}
        pagination={shown.length > 10 ? { pageSize: 10 } : false}
        rowSelection={{
          selectedRowKeys: selected,
          onChange: (keys) => setSelected((keys ?? []).map(String)),
          disabled: progress !== null,
        }}
        onRow={(row) => ({ 'data-testid': row ? `model-test-row-${row.model}` : undefined }) as object}
        empty={t('modelTest.empty')}
      />
    </Modal>
  );
}

function ResultCell({ state }: { state: RowState | undefined }) {
  const { t } = useTranslation('channels');
  if (state === undefined) return <Typography.Text type="tertiary">{t('modelTest.untested')}</Typography.Text>;
  if (state === 'testing') return <Tag color="blue">{t('modelTest.testing')}</Tag>;
  if (state.ok)
    return (
      <Tag color="green" data-testid="model-test-ok">
        {t('modelTest.ok', { time: state.time.toFixed(2) })}
      </Tag>
    );
  return (
    <Typography.Text type="danger" size="small" ellipsis={{ showTooltip: true }} style={{ maxWidth: 160 }} data-testid="model-test-error">
      {state.message}
    </Typography.Text>
  );
}
