import type { PublicUser, TwoFactorBackupCodes, TwoFactorSetup, TwoFactorStatus } from '@modelgate/contract';
import { api } from '../../lib/api-client';
import type { TelegramAuthData } from '../auth/api';
import type { NotifySettingsUpdate } from './notify-settings';

/**
 * What GET /api/user/self answers in full (bindings, referral counters, balance); the shell's
 * useSelf() query already fetches it.
 */
export type SelfProfile = PublicUser;

/** The inviter code, created by the server on first request. */
export async function fetchAffCode(): Promise<string> {
  const { data } = await api.get<string>('/api/user/aff');
  return data;
}

/** Moves `quota` units of referral earnings to the balance; answers the server's message. */
export async function transferAffQuota(quota: number): Promise<string> {
  const { message } = await api.post<unknown>('/api/user/aff_transfer', { quota });
  return message;
}

export async function fetchUserModels(): Promise<string[]> {
  const { data } = await api.get<string[] | null>('/api/user/models');
  return data ?? [];
}

/** Generates a new system access token (the old one stops working) and answers it. */
export async function resetAccessToken(): Promise<string> {
  const { data } = await api.get<string>('/api/user/token');
  return data;
}

export async function changePassword(originalPassword: string, password: string): Promise<string> {
  const { message } = await api.put<unknown>('/api/user/self', { original_password: originalPassword, password });
  return message;
}

export async function deleteSelf(): Promise<string> {
  const { message } = await api.delete<unknown>('/api/user/self');
  return message;
}

export async function bindEmail(email: string, code: string): Promise<string> {
  const { message } = await api.get<unknown>('/api/oauth/email/bind', { query: { email, code } });
  return message;
}

export async function bindWeChat(code: string): Promise<string> {
  const { message } = await api.get<unknown>('/api/oauth/wechat/bind', { query: { code } });
  return message;
}

export async function bindTelegram(auth: TelegramAuthData): Promise<string> {
  const query = Object.fromEntries(Object.entries(auth).map(([key, value]) => [key, String(value)]));
  const { message } = await api.get<unknown>('/api/oauth/telegram/bind', { query });
  return message;
}

/** The quota warning (PUT /api/user/setting); answers the server's message. */
export async function saveNotifySettings(update: NotifySettingsUpdate): Promise<string> {
  const { message } = await api.put<unknown>('/api/user/setting', update);
  return message;
}

/** Two-factor authentication of the signed-in user (new-api's /api/user/2fa/*). */
export async function fetchTwoFactorStatus(): Promise<TwoFactorStatus> {
  const { data } = await api.get<TwoFactorStatus>('/api/user/2fa/status');
  return data;
}

/** A pending secret and backup codes; asks for a security verification first when the session has none. */
export async function setupTwoFactor(): Promise<TwoFactorSetup> {
  const { data } = await api.post<TwoFactorSetup>('/api/user/2fa/setup');
  return data;
}

export async function enableTwoFactor(code: string): Promise<string> {
  const { message } = await api.post<unknown>('/api/user/2fa/enable', { code });
  return message;
}

export async function disableTwoFactor(code: string): Promise<string> {
  const { message } = await api.post<unknown>('/api/user/2fa/disable', { code });
  return message;
}

export async function regenerateBackupCodes(code: string): Promise<string[]> {
  const { data } = await api.post<TwoFactorBackupCodes>('/api/user/2fa/backup_codes', { code });
  return data.backup_codes;
}
