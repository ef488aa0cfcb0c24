import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Local stand-ins for GitHub, LinuxDO Connect, a WeChat login server and Cloudflare Turnstile,
 * speaking the same HTTP as the real ones, so sign-in tests run the server's real client code.
 * Authorization codes are single use, as the real providers make them.
 */
export interface FakeProviders {
  /** Base address; the env/option values for each provider are below. */
  url: string;
  env: Record<string, string>;
  wechatServerAddress: string;
  clients: { github: Client; linuxdo: Client };
  githubCodes: Map<string, { id: number; login: string; name?: string | null; email?: string | null }>;
  linuxdoCodes: Map<string, { id: number; username: string; name?: string }>;
  /** WeChat login code → openid. */
  wechatCodes: Map<string, string>;
  wechatToken: string;
  turnstileSecret: string;
  turnstileTokens: Set<string>;
  /** Every request the fakes saw, for assertions on what the server sent. */
  seen: { path: string; headers: IncomingMessage['headers']; body: string }[];
  close(): Promise<void>;
}

interface Client {
  id: string;
  secret: string;
}

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

const send = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

export async function startFakeProviders(): Promise<FakeProviders> {
  const clients = { github: { id: 'gh-client', secret: 'gh-secret' }, linuxdo: { id: 'ld-client', secret: 'ld-secret' } };
  const githubCodes: FakeProviders['githubCodes'] = new Map();
  const linuxdoCodes: FakeProviders['linuxdoCodes'] = new Map();
  const wechatCodes = new Map<string, string>();
  const turnstileTokens = new Set<string>();
  const githubTokens = new Map<string, { id: number; login: string; name?: string | null; email?: string | null }>();
  const linuxdoTokens = new Map<string, { id: number; username: string; name?: string }>();
  const seen: FakeProviders['seen'] = [];
  const wechatToken = 'wechat-server-token';
  const turnstileSecret = 'turnstile-secret';

  const server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      const url = new URL(request.url ?? '/', 'http://fake');
      seen.push({ path: url.pathname, headers: request.headers, body });
      const bearer = (request.headers.authorization ?? '').replace(/^Bearer\s+/i, '');

      if (request.method === 'POST' && url.pathname === '/github/login/oauth/access_token') {
        const input = JSON.parse(body || '{}') as { client_id?: string; client_secret?: string; code?: string };
        const account = input.code ? githubCodes.get(input.code) : undefined;
        if (input.client_id !== clients.github.id || input.client_secret !== clients.github.secret) {
          return send(response, 200, { error: 'incorrect_client_credentials', error_description: 'The client_id and/or client_secret passed are incorrect.' });
        }
        if (!account) return send(response, 200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
        githubCodes.delete(input.code!);
        const token = `gho_${input.code}`;
        githubTokens.set(token, account);
        return send(response, 200, { access_token: token, token_type: 'bearer', scope: 'user:email' });
      }
      if (request.method === 'GET' && url.pathname === '/github-api/user') {
        const account = githubTokens.get(bearer);
        if (!account || !request.headers['user-agent']) return send(response, 401, { message: 'Bad credentials' });
        return send(response, 200, { id: account.id, login: account.login, name: account.name ?? null, email: account.email ?? null });
      }
      if (request.method === 'POST' && url.pathname === '/linuxdo/oauth2/token') {
        const expected = `Basic ${Buffer.from(`${clients.linuxdo.id}:${clients.linuxdo.secret}`).toString('base64')}`;
        if (request.headers.authorization !== expected) return send(response, 401, { error: 'invalid_client' });
        const form = new URLSearchParams(body);
        const code = form.get('code') ?? '';
        const account = linuxdoCodes.get(code);
        if (form.get('grant_type') !== 'authorization_code' || !account) {
          return send(response, 400, { error: 'invalid_grant', error_description: 'The provided authorization grant is invalid' });
        }
        linuxdoCodes.delete(code);
        const token = `ld_${code}`;
        linuxdoTokens.set(token, account);
        return send(response, 200, { access_token: token, token_type: 'Bearer' });
      }
      if (request.method === 'GET' && url.pathname === '/linuxdo/api/user') {
        const account = linuxdoTokens.get(bearer);
        if (!account) return send(response, 401, { error: 'invalid_token' });
        return send(response, 200, { ...account, active: true, trust_level: 2, silenced: false });
      }
      if (request.method === 'GET' && url.pathname === '/wechat/api/wechat/user') {
        if (request.headers.authorization !== wechatToken) return send(response, 200, { success: false, message: '无权进行此操作' });
        const code = url.searchParams.get('code') ?? '';
        const openid = wechatCodes.get(code);
        if (!openid) return send(response, 200, { success: false, message: '验证码错误或已过期' });
        wechatCodes.delete(code);
        return send(response, 200, { success: true, message: '', data: openid });
      }
      if (request.method === 'POST' && url.pathname === '/turnstile') {
        const form = new URLSearchParams(body);
        const valid = form.get('secret') === turnstileSecret && turnstileTokens.has(form.get('response') ?? '');
        return send(response, 200, valid ? { success: true } : { success: false, 'error-codes': ['invalid-input-response'] });
      }
      return send(response, 404, { message: 'Not Found' });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    env: {
      GITHUB_OAUTH_BASE_URL: `${url}/github`,
      GITHUB_API_BASE_URL: `${url}/github-api`,
      LINUXDO_OAUTH_BASE_URL: `${url}/linuxdo`,
      TURNSTILE_VERIFY_URL: `${url}/turnstile`,
    },
    wechatServerAddress: `${url}/wechat`,
    clients,
    githubCodes,
    linuxdoCodes,
    wechatCodes,
    wechatToken,
    turnstileSecret,
    turnstileTokens,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
