import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { AppError } from '../../errors/app-error.js';
import type { OptionService } from '../options/option-service.js';

export interface MailMessage {
  to: string;
  subject: string;
  html: string;
}

const SMTP_TIMEOUT_MS = 15_000;

/**
 * Transport settings from the SMTP options. Port 465 is implicit TLS, so SSL is forced on there
 * whatever SMTPSSLEnabled says; on other ports the client upgrades with STARTTLS when offered.
 */
export function smtpTransportOptions(options: OptionService): SMTPTransport.Options {
  const port = options.number('SMTPPort');
  const account = options.string('SMTPAccount');
  const password = options.raw('SMTPToken');
  return {
    host: options.string('SMTPServer'),
    port,
    secure: port === 465 || options.bool('SMTPSSLEnabled'),
    auth: account !== '' ? { user: account, pass: password } : undefined,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  };
}

/** The sender address: SMTPFrom, or the account when it is empty (as new-api does). */
export function senderAddress(options: OptionService): string {
  return options.string('SMTPFrom') || options.string('SMTPAccount');
}

/** Sends one mail through the configured SMTP server; failures become AppErrors the console can show. */
export async function sendMail(options: OptionService, message: MailMessage): Promise<void> {
  if (options.string('SMTPServer') === '') {
    throw new AppError('mail:not_configured', 'SMTP 服务器未配置，请联系管理员', { status: 503 });
  }
  const transport = nodemailer.createTransport(smtpTransportOptions(options));
  try {
    await transport.sendMail({
      from: { name: options.string('SystemName'), address: senderAddress(options) },
      to: message.to,
      subject: message.subject,
      html: message.html,
    });
  } catch (error) {
    throw new AppError('mail:send_failed', `邮件发送失败：${(error as Error).message}`, { status: 502, cause: error });
  } finally {
    transport.close();
  }
}
