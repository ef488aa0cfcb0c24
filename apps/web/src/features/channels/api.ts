import type {
  AbilityRepair,
  BalanceRefresh,
  BreakerState,
  CatalogueModel,
  ChannelKey,
  ChannelPage,
  KeyStatusPage,
  ListedChannel,
  WireChannel,
} from '@modelgate/contract';
import { api, ApiError } from '../../lib/api-client';

export { rethrowUnlessApiError } from '../../lib/api-client';

/** A channel of the list and of GET /api/channel/{id}: the stored fields (the key always '') and the answering node's breaker. */
export type Channel = ListedChannel;
export type { BalanceRefresh, BreakerState, CatalogueModel, KeyStatusPage };

export interface ChannelListParams {
  page: number;
  pageSize: number;
  keyword: string;
  group: string;
  model: string;
  idSort: boolean;
  tagMode: boolean;
}

/** What the channel form sends; `groups` is the form's array, the server stores it as a comma list. */
export interface ChannelPayload {
  id?: number;
  type: number;
  name: string;
  key: string;
  base_url: string;
  other: string;
  openai_organization: string;
  groups: string[];
  models: string;
  model_mapping: string;
  status_code_mapping: string;
  test_model: string;
  auto_ban: number;
  tag: string;
  priority: number;
  weight: number;
  setting: string;
  header_override: string;
  /** A channel of several keys: how a request picks its key. */
  multi_key_mode?: 'random' | 'polling';
  /** On update, whether the keys typed join the stored ones or replace them. */
  key_mode?: 'append' | 'replace';
}

export interface TagEditPayload {
  tag: string;
  new_tag?: string;
  model_mapping?: string;
  models?: string;
  groups?: string;
  priority?: number;
  weight?: number;
}

/** The list and the search share one answer; the search endpoint is used once any filter is set. */
export async function fetchChannels(params: ChannelListParams): Promise<ChannelPage> {
  const filtered = params.keyword !== '' || params.group !== '' || params.model !== '';
  const { data } = await api.get<ChannelPage>(filtered ? '/api/channel/search' : '/api/channel/', {
    query: {
      p: params.page,
      page_size: params.pageSize,
      keyword: params.keyword || undefined,
      group: params.group || undefined,
      model: params.model || undefined,
      id_sort: params.idSort,
      tag_mode: params.tagMode,
    },
  });
  return { ...data, items: data.items ?? [] };
}

export async function fetchChannel(id: number): Promise<Channel> {
  const { data } = await api.get<Channel>(`/api/channel/${id}`);
  return data;
}

/** The channel's full key (root only): asks for a security verification first when the session has none. */
export async function revealChannelKey(id: number): Promise<string> {
  const { data } = await api.post<ChannelKey>(`/api/channel/${id}/key`);
  return data.key;
}

export async function fetchGroups(): Promise<string[]> {
  const { data } = await api.get<string[]>('/api/group/');
  return data ?? [];
}

export async function fetchModelCatalogue(): Promise<CatalogueModel[]> {
  const { data } = await api.get<CatalogueModel[]>('/api/channel/models');
  return data ?? [];
}

/** Single mode creates one channel; batch mode one channel per key line (spec 02 §5). */
export async function createChannels(channel: ChannelPayload, batch: boolean): Promise<string> {
  const { message } = await api.post<unknown>('/api/channel/', { mode: batch ? 'batch' : 'single', channel });
  return message;
}

export async function updateChannel(channel: ChannelPayload & { id: number }): Promise<void> {
  await api.put<WireChannel>('/api/channel/', channel);
}

/** The row's inline edits and the enable/disable switch send only the changed field. */
export async function patchChannel(id: number, fields: { status?: number; priority?: number; weight?: number }): Promise<void> {
  await api.put<WireChannel>('/api/channel/', { id, ...fields });
}

export type KeyAction = 'enable_key' | 'disable_key' | 'delete_key' | 'enable_all_keys' | 'disable_all_keys' | 'delete_disabled_keys';

