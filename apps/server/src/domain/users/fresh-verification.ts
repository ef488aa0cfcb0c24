import type { FastifyRequest } from 'fastify';
import { AppError, forbidden } from '../../errors/app-error.js';
import type { OptionService } from '../options/option-service.js';
import type { SessionRepository } from './session-repository.js';
import type { UserRow } from './user-repository.js';

/** How a user proves themselves again: new-api's `POST /api/verify` methods. */
export type VerificationMethod = '2fa' | 'passkey' | 'password';

/**
 * A second factor a user may have set up (TOTP, passkeys). The strongest the user has is the one
 * re-verification asks for; the password only counts when they have none.
 */
export interface SecondFactor {
  readonly method: Exclude<VerificationMethod, 'password'>;
  /** Whether this user has the factor set up. */
  enabledFor(userId: number): Promise<boolean>;
  /**
   * Checks a proof given to `POST /api/verify` (a TOTP or backup code); throws an AppError with
   * the reason when it is wrong. Absent for factors proven by their own flow (a passkey
   * assertion), which call `FreshVerification.mark` when they succeed.
   */
  verify?(user: UserRow, input: { code: string }): Promise<void>;
}

export const VERIFICATION_REQUIRED = 'VERIFICATION_REQUIRED';

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * Re-verification before secrets: reading a channel's full key and changing the password, 2FA or
 * passkeys need the session to have proven its user again within `SecureVerificationWindowSeconds`.
 * The proof is kept on the session row, so every node sees it and signing out ends it.
 */
export class FreshVerification {
  private readonly factors = new Map<SecondFactor['method'], SecondFactor>();

  constructor(
    private readonly sessions: SessionRepository,
    private readonly options: OptionService,
  ) {}

  /** Adds a second factor (done once at start by the module that owns it). */
  register(factor: SecondFactor): void {
    this.factors.set(factor.method, factor);
  }

  factor(method: SecondFactor['method']): SecondFactor | undefined {
    return this.factors.get(method);
  }

  /** The methods this user can re-verify with: their second factors, else the password. */
  async methodsOf(userId: number): Promise<VerificationMethod[]> {
    const methods: VerificationMethod[] = [];
    for (const factor of this.factors.values()) {
      if (await factor.enabledFor(userId)) methods.push(factor.method);
    }
    return methods.length > 0 ? methods : ['password'];
  }

  windowSeconds(): number {
    return this.options.number('SecureVerificationWindowSeconds');
  }

  /** Notes on the request's session that its user proved themselves now with `method`. */
  async mark(request: FastifyRequest, method: VerificationMethod): Promise<number> {
    if (request.sessionId === undefined) throw sessionOnly();
    const now = nowSeconds();
    await this.sessions.markVerified(request.sessionId, method, now);
    request.sessionVerifiedAt = now;
    request.sessionVerifiedMethod = method;
    return now + this.windowSeconds();
  }

  /** Until when the request's session counts as freshly verified (Unix seconds), or 0. */
  freshUntil(request: FastifyRequest): number {
    const verifiedAt = request.sessionVerifiedAt ?? 0;
    if (request.sessionId === undefined || verifiedAt <= 0) return 0;
    const until = verifiedAt + this.windowSeconds();
    return until > nowSeconds() ? until : 0;
  }

  /** Throws new-api's VERIFICATION_REQUIRED unless the request's session verified recently. */
  require(request: FastifyRequest): void {
    if (request.sessionId === undefined) throw sessionOnly();
    if (this.freshUntil(request) === 0) {
      throw new AppError('auth:verification_required', '需要安全验证，请先完成验证', { status: 403, apiCode: VERIFICATION_REQUIRED });
    }
  }
}

const sessionOnly = () => forbidden('当前认证方式不支持安全验证，请在控制台登录后操作', 'auth:verification_needs_session');
