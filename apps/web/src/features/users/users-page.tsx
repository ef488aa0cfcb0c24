import { Button, Card, Typography } from '@douyinfe/semi-ui';
import { IconPlus } from '@douyinfe/semi-icons';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useParams } from 'react-router';
import { useUrlFilters } from '../../lib/use-url-filters';
import type { ManagedUser } from './api';
import { AddUserDrawer } from './components/add-user-drawer';
import { EditUserDrawer } from './components/edit-user-drawer';
import { UserSearchBar } from './components/user-search-bar';
import { UsersTable } from './components/users-table';
import { useGroupRatios, useGroups, useUserList, type EditTarget } from './queries';
import './users.css';

const readFilters = (params: URLSearchParams) => ({ keyword: params.get('keyword') ?? '', group: params.get('group') ?? '' });

/** /user/edit/:id edits that user, /user/edit the signed-in admin; anything else edits nobody. */
function useEditTarget(): EditTarget | null {
  const { pathname } = useLocation();
  const { id } = useParams();
  if (!pathname.startsWith('/user/edit')) return null;
  if (id === undefined) return 'self';
  const numeric = Number(id);
  return Number.isInteger(numeric) && numeric > 0 ? numeric : null;
}

/** 管理用户 (spec 01 §2): filters and the page number live in the URL, the page size in localStorage. */
export default function UsersPage() {
  const { t } = useTranslation('users');
  const navigate = useNavigate();
  const { params, filters, page, pageSize, setFilters, setPage, setPageSize } = useUrlFilters(readFilters);
  const [adding, setAdding] = useState(false);
  const editTarget = useEditTarget();

  const { keyword, group } = filters;
  const query = useMemo(() => ({ keyword, group, page, pageSize }), [keyword, group, page, pageSize]);

  const list = useUserList(query);
  const groups = useGroups();
  const ratios = useGroupRatios();

  const search = `?${params.toString()}`;
  const openEdit = useCallback((user: ManagedUser) => navigate(`/user/edit/${user.id}${search}`), [navigate, search]);
  const closeEdit = useCallback(() => navigate(`/user${search}`), [navigate, search]);

  return (
    <div className="mg-page mg-users">
      <div className="mg-page-heading">
        <Typography.Title heading={4}>{t('title')}</Typography.Title>
        <Button theme="solid" type="primary" icon={<IconPlus />} onClick={() => setAdding(true)}>
          {t('add')}
        </Button>
      </div>
      <Card className="mg-users-card" bodyStyle={{ padding: 16 }}>
        <UserSearchBar
          keyword={keyword}
          group={group}
          groups={groups.data ?? []}
          loading={list.isFetching}
          onSearch={(next) => setFilters({ keyword: next.keyword, group: next.group })}
        />
        <UsersTable
          users={list.data?.items ?? []}
          total={list.data?.total ?? 0}
          page={page}
          pageSize={pageSize}
          loading={list.isPending || (list.isFetching && list.isPlaceholderData)}
          groupRatios={ratios.data ?? {}}
          onPageChange={setPage}
          onPageSizeChange={setPageSize}
          onEdit={openEdit}
        />
      </Card>
      <AddUserDrawer visible={adding} onClose={() => setAdding(false)} />
      <EditUserDrawer target={editTarget} onClose={closeEdit} />
    </div>
  );
}
