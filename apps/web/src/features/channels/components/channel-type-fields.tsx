import { Form } from '@douyinfe/semi-ui';
import { channelTypeInfo } from '@modelgate/contract';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { isJsonObjectOrEmpty } from '../channel-rules';

interface FieldText {
  label: string;
  placeholder: string;
  extra?: string;
}

/** How the base_url field reads for a type (spec 02 §9, the contract row's form); the default upstream is shown as a hint. */
function baseUrlText(type: number, t: TFunction<'channels'>): FieldText & { required: boolean } {
  const info = channelTypeInfo(type);
  const own = info?.form?.baseUrl;
  if (own) {
    return {
      label: t(`form.${own.text}`),
      placeholder: t(`form.${own.text}Placeholder`),
      extra: 'hint' in own ? t(`form.${own.text}Hint`) : undefined,
      required: 'required' in own,
    };
  }
  return {
    label: t('form.baseUrl'),
    placeholder: t('form.baseUrlPlaceholder'),
    extra: info?.baseUrl ? t('form.baseUrlDefault', { url: info.baseUrl }) : undefined,
    required: false,
  };
}

/** The types that keep a type-specific value in `other` (spec 02 §9). */
function otherText(type: number, t: TFunction<'channels'>): (FieldText & { multiline?: boolean; required?: boolean }) | null {
  const other = channelTypeInfo(type)?.form?.other;
  if (!other) return null;
  return {
    label: t(`form.${other.text}`),
    placeholder: t(`form.${other.text}Placeholder`),
    extra: 'hint' in other ? t(`form.${other.text}Hint`) : undefined,
    multiline: 'multiline' in other,
    required: 'required' in other,
  };
}

/** How a type's key is written, for the types whose key is not one plain API key (new-api's prompts). */
export function keyHintFor(type: number, t: TFunction<'channels'>): (FieldText & { multiline: boolean }) | undefined {
  const key = channelTypeInfo(type)?.form?.key;
  if (!key) return undefined;
  return {
    label: t('form.key'),
    placeholder: t(`form.${key.text}Placeholder`),
    extra: 'hint' in key ? t(`form.${key.text}Hint`) : undefined,
    multiline: 'multiline' in key,
  };
}

/** Base URL, the type's extra value, OpenAI's organization and the custom type's settings. */
export function ChannelTypeFields({ type }: { type: number }) {
  const { t } = useTranslation('channels');
  const base = baseUrlText(type, t);
  const other = otherText(type, t);
  const form = channelTypeInfo(type)?.form;
  return (
    <>
      <Form.Input
        field="base_url"
        label={base.label}
        placeholder={base.placeholder}
        extraText={base.extra}
        rules={base.required ? [{ required: true, whitespace: true, message: t('form.errors.baseUrl') }] : []}
        data-testid="channel-form-base-url"
      />
      {other &&
        (other.multiline ? (
          <Form.TextArea
            field="other"
            label={other.label}
            placeholder={other.placeholder}
            extraText={other.extra}
            autosize={{ minRows: 3, maxRows: 8 }}
            data-testid="channel-form-other"
          />
        ) : (
          <Form.Input
            field="other"
            label={other.label}
            placeholder={other.placeholder}
            extraText={other.extra}
            rules={other.required ? [{ required: true, whitespace: true, message: t('form.errors.other', { label: other.label }) }] : []}
            data-testid="channel-form-other"
          />
        ))}
      {form?.organization && (
        <Form.Input
          field="openai_organization"
          label={t('form.organization')}
          placeholder={t('form.organizationPlaceholder')}
          extraText={t('form.organizationHint')}
        />
      )}
      {form?.customSetting && (
        <Form.TextArea
          field="setting"
          label={t('form.setting')}
          placeholder={t('form.settingPlaceholder')}
          autosize={{ minRows: 3, maxRows: 10 }}
          className="mg-mono"
          rules={[{ validator: (_rule, value: string) => isJsonObjectOrEmpty(value), message: t('form.errors.setting') }]}
        />
      )}
    </>
  );
}
