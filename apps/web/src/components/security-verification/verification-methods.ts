import type { VerificationMethod } from './api';

/**
 * How the modal asks for each method, in the order it offers them (the strongest first). A method
 * the server lists without an entry here is not offered: a passkey adds its own entry with a
 * `run` that performs its ceremony instead of reading an input.
 */
export interface VerificationMethodUi {
  method: VerificationMethod;
  /** What the user types: a code, the password, or nothing (the method runs its own flow). */
  input: 'code' | 'password' | 'none';
  /** For input 'none': proves the user and marks the session (then POST /api/verify confirms it). */
  run?: () => Promise<void>;
}

export const VERIFICATION_METHOD_UIS: VerificationMethodUi[] = [
  {
    method: 'passkey',
    input: 'none',
    // The ceremony's code (and @simplewebauthn/browser) loads when a passkey is first used.
    run: async () => {
      const { verifyWithPasskey } = await import('../../features/passkeys/passkey-ceremonies');
      await verifyWithPasskey();
    },
  },
  { method: '2fa', input: 'code' },
  { method: 'password', input: 'password' },
];

/** The server's methods this console can offer, in the order above. */
export function offeredMethods(serverMethods: VerificationMethod[]): VerificationMethodUi[] {
  return VERIFICATION_METHOD_UIS.filter((ui) => serverMethods.includes(ui.method));
}
