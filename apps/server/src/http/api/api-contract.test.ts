import { Role } from '@modelgate/contract';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../domain/users/password.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { routesOf, type WalkedRoute } from '../../test-support/route-walk.js';

/*
 * new-api's status rule for every /api route, checked on the routes Fastify itself holds, so a
 * route added tomorrow is walked too: a refusal (bad input, a rule, a missing role, a missing
 * resource) is HTTP 200 with {success:false, message}; 401 only without a valid session or
 * access token; 413 for an oversized body; 429 for a rate limit; 404 for an unknown /api path;
 * never a 500. Each check walks every route and lists every route that breaks it.
 */

type Route = WalkedRoute;

const key = (route: Route) => `${route.method} ${route.path}`;
const withParams = (path: string, value: string) => path.replace(/:[A-Za-z_][A-Za-z0-9_]*/g, value).replace(/\*/g, value);
const hasParams = (path: string) => /[:*]/.test(path);
const takesBody = (route: Route) => route.method === 'POST' || route.method === 'PUT' || route.method === 'DELETE';

/** Routes that need no session, by new-api's router: anything else must answer 401 without one. */
const PUBLIC = new Set([
  'GET /api/status',
  'GET /api/setup',
  'POST /api/setup',
  'GET /api/notice',
  'GET /api/about',
  'GET /api/home_page_content',
  'GET /api/pricing',
  // new-api serves these without UserAuth: the usable groups, and its dashboard's Uptime Kuma list.
  'GET /api/user/groups',
  'GET /api/uptime/status',
  'POST /api/user/login',
  'POST /api/user/login/2fa',
  'GET /api/user/logout',
  'POST /api/user/register',
  'POST /api/user/reset',
  'GET /api/verification',
  'GET /api/reset_password',
  'GET /api/user/epay/notify',
  'POST /api/user/epay/notify',
  'GET /api/oauth/state',
  'GET /api/oauth/github',
  'GET /api/oauth/linuxdo',
  'GET /api/oauth/oidc',
  'GET /api/oauth/wechat',
  'GET /api/oauth/telegram/login',
  'POST /api/user/passkey/login/begin',
  'POST /api/user/passkey/login/finish',
  // Read by an sk- key in the query, not by a session (new-api's GetLogByKey).
  'GET /api/log/token',
  // The OpenAPI description of these routes (http/openapi/).
  'GET /api/openapi.json',
]);

/** Routes for administrators (role >= 10), as new-api guards them with AdminAuth. */
const ADMIN_ONLY = [
  /^(GET|POST|PUT) \/api\/user\/$/,
  /^GET \/api\/user\/(search|:id)$/,
  /^DELETE \/api\/user\/:id$/,
  /^POST \/api\/user\/manage$/,
  /^GET \/api\/user\/2fa\/stats$/,
  /^DELETE \/api\/user\/:id\/2fa$/,
  /^DELETE \/api\/user\/:id\/reset_passkey$/,
  /^\w+ \/api\/channel\//,
  /^\w+ \/api\/redemption\//,
  /^GET \/api\/group\/$/,
  /^GET \/api\/data\/$/,
  /^(GET|DELETE) \/api\/log\/$/,
  /^GET \/api\/audit\/$/,
  /^GET \/api\/log\/(search|stat|export)$/,
  /^GET \/api\/task\/$/,
  /^GET \/api\/mj\/$/,
  /^GET \/api\/user\/topup$/,
  /^POST \/api\/user\/topup\/complete$/,
  /^\w+ \/api\/subscription\/admin\//,
  /^\w+ \/api\/prefill_group\//,
  /^(GET|DELETE) \/api\/user\/:id\/(oauth\/)?bindings/,
];
/** Routes for the super administrator (role 100), new-api's RootAuth. */
const ROOT_ONLY = [
  /^\w+ \/api\/option\//,
  /^POST \/api\/oauth\/oidc\/discovery$/,
  /^POST \/api\/channel\/:id\/key$/,
  /^\w+ \/api\/(custom-oauth-provider|ratio_sync|performance)\//,
];

/** Write routes that succeed without any parameter: every other write refuses an empty body. */
const NEEDS_NO_PARAMETER = new Set([
  'PUT /api/user/self', // an update that changes nothing
  'POST /api/option/rest_model_ratio',
  'POST /api/channel/fix',
  'DELETE /api/channel/disabled',
  'DELETE /api/redemption/invalid', // clears every used, disabled or expired code
  'POST /api/user/passkey/login/begin', // a passkey sign-in names no one: the authenticator does
]);

