import { Button, Card, Typography } from '@douyinfe/semi-ui';
import { IconPlus } from '@douyinfe/semi-icons';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { usePageSize } from '../../lib/page-size';
import type { ManagedUser } from './api';
import { AddUserDrawer } from './components/add-user-drawer';
import { EditUserDrawer } from './components/edit-user-drawer';
import { UserSearchBar } from './components/user-search-bar';
import { UsersTable } from './components/users-table';
import { useGroupRatios, useGroups, useUserList, type EditTarget } from './queries';
import './users.css';

function positivePage(raw: string | null): number {
  const page = Number(raw);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

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
  const [searchParams, setSearchParams] = useSearchParams();
  const [pageSize, setPageSize] = usePageSize();
  const [adding, setAdding] = useState(false);
  const editTarget = useEditTarget();

  const keyword = searchParams.get('keyword') ?? '';
  const group = searchParams.get('group') ?? '';
  const page = positivePage(searchParams.get('p'));
  const query = useMemo(() => ({ keyword, group, page, pageSize }), [keyword, group, page, pageSize]);

  const list = useUserList(query);
  const groups = useGroups();
  const ratios = useGroupRatios();

  const updateParams = useCallback(
    (changes: Record<string, string | null>) => {
      setSearchParams((previous) => {
        const next = new URLSearchParams(previous);
        for (const [key, value] of Object.entries(changes)) {
          if (value === null || value === '') next.delete(key);
          else next.set(key, value);
        }
        return next;
      });
    },
    [setSearchParams],
  );

  const search = `?${searchParams.toString()}`;
  const openEdit = useCallback((user: ManagedUser) => navigate(`/user/edit/${user.id}${search}`), [navigate, search]);
  const closeEdit = useCallback(() => navigate(`/user${search}`), [navigate, search]);

  return (
    <div className="mg-users">
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
          onSearch={(filters) => updateParams({ keyword: filters.keyword, group: filters.group, p: null })}
        />
        <UsersTable
          users={list.data?.items ?? []}
          total={list.data?.total ?? 0}
          page={page}
          pageSize={pageSize}
          loading={list.isPending || (list.isFetching && list.isPlaceholderData)}
          groupRatios={ratios.data ?? {}}
          onPageChange={(next) => updateParams({ p: next > 1 ? String(next) : null })}
          onPageSizeChange={(size) => {
            setPageSize(size);
            updateParams({ p: null });
          }}
          onEdit={openEdit}
        />
      </Card>
      <AddUserDrawer visible={adding} onClose={() => setAdding(false)} />
      <EditUserDrawer target={editTarget} onClose={closeEdit} />
    </div>
  );
}
