import { z } from 'zod';
import { badRequest, forbidden } from '../../errors/app-error.js';
import type { OptionService } from '../options/option-service.js';

const emailSchema = z.email().max(128);

/** Trimmed and lower-cased, so one mailbox is one key for codes and one value in users.email. */
export function normaliseEmail(raw: unknown): string {
  const email = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  if (email === '') throw badRequest('请输入邮箱！', 'email:missing');
  if (!emailSchema.safeParse(email).success) throw badRequest('无效的邮箱地址', 'email:invalid');
  return email;
}

/**
 * The administrator's limits on which addresses may register or be bound: the domain whitelist
 * (EmailDomainRestrictionEnabled) and the alias restriction, which like new-api refuses local
 * parts containing '+' or '.' (the usual ways to mint many addresses for one mailbox).
 */
export function assertEmailAllowed(options: OptionService, email: string): void {
  const at = email.lastIndexOf('@');
  const localPart = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (options.bool('EmailDomainRestrictionEnabled')) {
    const whitelist = options
      .string('EmailDomainWhitelist')
      .split(',')
      .map((entry) => entry.trim().toLowerCase())
      .filter((entry) => entry !== '');
    if (!whitelist.includes(domain)) {
      throw forbidden('管理员启用了邮箱域名白名单，您的邮箱地址的域名不在白名单中', 'email:domain_not_allowed');
    }
  }
  if (options.bool('EmailAliasRestrictionEnabled') && /[+.]/.test(localPart)) {
    throw forbidden('管理员已启用邮箱地址别名限制，您的邮箱地址由于包含特殊符号而被拒绝。', 'email:alias_not_allowed');
  }
}
