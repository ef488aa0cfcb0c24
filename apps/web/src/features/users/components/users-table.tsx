import { Empty, Table, Tag, Typography } from '@douyinfe/semi-ui';
import type { ColumnProps, OnRowReturnObject } from '@douyinfe/semi-ui/lib/es/table';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuotaFormatter } from '../../../lib/quota';
import type { GroupInfo, ManagedUser } from '../api';
import { GroupTag, RoleTag, TwoFactorTag, UserStatusTag } from './user-tags';
import { UserRowActions } from './user-row-actions';
import { columnsForScreen } from '../../../components/shared/table-columns';
import { useTablePagination } from '../../../components/shared/table-pagination';
import { useNarrowScreen } from '../../../lib/use-narrow-screen';

interface UsersTableProps {
  users: ManagedUser[];
  total: number;
  page: number;
  pageSize: number;
  loading: boolean;
  groupRatios: Record<string, GroupInfo>;
  onPageChange: (page: number) => void;
  onPageSizeChange: (size: number) => void;
  onEdit: (user: ManagedUser) => void;
}

/** What a phone keeps: the username, the status and the actions. */
const PHONE_COLUMNS = ['username', 'status', 'actions'];

export function UsersTable(props: UsersTableProps) {
  const { users, total, page, pageSize, loading, groupRatios, onPageChange, onPageSizeChange, onEdit } = props;
  const { t } = useTranslation('users');
  const formatQuota = useQuotaFormatter();

  const narrow = useNarrowScreen();
  const columns = useMemo<ColumnProps<ManagedUser>[]>(
    () =>
      columnsForScreen<ManagedUser>(
        [
          { title: t('columns.id'), dataIndex: 'id', width: 72 },
          {
            title: t('columns.username'),
            dataIndex: 'username',
            render: (_, user) => (
              <div className="mg-user-name-cell">
                <span className="mg-user-name-line">
                  <Typography.Text strong>{user.username}</Typography.Text>
                  {user.two_fa_enabled && <TwoFactorTag />}
                </span>
                {user.display_name && user.display_name !== user.username && (
                  <Typography.Text type="tertiary" size="small">
                    {user.display_name}
                  </Typography.Text>
                )}
              </div>
            ),
          },
          {
            title: t('columns.group'),
            dataIndex: 'group',
            render: (_, user) => <GroupTag group={user.group} ratio={groupRatios[user.group]?.ratio} />,
          },
          {
            title: t('columns.stats'),
            dataIndex: 'quota',
            render: (_, user) => (
              <div className="mg-user-stats">
                <Tag color="white">{t('stats.remaining', { value: formatQuota(user.quota) })}</Tag>
                <Tag color="white">{t('stats.used', { value: formatQuota(user.used_quota) })}</Tag>
                <Tag color="white">{t('stats.requests', { value: user.request_count })}</Tag>
              </div>
            ),
          },
          { title: t('columns.role'), dataIndex: 'role', render: (_, user) => <RoleTag role={user.role} /> },
          {
            title: t('columns.status'),
            dataIndex: 'status',
            render: (_, user) => <UserStatusTag status={user.status} deleted={user.DeletedAt !== null} />,
          },
          {
            title: t('columns.actions'),
            dataIndex: 'actions',
            width: 190,
            // Spec 01 §2: a deregistered row offers nothing.
            render: (_, user) => (user.DeletedAt !== null ? null : <UserRowActions user={user} onEdit={onEdit} />),
          },
        ],
        narrow,
        PHONE_COLUMNS,
      ),
    [t, formatQuota, groupRatios, onEdit, narrow],
  );

  const pagination = useTablePagination({ page, pageSize, total, onPageChange, onPageSizeChange });
  return (
    <Table<ManagedUser>
      className="mg-users-table"
      rowKey="id"
      columns={columns}
      dataSource={users}
      loading={loading}
      empty={<Empty description={t('empty')} />}
      onRow={(user) => ({ 'data-username': user?.username ?? '' }) as OnRowReturnObject}
      pagination={pagination}
    />
  );
}
