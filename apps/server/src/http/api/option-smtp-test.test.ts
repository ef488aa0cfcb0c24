import { createServer, type AddressInfo } from 'node:net';
import { Role } from '@modelgate/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../domain/users/password.js';
import { startSmtpCatcher, type SmtpCatcher } from '../../test-support/smtp-catcher.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

/**
 * POST /api/option/test_smtp: the system tab's "send test mail" button. It mails the signed-in
 * super administrator through the SAVED SMTP settings and shows the SMTP server's own error.
 */

interface Envelope {
  success: boolean;
  message: string;
}

type Headers = Record<string, string>;

const ROOT_EMAIL = 'root-admin@modelgate.test';
const SMTP_ACCOUNT = 'robot@modelgate.test';
const SMTP_TOKEN = 'smtp-secret-Xq7-do-not-leak';
const PASSWORD = 'password123';

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('POST /api/option/test_smtp', () => {
  let test: TestApp;
  let smtp: SmtpCatcher;
  let root: Headers;

  const testMail = async (headers: Headers) => {
    const response = await test.app.inject({ method: 'POST', url: '/api/option/test_smtp', headers });
    return { status: response.statusCode, body: response.json() as Envelope };
  };

  /** Saved the way the console saves them: PUT /api/option/ one key at a time. */
  const saveOption = async (key: string, value: string) => {
    const response = await test.app.inject({ method: 'PUT', url: '/api/option/', headers: root, payload: { key, value } });
    expect((response.json() as Envelope).success, `${key} saved`).toBe(true);
  };

  const saveSmtp = async (settings: Record<string, string>) => {
    for (const [key, value] of Object.entries(settings)) await saveOption(key, value);
  };

  const setRootEmail = (email: string) => test.context.users.repository.update(1, { email });

  beforeAll(async () => {
    test = await startTestApp();
    smtp = await startSmtpCatcher({ user: SMTP_ACCOUNT, pass: SMTP_TOKEN });
    root = await test.login();
    await saveSmtp({
      SystemName: 'Gateway Test',
      SMTPServer: '127.0.0.1',
      SMTPPort: String(smtp.port),
      SMTPSSLEnabled: 'false',
      SMTPAccount: SMTP_ACCOUNT,
      SMTPFrom: 'noreply@modelgate.test',
      SMTPToken: SMTP_TOKEN,
    });
  });
  afterAll(async () => {
    await smtp.close();
    await test.close();
  });

  it('delivers one mail to the signed-in root email through the saved settings', async () => {
    await setRootEmail(ROOT_EMAIL);
    const before = smtp.mails.length;
    const answer = await testMail(root);
    expect(answer).toEqual({ status: 200, body: expect.objectContaining({ success: true, message: `测试邮件已发送到 ${ROOT_EMAIL}` }) });

    const mail = await smtp.nextMailTo(ROOT_EMAIL);
    expect(mail.to).toEqual([ROOT_EMAIL]);
    expect(mail.from).toBe('noreply@modelgate.test');
    expect(mail.authUser).toBe(SMTP_ACCOUNT);
    expect(mail.subject).toBe('Gateway Test SMTP 测试邮件');
    expect(mail.html).toContain('Gateway Test');
    // Exactly one: nothing else arrived beside the mail just taken.
    expect(smtp.mails.length).toBe(before);
  });

  it('answers success:false with the connection error, never the SMTP token, when the port is wrong', async () => {
    await setRootEmail(ROOT_EMAIL);
    const port = await closedPort();
    await saveOption('SMTPPort', String(port));
    try {
      const answer = await testMail(root);
      expect(answer.body.success).toBe(false);
      // new-api's rule: an upstream (mail server) failure is 200 with success:false and the message.
      expect(answer.status).toBe(200);
      expect(answer.body.message).toMatch(/^邮件发送失败：/);
      expect(answer.body.message).toContain('ECONNREFUSED');
      expect(answer.body.message).toContain(String(port));
      expect(answer.body.message).not.toContain(SMTP_TOKEN);
    } finally {
      await saveOption('SMTPPort', String(smtp.port));
    }
  });

  it("shows the SMTP server's refusal of a wrong token without echoing the token", async () => {
    await setRootEmail(ROOT_EMAIL);
    const wrongToken = 'wrong-token-Zr4-do-not-leak';
    await saveOption('SMTPToken', wrongToken);
    try {
      const answer = await testMail(root);
      expect(answer.body.success).toBe(false);
      expect(answer.body.message).toMatch(/^邮件发送失败：/);
      expect(answer.body.message).toContain('Invalid username or password');
      expect(answer.body.message).not.toContain(wrongToken);
      expect(answer.body.message).not.toContain(SMTP_TOKEN);
    } finally {
      await saveOption('SMTPToken', SMTP_TOKEN);
    }
    // And with the right token back, mail flows again (the saved settings are what is used).
    expect((await testMail(root)).body.success).toBe(true);
    await smtp.nextMailTo(ROOT_EMAIL);
  });

  it('tells a root without an email to bind one first, and sends nothing', async () => {
    await setRootEmail('');
    const before = smtp.mails.length;
    const answer = await testMail(root);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: false, message: '请先在个人设置中绑定邮箱，测试邮件将发送到该邮箱' });
    expect(smtp.mails.length).toBe(before);
  });

  it('says the SMTP server is not configured when SMTPServer is empty', async () => {
    await setRootEmail(ROOT_EMAIL);
    await saveOption('SMTPServer', '');
    try {
      const answer = await testMail(root);
      expect(answer.body).toMatchObject({ success: false, message: 'SMTP 服务器未配置，请联系管理员' });
    } finally {
      await saveOption('SMTPServer', '127.0.0.1');
    }
  });

  it('refuses a normal user and an admin (role 10), and sends nothing', async () => {
    const passwordHash = await hashPassword(PASSWORD);
    const { repository } = test.context.users;
    await repository.insert({ username: 'plain', password: passwordHash, display_name: 'plain', role: Role.Common, email: 'plain@modelgate.test' });
    await repository.insert({ username: 'helper', password: passwordHash, display_name: 'helper', role: Role.Admin, email: 'helper@modelgate.test' });
    const before = smtp.mails.length;
    for (const username of ['plain', 'helper']) {
      const answer = await testMail(await test.login(username, PASSWORD));
      expect(answer.status, username).toBe(200);
      expect(answer.body, username).toMatchObject({ success: false, message: '无权进行此操作，权限不足' });
    }
    expect(smtp.mails.length).toBe(before);
  });
});
