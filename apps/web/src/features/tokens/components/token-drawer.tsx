import { Banner, Button, DatePicker, Form, Space, Toast, Typography } from '@douyinfe/semi-ui';
import { IconCalendar } from '@douyinfe/semi-icons';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type DrawerFormApi, FormDrawer } from '../../../components/shared/form-drawer';
import { RateLimitFields } from '../../../components/shared/rate-limit-fields';
import { normalizeLanguage } from '../../../i18n';
import { shownGroupDescription } from '../../../lib/group-description';
import { formatDateTime, formatTimestamp, parseDateTime } from '../../../lib/date-time';
import { formatQuota, quotaToCurrency } from '../../../lib/quota';
import { rateLimitFormValues, rateLimitInput, type RateLimitFormValues } from '../../../lib/rate-limits';
import { useStatus } from '../../status/queries';
import { createToken, fetchTokenKeys, rethrowUnlessApiError, updateToken, type Token, type TokenInput } from '../api';
import type { CreatedKeys } from './created-keys-modal';
import { useUsableGroups, useUserModels } from '../queries';
import {
  batchNames,
  COUNT_MAX,
  COUNT_PRESETS,
  DEFAULT_REMAIN_QUOTA,
  EXPIRY_SHORTCUTS,
  expiryFromShortcut,
  QUOTA_PRESETS,
  TOKEN_NAME_MAX,
} from '../token-rules';

interface FormValues extends RateLimitFormValues {
  name: string;
  expired_time: string;
  remain_quota: number;
  unlimited_quota: boolean;
  count: number;
  model_limits_enabled: boolean;
  model_limits: string[];
  allow_ips: string;
  /** undefined: the user's own group. */
  group?: string;
}

type FormApi = DrawerFormApi<FormValues>;

const NEW_TOKEN: FormValues = {
  name: '',
  expired_time: '',
  remain_quota: DEFAULT_REMAIN_QUOTA,
  unlimited_quota: false,
  count: 1,
  model_limits_enabled: false,
  model_limits: [],
  allow_ips: '',
  group: undefined,
};

function fromToken(token: Token): FormValues {
  return {
    name: token.name,
    expired_time: token.expired_time === -1 ? '' : formatTimestamp(token.expired_time),
    remain_quota: token.remain_quota,
    unlimited_quota: token.unlimited_quota,
    count: 1,
    model_limits_enabled: token.model_limits_enabled,
    model_limits: token.model_limits.split(',').filter((model) => model !== ''),
    allow_ips: token.allow_ips,
    group: token.group || undefined,
    ...rateLimitFormValues(token),
  };
}

function toInput(values: FormValues, name: string): TokenInput {
  const expiry = (values.expired_time ?? '').trim();
  return {
    name,
    expired_time: expiry === '' ? -1 : (parseDateTime(expiry) ?? -1),
    remain_quota: Number(values.remain_quota ?? 0),
    unlimited_quota: values.unlimited_quota,
    model_limits_enabled: values.model_limits_enabled,
    model_limits: (values.model_limits ?? []).join(','),
    allow_ips: values.allow_ips ?? '',
    group: values.group ?? '',
    ...rateLimitInput(values),
  };
}

const isWholeNumber = (value: unknown, min: number) => typeof value === 'number' && Number.isInteger(value) && value >= min;

interface TokenDrawerProps {
  /** null: closed; 'add': new tokens; a token: edit it. */
  target: 'add' | Token | null;
  onClose: () => void;
  onSaved: () => Promise<void>;
  /** New tokens with their full keys, to be shown once. */
  onCreated: (created: CreatedKeys) => void;
}

