import { Toast } from '@douyinfe/semi-ui';
import type { SignedInUser, VerifyResult } from '@modelgate/contract';
import {
  startAuthentication,
  startRegistration,
  WebAuthnError,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import i18n from '../../i18n';
import { ApiError } from '../../lib/api-client';
import { beginLogin, beginRegistration, beginVerify, finishLogin, finishRegistration, finishVerify } from './api';

/**
 * The three passkey ceremonies: the server's options, the browser's authenticator
 * (@simplewebauthn/browser), the server's check. A browser-side failure (cancelled, timed out,
 * no authenticator) is shown here and thrown as an ApiError that says it was shown, like the
 * API client's own refusals, so callers need only `catch {}`.
 */
async function inBrowser<T>(ceremony: () => Promise<T>): Promise<T> {
  try {
    return await ceremony();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const cancelled =
      error instanceof Error && (error.name === 'NotAllowedError' || (error instanceof WebAuthnError && error.code === 'ERROR_CEREMONY_ABORTED'));
    const known = error instanceof WebAuthnError && error.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED';
    const text = known
      ? i18n.t('passkeys:ceremony.alreadyRegistered')
      : cancelled
        ? i18n.t('passkeys:ceremony.cancelled')
        : i18n.t('passkeys:ceremony.failed', { message: error instanceof Error ? error.message : String(error) });
    Toast.error(text);
    throw new ApiError(text, 0, true);
  }
}

/** Adds a passkey to the signed-in account (the session must be freshly verified). */
export async function registerPasskey(name: string): Promise<void> {
  const { options } = await beginRegistration(name);
  const credential = await inBrowser(() => startRegistration({ optionsJSON: options.publicKey as unknown as PublicKeyCredentialCreationOptionsJSON }));
  await finishRegistration(credential);
}

/** Signs in with any passkey of this site the authenticator holds; answers the signed-in user. */
export async function signInWithPasskey(): Promise<SignedInUser> {
  const { options } = await beginLogin();
  const assertion = await inBrowser(() => startAuthentication({ optionsJSON: options.publicKey as unknown as PublicKeyCredentialRequestOptionsJSON }));
  return finishLogin(assertion);
}

/**
 * Re-verification with one of the user's passkeys (begin → authenticator → finish): the session
 * then counts as freshly verified. The shared verification modal calls this for method "passkey".
 */
export async function verifyWithPasskey(): Promise<VerifyResult> {
  const { options } = await beginVerify();
  const assertion = await inBrowser(() => startAuthentication({ optionsJSON: options.publicKey as unknown as PublicKeyCredentialRequestOptionsJSON }));
  return finishVerify(assertion);
}