/** Answers meant for a payment provider, which reads the bare words success / fail. */
const PLAIN_TEXT = new Set(['GET /api/user/epay/notify', 'POST /api/user/epay/notify']);
/** Answers that are a document of their own rather than the envelope: the OpenAPI description. */
const DOCUMENTS = new Set(['GET /api/openapi.json']);
/** Answers that are a CSV download (a refusal before it starts is still the envelope). */
const CSV_DOWNLOADS = new Set(['GET /api/log/export', 'GET /api/log/self/export']);

const NOT_SIGNED_IN = '无权进行此操作，未登录且未提供 access token';
const BAD_ACCESS_TOKEN = '无权进行此操作，access token 无效';
const NO_PERMISSION = '无权进行此操作，权限不足';
const INVALID_JSON = '请求体不是合法的 JSON';
const TOO_LARGE = '请求体过大';
const RATE_LIMITED = '请求过于频繁，请稍后再试';
const INTERNAL = '服务器内部错误，请联系管理员';
const BAD_URL = '请求地址不是合法的 URL 编码';

const levelOf = (route: Route): 'public' | 'user' | 'admin' | 'root' => {
  if (PUBLIC.has(key(route))) return 'public';
  if (ROOT_ONLY.some((pattern) => pattern.test(key(route)))) return 'root';
  if (ADMIN_ONLY.some((pattern) => pattern.test(key(route)))) return 'admin';
  return 'user';
};

/** Every common field name with a value of the wrong type. */
const WRONG_TYPES = JSON.stringify({
  id: 'abc',
  ids: 'abc',
  key: { a: 1 },
  value: [1],
  name: 42,
  username: 7,
  password: 8,
  email: 9,
  quota: 'lots',
  amount: 'lots',
  status: 'on',
  type: 'openai',
  models: 3,
  group: 4,
  groups: 'x',
  tag: 5,
  mode: 6,
  channel: 'x',
  expired_time: 'soon',
  remain_quota: 'lots',
  unlimited_quota: 'yes',
  count: 'many',
  action: 1,
  token: 2,
  code: 3,
  well_known: 4,
  setting: 5,
  notify_type: 6,
  target_timestamp: 'x',
});
/** Every common query parameter with a value of the wrong type. */
const JUNK_QUERY =
  '?p=abc&page_size=abc&size=-5&id=abc&keyword=%25&start_timestamp=abc&end_timestamp=abc&type=abc&status=abc' +
  '&email=x&code=x&state=x&target_timestamp=abc&model_name=x&group=x&channel=abc&username=x&token=x&key=x&tag_mode=maybe&id_sort=2';

/** The discard port: nothing listens there, so a connection is refused at once. */
const CLOSED_PORT = 9;
const UPSTREAM = `http://127.0.0.1:${CLOSED_PORT}`;

type Who = 'anonymous' | 'badToken' | 'user' | 'admin' | 'root';
const PASSWORD = 'password123';

let test: TestApp;
let routes: Route[];
let passwordHash: string;
const sessions = {} as Record<'user' | 'admin' | 'root', { username: string; headers: Record<string, string> }>;
let renewals = 0;

async function signIn(who: 'user' | 'admin' | 'root'): Promise<void> {
  if (who === 'root') {
    sessions.root = { username: 'root', headers: await test.login() };
    return;
  }
  const current = sessions[who];
  if (current) {
    try {
      sessions[who] = { username: current.username, headers: await test.login(current.username, PASSWORD) };
      return;
    } catch {
      // Deleted by a route under test (DELETE /api/user/self): a new account takes its place.
    }
  }
  renewals += 1;
  const username = `${who}${renewals}`;
  await test.context.users.repository.insert({ username, password: passwordHash, display_name: username, role: who === 'user' ? Role.Common : Role.Admin });
  sessions[who] = { username, headers: await test.login(username, PASSWORD) };
}

function headersOf(who: Who): Record<string, string> {
  if (who === 'anonymous') return {};
  if (who === 'badToken') return { authorization: 'Bearer not-a-real-access-token', 'new-api-user': '1' };
  return sessions[who].headers;
}

interface Answer {
  status: number;
  body: { success?: unknown; message?: unknown } | undefined;
  raw: string;
}

async function send(app: FastifyInstance, options: InjectOptions): Promise<Answer> {
  const response: LightMyRequestResponse = await app.inject(options);
  let body: Answer['body'];
  try {
    body = response.json();
  } catch {
    body = undefined;
  }
  return { status: response.statusCode, body, raw: response.body.slice(0, 160) };
}

