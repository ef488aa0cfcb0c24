import type { MailMessage } from './mailer.js';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** The mail carrying an email verification code (texts as new-api words them). */
export function verificationCodeMail(systemName: string, to: string, code: string, validMinutes: number): MailMessage {
  const name = escapeHtml(systemName);
  return {
    to,
    subject: `${systemName}邮箱验证邮件`,
    html:
      `<p>您好，你正在进行${name}邮箱验证。</p>` +
      `<p>您的验证码为: <strong>${escapeHtml(code)}</strong></p>` +
      `<p>验证码 ${validMinutes} 分钟内有效，如果不是本人操作，请忽略。</p>`,
  };
}

/** The mail carrying a one-time password reset link. */
export function passwordResetMail(systemName: string, to: string, link: string, validMinutes: number): MailMessage {
  const name = escapeHtml(systemName);
  const href = escapeHtml(link);
  return {
    to,
    subject: `${systemName}密码重置`,
    html:
      `<p>您好，你正在进行${name}密码重置。</p>` +
      `<p>点击 <a href="${href}">此处</a> 进行密码重置。</p>` +
      `<p>如果链接无法点击，请尝试点击下面的链接或将其复制到浏览器中打开：<br> ${href} </p>` +
      `<p>重置链接 ${validMinutes} 分钟内有效，如果不是本人操作，请忽略。</p>`,
  };
}

/**
 * The mail telling a user their balance is running low (subject and body as new-api words them;
 * one-api's "已用尽" when nothing is left). `remaining` is already formatted as the console shows it;
 * without a top-up link (ServerAddress unset) the link line is left out.
 */
export function quotaReminderMail(to: string, remaining: string, exhausted: boolean, topUpLink: string | undefined): MailMessage {
  const prompt = exhausted ? '您的额度已用尽' : '您的额度即将用尽';
  const href = topUpLink === undefined ? undefined : escapeHtml(topUpLink);
  return {
    to,
    subject: prompt,
    html:
      `<p>${prompt}，当前剩余额度为 ${escapeHtml(remaining)}，为了不影响您的使用，请及时充值。</p>` +
      (href === undefined ? '' : `<p>充值链接：<a href="${href}">${href}</a></p>`),
  };
}
