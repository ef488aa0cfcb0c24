import { IconDelete, IconHistogram } from '@douyinfe/semi-icons';
import { Button, DatePicker, Modal, Toast, Typography } from '@douyinfe/semi-ui';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/api-client';
import { clearLogsBefore } from '../../logs/api';
import { logKeys } from '../../logs/queries';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { OptionNumberField, OptionSwitchField, useNumberCheck } from './option-fields';
import { logCutoffSeconds, type NumberOptionKey } from './operation-rules';

const KEYS = ['LogConsumeEnabled', 'LogRetentionDays'] as const;
const NUMBERS: readonly NumberOptionKey[] = ['LogRetentionDays'];
const DAY = 24 * 60 * 60 * 1000;

/** 日志设置: whether consumption is logged, how many days logs are kept, and clearing every log written before a chosen time. */
export function LogCard() {
  const { t } = useTranslation('settings-operation');
  const validate = useNumberCheck(NUMBERS);
  const card = useOptionCard(KEYS, { validate });
  return (
    <OptionCardFrame card={card} title={t('cards.log.title')} icon={<IconHistogram />} description={t('cards.log.description')} testId="op-card-log">
      <div className="mg-option-grid">
        <OptionSwitchField card={card} optionKey="LogConsumeEnabled" />
        <OptionNumberField card={card} optionKey="LogRetentionDays" suffix={t('units.days')} />
        <ClearLogs />
      </div>
    </OptionCardFrame>
  );
}

/** Spec 01 §4, §5, §8: a time is required, a confirm, then "{n} 条日志已清理！". */
function ClearLogs() {
  const { t, i18n } = useTranslation('settings-operation');
  const queryClient = useQueryClient();
  const [before, setBefore] = useState<Date | null>(null);
  const [busy, setBusy] = useState(false);

  const clear = async (moment: Date) => {
    setBusy(true);
    try {
      const count = await clearLogsBefore(logCutoffSeconds(moment));
      Toast.success(t('log.cleared', { n: count }));
      await queryClient.invalidateQueries({ queryKey: logKeys.all });
    } catch (error) {
      // The API client has shown the server's message already.
      if (!(error instanceof ApiError)) throw error;
    } finally {
      setBusy(false);
    }
  };

  const ask = () => {
    if (!before) {
      Toast.error(t('log.needTime'));
      return;
    }
    const moment = before;
    Modal.confirm({
      title: t('log.confirmTitle'),
      content: t('log.confirmContent', { time: moment.toLocaleString(i18n.language === 'zh' ? 'zh-CN' : 'en-US') }),
      okText: t('log.confirmOk'),
      cancelText: t('log.cancel'),
      // Semi's types leave data attributes out; the button takes them.
      okButtonProps: { type: 'danger', theme: 'solid', 'data-testid': 'op-log-clear-ok' } as object,
      centered: true,
      onOk: () => clear(moment),
    });
  };

  const presets = [
    { text: t('log.presets.week'), start: () => new Date(Date.now() - 7 * DAY) },
    { text: t('log.presets.month'), start: () => new Date(Date.now() - 30 * DAY) },
    { text: t('log.presets.quarter'), start: () => new Date(Date.now() - 90 * DAY) },
  ].map(({ text, start }) => ({ text, start: start() }));

  return (
    <div className="mg-op-field mg-op-clear-logs" data-testid="op-log-clear">
      <label className="mg-op-label" htmlFor="op-log-clear-time">
        {t('log.timeLabel')}
      </label>
      <div className="mg-op-inline">
        <div className="mg-op-inline-grow" data-testid="op-log-clear-time">
          <DatePicker
            type="dateTime"
            insetInput={false}
            value={before ?? undefined}
            placeholder={t('log.timePlaceholder')}
            presets={presets}
            onChange={(value) => setBefore(value instanceof Date ? value : null)}
            style={{ width: '100%' }}
          />
        </div>
        <Button type="danger" theme="light" icon={<IconDelete />} loading={busy} onClick={ask}>
          {t('log.clear')}
        </Button>
      </div>
      <Typography.Text type="tertiary" size="small" className="mg-op-hint">
        {t('log.timeHint')}
      </Typography.Text>
    </div>
  );
}
