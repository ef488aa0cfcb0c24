import { createHash, randomBytes, randomInt } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';
import type { Db } from '../../db/index.js';
import { AppError, badRequest } from '../../errors/app-error.js';
import type { RateLimitStore } from '../../lib/rate-limit.js';
import type { OptionService } from '../options/option-service.js';
import type { SecondFactor } from './fresh-verification.js';
import { beginLoginAttempt, loginLockedFor } from './login-limit.js';
import { TwoFactorRepository } from './two-factor-repository.js';
import { isUniqueViolation, type UserRow } from './user-repository.js';

export const BACKUP_CODE_COUNT = 10;
/** How long a sign-in that passed the password waits for its code, as in new-api. */
export const PENDING_LOGIN_SECONDS = 5 * 60;
/** Codes of the step before and after the current one are accepted too (clock drift). */
const TOLERANCE_SECONDS = 30;
// No 0/O or 1/I: backup codes are read off paper.
const BACKUP_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export const WRONG_CODE = '验证码或备用码错误，请重试';

const nowSeconds = () => Math.floor(Date.now() / 1000);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** Backup codes as typed: any case, with or without the dash or spaces. */
const normaliseBackupCode = (code: string) => code.toUpperCase().replace(/[^A-Z0-9]/g, '');
// The user id in the hash keeps one user's code from ever matching another's row.
const backupCodeHash = (userId: number, code: string) => sha256(`${userId}:${normaliseBackupCode(code)}`);
const pendingLoginHash = (token: string) => sha256(`2fa-login:${token}`);
/** The account key of the 2FA code limit, apart from the password sign-in's and POST /api/verify's. */
const codeAccount = (userId: number) => `#2fa:${userId}`;