/** Create (one or a batch) and edit tokens with the fields and presets of spec 02 §5 and §9. */
export function TokenDrawer({ target, onClose, onSaved, onCreated }: TokenDrawerProps) {
  const { t, i18n } = useTranslation('tokens');
  const { t: tCommon } = useTranslation('common');
  const status = useStatus();
  const visible = target !== null;
  const editing = typeof target === 'object' && target !== null ? target : null;
  const groups = useUsableGroups(visible);
  const models = useUserModels(visible);
  const formApi = useRef<FormApi | null>(null);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);

  const initValues = useMemo(() => (editing ? fromToken(editing) : NEW_TOKEN), [editing]);
  const [formKey, setFormKey] = useState(0);
  useEffect(() => setFormKey((key) => key + 1), [target]);

  const groupEntries = Object.entries(groups.data ?? {});
  const noGroups = groups.isSuccess && groupEntries.length === 0;

  const submit = async (values: FormValues) => {
    const name = values.name.trim();
    setProgress({ done: 0, total: editing ? 1 : values.count });
    let shown: CreatedKeys | undefined;
    try {
      if (editing) {
        await updateToken({ ...toInput(values, name), id: editing.id });
        Toast.success(t('form.updated'));
      } else {
        // Spec 02 §5: a batch is N single creations, the names after the first with a random suffix.
        const names = batchNames(name, values.count);
        const made: Token[] = [];
        for (const [index, tokenName] of names.entries()) {
          made.push(await createToken(toInput(values, tokenName)));
          setProgress({ done: index + 1, total: names.length });
        }
        // Answers carry masked keys: the full ones are read once and shown for the creator to copy
        // now. Should that read fail, the list's copy button still has them: say so instead.
        const keys = await fetchTokenKeys(made.map((token) => token.id)).catch(() => undefined);
        if (keys) shown = { tokens: made, keys };
        else Toast.success(names.length === 1 ? t('form.created') : t('form.createdMany', { count: names.length }));
      }
      await onSaved();
      onClose();
      // The keys open once the drawer has closed, over the refreshed list.
      if (shown) onCreated(shown);
    } catch (error) {
      // Tokens created before a failure stay: show them.
      await onSaved();
      rethrowUnlessApiError(error);
    } finally {
      setProgress(null);
    }
  };

  const batchProgress =
    progress && progress.total > 1 ? (
      <Typography.Text type="tertiary">{t('form.progress', { done: progress.done, total: progress.total })}</Typography.Text>
    ) : null;

  return (
    <FormDrawer
      visible={visible}
      title={editing ? t('form.editTitle') : t('form.addTitle')}
      width={600}
      className="mg-token-drawer"
      texts={{ cancel: t('form.cancel'), submit: t('form.submit') }}
      submitting={progress !== null}
      holdWhileSubmitting
      submitTestId="token-form-submit"
      footerNote={batchProgress}
      onSubmit={() => formApi.current?.submitForm()}
      onClose={onClose}
    >
      {visible && (
        <Form<FormValues>
          key={formKey}
          initValues={initValues}
          labelPosition="top"
          getFormApi={(api) => (formApi.current = api as unknown as FormApi)}
          onSubmit={(values) => void submit(values)}
        >
          {({ values }) => (
            <>
              <Form.Input
                field="name"
                label={t('form.name')}
                placeholder={t('form.namePlaceholder')}
                rules={[
                  { required: true, whitespace: true, message: t('form.errors.name') },
                  {
                    validator: (_rule, value: string) => [...(value ?? '').trim()].length <= TOKEN_NAME_MAX,
                    message: t('form.errors.nameTooLong', { max: TOKEN_NAME_MAX }),
                  },
                ]}
                data-testid="token-form-name"
              />
              <Form.Input
                field="expired_time"
                label={t('form.expiry')}
                placeholder={t('form.expiryPlaceholder')}
                extraText={t('form.expiryHint')}
                rules={[{ validator: (_rule, value: string) => !value?.trim() || parseDateTime(value) !== null, message: t('form.errors.expiry') }]}
                suffix={
                  <DatePicker
                    type="dateTime"
                    position="bottomRight"
                    onChange={(date) => {
                      if (date instanceof Date) formApi.current?.setValue('expired_time', formatDateTime(date));
                    }}
                    triggerRender={() => <Button theme="borderless" size="small" icon={<IconCalendar />} aria-label={t('form.pickDate')} />}
                  />
                }
                data-testid="token-form-expiry"
              />
              <Space wrap spacing={8} className="mg-token-presets">
                {EXPIRY_SHORTCUTS.map((shortcut) => (
                  <Button
                    key={shortcut}
                    size="small"
                    theme="light"
                    type="tertiary"
                    onClick={() => formApi.current?.setValue('expired_time', expiryFromShortcut(shortcut))}
                  >
                    {t(`form.shortcuts.${shortcut}`)}
                  </Button>
                ))}
              </Space>
              <Banner type="warning" closeIcon={null} description={t('form.quotaNotice')} className="mg-token-banner" />
              <Form.InputNumber
                field="remain_quota"
                label={t('form.quota')}
                placeholder={t('form.quotaPlaceholder')}
                precision={0}
                min={0}
                disabled={values.unlimited_quota}
                style={{ width: '100%' }}
                extraText={
                  values.unlimited_quota
                    ? t('form.unlimitedHint')
                    : t('form.quotaEquals', { amount: quotaToCurrency(Number(values.remain_quota ?? 0), status) })
                }
                rules={[{ validator: (_rule, value) => values.unlimited_quota || isWholeNumber(value, 0), message: t('form.errors.quota') }]}
                data-testid="token-form-quota"
              />
              <Space wrap spacing={8} className="mg-token-presets">
                {QUOTA_PRESETS.map((preset) => (
                  <Button
                    key={preset.quota}
                    size="small"
                    theme="light"
                    type="tertiary"
                    disabled={values.unlimited_quota}
                    onClick={() => formApi.current?.setValue('remain_quota', preset.quota)}
                  >
                    {formatQuota(preset.quota, { ...status, display_in_currency: true })}
                  </Button>
                ))}
              </Space>
              <Form.Switch field="unlimited_quota" label={t('form.unlimited')} data-testid="token-form-unlimited" />
              {!editing && (
                <>
                  <Form.InputNumber
                    field="count"
                    label={t('form.count')}
                    placeholder={t('form.countPlaceholder')}
                    precision={0}
                    min={1}
                    max={COUNT_MAX}
                    style={{ width: '100%' }}
                    extraText={t('form.countHint')}
                    rules={[
                      {
                        validator: (_rule, value) => isWholeNumber(value, 1) && (value as number) <= COUNT_MAX,
                        message: t('form.errors.count', { max: COUNT_MAX }),
                      },
                    ]}
                    data-testid="token-form-count"
                  />
                  <Space wrap spacing={8} className="mg-token-presets">
                    {COUNT_PRESETS.map((count) => (
                      <Button key={count} size="small" theme="light" type="tertiary" onClick={() => formApi.current?.setValue('count', count)}>
                        {t('form.countPreset', { count })}
                      </Button>
                    ))}
                  </Space>
                </>
              )}
              <Form.Switch field="model_limits_enabled" label={t('form.modelLimits')} extraText={t('form.modelLimitsHint')} />
              <Form.Select
                field="model_limits"
                label={t('form.models')}
                placeholder={t('form.modelsPlaceholder')}
                multiple
                filter
                maxTagCount={16}
                disabled={!values.model_limits_enabled}
                optionList={(models.data ?? []).map((model) => ({ value: model, label: model }))}
                style={{ width: '100%' }}
              />
              <Form.TextArea
                field="allow_ips"
                label={t('form.allowIps')}
                placeholder={t('form.allowIpsPlaceholder')}
                autosize={{ minRows: 2, maxRows: 6 }}
                className="mg-mono"
              />
              <Form.Select
                field="group"
                label={t('form.group')}
                placeholder={noGroups ? t('form.noGroups') : t('form.groupPlaceholder')}
                disabled={noGroups}
                showClear
                optionList={groupEntries.map(([name, info]) => {
                  const desc = shownGroupDescription(info.desc, normalizeLanguage(i18n.language), tCommon);
                  return {
                    value: name,
                    label: desc ? t('form.groupOption', { name, desc, ratio: info.ratio }) : t('form.groupOptionBare', { name, ratio: info.ratio }),
                  };
                })}
                style={{ width: '100%' }}
                data-testid="token-form-group"
              />
              <RateLimitFields testId="token-form-limits" titled />
            </>
          )}
        </Form>
      )}
    </FormDrawer>
  );
}
