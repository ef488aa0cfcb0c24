import { request as playwrightRequest, type APIRequestContext, type Page } from '@playwright/test';

export const baseURL = `http://127.0.0.1:${process.env.MODELGATE_E2E_PORT}`;

export interface SignedInUser {
  id: number;
  username: string;
  role: number;
}

/** A stand-alone API client signed in as `username` (own cookie jar), sending New-Api-User. */
export async function apiSession(username: string, password: string): Promise<{ api: APIRequestContext; user: SignedInUser }> {
  const anonymous = await playwrightRequest.newContext({ baseURL });
  const answer = await anonymous.post('/api/user/login', { data: { username, password } });
  const body = (await answer.json()) as { success: boolean; message: string; data: SignedInUser };
  if (!body.success) throw new Error(`login as ${username} failed: ${body.message}`);
  const state = await anonymous.storageState();
  await anonymous.dispose();
  const api = await playwrightRequest.newContext({ baseURL, storageState: state, extraHTTPHeaders: { 'New-Api-User': String(body.data.id) } });
  return { api, user: body.data };
}

/** Reads the data of a successful {success, message, data} answer, failing loudly otherwise. */
export async function dataOf<T>(answer: Awaited<ReturnType<APIRequestContext['get']>>): Promise<T> {
  const body = (await answer.json()) as { success: boolean; message: string; data: T };
  if (!body.success) throw new Error(`API call failed: ${body.message}`);
  return body.data;
}

/**
 * Signs the browser in without the login form (its default-password dialog is the shell spec's
 * subject): the session cookie from the API and the stored user the console reads at start.
 */
export async function signInBrowser(page: Page, username: string, password: string): Promise<SignedInUser> {
  const answer = await page.request.post('/api/user/login', { data: { username, password } });
  const user = await dataOf<SignedInUser>(answer);
  await page.addInitScript((stored) => {
    if (!localStorage.getItem('user')) localStorage.setItem('user', JSON.stringify(stored));
  }, user);
  return user;
}
