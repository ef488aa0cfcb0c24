import { randomInt } from 'node:crypto';
import type { AppContext } from '../../app-context.js';
import { AppError, badRequest } from '../../errors/app-error.js';
import { sendMail } from '../mail/mailer.js';
import { passwordResetMail, verificationCodeMail } from '../mail/templates.js';
import { hashPassword } from '../users/password.js';
import { randomAlphanumeric } from '../users/user-service.js';
import type { VerificationPurpose } from './code-store.js';
import { assertEmailAllowed } from './email-rules.js';

export const EMAIL_CODE_LENGTH = 6;
export const EMAIL_CODE_TTL_SECONDS = 3 * 60;
export const RESEND_COOLDOWN_SECONDS = 30;
export const RESET_TOKEN_TTL_SECONDS = 15 * 60;
const RESET_PASSWORD_LENGTH = 12;

/** Six digits from the CSPRNG. */
export function randomDigits(length: number): string {
  let code = '';
  for (let index = 0; index < length; index += 1) code += String(randomInt(10));
  return code;
}

async function issueOrWait(context: AppContext, purpose: VerificationPurpose, key: string, code: string, ttlSeconds: number) {
  const wait = await context.verification.issue({ purpose, key, code, ttlSeconds, cooldownSeconds: RESEND_COOLDOWN_SECONDS });
  if (wait > 0) {
    throw new AppError('verification:too_frequent', `发送过于频繁，请 ${wait} 秒后再试`, { status: 429 });
  }
}

/**
 * Mails a registration / binding code to an address no account uses yet (GET /api/verification).
 * `email` must already be normalised.
 */
export async function sendEmailVerificationCode(context: AppContext, email: string): Promise<void> {
  const { options, users } = context;
  assertEmailAllowed(options, email);
  if (await users.repository.emailTaken(email)) throw badRequest('邮箱地址已被占用', 'email:taken');
  const code = randomDigits(EMAIL_CODE_LENGTH);
  await issueOrWait(context, 'email_verification', email, code, EMAIL_CODE_TTL_SECONDS);
  await sendMail(options, verificationCodeMail(options.string('SystemName'), email, code, EMAIL_CODE_TTL_SECONDS / 60));
}

/** Uses up the code mailed to `email`; false when it is wrong, expired or already used. */
export function consumeEmailVerificationCode(context: AppContext, email: string, code: string): Promise<boolean> {
  return context.verification.consume('email_verification', email, code.trim());
}

/**
 * Mails a one-time reset link to the owner of `email` (GET /api/reset_password). The link points
 * at the console's reset page on ServerAddress, or on the address the request came to.
 */
export async function sendPasswordResetLink(context: AppContext, email: string, requestOrigin: string): Promise<void> {
  const { options, users } = context;
  if (!(await users.repository.findLiveByEmail(email))) throw badRequest('该邮箱地址未注册', 'email:not_registered');
  const token = randomAlphanumeric(32);
  await issueOrWait(context, 'password_reset', email, token, RESET_TOKEN_TTL_SECONDS);
  const base = options.string('ServerAddress') || requestOrigin;
  const link = `${base}/user/reset?email=${encodeURIComponent(email)}&token=${token}`;
  await sendMail(options, passwordResetMail(options.string('SystemName'), email, link, RESET_TOKEN_TTL_SECONDS / 60));
}

/** Spends a reset token and gives the account a new random password, which is returned. */
export async function resetPasswordWithToken(context: AppContext, email: string, token: string): Promise<string> {
  if (!(await context.verification.consume('password_reset', email, token.trim()))) {
    throw badRequest('重置链接非法或已过期', 'verification:reset_link_invalid');
  }
  const user = await context.users.repository.findLiveByEmail(email);
  if (!user) throw badRequest('该邮箱地址未注册', 'email:not_registered');
  const password = randomAlphanumeric(RESET_PASSWORD_LENGTH);
  await context.users.repository.update(Number(user.id), { password: await hashPassword(password) });
  return password;
}
