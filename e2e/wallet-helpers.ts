import { request as playwrightRequest, type APIRequestContext, type Page } from '@playwright/test';

/**
 * Shared by the redemption, wallet and chat specs: sessions made through the real login API, so
 * tests start on the screen they exercise instead of clicking through the login form each time.
 */

export const ROOT = { username: 'root', password: '123456' };
export const USER_PASSWORD = 'e2e-password-1';

export interface ApiSession {
  api: APIRequestContext;
  user: { id: number; username: string; role: number };
  headers: Record<string, string>;
}

interface Envelope<T> {
  success: boolean;
  message: string;
  data: T;
}

function baseURL(): string {
  return `http://127.0.0.1:${process.env.MODELGATE_E2E_PORT}`;
}

async function unwrap<T>(response: Awaited<ReturnType<APIRequestContext['get']>>): Promise<T> {
  const body = (await response.json()) as Envelope<T>;
  if (!body.success) throw new Error(`${response.url()}: ${body.message}`);
  return body.data;
}

/** A signed-in API client of its own (its own cookie jar), e.g. root setting options. */
export async function apiSession(username: string, password: string): Promise<ApiSession> {
  const api = await playwrightRequest.newContext({ baseURL: baseURL() });
  const user = await unwrap<ApiSession['user']>(await api.post('/api/user/login', { data: { username, password } }));
  return { api, user, headers: { 'New-Api-User': String(user.id) } };
}

export async function apiCall<T>(session: ApiSession, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, data?: unknown): Promise<T> {
  return unwrap<T>(await session.api.fetch(path, { method, data, headers: session.headers }));
}

export async function setOption(root: ApiSession, key: string, value: string | number | boolean): Promise<void> {
  await apiCall(root, 'PUT', '/api/option/', { key, value });
}

/** Registers a fresh ordinary user (usernames are at most 12 characters). */
export async function registerUser(prefix: string): Promise<string> {
  const username = `${prefix}${Date.now().toString(36).slice(-6)}${Math.floor(Math.random() * 36).toString(36)}`.slice(0, 12);
  const api = await playwrightRequest.newContext({ baseURL: baseURL() });
  await unwrap(await api.post('/api/user/register', { data: { username, password: USER_PASSWORD, password2: USER_PASSWORD } }));
  await api.dispose();
  return username;
}

/** Signs the browser in: the session cookie comes from the real login call, the stored user like the login page stores it. */
export async function signIn(page: Page, username: string, password: string): Promise<ApiSession['user']> {
  const user = await unwrap<ApiSession['user']>(await page.request.post('/api/user/login', { data: { username, password } }));
  const stored = { id: user.id, username: user.username, role: user.role };
  await page.addInitScript((value) => localStorage.setItem('user', value), JSON.stringify(stored));
  return user;
}

/** Toasts stack up; the newest one carrying `text` is what the user just saw. */
export function toast(page: Page, text: string | RegExp) {
  return page.locator('.semi-toast-content').filter({ hasText: text });
}

/** The console's language and theme for the next page loads, as a user's earlier choice stored them. */
export async function presetLanguageAndTheme(page: Page, language: 'zh' | 'en', theme: 'light' | 'dark'): Promise<void> {
  await page.addInitScript(
    ([lang, mode]) => {
      localStorage.setItem('i18nextLng', lang);
      localStorage.setItem('theme-mode', mode);
    },
    [language, theme] as const,
  );
}