/** Calls a route as `who`; a session the route ended (logout, deletion, a revoked session) is renewed after. */
async function call(route: Route, who: Who, options: { path?: string; payload?: string; contentType?: string; remoteAddress?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...headersOf(who) };
  if (options.payload !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const answer = await send(test.app, {
    method: route.method as InjectOptions['method'],
    url: options.path ?? withParams(route.path, '1'),
    headers,
    ...(options.payload !== undefined ? { payload: options.payload } : {}),
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });
  if (who === 'user' || who === 'admin' || who === 'root') {
    const alive = await test.app.inject({ method: 'GET', url: '/api/user/self', headers: headersOf(who) });
    if (alive.statusCode === 401) await signIn(who);
  }
  return answer;
}

/** What is wrong with an answer that must be new-api's envelope with HTTP 200, or '' if nothing. */
function envelopeProblem(route: Route, answer: Answer): string {
  if (answer.status !== 200) return `HTTP ${answer.status}, want 200`;
  if (PLAIN_TEXT.has(key(route))) return /^(success|fail)$/.test(answer.raw) ? '' : `want success or fail, got ${answer.raw}`;
  if (CSV_DOWNLOADS.has(key(route)) && answer.body === undefined) return answer.raw.startsWith('\uFEFF') ? '' : 'want a CSV file with a BOM';
  if (DOCUMENTS.has(key(route))) return typeof (answer.body as { openapi?: unknown } | undefined)?.openapi === 'string' ? '' : 'want the OpenAPI document';
  const body = answer.body;
  if (!body || typeof body.success !== 'boolean' || typeof body.message !== 'string') return 'not a {success, message} envelope';
  if (body.success === false && (body.message === '' || body.message === INTERNAL)) return `success:false with message "${String(body.message)}"`;
  return '';
}

const describeAnswer = (answer: Answer) => `HTTP ${answer.status} ${answer.raw}`;

beforeAll(async () => {
  test = await startTestApp();
  passwordHash = await hashPassword(PASSWORD);
  routes = routesOf(test.app).filter((route) => route.path === '/api' || route.path.startsWith('/api/'));
  await signIn('root');
  await signIn('user');
  await signIn('admin');
  // Something behind the plausible id 1, whose upstream (a closed local port) refuses at once.
  await test.context.options.set('SMTPServer', '127.0.0.1');
  await test.context.options.set('SMTPPort', String(CLOSED_PORT));
  await test.context.users.repository.update(1, { email: 'root@contract.test' });
  const seeded = [
    await send(test.app, {
      method: 'POST',
      url: '/api/channel/',
      headers: sessions.root.headers,
      payload: { type: 1, name: 'contract', key: 'sk-contract-0123456789', base_url: UPSTREAM, groups: ['default'], models: 'gpt-4o-mini' },
    }),
    await send(test.app, {
      method: 'POST',
      url: '/api/token/',
      headers: sessions.root.headers,
      payload: { name: 'contract', remain_quota: 1, expired_time: -1 },
    }),
    await send(test.app, { method: 'POST', url: '/api/redemption/', headers: sessions.root.headers, payload: { name: 'contract', quota: 1, count: 1 } }),
  ];
  for (const answer of seeded) expect(answer.body?.success, answer.raw).toBe(true);
});
afterAll(async () => test?.close());

describe('the routes walked', () => {
  it('are read from Fastify itself, so new routes are walked too', () => {
    expect(routes.length).toBeGreaterThan(80);
    for (const route of routes) {
      expect(test.app.hasRoute({ method: route.method as 'GET', url: route.path }), key(route)).toBe(true);
    }
    const keys = routes.map(key);
    for (const known of [
      'POST /api/user/login',
      'GET /api/user/self/sessions',
      'DELETE /api/user/self/sessions/:id',
      'GET /api/token/:id/key',
      'PUT /api/option/',
      'GET /api/log/self/stat',
    ]) {
      expect(keys, known).toContain(known);
    }
    // A public route that disappeared leaves a stale entry here.
    expect([...PUBLIC].filter((entry) => !keys.includes(entry))).toEqual([]);
  });
});

describe('upstream failures', () => {
  it('a channel test, balance or model list, or a test mail, that the upstream refuses is 200 with success:false and why', async () => {
    const created = await send(test.app, {
      method: 'POST',
      url: '/api/channel/',
      headers: sessions.root.headers,
      payload: { type: 1, name: 'refused', key: 'sk-refused-0123456789', base_url: UPSTREAM, groups: ['default'], models: 'gpt-4o-mini' },
    });
    const id = (created.body as { data: { id: number } }).data.id;
    const cases: [Route, string, RegExp][] = [
      [{ method: 'GET', path: '/api/channel/test/:id' }, `/api/channel/test/${id}`, /ECONNREFUSED|连接|connect/i],
      [{ method: 'GET', path: '/api/channel/update_balance/:id' }, `/api/channel/update_balance/${id}`, /^查询余额失败/],
      [{ method: 'GET', path: '/api/channel/fetch_models/:id' }, `/api/channel/fetch_models/${id}`, /^获取模型列表失败/],
      [{ method: 'POST', path: '/api/option/test_smtp' }, '/api/option/test_smtp', /^邮件发送失败：.*ECONNREFUSED/],
    ];
    for (const [route, path, message] of cases) {
      const answer = await call(route, 'root', { path });
      expect(answer.status, path).toBe(200);
      expect(answer.body, path).toMatchObject({ success: false, message: expect.stringMatching(message) });
    }
  });
});

describe('without a session', () => {
  it('protected routes answer 401 with new-api’s message; public ones answer 200', async () => {
    const failures: string[] = [];
    for (const route of routes) {
      const answer = await call(route, 'anonymous', { payload: takesBody(route) ? '{}' : undefined });
      if (levelOf(route) === 'public') {
        const problem = envelopeProblem(route, answer);
        if (problem) failures.push(`${key(route)} (public): ${problem}: ${describeAnswer(answer)}`);
      } else if (answer.status !== 401 || answer.body?.success !== false || answer.body?.message !== NOT_SIGNED_IN) {
        failures.push(`${key(route)}: want 401 ${NOT_SIGNED_IN}, got ${describeAnswer(answer)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('a bad access token is 401 on every protected route', async () => {
    const failures: string[] = [];
    for (const route of routes.filter((candidate) => levelOf(candidate) !== 'public')) {
      const answer = await call(route, 'badToken', { payload: takesBody(route) ? '{}' : undefined });
      if (answer.status !== 401 || answer.body?.success !== false || answer.body?.message !== BAD_ACCESS_TOKEN) {
        failures.push(`${key(route)}: want 401 ${BAD_ACCESS_TOKEN}, got ${describeAnswer(answer)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('a malformed body is refused as such (200) or as not signed in (401)', async () => {
    const failures: string[] = [];
    for (const route of routes.filter(takesBody)) {
      const answer = await call(route, 'anonymous', { payload: '{"name": ' });
      const refusedBody = answer.status === 200 && answer.body?.success === false && answer.body?.message === INVALID_JSON;
      const refusedCaller = answer.status === 401 && answer.body?.success === false && answer.body?.message === NOT_SIGNED_IN;
      if (!refusedBody && !refusedCaller && !PLAIN_TEXT.has(key(route))) failures.push(`${key(route)}: ${describeAnswer(answer)}`);
    }
    expect(failures).toEqual([]);
  });
});

describe('roles', () => {
  it('a normal user gets 200 with 无权进行此操作，权限不足 on every admin and root route, and never on the others', async () => {
    const failures: string[] = [];
    for (const route of routes.filter((candidate) => levelOf(candidate) !== 'public')) {
      const answer = await call(route, 'user', { payload: takesBody(route) ? '{}' : undefined });
      const refused = answer.status === 200 && answer.body?.success === false && answer.body?.message === NO_PERMISSION;
      const level = levelOf(route);
      if ((level === 'admin' || level === 'root') && !refused)
        failures.push(`${key(route)} (${level}): want 200 ${NO_PERMISSION}, got ${describeAnswer(answer)}`);
      if (level === 'user') {
        const problem = answer.body?.message === NO_PERMISSION ? 'refused for its role: list it in ADMIN_ONLY or ROOT_ONLY' : envelopeProblem(route, answer);
        if (problem) failures.push(`${key(route)} (user): ${problem}: ${describeAnswer(answer)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('an administrator (role 10) gets the same on every root route, and reaches the admin routes', async () => {
    const failures: string[] = [];
    for (const route of routes.filter((candidate) => levelOf(candidate) !== 'public')) {
      const answer = await call(route, 'admin', { payload: takesBody(route) ? '{}' : undefined });
      const refused = answer.status === 200 && answer.body?.success === false && answer.body?.message === NO_PERMISSION;
      if (levelOf(route) === 'root') {
        if (!refused) failures.push(`${key(route)} (root): want 200 ${NO_PERMISSION}, got ${describeAnswer(answer)}`);
      } else {
        const problem = answer.body?.message === NO_PERMISSION ? 'refused to an administrator: list it in ROOT_ONLY' : envelopeProblem(route, answer);
        if (problem) failures.push(`${key(route)} (${levelOf(route)}): ${problem}: ${describeAnswer(answer)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('bad input, signed in as the super administrator', () => {
  it('invalid JSON is 200 with 请求体不是合法的 JSON on every route that takes a body', async () => {
    const failures: string[] = [];
    for (const route of routes.filter(takesBody)) {
      for (const payload of ['{"name": ', "{'name': 'x'}", '{"a":1}}']) {
        const answer = await call(route, 'root', { payload });
        if (PLAIN_TEXT.has(key(route))) {
          if (envelopeProblem(route, answer) && answer.body?.message !== INVALID_JSON) failures.push(`${key(route)} ${payload}: ${describeAnswer(answer)}`);
        } else if (answer.status !== 200 || answer.body?.success !== false || answer.body?.message !== INVALID_JSON) {
          failures.push(`${key(route)} ${payload}: ${describeAnswer(answer)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('an empty JSON body or a body of an unknown media type is 200 with success:false and says so', async () => {
    const failures: string[] = [];
    for (const route of routes.filter((candidate) => takesBody(candidate) && !PLAIN_TEXT.has(key(candidate)))) {
      const cases: [string, string | undefined, string][] = [
        ['', 'application/json', '请求体为空，需要 JSON'],
        ['name=x', 'text/csv', '不支持的 Content-Type'],
      ];
      for (const [payload, contentType, message] of cases) {
        const answer = await call(route, 'root', { payload, contentType });
        if (answer.status !== 200 || answer.body?.success !== false || answer.body?.message !== message)
          failures.push(`${key(route)} ${contentType}: ${describeAnswer(answer)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('a body of the wrong shape or with wrongly typed fields is 200 with success:false and a message', async () => {
    const failures: string[] = [];
    for (const route of routes.filter(takesBody)) {
      for (const payload of ['["x"]', '"x"', '12', WRONG_TYPES]) {
        const answer = await call(route, 'root', { payload });
        const problem = envelopeProblem(route, answer);
        if (problem) failures.push(`${key(route)} ${payload.slice(0, 20)}: ${problem}: ${describeAnswer(answer)}`);
        else if (answer.body?.success === true && !NEEDS_NO_PARAMETER.has(key(route)) && payload !== WRONG_TYPES && route.method !== 'DELETE') {
          failures.push(`${key(route)} ${payload}: accepted a body that is not an object: ${describeAnswer(answer)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('a missing parameter is 200 with success:false and a message', async () => {
    const failures: string[] = [];
    for (const route of routes.filter((candidate) => takesBody(candidate) || hasParams(candidate.path))) {
      const answer = await call(route, 'root', {
        path: withParams(route.path, '') === route.path ? route.path : withParams(route.path, '0'),
        payload: takesBody(route) ? '{}' : undefined,
      });
      const problem = envelopeProblem(route, answer);
      if (problem) failures.push(`${key(route)}: ${problem}: ${describeAnswer(answer)}`);
      else if (answer.body?.success === true && !NEEDS_NO_PARAMETER.has(key(route)) && !PLAIN_TEXT.has(key(route))) {
        failures.push(`${key(route)}: succeeded without any parameter (list it in NEEDS_NO_PARAMETER if that is right): ${describeAnswer(answer)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('path parameters: a plausible one (1) answers the envelope, a malformed one (abc) is refused', async () => {
    const failures: string[] = [];
    for (const route of routes.filter((candidate) => hasParams(candidate.path))) {
      const payload = takesBody(route) ? '{}' : undefined;
      const plausible = await call(route, 'root', { path: withParams(route.path, '1'), payload });
      const plausibleProblem = envelopeProblem(route, plausible);
      if (plausibleProblem) failures.push(`${key(route)} with 1: ${plausibleProblem}: ${describeAnswer(plausible)}`);
      for (const value of ['abc', '-1', '1.5', '99999999999999999999']) {
        const malformed = await call(route, 'root', { path: withParams(route.path, value), payload });
        const problem = envelopeProblem(route, malformed) || (malformed.body?.success === false ? '' : 'accepted');
        if (problem) failures.push(`${key(route)} with ${value}: ${problem}: ${describeAnswer(malformed)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('query parameters of the wrong type answer the envelope, never a 500', async () => {
    const failures: string[] = [];
    for (const route of routes) {
      const answer = await call(route, 'root', { path: withParams(route.path, '1') + JUNK_QUERY, payload: takesBody(route) ? '{}' : undefined });
      const problem = envelopeProblem(route, answer);
      if (problem) failures.push(`${key(route)}: ${problem}: ${describeAnswer(answer)}`);
    }
    expect(failures).toEqual([]);
  });

  it('an oversized body is 413 with 请求体过大 on every route that takes a body', async () => {
    const failures: string[] = [];
    const oversized = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 16) });
    for (const route of routes.filter(takesBody)) {
      for (const who of ['root', 'anonymous'] as const) {
        const answer = await call(route, who, { payload: oversized });
        if (answer.status !== 413 || answer.body?.success !== false || answer.body?.message !== TOO_LARGE)
          failures.push(`${key(route)} as ${who}: ${describeAnswer(answer)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('unknown /api paths', () => {
  it('are 404 with success:false, including a method a known path does not have', async () => {
    const failures: string[] = [];
    const registered = new Set(routes.map(key));
    const unknown: Route[] = [
      { method: 'GET', path: '/api' },
      { method: 'GET', path: '/api/' },
      { method: 'GET', path: '/api/no/such/thing' },
      { method: 'POST', path: '/api/user/no_such_action' },
      { method: 'GET', path: '/api/status/extra' },
      ...routes.filter((route) => !registered.has(`PATCH ${route.path}`)).map((route) => ({ method: 'PATCH', path: route.path })),
    ];
    for (const route of unknown) {
      const path = withParams(route.path, '1');
      const answer = await call(route, 'root', { path, payload: route.method === 'GET' ? undefined : '{}' });
      if (answer.status !== 404 || answer.body?.success !== false || answer.body?.message !== `接口不存在：${route.method} ${path}`) {
        failures.push(`${route.method} ${path}: ${describeAnswer(answer)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('paths that do not decode', () => {
  it('are refused like any bad input: 200 with success:false on /api, 400 in the caller’s protocol on the relay', async () => {
    const failures: string[] = [];
    const broken = [...routes.filter((route) => hasParams(route.path)).map((route) => withParams(route.path, '%zz')), '/api/%zz', '/api/user/%E0%A4%A'];
    for (const path of broken) {
      for (const who of ['root', 'anonymous'] as const) {
        const answer = await send(test.app, { method: 'GET', url: path, headers: headersOf(who) });
        if (answer.status !== 200 || answer.body?.success !== false || answer.body?.message !== BAD_URL)
          failures.push(`GET ${path} as ${who}: ${describeAnswer(answer)}`);
      }
    }
    expect(failures).toEqual([]);
    const relay = await send(test.app, { method: 'POST', url: '/v1/chat/%zz', headers: { authorization: 'Bearer sk-whatever' }, payload: {} });
    expect(relay.status).toBe(400);
    expect(relay.body).toMatchObject({ error: { message: BAD_URL, type: 'invalid_request_error' } });
  });
});

describe('rate limits', () => {
  it('every /api route answers 429 with new-api’s envelope once the caller is over GLOBAL_API_RATE_LIMIT', async () => {
    const limited = await startTestApp({ GLOBAL_API_RATE_LIMIT: '1' });
    try {
      const failures: string[] = [];
      let caller = 0;
      for (const route of routes) {
        caller += 1;
        const remoteAddress = `10.13.${Math.floor(caller / 250)}.${(caller % 250) + 1}`;
        const options: InjectOptions = {
          method: route.method as InjectOptions['method'],
          url: withParams(route.path, '1'),
          remoteAddress,
          ...(takesBody(route) ? { payload: '{}', headers: { 'content-type': 'application/json' } } : {}),
        };
        const first = await send(limited.app, options);
        const second = await send(limited.app, options);
        if (first.status === 429 || first.status >= 500) failures.push(`${key(route)} first call: ${describeAnswer(first)}`);
        if (second.status !== 429 || second.body?.success !== false || second.body?.message !== RATE_LIMITED)
          failures.push(`${key(route)} second call: ${describeAnswer(second)}`);
      }
      expect(failures).toEqual([]);
    } finally {
      await limited.close();
    }
  });
});
