import { Space, Tag, Typography } from '@douyinfe/semi-ui';
import type { ColumnProps } from '@douyinfe/semi-ui/lib/es/table';
import type { TFunction } from 'i18next';
import { RateLimitTags } from '../../../components/shared/rate-limit-fields';
import { activeRateLimits } from '../../../lib/rate-limits';
import { DateTimeCell } from '../../../components/shared/date-time-cell';
import { columnsForScreen } from '../../../components/shared/table-columns';
import type { Token } from '../api';
import type { ChatMenu } from '../chat-menu';
import { fullKey, tokenStatusKey } from '../token-rules';
import { TokenRowActions } from './token-row-actions';

const STATUS_COLORS = {
  enabled: 'green',
  enabledLimited: 'green',
  disabled: 'red',
  expired: 'yellow',
  exhausted: 'grey',
  unknown: 'white',
} as const;

interface ColumnOptions {
  t: TFunction<'tokens'>;
  formatQuota: (quota: number) => string;
  /** Full keys the user chose to view, by token id (page state, dropped on hide). */
  revealedKeys: ReadonlyMap<number, string>;
  onToggleKey: (token: Token) => Promise<void>;
  chat: ChatMenu;
  serverAddress: string;
  onEdit: (token: Token) => void;
  onDelete: (token: Token) => Promise<void>;
  onSetStatus: (token: Token, status: number) => Promise<void>;
  /** Phones: only the name, status and actions columns, none fixed. */
  narrow: boolean;
}

/** Spec 02 §2 columns: name, status and group, rate limits (issue 27), used, remaining, created, expiry, actions. */
export function tokenColumns(options: ColumnOptions): ColumnProps<Token>[] {
  return columnsForScreen(allColumns(options), options.narrow, PHONE_COLUMNS);
}

/** What a phone keeps: the name (with its key), the status and the actions. */
const PHONE_COLUMNS = ['name', 'status', 'actions'];

function allColumns(options: ColumnOptions): ColumnProps<Token>[] {
  const { t, formatQuota } = options;
  return [
    {
      title: t('columns.name'),
      dataIndex: 'name',
      width: 170,
      render: (_, token) => (
        <div className="mg-token-name">
          <Typography.Text strong ellipsis={{ showTooltip: true }}>
            {token.name}
          </Typography.Text>
          <Typography.Text className="mg-mono mg-token-key" type="tertiary" size="small" data-testid={`token-key-${token.id}`}>
            {fullKey(options.revealedKeys.get(token.id) ?? token.key)}
          </Typography.Text>
        </div>
      ),
    },
    {
      title: t('columns.status'),
      dataIndex: 'status',
      width: 110,
      render: (_, token) => {
        const key = tokenStatusKey(token);
        return (
          <Space spacing={4} wrap>
            <Tag color={STATUS_COLORS[key]} shape="circle" data-testid={`token-status-tag-${token.id}`}>
              {t(`status.${key}`)}
            </Tag>
            {token.group && (
              <Tag color="blue" shape="circle">
                {token.group}
              </Tag>
            )}
            {/* Phones have no limits column: the limits set show beside the status. */}
            {options.narrow && activeRateLimits(token).length > 0 && <RateLimitTags figures={token} testId={`token-limits-${token.id}`} />}
          </Space>
        );
      },
    },
    {
      title: t('columns.limits'),
      key: 'limits',
      width: 110,
      render: (_, token) => <RateLimitTags figures={token} testId={`token-limits-${token.id}`} />,
    },
    {
      title: t('columns.used'),
      dataIndex: 'used_quota',
      width: 90,
      render: (_, token) => <span data-testid={`token-used-${token.id}`}>{formatQuota(token.used_quota)}</span>,
    },
    {
      title: t('columns.remaining'),
      dataIndex: 'remain_quota',
      width: 100,
      render: (_, token) =>
        token.unlimited_quota ? (
          <Tag color="white">{t('cells.unlimited')}</Tag>
        ) : (
          <span data-testid={`token-remaining-${token.id}`}>{formatQuota(token.remain_quota)}</span>
        ),
    },
    {
      title: t('columns.created'),
      dataIndex: 'created_time',
      width: 104,
      render: (_, token) => <DateTimeCell seconds={token.created_time} />,
    },
    {
      title: t('columns.expiry'),
      dataIndex: 'expired_time',
      width: 104,
      render: (_, token) => (token.expired_time === -1 ? t('cells.never') : <DateTimeCell seconds={token.expired_time} />),
    },
    {
      title: t('columns.actions'),
      key: 'actions',
      fixed: options.narrow ? undefined : 'right',
      width: 280,
      render: (_, token) => (
        <TokenRowActions
          token={token}
          keyVisible={options.revealedKeys.has(token.id)}
          onToggleKey={options.onToggleKey}
          chat={options.chat}
          serverAddress={options.serverAddress}
          onEdit={options.onEdit}
          onDelete={options.onDelete}
          onSetStatus={options.onSetStatus}
        />
      ),
    },
  ];
}
