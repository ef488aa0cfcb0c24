import { Toast } from '@douyinfe/semi-ui';
import i18n from '../../i18n';
import { api, ApiError } from '../../lib/api-client';
import { StorageKey, writeJson, writeString, type StorageKeyName } from '../../lib/storage';
import type { SystemStatus } from './types';

export async function fetchStatus(): Promise<SystemStatus> {
  try {
    const { data } = await api.get<SystemStatus>('/api/status', { silent: true });
    persistStatus(data ?? {});
    return data ?? {};
  } catch (error) {
    if (!(error instanceof ApiError && error.notified)) Toast.error(i18n.t('common:errors.statusLoad'));
    throw error;
  }
}

const mirroredKeys: ReadonlyArray<[StorageKeyName, keyof SystemStatus]> = [
  [StorageKey.footerHtml, 'footer_html'],
  [StorageKey.enableDrawing, 'enable_drawing'],
  [StorageKey.enableTask, 'enable_task'],
  [StorageKey.enableDataExport, 'enable_data_export'],
  [StorageKey.mjNotifyEnabled, 'mj_notify_enabled'],
  [StorageKey.chatLink, 'chat_link'],
  [StorageKey.chatLink2, 'chat_link2'],
];

/**
 * The spec keeps the status object and several of its fields as separate localStorage keys; the
 * first paint and pages that have not fetched status yet read them from there.
 */
function persistStatus(status: SystemStatus): void {
  writeJson(StorageKey.status, status);
  for (const [key, field] of mirroredKeys) {
    const value = status[field];
    writeString(key, value === undefined || value === null ? '' : String(value));
  }
  if (status.chats !== undefined) {
    writeString(StorageKey.chats, typeof status.chats === 'string' ? status.chats : JSON.stringify(status.chats));
  }
  if (status.default_collapse_sidebar !== undefined) {
    writeString(StorageKey.defaultCollapseSidebar, String(status.default_collapse_sidebar));
  }
}
