import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpCatcher, type SmtpCatcher } from '../../test-support/smtp-catcher.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { sendMail, smtpTransportOptions } from './mailer.js';

describe('mailer', () => {
  let test: TestApp;
  let smtp: SmtpCatcher;

  beforeAll(async () => {
    test = await startTestApp();
    smtp = await startSmtpCatcher({ user: 'mailer@example.com', pass: 'smtp-password' });
  });
  afterAll(async () => {
    await smtp.close();
    await test.close();
  });

  it('forces SSL on port 465 and follows SMTPSSLEnabled elsewhere', async () => {
    const { options } = test.context;
    await options.set('SMTPServer', 'smtp.example.com');
    await options.set('SMTPPort', '465');
    await options.set('SMTPSSLEnabled', 'false');
    expect(smtpTransportOptions(options)).toMatchObject({ host: 'smtp.example.com', port: 465, secure: true });
    await options.set('SMTPPort', '587');
    expect(smtpTransportOptions(options)).toMatchObject({ port: 587, secure: false });
    await options.set('SMTPSSLEnabled', 'true');
    expect(smtpTransportOptions(options)).toMatchObject({ port: 587, secure: true });
  });

  it('delivers through a real SMTP server with the configured account and sender', async () => {
    const { options } = test.context;
    await options.set('SMTPServer', '127.0.0.1');
    await options.set('SMTPPort', String(smtp.port));
    await options.set('SMTPSSLEnabled', 'false');
    await options.set('SMTPAccount', 'mailer@example.com');
    await options.set('SMTPToken', 'smtp-password');
    await options.set('SMTPFrom', 'noreply@example.com');
    await sendMail(options, { to: 'reader@example.com', subject: '测试邮件 subject', html: '<p>你好 world</p>' });
    const mail = await smtp.nextMailTo('reader@example.com');
    expect(mail.authUser).toBe('mailer@example.com');
    expect(mail.from).toBe('noreply@example.com');
    expect(mail.subject).toBe('测试邮件 subject');
    expect(mail.html).toContain('<p>你好 world</p>');
  });

  it('reports a refused login and an unset server as errors the console can show', async () => {
    const { options } = test.context;
    await options.set('SMTPToken', 'wrong-password');
    await expect(sendMail(options, { to: 'reader@example.com', subject: 's', html: 'h' })).rejects.toMatchObject({
      code: 'mail:send_failed',
      status: 502,
    });
    await options.set('SMTPServer', '');
    await expect(sendMail(options, { to: 'reader@example.com', subject: 's', html: 'h' })).rejects.toMatchObject({
      code: 'mail:not_configured',
      message: 'SMTP 服务器未配置，请联系管理员',
    });
  });
});
