import type { LoginTwoFactorRequired, PublicUser, SignedInUser } from '@modelgate/contract';
import { api } from '../../lib/api-client';

/** The user object of sign-in answers and of GET /api/user/self, which carries every other field (quota, bindings ...) as well. */
export type UserInfo = SignedInUser & Partial<PublicUser>;

export interface RegisterInput {
  username: string;
  password: string;
  password2: string;
  email?: string;
  verification_code?: string;
  aff_code?: string;
}

export type OAuthProvider = 'github' | 'linuxdo' | 'oidc';

/** Telegram's login widget hands these fields to its callback; the server verifies the hash. */
export interface TelegramAuthData {
  id: number;
  first_name?: string;
  last_name?: string;
  username?: string;
  photo_url?: string;
  auth_date: number;
  hash: string;
}

/** The signed-in user, or (the account has 2FA) new-api's require_2fa: the code goes to loginWithSecondFactor. */
export async function loginWithPassword(username: string, password: string, turnstile: string): Promise<UserInfo | LoginTwoFactorRequired> {
  // A wrong password must read as a failed login, never as "your session expired".
  const { data } = await api.post<UserInfo | LoginTwoFactorRequired>(
    '/api/user/login',
    { username, password },
    { query: { turnstile }, skipAuthRedirect: true },
  );
  return data;
}

export function needsSecondFactor(answer: UserInfo | LoginTwoFactorRequired): answer is LoginTwoFactorRequired {
  return 'require_2fa' in answer && answer.require_2fa === true;
}

/** The sign-in's code step: a TOTP or backup code for this browser's pending sign-in (its cookie). */
export async function loginWithSecondFactor(code: string): Promise<UserInfo> {
  const { data } = await api.post<UserInfo>('/api/user/login/2fa', { code }, { skipAuthRedirect: true });
  return data;
}

export async function logout(): Promise<void> {
  await api.get<unknown>('/api/user/logout', { silent: true, skipAuthRedirect: true });
}

export async function register(input: RegisterInput, turnstile: string): Promise<string> {
  const { message } = await api.post<unknown>('/api/user/register', input, { query: { turnstile } });
  return message;
}

export async function sendVerificationCode(email: string, turnstile: string): Promise<string> {
  const { message } = await api.get<unknown>('/api/verification', { query: { email, turnstile } });
  return message;
}

export async function requestPasswordReset(email: string, turnstile: string): Promise<string> {
  const { message } = await api.get<unknown>('/api/reset_password', { query: { email, turnstile } });
  return message;
}

/** Answers with the newly generated password. */
export async function confirmPasswordReset(email: string, token: string): Promise<string> {
  const { data } = await api.post<string>('/api/user/reset', { email, token });
  return data;
}

export async function fetchOAuthState(inviterCode: string | null): Promise<string> {
  const { data } = await api.get<string>('/api/oauth/state', { query: { aff: inviterCode ?? undefined } });
  return data;
}

export async function loginWithWeChat(code: string): Promise<UserInfo> {
  const { data } = await api.get<UserInfo>('/api/oauth/wechat', { query: { code }, skipAuthRedirect: true });
  return data;
}

export async function loginWithTelegram(auth: TelegramAuthData): Promise<UserInfo> {
  const query = Object.fromEntries(Object.entries(auth).map(([key, value]) => [key, String(value)]));
  const { data } = await api.get<UserInfo>('/api/oauth/telegram/login', { query, skipAuthRedirect: true });
  return data;
}

/** The callback answers message "bind" when the code was used to bind an already signed-in account. */
export async function completeOAuth(provider: OAuthProvider, code: string, state: string): Promise<{ bound: boolean; user: UserInfo | null }> {
  const { data, message } = await api.get<UserInfo | null>(`/api/oauth/${provider}`, { query: { code, state }, silent: true });
  return { bound: message === 'bind', user: data ?? null };
}

export async function fetchSelf(): Promise<PublicUser> {
  const { data } = await api.get<PublicUser>('/api/user/self', { silent: true });
  return data;
}
