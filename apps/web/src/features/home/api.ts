import { api } from '../../lib/api-client';

/** Admin-authored Markdown/HTML, or an https address to embed; '' when unset. */
export async function fetchHomePageContent(): Promise<string> {
  const { data } = await api.get<string>('/api/home_page_content', { silent: true });
  return typeof data === 'string' ? data : '';
}

export async function fetchNotice(): Promise<string> {
  const { data } = await api.get<string>('/api/notice', { silent: true });
  return typeof data === 'string' ? data : '';
}
