import type { Passkey, PasskeyStatus } from '@modelgate/contract';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import type { FastifyRequest } from 'fastify';
import { AppError, badRequest, forbidden } from '../../errors/app-error.js';
import type { OptionService } from '../options/option-service.js';
import type { SecondFactor } from '../users/fresh-verification.js';
import type { UserRow } from '../users/user-repository.js';
import { PasskeyRepository, type ChallengeKind, type ChallengeOwner, type PasskeyRow } from './passkey-repository.js';
import { relyingPartyFor, type RelyingParty } from './relying-party.js';

/** How long a begun ceremony may take to finish. */
export const CHALLENGE_TTL_SECONDS = 300;
const CEREMONY_TIMEOUT_MS = 120_000;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** new-api's user handle: the decimal user id, so passkeys made there sign in here. */
const userHandleOf = (userId: number) => new TextEncoder().encode(String(userId));

const failed = (error: unknown, code: string) =>
  error instanceof AppError ? error : badRequest(`通行密钥验证失败：${error instanceof Error ? error.message : String(error)}`, code);

const transportsOf = (row: PasskeyRow): string[] => {
  if (row.transports === '') return [];
  try {
    const parsed = JSON.parse(row.transports) as unknown;
    return Array.isArray(parsed) ? parsed.filter((entry): entry is string => typeof entry === 'string') : [];
  } catch {
    return [];
  }
};

const credentialOf = (row: PasskeyRow) => ({
  id: row.credential_id,
  publicKey: isoBase64URL.toBuffer(row.public_key),
  counter: Number(row.sign_count),
  transports: transportsOf(row) as never,
});

/**
 * Passkeys (WebAuthn through SimpleWebAuthn): registering one or more per user, signing in with
 * one (discoverable credentials, no username), proving oneself again with one, and removing them.
 * Every ceremony's challenge is a row (passkey-repository.ts) taken once by its finish.
 */
export class PasskeyService {
  readonly repository: PasskeyRepository;

  constructor(
    repository: PasskeyRepository,
    private readonly options: OptionService,
  ) {
    this.repository = repository;
  }

  enabled(): boolean {
    return this.options.bool('passkey.enabled');
  }

  assertEnabled(): void {
    if (!this.enabled()) throw forbidden('管理员未启用 Passkey 登录', 'passkey:disabled');
  }

  /** The passkey as a second factor of re-verification (FreshVerification): users who have one. */
  secondFactor(): SecondFactor {
    return { method: 'passkey', enabledFor: async (userId) => this.enabled() && (await this.repository.countOf(userId)) > 0 };
  }

  async status(userId: number): Promise<PasskeyStatus> {
    const rows = await this.repository.listOf(userId);
    const lastUsed = Math.max(0, ...rows.map((row) => Number(row.last_used_at)));
    return {
      enabled: rows.length > 0,
      last_used_at: lastUsed > 0 ? new Date(lastUsed * 1000).toISOString() : null,
      passkeys: rows.map(
        (row): Passkey => ({
          id: Number(row.id),
          name: row.name,
          created_at: Number(row.created_at),
          last_used_at: Number(row.last_used_at),
          backup_eligible: Number(row.backup_eligible) === 1,
          backup_state: Number(row.backup_state) === 1,
          transports: transportsOf(row),
        }),
      ),
    };
  }

  private async challenge(kind: ChallengeKind, challenge: string, owner: ChallengeOwner, name = ''): Promise<void> {
    const now = nowSeconds();
    await this.repository.saveChallenge(
      { challenge, kind, user_id: owner.userId, session_id: owner.sessionId, name, expires_at: now + CHALLENGE_TTL_SECONDS },
      now,
    );
  }

  /** Options for adding a passkey to `user`'s account (the ones it has are excluded). */
  async beginRegistration(request: FastifyRequest, user: UserRow, owner: ChallengeOwner, name: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
    this.assertEnabled();
    const party = relyingPartyFor(this.options, request);
    const existing = await this.repository.listOf(Number(user.id));
    const options = await generateRegistrationOptions({
      rpName: party.name,
      rpID: party.id,
      userName: user.username,
      userID: userHandleOf(Number(user.id)),
      userDisplayName: user.display_name || user.username,
      timeout: CEREMONY_TIMEOUT_MS,
      attestationType: 'none',
      excludeCredentials: existing.map((row) => ({ id: row.credential_id, transports: transportsOf(row) })),
      authenticatorSelection: {
        residentKey: 'required',
        requireResidentKey: true,
        userVerification: party.userVerification,
        ...(party.attachment ? { authenticatorAttachment: party.attachment } : {}),
      },
    });
    await this.challenge('register', options.challenge, owner, name);
    return options;
  }