/** A page of a multi-key channel's keys (masked) with their states (new-api's get_key_status). */
export async function fetchKeyStatus(channelId: number, page: number, pageSize: number, status?: number): Promise<KeyStatusPage> {
  const { data } = await api.post<KeyStatusPage>('/api/channel/multi_key/manage', {
    channel_id: channelId,
    action: 'get_key_status',
    page,
    page_size: pageSize,
    ...(status === undefined ? {} : { status }),
  });
  return data;
}

/** Enables, disables or deletes one key (`keyIndex`) or several; the server's message says what was done. */
export async function manageKeys(channelId: number, action: KeyAction, keyIndex?: number): Promise<string> {
  const { message } = await api.post<unknown>('/api/channel/multi_key/manage', {
    channel_id: channelId,
    action,
    ...(keyIndex === undefined ? {} : { key_index: keyIndex }),
  });
  return message;
}

export async function deleteChannel(id: number): Promise<void> {
  await api.delete<unknown>(`/api/channel/${id}/`);
}

/** The server copies the stored key as well, which the console never sees. */
export async function copyChannel(id: number, suffix: string, resetBalance: boolean): Promise<WireChannel> {
  const { data } = await api.post<WireChannel>(`/api/channel/copy/${id}`, undefined, { query: { suffix, reset_balance: String(resetBalance) }, silent: true });
  return data;
}

/** Seconds the test took (the answer carries `time` beside the envelope, as new-api's does). */
export async function testChannel(id: number, model?: string): Promise<number> {
  const { envelope } = await api.get<unknown>(`/api/channel/test/${id}`, { query: { model: model || undefined } });
  const time = Number(envelope.time);
  return Number.isFinite(time) ? time : 0;
}

export type ModelTestResult = { ok: true; time: number } | { ok: false; message: string };

/** One model's test for the model test dialog: the outcome is shown in its row, not as a toast. */
export async function testChannelModel(id: number, model: string): Promise<ModelTestResult> {
  try {
    const { envelope } = await api.get<unknown>(`/api/channel/test/${id}`, { query: { model }, silent: true });
    const time = Number(envelope.time);
    return { ok: true, time: Number.isFinite(time) ? time : 0 };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, message: error.message };
    throw error;
  }
}

export async function testAllChannels(): Promise<void> {
  await api.get<unknown>('/api/channel/test');
}

export async function updateBalance(id: number): Promise<number> {
  const { data } = await api.get<number>(`/api/channel/update_balance/${id}/`);
  return Number(data);
}

export async function updateAllBalances(): Promise<BalanceRefresh> {
  const { data } = await api.get<BalanceRefresh>('/api/channel/update_balance');
  return data;
}

export async function deleteDisabledChannels(): Promise<number> {
  const { data } = await api.delete<number>('/api/channel/disabled');
  return Number(data);
}

export async function deleteChannels(ids: number[]): Promise<number> {
  const { data } = await api.post<number>('/api/channel/batch', { ids });
  return Number(data);
}

export async function fixAbilities(): Promise<AbilityRepair> {
  const { data } = await api.post<AbilityRepair>('/api/channel/fix');
  return data;
}

export async function setChannelsTag(ids: number[], tag: string): Promise<number> {
  const { data } = await api.post<number>('/api/channel/batch/tag', { ids, tag });
  return Number(data);
}

export async function editTag(payload: TagEditPayload): Promise<void> {
  await api.put<unknown>('/api/channel/tag', payload);
}

export async function setTagEnabled(tag: string, enabled: boolean): Promise<void> {
  await api.post<unknown>(`/api/channel/tag/${enabled ? 'enabled' : 'disabled'}`, { tag });
}

/**
 * The upstream's model list: a saved channel's own key when the form leaves the key empty,
 * otherwise the type, base URL and key typed into the form.
 */
export async function fetchUpstreamModels(source: { id?: number; type: number; base_url: string; key: string }): Promise<string[]> {
  const firstKey =
    source.key
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line !== '') ?? '';
  if (source.id !== undefined && firstKey === '') {
    const { data } = await api.get<string[]>(`/api/channel/fetch_models/${source.id}`);
    return data ?? [];
  }
  const { data } = await api.post<string[]>('/api/channel/fetch_models', { type: source.type, base_url: source.base_url, key: firstKey });
  return data ?? [];
}
