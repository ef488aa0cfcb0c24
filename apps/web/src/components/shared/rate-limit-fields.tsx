import { RATE_LIMIT_FIELDS, RATE_LIMIT_KINDS, RATE_LIMIT_MAX, type WireRateLimits } from '@modelgate/contract';
import { Form, Space, Tag, Typography } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { activeRateLimits, compactFigure, isRateLimitFigure } from '../../lib/rate-limits';
import './rate-limit-fields.css';

interface RateLimitFieldsProps {
  /** data-testid of the block; each field is `<testId>-<kind>` (rpm, tpm, rpd, concurrency). */
  testId: string;
  /** Shows the block's own title (forms without sections). */
  titled?: boolean;
}

/**
 * The four rate-limit fields of a token or a user, inside their Semi Form (field names are the
 * wire's: rpm_limit, tpm_limit, rpd_limit, concurrency_limit); an empty field is no limit.
 */
export function RateLimitFields({ testId, titled = false }: RateLimitFieldsProps) {
  const { t } = useTranslation();
  const hints: Partial<Record<(typeof RATE_LIMIT_KINDS)[number], string>> = {
    tpm: t('rateLimits.tpmHint'),
    concurrency: t('rateLimits.concurrencyHint'),
  };
  return (
    <div className="mg-rate-limits" data-testid={testId}>
      {titled && (
        <Typography.Text strong className="mg-rate-limits-title">
          {t('rateLimits.title')}
        </Typography.Text>
      )}
      <Typography.Text type="tertiary" size="small" className="mg-rate-limits-hint">
        {t('rateLimits.hint')}
      </Typography.Text>
      <div className="mg-rate-limits-grid">
        {RATE_LIMIT_KINDS.map((kind) => (
          <Form.InputNumber
            key={kind}
            field={RATE_LIMIT_FIELDS[kind]}
            label={t(`rateLimits.${kind}`)}
            placeholder={t('rateLimits.placeholder')}
            precision={0}
            min={0}
            max={RATE_LIMIT_MAX}
            style={{ width: '100%' }}
            extraText={hints[kind]}
            rules={[{ validator: (_rule, value) => isRateLimitFigure(value), message: t('rateLimits.invalid') }]}
            data-testid={`${testId}-${kind}`}
          />
        ))}
      </div>
    </div>
  );
}

/** The limits set, as tags ("60 RPM", "并发 3"); "不限" when there are none. */
export function RateLimitTags({ figures, testId }: { figures: WireRateLimits; testId?: string }) {
  const { t } = useTranslation();
  const active = activeRateLimits(figures);
  if (active.length === 0) {
    return (
      <Typography.Text type="quaternary" size="small" data-testid={testId}>
        {t('rateLimits.none')}
      </Typography.Text>
    );
  }
  return (
    <Space spacing={4} wrap data-testid={testId}>
      {active.map(({ kind, value }) => (
        <Tag key={kind} color={kind === 'concurrency' ? 'violet' : 'cyan'} size="small" shape="circle" data-kind={kind}>
          <span title={`${t(`rateLimits.${kind}`)}: ${value}`}>{t(`rateLimits.tags.${kind}`, { value: compactFigure(value) })}</span>
        </Tag>
      ))}
    </Space>
  );
}
