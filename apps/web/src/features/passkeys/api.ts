import type { PasskeyCeremony, PasskeyStatus, SignedInUser, VerifyResult } from '@modelgate/contract';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/browser';
import { api } from '../../lib/api-client';

/** The signed-in user's passkeys (GET /api/user/passkey). */
export async function fetchPasskeys(): Promise<PasskeyStatus> {
  return (await api.get<PasskeyStatus>('/api/user/passkey')).data;
}

export async function beginRegistration(name: string): Promise<PasskeyCeremony> {
  return (await api.post<PasskeyCeremony>('/api/user/passkey/register/begin', { name })).data;
}

export async function finishRegistration(credential: RegistrationResponseJSON): Promise<void> {
  await api.post<unknown>('/api/user/passkey/register/finish', credential);
}

export async function removePasskey(id: number): Promise<void> {
  await api.delete<unknown>('/api/user/passkey', { query: { id } });
}

export async function beginLogin(): Promise<PasskeyCeremony> {
  return (await api.post<PasskeyCeremony>('/api/user/passkey/login/begin', {}, { skipAuthRedirect: true })).data;
}

export async function finishLogin(assertion: AuthenticationResponseJSON): Promise<SignedInUser> {
  // A refused passkey must read as a failed sign-in, never as "your session expired".
  return (await api.post<SignedInUser>('/api/user/passkey/login/finish', assertion, { skipAuthRedirect: true })).data;
}

export async function beginVerify(): Promise<PasskeyCeremony> {
  return (await api.post<PasskeyCeremony>('/api/user/passkey/verify/begin', {})).data;
}

export async function finishVerify(assertion: AuthenticationResponseJSON): Promise<VerifyResult> {
  return (await api.post<VerifyResult>('/api/user/passkey/verify/finish', assertion)).data;
}

/** Administrators: removes all of a user's passkeys (DELETE /api/user/:id/reset_passkey). */
export async function resetUserPasskeys(userId: number): Promise<string> {
  return (await api.delete<unknown>(`/api/user/${userId}/reset_passkey`)).message;
}
