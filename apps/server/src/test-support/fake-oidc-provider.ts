import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The claims the fake hands out for one account. */
export interface FakeOidcAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
}

/** Ways to make the next ID tokens wrong, one per check a relying party must make. */
export interface FakeOidcFaults {
  /** Sign with a key that is not in the JWKS (same kid). */
  foreignKey?: boolean;
  audience?: string;
  issuer?: string;
  /** Seconds from now; negative: already expired. */
  expiresIn?: number;
  alg?: string;
  /** A `sub` in the ID token other than the userinfo one. */
  sub?: string;
  /** Answer the token request without an id_token (plain OAuth 2 providers). */
  omitIdToken?: boolean;
}

/**
 * A local OpenID Connect provider speaking the standard wire: discovery, JWKS (a fresh RSA key),
 * an authorize page that sends the browser back with a code, a token endpoint that checks the
 * client and returns an RS256-signed ID token, and userinfo. Codes are single use.
 */
export interface FakeOidcProvider {
  /** The issuer; also the base of every endpoint. */
  issuer: string;
  wellKnown: string;
  endpoints: { authorization: string; token: string; userInfo: string; jwks: string };
  client: { id: string; secret: string };
  /** Code → account, for tests that skip the browser. */
  codes: Map<string, { account: FakeOidcAccount; redirectUri?: string }>;
  /** The account /authorize signs in as (a browser test sets it before clicking). */
  authorizeAs: FakeOidcAccount;
  faults: FakeOidcFaults;
  /** Every request seen: path, the decoded form body of token requests, the authorization header. */
  seen: { path: string; query: Record<string, string>; form: Record<string, string>; authorization: string }[];
  close(): Promise<void>;
}

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

const sendJson = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
  response.end(JSON.stringify(body));
};

const base64url = (input: Buffer | string) => Buffer.from(input).toString('base64url');

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export async function startFakeOidcProvider(client = { id: 'oidc-client', secret: 'oidc-secret-value' }): Promise<FakeOidcProvider> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const foreignKey: KeyObject = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const kid = randomBytes(6).toString('hex');
  const accessTokens = new Map<string, FakeOidcAccount>();
  const codes: FakeOidcProvider['codes'] = new Map();
  const seen: FakeOidcProvider['seen'] = [];
  let issuer = '';

  const provider = {
    codes,
    seen,
    client,
    authorizeAs: { sub: 'browser-user', email: 'browser@example.com', name: 'Browser User' },
    faults: {},
  } as Omit<FakeOidcProvider, 'issuer' | 'wellKnown' | 'endpoints' | 'close'> & Partial<FakeOidcProvider>;

  function idToken(account: FakeOidcAccount): string {
    const faults = provider.faults ?? {};
    const now = Math.floor(Date.now() / 1000);
    const header = { alg: faults.alg ?? 'RS256', typ: 'JWT', kid };
    const claims = {
      iss: faults.issuer ?? issuer,
      sub: faults.sub ?? account.sub,
      aud: faults.audience ?? client.id,
      iat: now,
      exp: now + (faults.expiresIn ?? 300),
      email: account.email,
      name: account.name,
    };
    const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
    const signature = sign('RSA-SHA256', Buffer.from(signingInput), faults.foreignKey ? foreignKey : privateKey);
    return `${signingInput}.${base64url(signature)}`;
  }

  async function token(request: IncomingMessage, response: ServerResponse, form: Record<string, string>) {
    // client_secret_post (as new-api sends it) or client_secret_basic.
    let clientId = form.client_id ?? '';
    let clientSecret = form.client_secret ?? '';
    const basic = /^Basic (.+)$/i.exec(request.headers.authorization ?? '');
    if (basic) [clientId = '', clientSecret = ''] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
    if (clientId !== client.id || clientSecret !== client.secret) {
      return sendJson(response, 401, { error: 'invalid_client', error_description: 'client authentication failed' });
    }
    if (form.grant_type !== 'authorization_code') return sendJson(response, 400, { error: 'unsupported_grant_type' });
    const issued = codes.get(form.code ?? '');
    codes.delete(form.code ?? '');
    if (!issued) return sendJson(response, 400, { error: 'invalid_grant', error_description: 'authorization code is invalid or used' });
    if (issued.redirectUri !== undefined && issued.redirectUri !== form.redirect_uri) {
      return sendJson(response, 400, { error: 'invalid_grant', error_description: 'redirect_uri does not match' });
    }
    const accessToken = randomBytes(16).toString('hex');
    accessTokens.set(accessToken, issued.account);
    const answer: Record<string, unknown> = { access_token: accessToken, token_type: 'Bearer', expires_in: 300, scope: 'openid profile email' };
    if (!provider.faults?.omitIdToken) answer.id_token = idToken(issued.account);
    return sendJson(response, 200, answer);
  }

  const server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      const url = new URL(request.url ?? '/', 'http://fake');
      const query = Object.fromEntries(url.searchParams);
      const form = request.method === 'POST' ? Object.fromEntries(new URLSearchParams(body)) : {};
      seen.push({ path: url.pathname, query, form, authorization: request.headers.authorization ?? '' });
      switch (url.pathname) {
        case '/.well-known/openid-configuration':
          return sendJson(response, 200, {
            issuer,
            authorization_endpoint: `${issuer}/authorize`,
            token_endpoint: `${issuer}/token`,
            userinfo_endpoint: `${issuer}/userinfo`,
            jwks_uri: `${issuer}/jwks`,
            response_types_supported: ['code'],
            subject_types_supported: ['public'],
            id_token_signing_alg_values_supported: ['RS256'],
            token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
          });
        case '/jwks':
          return sendJson(response, 200, { keys: [{ ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' }] });
        case '/authorize': {
          // The provider's own sign-in page: one button that approves and sends the browser back.
          const redirectUri = query.redirect_uri ?? '';
          if (query.client_id !== client.id || query.response_type !== 'code' || !(query.scope ?? '').split(' ').includes('openid') || !redirectUri) {
            response.writeHead(400, { 'content-type': 'text/plain' });
            return response.end('invalid authorization request');
          }
          const code = randomBytes(8).toString('hex');
          codes.set(code, { account: { ...provider.authorizeAs! }, redirectUri });
          const back = new URL(redirectUri);
          back.searchParams.set('code', code);
          if (query.state) back.searchParams.set('state', query.state);
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          return response.end(
            `<!doctype html><title>Fake OIDC</title><h1>Fake OIDC provider</h1><p>Sign in as ${escapeHtml(provider.authorizeAs!.sub)}</p>` +
              `<a id="approve" href="${escapeHtml(back.toString())}">Approve</a>`,
          );
        }
        case '/token':
          return token(request, response, form);
        case '/userinfo': {
          const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '');
          const account = bearer ? accessTokens.get(bearer[1]!) : undefined;
          if (!account) return sendJson(response, 401, { error: 'invalid_token' });
          return sendJson(response, 200, account);
        }
        default:
          return sendJson(response, 404, { error: 'not_found' });
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(provider, {
    issuer,
    wellKnown: `${issuer}/.well-known/openid-configuration`,
    endpoints: { authorization: `${issuer}/authorize`, token: `${issuer}/token`, userInfo: `${issuer}/userinfo`, jwks: `${issuer}/jwks` },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  }) as FakeOidcProvider;
}