  /** Checks the browser's new credential against the pending registration and stores it. */
  async finishRegistration(request: FastifyRequest, user: UserRow, owner: ChallengeOwner, response: RegistrationResponseJSON): Promise<number> {
    this.assertEnabled();
    const party = relyingPartyFor(this.options, request);
    let name = '';
    let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verification = await verifyRegistrationResponse({
        response,
        expectedChallenge: async (challenge) => {
          const taken = await this.repository.takeChallenge(challenge, 'register', owner, nowSeconds());
          if (taken) name = taken.name;
          return taken !== undefined;
        },
        expectedOrigin: party.origins,
        expectedRPID: party.id,
        requireUserVerification: party.userVerification === 'required',
      });
    } catch (error) {
      throw failed(error, 'passkey:registration_failed');
    }
    if (!verification.verified) throw badRequest('通行密钥验证失败', 'passkey:registration_failed');
    const info = verification.registrationInfo;
    if (await this.repository.findByCredentialId(info.credential.id)) throw badRequest('该通行密钥已注册', 'passkey:already_registered');
    const transports = response.response.transports ?? info.credential.transports ?? [];
    return this.repository.insert({
      user_id: Number(user.id),
      credential_id: info.credential.id,
      public_key: isoBase64URL.fromBuffer(info.credential.publicKey),
      sign_count: info.credential.counter,
      transports: transports.length > 0 ? JSON.stringify(transports) : '',
      aaguid: info.aaguid,
      attestation_type: info.fmt,
      user_verified: info.userVerified ? 1 : 0,
      backup_eligible: info.credentialDeviceType === 'multiDevice' ? 1 : 0,
      backup_state: info.credentialBackedUp ? 1 : 0,
      attachment: response.authenticatorAttachment ?? '',
      name: name.slice(0, 64),
      created_at: nowSeconds(),
    });
  }

  /** Options for an assertion: any discoverable passkey of this site (sign-in), or one of `userId`'s. */
  async beginAssertion(request: FastifyRequest, kind: 'login' | 'verify', owner: ChallengeOwner): Promise<PublicKeyCredentialRequestOptionsJSON> {
    this.assertEnabled();
    const party: RelyingParty = relyingPartyFor(this.options, request);
    let allowCredentials: { id: string; transports?: string[] }[] | undefined;
    if (kind === 'verify') {
      const rows = await this.repository.listOf(owner.userId);
      if (rows.length === 0) throw badRequest('该用户尚未绑定 Passkey', 'passkey:none');
      allowCredentials = rows.map((row) => ({ id: row.credential_id, transports: transportsOf(row) }));
    }
    const options = await generateAuthenticationOptions({
      rpID: party.id,
      timeout: CEREMONY_TIMEOUT_MS,
      userVerification: party.userVerification,
      ...(allowCredentials ? { allowCredentials } : {}),
    });
    await this.challenge(kind, options.challenge, owner);
    return options;
  }

  /**
   * Checks an assertion against a pending sign-in or re-verification and records the use; answers
   * the passkey's row. For a re-verification the passkey must be `owner.userId`'s.
   */
  async finishAssertion(request: FastifyRequest, kind: 'login' | 'verify', owner: ChallengeOwner, response: AuthenticationResponseJSON): Promise<PasskeyRow> {
    this.assertEnabled();
    const party = relyingPartyFor(this.options, request);
    const row = await this.repository.findByCredentialId(response.id);
    if (!row || (kind === 'verify' && Number(row.user_id) !== owner.userId)) {
      throw badRequest('Passkey 验证失败，请重试或联系管理员', 'passkey:unknown_credential');
    }
    if (response.response.userHandle) {
      const handle = new TextDecoder().decode(isoBase64URL.toBuffer(response.response.userHandle));
      if (/^\d+$/.test(handle) && Number(handle) !== Number(row.user_id)) throw badRequest('用户句柄与凭证不匹配', 'passkey:user_handle_mismatch');
    }
    let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verification = await verifyAuthenticationResponse({
        response,
        expectedChallenge: async (challenge) => (await this.repository.takeChallenge(challenge, kind, owner, nowSeconds())) !== undefined,
        expectedOrigin: party.origins,
        expectedRPID: party.id,
        credential: credentialOf(row),
        requireUserVerification: party.userVerification === 'required',
      });
    } catch (error) {
      throw failed(error, 'passkey:assertion_failed');
    }
    if (!verification.verified) throw badRequest('通行密钥验证失败', 'passkey:assertion_failed');
    const info = verification.authenticationInfo;
    const recorded = await this.repository.recordUse(Number(row.id), Number(row.sign_count), info.newCounter, info.credentialBackedUp, nowSeconds());
    // An authenticator without a counter (always 0) cannot race; MySQL counts a row written with
    // the values it had as not updated.
    if (!recorded && info.newCounter > 0) {
      throw badRequest('通行密钥验证失败：签名计数器已被使用，请重试', 'passkey:counter_raced');
    }
    return row;
  }
}
