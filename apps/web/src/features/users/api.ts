import type { ManageResult, PageData, PublicUser, UsableGroup, UsableGroups, WireRateLimits } from '@modelgate/contract';
import { api } from '../../lib/api-client';

/** A row of the user list and the answer of GET /api/user/{id} (never the password or access token; DeletedAt non-null means deregistered). */
export type ManagedUser = PublicUser;

export interface UserListQuery {
  keyword: string;
  group: string;
  /** 1-based page of the table. */
  page: number;
  pageSize: number;
}

export type ManageAction = 'promote' | 'demote' | 'disable' | 'enable' | 'delete';

export type { ManageResult };

export interface NewUser {
  username: string;
  display_name: string;
  password: string;
}

/** The rate limits are 0 for none. */
export interface UserUpdate extends Partial<WireRateLimits> {
  id: number;
  username: string;
  display_name: string;
  /** Empty keeps the current password. */
  password: string;
  group: string;
  /** Sent only when the admin typed a new balance; it replaces the stored one. */
  quota?: number;
}

export interface SelfUpdate {
  username: string;
  display_name: string;
  password: string;
  original_password: string;
}

export type GroupInfo = UsableGroup;

/**
 * The server counts `p` from 1 and reads 0 as the first page too (new-api's consoles disagree on
 * the base), so the table's 1-based page is sent as it is.
 */
export async function listUsers(query: UserListQuery): Promise<PageData<ManagedUser>> {
  const filtered = query.keyword !== '' || query.group !== '';
  const path = filtered ? '/api/user/search' : '/api/user/';
  const { data } = await api.get<PageData<ManagedUser>>(path, {
    query: {
      p: query.page,
      page_size: query.pageSize,
      keyword: filtered ? query.keyword : undefined,
      group: filtered ? query.group : undefined,
    },
  });
  return { ...data, items: data.items ?? [] };
}

export async function fetchUser(id: number): Promise<ManagedUser> {
  const { data } = await api.get<ManagedUser>(`/api/user/${id}`);
  return data;
}

export async function fetchSelfUser(): Promise<ManagedUser> {
  const { data } = await api.get<ManagedUser>('/api/user/self');
  return data;
}

export async function createUser(user: NewUser): Promise<void> {
  await api.post<unknown>('/api/user/', user);
}

export async function updateUser(update: UserUpdate): Promise<void> {
  await api.put<unknown>('/api/user/', update);
}

export async function updateSelf(update: SelfUpdate): Promise<void> {
  await api.put<unknown>('/api/user/self', update);
}

export async function manageUser(id: number, action: ManageAction): Promise<ManageResult> {
  const { data } = await api.post<ManageResult>('/api/user/manage', { id, action });
  return data;
}

/** Turns a user's 2FA off (administrators for users below them, root for all) and ends their sessions. */
export async function disableUserTwoFactor(id: number): Promise<string> {
  const { message } = await api.delete<unknown>(`/api/user/${id}/2fa`);
  return message;
}

/** Adds `delta` quota units (negative subtracts) in one atomic step; written as a management log. */
export async function addUserQuota(id: number, delta: number): Promise<ManageResult> {
  const { data } = await api.post<ManageResult>('/api/user/manage', { id, action: 'add_quota', mode: 'add', value: delta });
  return data;
}

export async function fetchGroups(): Promise<string[]> {
  const { data } = await api.get<string[] | null>('/api/group/');
  return data ?? [];
}

/** Ratios of the groups the signed-in admin can see; only these are available to colour group tags. */
export async function fetchGroupRatios(): Promise<UsableGroups> {
  const { data } = await api.get<UsableGroups | null>('/api/user/self/groups', { silent: true });
  return data ?? {};
}
