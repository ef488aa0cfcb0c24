import { Banner, Button, Empty, SideSheet, TabPane, Tabs, Tag, TextArea, Toast, Typography } from '@douyinfe/semi-ui';
import { IconCopy, IconEdit, IconSend } from '@douyinfe/semi-icons';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../../lib/clipboard';
import { eventsText, formatDuration, parseCustomBody, prettyBody, type DebugRecord } from '../debug-record';

interface DebugPanelProps {
  open: boolean;
  narrow: boolean;
  record: DebugRecord | null;
  /** The body the conversation would send now, for the editor when nothing was sent yet. */
  preview: unknown;
  busy: boolean;
  onClose: () => void;
  onSendCustom: (body: Record<string, unknown>) => void;
}

function CodeBlock({ text, testId }: { text: string; testId: string }) {
  return (
    <pre className="mg-pg-code" data-testid={testId}>
      {text}
    </pre>
  );
}

function CopyButton({ text }: { text: string }) {
  const { t } = useTranslation('playground');
  return (
    <Button size="small" icon={<IconCopy />} onClick={() => void copyWithFeedback(text)} disabled={text === ''}>
      {t('debug.copy')}
    </Button>
  );
}

const OUTCOME_COLOR = { done: 'green', aborted: 'orange', error: 'red' } as const;

function Summary({ record }: { record: DebugRecord }) {
  const { t } = useTranslation('playground');
  const firstToken = formatDuration(record.firstTokenMs);
  const total = formatDuration(record.totalMs);
  return (
    <div className="mg-pg-debug-summary" data-testid="pg-debug-summary">
      {record.status !== undefined && (
        <Tag color={record.status >= 200 && record.status < 300 ? 'green' : 'red'} data-testid="pg-debug-status">
          HTTP {record.status}
        </Tag>
      )}
      <Tag color={record.outcome ? OUTCOME_COLOR[record.outcome] : 'blue'}>{t(`debug.outcome.${record.outcome ?? 'pending'}`)}</Tag>
      {record.custom && <Tag color="purple">{t('debug.customTag')}</Tag>}
      <Typography.Text type="tertiary" size="small" data-testid="pg-debug-timing">
        {t('debug.firstToken')}: {firstToken ?? '—'} · {t('debug.total')}: {total ?? '—'}
      </Typography.Text>
    </div>
  );
}

/**
 * The debug view: the last call's body as sent, what came back (the raw server events of a stream,
 * the whole body otherwise), its status and timings; and an editor to send a body as written
 * (new-api's custom request body). A panel beside the chat on wide screens, a sheet from the
 * bottom on phones.
 */
export function DebugPanel({ open, narrow, record, preview, busy, onClose, onSendCustom }: DebugPanelProps) {
  const { t } = useTranslation('playground');
  const [tab, setTab] = useState('request');
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');

  // Built only while the panel is open: a streaming reply changes the record every frame.
  const request = record?.request;
  const requestText = useMemo(() => (open && request !== undefined ? JSON.stringify(request, null, 2) : ''), [open, request]);
  const responseText = useMemo(() => {
    if (!open || !record) return '';
    return record.events.length > 0 ? eventsText(record) : prettyBody(record.responseBody ?? '');
  }, [open, record]);

  const startEditing = () => {
    setDraft(JSON.stringify(record?.request ?? preview, null, 2));
    setEditing(true);
  };

  const sendDraft = () => {
    const parsed = parseCustomBody(draft);
    if ('problem' in parsed) {
      Toast.warning(t(`debug.problems.${parsed.problem}`));
      return;
    }
    onSendCustom(parsed.body);
    setEditing(false);
    setTab('response');
  };

  return (
    <SideSheet
      title={t('debug.title')}
      visible={open}
      onCancel={onClose}
      placement={narrow ? 'bottom' : 'right'}
      width={narrow ? undefined : 560}
      height={narrow ? '80vh' : undefined}
      mask={narrow}
      className="mg-pg-debug"
      data-testid="pg-debug"
    >
      {record && <Summary record={record} />}
      <Tabs activeKey={tab} onChange={setTab} size="small">
        <TabPane tab={t('debug.request')} itemKey="request">
          <div className="mg-pg-debug-tools">
            {editing ? (
              <>
                <Button size="small" onClick={() => setEditing(false)}>
                  {t('debug.cancelEdit')}
                </Button>
                <Button size="small" theme="solid" icon={<IconSend />} disabled={busy} onClick={sendDraft} data-testid="pg-debug-send">
                  {t('debug.sendCustom')}
                </Button>
              </>
            ) : (
              <>
                <CopyButton text={requestText} />
                <Button size="small" icon={<IconEdit />} disabled={busy} onClick={startEditing} data-testid="pg-debug-edit">
                  {t('debug.editRequest')}
                </Button>
              </>
            )}
          </div>
          {editing ? (
            <>
              <Banner type="info" fullMode={false} closeIcon={null} description={t('debug.customHint')} className="mg-pg-debug-banner" />
              <TextArea
                value={draft}
                onChange={setDraft}
                autosize={{ minRows: 12, maxRows: 40 }}
                className="mg-pg-code-input"
                aria-label={t('debug.editRequest')}
                data-testid="pg-debug-editor"
              />
            </>
          ) : record ? (
            <CodeBlock text={requestText} testId="pg-debug-request" />
          ) : (
            <Empty title={t('debug.empty')} description={t('debug.emptyHint')} />
          )}
        </TabPane>
        <TabPane tab={t('debug.response')} itemKey="response">
          {record ? (
            <>
              <div className="mg-pg-debug-tools">
                <CopyButton text={responseText} />
                {record.events.length > 0 && (
                  <Typography.Text type="tertiary" size="small">
                    {t('debug.events', { count: record.events.length + record.droppedEvents })}
                    {record.droppedEvents > 0 && ` · ${t('debug.dropped', { count: record.droppedEvents })}`}
                  </Typography.Text>
                )}
              </div>
              {record.error && <Banner type="danger" fullMode={false} closeIcon={null} description={record.error} className="mg-pg-debug-banner" />}
              {responseText !== '' ? (
                <CodeBlock text={responseText} testId="pg-debug-response" />
              ) : (
                <Typography.Text type="tertiary">{t('debug.noResponse')}</Typography.Text>
              )}
            </>
          ) : (
            <Empty title={t('debug.empty')} description={t('debug.emptyHint')} />
          )}
        </TabPane>
      </Tabs>
    </SideSheet>
  );
}
