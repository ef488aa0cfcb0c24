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

/** How the base_url field reads for a type (spec 02 §9); the default upstream is shown as a hint. */
function baseUrlText(type: number, t: TFunction<'channels'>): FieldText {
  switch (type) {
    case 3:
      return { label: t('form.azureEndpoint'), placeholder: t('form.azureEndpointPlaceholder') };
    case 8:
      return { label: t('form.customUrl'), placeholder: t('form.customUrlPlaceholder') };
    case 22:
      return { label: t('form.privateUrl'), placeholder: t('form.privateUrlPlaceholder') };
    case 36:
      return { label: t('form.sunoUrl'), placeholder: t('form.sunoUrlPlaceholder'), extra: t('form.sunoUrlHint') };
    default: {
      const fallback = channelTypeInfo(type)?.baseUrl;
      return {
        label: t('form.baseUrl'),
        placeholder: t('form.baseUrlPlaceholder'),
        extra: fallback ? t('form.baseUrlDefault', { url: fallback }) : undefined,
      };
    }
  }
}

/** The types that keep a type-specific value in `other` (spec 02 §9). */
function otherText(type: number, t: TFunction<'channels'>): (FieldText & { multiline?: boolean; required?: boolean }) | null {
  switch (type) {
    case 3:
      return { label: t('form.azureVersion'), placeholder: t('form.azureVersionPlaceholder') };
    case 18:
      return { label: t('form.sparkVersion'), placeholder: t('form.sparkVersionPlaceholder') };
    case 21:
      return { label: t('form.knowledgeId'), placeholder: t('form.knowledgeIdPlaceholder') };
    case 39:
      return { label: t('form.accountId'), placeholder: t('form.accountIdPlaceholder'), extra: t('form.accountIdHint'), required: true };
    case 41:
      return { label: t('form.region'), placeholder: t('form.regionPlaceholder'), extra: t('form.regionHint'), multiline: true };
    default:
      return null;
  }
}

/** How a type's key is written, for the types whose key is not one plain API key (new-api's prompts). */
export function keyHintFor(type: number, t: TFunction<'channels'>): FieldText | undefined {
  switch (type) {
    case 22:
      return { label: t('form.key'), placeholder: t('form.keyFastgptPlaceholder') };
    case 23:
      return { label: t('form.key'), placeholder: t('form.keyHunyuanPlaceholder'), extra: t('form.keyHunyuanHint') };
    case 33:
      return { label: t('form.key'), placeholder: t('form.keyAwsPlaceholder'), extra: t('form.keyAwsHint') };
    case 39:
      return { label: t('form.key'), placeholder: t('form.keyCloudflarePlaceholder') };
    case 41:
      return { label: t('form.key'), placeholder: t('form.keyVertexPlaceholder'), extra: t('form.keyVertexHint') };
    default:
      return undefined;
  }
}

/** Base URL, the type's extra value, OpenAI's organization and the custom type's settings. */
export function ChannelTypeFields({ type }: { type: number }) {
  const { t } = useTranslation('channels');
  const base = baseUrlText(type, t);
  const other = otherText(type, t);
  return (
    <>
      <Form.Input
        field="base_url"
        label={base.label}
        placeholder={base.placeholder}
        extraText={base.extra}
        rules={type === 3 || type === 8 || type === 22 ? [{ required: true, whitespace: true, message: t('form.errors.baseUrl') }] : []}
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
      {type === 1 && (
        <Form.Input
          field="openai_organization"
          label={t('form.organization')}
          placeholder={t('form.organizationPlaceholder')}
          extraText={t('form.organizationHint')}
        />
      )}
      {type === 8 && (
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