function newBackupCode(): string {
  let code = '';
  for (let index = 0; index < 10; index += 1) code += BACKUP_ALPHABET[randomInt(BACKUP_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

export interface TwoFactorStatus {
  enabled: boolean;
  locked: boolean;
  backup_codes_remaining?: number;
}

export interface TwoFactorSetup {
  secret: string;
  /** The otpauth:// URI the console draws as a QR code (new-api's name). */
  qr_code_data: string;
  backup_codes: string[];
}

export interface TwoFactorStats {
  total_users: number;
  enabled_users: number;
  /** Percent of live users with 2FA on, one decimal and a % sign, as new-api answers it. */
  enabled_rate: string;
}

interface CodeCheck {
  /** Whether an unused backup code is accepted too (sign-in, re-verification, disabling). */
  backup: boolean;
}

/**
 * TOTP two-factor sign-in (RFC 6238 through otplib: SHA-1, 6 digits, 30 s, ±1 step) with
 * one-time backup codes. Every code check counts toward a per-account lock (login-limit.ts, its
 * own account key), a TOTP code is accepted once per time step and a backup code once. It is
 * the '2fa' factor of re-verification (fresh-verification.ts).
 */
export class TwoFactor implements SecondFactor {
  readonly method = '2fa' as const;
  readonly repository: TwoFactorRepository;

  constructor(
    db: Db,
    private readonly rateLimits: RateLimitStore,
    private readonly options: OptionService,
  ) {
    this.repository = new TwoFactorRepository(db);
  }

  enabledFor(userId: number): Promise<boolean> {
    return this.repository.isEnabled(userId);
  }

  async status(userId: number): Promise<TwoFactorStatus> {
    const row = await this.repository.find(userId);
    const enabled = row !== undefined && Number(row.is_enabled) === 1;
    const locked = (await loginLockedFor(this.rateLimits, codeAccount(userId))) > 0;
    if (!enabled) return { enabled: false, locked };
    return { enabled, locked, backup_codes_remaining: await this.repository.unusedBackupCodes(userId) };
  }

  /** A new secret and backup codes, pending until `enable` gets a first code from the authenticator. */
  async setup(user: UserRow): Promise<TwoFactorSetup> {
    const userId = Number(user.id);
    const secret = generateSecret();
    const backupCodes = Array.from({ length: BACKUP_CODE_COUNT }, newBackupCode);
    const stored = await this.repository
      .replacePending(
        userId,
        secret,
        backupCodes.map((code) => backupCodeHash(userId, code)),
        nowSeconds(),
      )
      .catch((error: unknown) => {
        // Two setups at once: the other one's row won the user's unique index.
        if (isUniqueViolation(error)) throw badRequest('正在设置两步验证，请稍后重试', 'two_factor:setup_conflict');
        throw error;
      });
    if (!stored) throw badRequest('用户已启用2FA，请先禁用后重新设置', 'two_factor:already_enabled');
    const qrCodeData = generateURI({ issuer: this.options.string('SystemName') || 'modelgate', label: user.username, secret });
    return { secret, qr_code_data: qrCodeData, backup_codes: backupCodes };
  }

  /** Turns a pending setup on with a first code from the authenticator. */
  async enable(userId: number, code: string): Promise<void> {
    const row = await this.repository.find(userId);
    if (!row) throw badRequest('请先完成2FA初始化设置', 'two_factor:not_set_up');
    if (Number(row.is_enabled) === 1) throw badRequest('2FA已经启用', 'two_factor:already_enabled');
    const token = numericCode(code);
    const attempt = await beginLoginAttempt(this.rateLimits, codeAccount(userId));
    const result = await verify({ secret: row.secret, token, epoch: nowSeconds(), epochTolerance: TOLERANCE_SECONDS });
    if (!result.valid || !('timeStep' in result) || !(await this.repository.enable(userId, result.timeStep, nowSeconds()))) {
      await attempt.failed();
      throw badRequest(WRONG_CODE, 'two_factor:wrong_code');
    }
    await attempt.succeeded();
  }

  /** The '2fa' factor of POST /api/verify: a TOTP code or an unused backup code. */
  async verify(user: UserRow, input: { code: string }): Promise<void> {
    await this.checkCode(Number(user.id), input.code, { backup: true });
  }

  /** Turns 2FA off after a TOTP or backup code. */
  async disable(userId: number, code: string): Promise<void> {
    await this.checkCode(userId, code, { backup: true });
    await this.repository.remove(userId);
  }

  /** New backup codes (the old ones stop working) after a TOTP code, as new-api asks. */
  async regenerateBackupCodes(userId: number, code: string): Promise<string[]> {
    await this.checkCode(userId, numericCode(code), { backup: false });
    const codes = Array.from({ length: BACKUP_CODE_COUNT }, newBackupCode);
    await this.repository.replaceBackupCodes(
      userId,
      codes.map((backupCode) => backupCodeHash(userId, backupCode)),
      nowSeconds(),
    );
    return codes;
  }

  /** An administrator turns a user's 2FA off; false when it was not on. */
  adminDisable(userId: number): Promise<boolean> {
    return this.repository.remove(userId);
  }

  async stats(): Promise<TwoFactorStats> {
    const [total, enabled] = await Promise.all([this.repository.countLiveUsers(), this.repository.countEnabled()]);
    const rate = total > 0 ? (enabled / total) * 100 : 0;
    return { total_users: total, enabled_users: enabled, enabled_rate: `${rate.toFixed(1)}%` };
  }

  /**
   * A sign-in that passed the password and now waits for the code: its random token goes to the
   * browser (a signed cookie, and the answer's flow_token for new-api's newer clients), only its
   * hash to the database, so every node can complete it and a leaked table completes nothing.
   */
  async startLogin(userId: number): Promise<{ token: string; expiresAt: number }> {
    const token = randomBytes(32).toString('base64url');
    const now = nowSeconds();
    const expiresAt = now + PENDING_LOGIN_SECONDS;
    await this.repository.createLogin(pendingLoginHash(token), userId, now, expiresAt);
    return { token, expiresAt };
  }

  /** The user of a live pending sign-in, or undefined. */
  pendingLogin(token: string): Promise<number | undefined> {
    return token === '' ? Promise.resolve(undefined) : this.repository.findLogin(pendingLoginHash(token), nowSeconds());
  }

  /** Ends a pending sign-in: true for the one caller that completes it. */
  consumeLogin(token: string): Promise<boolean> {
    return this.repository.consumeLogin(pendingLoginHash(token), nowSeconds());
  }

  /**
   * Checks a TOTP code (or, when allowed, a backup code) of a user with 2FA on and uses it up;
   * throws with the reason when it does not pass. Counted toward the account's code lock.
   */
  async checkCode(userId: number, code: string, { backup }: CodeCheck): Promise<void> {
    const row = await this.repository.find(userId);
    if (!row || Number(row.is_enabled) !== 1) throw badRequest('用户未启用2FA', 'two_factor:not_enabled');
    const typed = code.replace(/\s/g, '');
    if (typed === '') throw badRequest('验证码不能为空', 'two_factor:missing_code');
    const attempt = await beginLoginAttempt(this.rateLimits, codeAccount(userId));
    try {
      if (/^\d{6}$/.test(typed)) {
        await this.checkTotp(userId, row.secret, Number(row.last_time_step), typed);
      } else if (!backup || !(await this.repository.spendBackupCode(userId, backupCodeHash(userId, typed), nowSeconds()))) {
        throw badRequest(WRONG_CODE, 'two_factor:wrong_code');
      }
    } catch (error) {
      if (error instanceof AppError && error.status < 500) await attempt.failed();
      throw error;
    }
    await attempt.succeeded();
  }

  private async checkTotp(userId: number, secret: string, lastTimeStep: number, token: string): Promise<void> {
    const epoch = nowSeconds();
    const result = await verify({ secret, token, epoch, epochTolerance: TOLERANCE_SECONDS });
    if (!result.valid || !('timeStep' in result)) throw badRequest(WRONG_CODE, 'two_factor:wrong_code');
    // A step at or before the last accepted one is a code seen already (or one older than it).
    if (result.timeStep <= lastTimeStep || !(await this.repository.acceptTimeStep(userId, result.timeStep, epoch))) {
      throw badRequest('验证码已被使用，请等待下一个验证码', 'two_factor:code_replayed');
    }
  }
}

/** A TOTP code as typed: six digits, spaces ignored. */
function numericCode(code: string): string {
  const digits = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(digits)) throw badRequest('验证码必须是6位数字', 'two_factor:bad_code_format');
  return digits;
}
