/**
 * Every localStorage key the console uses. The names are part of the product spec (other tools and
 * older consoles read them), so they are spelled exactly as listed there.
 */
export const StorageKey = {
  user: 'user',
  status: 'status',
  footerHtml: 'footer_html',
  defaultCollapseSidebar: 'default_collapse_sidebar',
  enableDataExport: 'enable_data_export',
  enableDrawing: 'enable_drawing',
  enableTask: 'enable_task',
  mjNotifyEnabled: 'mj_notify_enabled',
  chats: 'chats',
  chatLink: 'chat_link',
  chatLink2: 'chat_link2',
  pageSize: 'page-size',
  idSort: 'id-sort',
  /** The pricing page's table or card view (modelgate's own; new-api keeps its choice the same way). */
  pricingView: 'pricing-view',
  language: 'i18nextLng',
  themeMode: 'theme-mode',
  inviterCode: 'aff',
  /** The log screen's column choice (as new-api names them: one for administrators, one for users). */
  logColumnsAdmin: 'logs-table-columns-admin',
  logColumnsUser: 'logs-table-columns-user',
} as const;

export type StorageKeyName = (typeof StorageKey)[keyof typeof StorageKey];

// Storage can throw (private mode, quota, disabled cookies); the console must keep working without it.
export function readString(key: StorageKeyName): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeString(key: StorageKeyName, value: string): void {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    /* storage unavailable: the in-memory state still works for this tab */
  }
}

export function removeKey(key: StorageKeyName): void {
  try {
    window.localStorage.removeItem(key);
  } catch {
    /* see writeString */
  }
}

export function readJson<T>(key: StorageKeyName): T | null {
  const raw = readString(key);
  if (raw === null || raw === '') return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}

export function writeJson(key: StorageKeyName, value: unknown): void {
  writeString(key, JSON.stringify(value));
}
