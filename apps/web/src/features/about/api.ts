import { api } from '../../lib/api-client';

/** Admin-authored Markdown/HTML, or an https address to embed; '' when unset. */
export async function fetchAbout(): Promise<string> {
  const { data } = await api.get<string>('/api/about', { silent: true });
  return typeof data === 'string' ? data : '';
}
