import type { VerificationMethod, VerifyResult, VerifyStatus } from '@modelgate/contract';
import { api } from '../../lib/api-client';

export type { VerificationMethod, VerifyStatus };

export async function fetchVerifyStatus(): Promise<VerifyStatus> {
  const { data } = await api.get<VerifyStatus>('/api/verify/status');
  return data;
}

/** POST /api/verify with a 2FA code or the password (new-api's body). */
export async function verifyIdentity(method: VerificationMethod, proof: string): Promise<VerifyResult> {
  const body = method === 'password' ? { method, password: proof } : { method, code: proof };
  const { data } = await api.post<VerifyResult>('/api/verify', body);
  return data;
}
