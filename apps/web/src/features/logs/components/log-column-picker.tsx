import { Button, Checkbox, Modal } from '@douyinfe/semi-ui';
import { IconSetting } from '@douyinfe/semi-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type zhLogs from '../../../i18n/locales/zh/logs.json';
import { ADMIN_ONLY_COLUMNS, defaultLogColumns, LOG_COLUMN_KEYS, type LogColumnChoice, type LogColumnKey } from '../use-log-columns';

/** The column's header text, by its key. */
const TITLE_KEYS: Record<LogColumnKey, keyof (typeof zhLogs)['columns']> = {
  created_at: 'time',
  channel: 'channel',
  username: 'user',
  token_name: 'token',
  group: 'group',
  type: 'type',
  model_name: 'model',
  use_time: 'useTime',
  prompt_tokens: 'prompt',
  completion_tokens: 'completion',
  quota: 'quota',
  content: 'details',
};

interface LogColumnPickerProps {
  admin: boolean;
  value: LogColumnChoice;
  onChange: (choice: LogColumnChoice) => void;
}

/** new-api's 列设置: a checkbox per column, select all, and back to the default set. */
export function LogColumnPicker({ admin, value, onChange }: LogColumnPickerProps) {
  const { t } = useTranslation(['logs', 'common']);
  const [draft, setDraft] = useState<LogColumnChoice | null>(null);
  const keys = LOG_COLUMN_KEYS.filter((key) => admin || !ADMIN_ONLY_COLUMNS.includes(key));
  const shown = draft ?? value;
  const checked = keys.filter((key) => shown[key]).length;
  const setAll = (on: boolean) => setDraft({ ...shown, ...Object.fromEntries(keys.map((key) => [key, on])) });

  return (
    <>
      <Button icon={<IconSetting />} onClick={() => setDraft(value)} data-testid="log-columns-button">
        {t('columnPicker.button')}
      </Button>
      <Modal
        title={t('columnPicker.title')}
        visible={draft !== null}
        centered
        onCancel={() => setDraft(null)}
        footer={
          <div className="mg-log-column-footer">
            <Button onClick={() => setDraft(defaultLogColumns())} data-testid="log-columns-reset">
              {t('columnPicker.reset')}
            </Button>
            <span className="mg-log-column-footer-end">
              <Button onClick={() => setDraft(null)}>{t('common:actions.cancel')}</Button>
              <Button
                theme="solid"
                type="primary"
                onClick={() => {
                  onChange(shown);
                  setDraft(null);
                }}
                data-testid="log-columns-save"
              >
                {t('common:actions.confirm')}
              </Button>
            </span>
          </div>
        }
      >
        <Checkbox
          checked={checked === keys.length}
          indeterminate={checked > 0 && checked < keys.length}
          onChange={(event) => setAll(Boolean(event.target.checked))}
          data-testid="log-columns-all"
        >
          {t('columnPicker.all')}
        </Checkbox>
        <div className="mg-log-column-grid">
          {keys.map((key) => (
            <Checkbox
              key={key}
              checked={shown[key]}
              onChange={(event) => setDraft({ ...shown, [key]: Boolean(event.target.checked) })}
              data-testid={`log-column-${key}`}
            >
              {t(`columns.${TITLE_KEYS[key]}`)}
            </Checkbox>
          ))}
        </div>
      </Modal>
    </>
  );
}
