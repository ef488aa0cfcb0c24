import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config/env.js';
import { startTestApp, type TestApp } from './test-support/test-app.js';

let current: TestApp | undefined;
async function start(env: Record<string, string> = {}): Promise<TestApp> {
  current = await startTestApp(env);
  return current;
}
afterEach(async () => {
  await current?.close();
  current = undefined;
});

/** Registers a user through the API and returns its console headers. */
async function registerAndLogin(test: TestApp, username: string, password = 'password123') {
  const response = await test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username, password, password2: password } });
  expect(response.json()).toMatchObject({ success: true });
  return test.login(username, password);
}

describe('start on an empty database', () => {
  it('creates root / 123456 as super administrator and signs in with an HttpOnly SameSite=Strict cookie', async () => {
    const { app } = await start();
    const response = await app.inject({ method: 'POST', url: '/api/user/login', payload: { username: 'root', password: '123456' } });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      success: true,
      message: '登录成功！',
      data: { id: 1, username: 'root', display_name: 'Root User', role: 100, status: 1, group: 'default' },
    });
    const setCookie = String(response.headers['set-cookie']);
    expect(setCookie).toMatch(/^session=/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
  });

  it('refuses a wrong password and an unknown user alike', async () => {
    const { app } = await start();
    for (const payload of [
      { username: 'root', password: 'nope-nope' },
      { username: 'ghost', password: '123456' },
    ]) {
      const response = await app.inject({ method: 'POST', url: '/api/user/login', payload });
      expect(response.json()).toEqual({ success: false, message: '用户名或密码错误' });
      expect(response.headers['set-cookie']).toBeUndefined();
    }
  });

  it('never returns the password from /api/user/self', async () => {
    const test = await start();
    const response = await test.app.inject({ method: 'GET', url: '/api/user/self', headers: await test.login() });
    const body = response.json();
    expect(body.success).toBe(true);
    expect(body.data.username).toBe('root');
    expect(body.data).not.toHaveProperty('password');
    expect(body.data).not.toHaveProperty('access_token');
    expect(JSON.stringify(body)).not.toMatch(/\$2[aby]\$/);
  });

  it('logs out by clearing the session cookie', async () => {
    const test = await start();
    await test.login();
    const response = await test.app.inject({ method: 'GET', url: '/api/user/logout' });
    expect(response.json().success).toBe(true);
    expect(String(response.headers['set-cookie'])).toMatch(/session=;.*(Expires=Thu, 01 Jan 1970|Max-Age=0)/);
  });
});

describe('the New-Api-User rule', () => {
  it('answers 401 when the header is missing or names another user, and 200 when it matches', async () => {
    const test = await start();
    const headers = await test.login();
    const missing = await test.app.inject({ method: 'GET', url: '/api/user/self', headers: { cookie: headers.cookie } });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({ success: false, message: '无权进行此操作，未提供 New-Api-User' });

    const mismatch = await test.app.inject({ method: 'GET', url: '/api/user/self', headers: { ...headers, 'new-api-user': '2' } });
    expect(mismatch.statusCode).toBe(401);
    expect(mismatch.json().message).toBe('无权进行此操作，New-Api-User 与登录用户不匹配');

    const good = await test.app.inject({ method: 'GET', url: '/api/user/self', headers });
    expect(good.statusCode).toBe(200);
  });

  it('answers 401 without a session or access token', async () => {
    const { app } = await start();
    const response = await app.inject({ method: 'GET', url: '/api/user/self', headers: { 'new-api-user': '1' } });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ success: false, message: '无权进行此操作，未登录且未提供 access token' });
  });

  it('rejects a forged session cookie', async () => {
    const { app } = await start();
    const response = await app.inject({ method: 'GET', url: '/api/user/self', headers: { cookie: 'session=1.1700000000.forged', 'new-api-user': '1' } });
    expect(response.statusCode).toBe(401);
  });
});

describe('the system access token', () => {
  it('works in place of the cookie, with or without Bearer, and a reset revokes the old one', async () => {
    const test = await start();
    const headers = await test.login();
    const first = (await test.app.inject({ method: 'GET', url: '/api/user/token', headers })).json();
    expect(first.success).toBe(true);
    expect(first.data).toMatch(/^[A-Za-z0-9]{32}$/);

    for (const authorization of [first.data, `Bearer ${first.data}`]) {
      const response = await test.app.inject({ method: 'GET', url: '/api/user/self', headers: { authorization, 'new-api-user': '1' } });
      expect(response.statusCode).toBe(200);
      expect(response.json().data.username).toBe('root');
    }
    const withoutHeader = await test.app.inject({ method: 'GET', url: '/api/user/self', headers: { authorization: first.data } });
    expect(withoutHeader.statusCode).toBe(401);

    const second = (await test.app.inject({ method: 'GET', url: '/api/user/token', headers })).json();
    expect(second.data).not.toBe(first.data);
    const revoked = await test.app.inject({ method: 'GET', url: '/api/user/self', headers: { authorization: first.data, 'new-api-user': '1' } });
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().message).toBe('无权进行此操作，access token 无效');
  });
});

describe('role levels', () => {
  it('lets only root read and write options; admins and users get 200 with success:false and new-api’s message', async () => {
    const test = await start();
    const userHeaders = await registerAndLogin(test, 'alice');
    const adminHeaders = await registerAndLogin(test, 'bob');
    await test.context.db.kysely.updateTable('users').set({ role: 10 }).where('username', '=', 'bob').execute();
    const rootHeaders = await test.login();

    for (const headers of [userHeaders, adminHeaders]) {
      const read = await test.app.inject({ method: 'GET', url: '/api/option/', headers });
      expect(read.statusCode).toBe(200);
      expect(read.json()).toEqual({ success: false, message: '无权进行此操作，权限不足' });
      const write = await test.app.inject({ method: 'PUT', url: '/api/option/', headers, payload: { key: 'Notice', value: 'x' } });
      expect(write.statusCode).toBe(200);
      expect(write.json()).toEqual({ success: false, message: '无权进行此操作，权限不足' });
    }
    const read = await test.app.inject({ method: 'GET', url: '/api/option/', headers: rootHeaders });
    expect(read.json().success).toBe(true);
  });

  it('ends a banned or deleted user’s session and access token at once', async () => {
    const test = await start();
    const headers = await registerAndLogin(test, 'carol');
    const token = (await test.app.inject({ method: 'GET', url: '/api/user/token', headers })).json().data as string;
    const tokenHeaders = { authorization: token, 'new-api-user': headers['new-api-user']! };
    const users = test.context.db.kysely;

    await users.updateTable('users').set({ status: 2 }).where('username', '=', 'carol').execute();
    for (const h of [headers, tokenHeaders]) {
      const response = await test.app.inject({ method: 'GET', url: '/api/user/self', headers: h });
      expect(response.statusCode).toBe(401);
      expect(response.json().message).toBe('用户已被封禁');
    }
    const relogin = await test.app.inject({ method: 'POST', url: '/api/user/login', payload: { username: 'carol', password: 'password123' } });
    expect(relogin.json()).toEqual({ success: false, message: '用户已被封禁' });

    await users
      .updateTable('users')
      .set({ status: 1, deleted_at: Math.floor(Date.now() / 1000) })
      .where('username', '=', 'carol')
      .execute();
    for (const h of [headers, tokenHeaders]) {
      expect((await test.app.inject({ method: 'GET', url: '/api/user/self', headers: h })).statusCode).toBe(401);
    }
  });
});

describe('options', () => {
  it('lists every option with its default and never returns secrets', async () => {
    const test = await start();
    const body = (await test.app.inject({ method: 'GET', url: '/api/option/', headers: await test.login() })).json();
    const options = new Map((body.data as { key: string; value: string }[]).map((o) => [o.key, o.value]));
    expect(options.get('QuotaPerUnit')).toBe('500000');
    expect(options.get('PreConsumedQuota')).toBe('500');
    expect(options.get('QuotaRemindThreshold')).toBe('1000');
    expect(options.get('RetryTimes')).toBe('0');
    expect(options.get('ChannelDisableThreshold')).toBe('5');
    expect(options.get('Price')).toBe('7.3');
    expect(options.get('MinTopUp')).toBe('1');
    expect(JSON.parse(options.get('GroupRatio')!)).toEqual({ default: 1, vip: 1, svip: 1 });
    expect(JSON.parse(options.get('UserUsableGroups')!)).toEqual({ default: '默认分组', vip: 'vip分组' });
    for (const key of [
      'LogConsumeEnabled',
      'DisplayInCurrencyEnabled',
      'DataExportEnabled',
      'DrawingEnabled',
      'PasswordLoginEnabled',
      'PasswordRegisterEnabled',
      'RegisterEnabled',
    ]) {
      expect(options.get(key), key).toBe('true');
    }
    for (const key of ['EmailVerificationEnabled', 'AutomaticDisableChannelEnabled', 'CheckSensitiveEnabled', 'GitHubOAuthEnabled']) {
      expect(options.get(key), key).toBe('false');
    }
    for (const secret of [
      'SMTPToken',
      'GitHubClientSecret',
      'LinuxDOClientSecret',
      'WeChatServerToken',
      'TelegramBotToken',
      'TurnstileSecretKey',
      'EpayKey',
      'WorkerValidKey',
    ]) {
      expect(options.has(secret), secret).toBe(false);
    }
  });

  it('validates on write: numbers must be numbers, JSON must parse, unknown keys are refused', async () => {
    const test = await start();
    const headers = await test.login();
    const put = (payload: unknown) => test.app.inject({ method: 'PUT', url: '/api/option/', headers, payload: payload as object });
    const cases: [unknown, string][] = [
      [{ key: 'QuotaPerUnit', value: 'lots' }, 'QuotaPerUnit 必须是数字'],
      [{ key: 'RetryTimes', value: '1.5' }, 'RetryTimes 必须是整数'],
      [{ key: 'RetryTimes', value: -1 }, 'RetryTimes 不能小于 0'],
      [{ key: 'GroupRatio', value: '{bad json' }, '分组倍率不是合法的 JSON 字符串'],
      [{ key: 'TopupGroupRatio', value: '[' }, '充值分组倍率不是合法的 JSON 字符串'],
      [{ key: 'GroupRatio', value: '{"vip":"two"}' }, 'GroupRatio 中 vip 的值必须是非负数字'],
      [{ key: 'LogConsumeEnabled', value: 'yes' }, 'LogConsumeEnabled 必须是 true 或 false'],
      [{ key: 'DataExportDefaultTime', value: 'year' }, 'DataExportDefaultTime 只能是 hour、day、week 之一'],
      [{ key: 'NoSuchOption', value: '1' }, '未知的配置项：NoSuchOption'],
      [{ key: 'Notice', value: { nested: true } }, '无效的参数，value: 配置值必须是字符串、数字或布尔值'],
      [{ value: '1' }, '无效的参数，key: Invalid input: expected string, received undefined'],
    ];
    for (const [payload, message] of cases) {
      const response = await put(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(200);
      expect(response.json(), JSON.stringify(payload)).toEqual({ success: false, message });
    }
  });

  it('applies a write at once on this node, strips trailing slashes, and picks up other nodes’ writes on refresh', async () => {
    const test = await start();
    const headers = await test.login();
    const put = (key: string, value: unknown) => test.app.inject({ method: 'PUT', url: '/api/option/', headers, payload: { key, value } });
    expect((await put('SystemName', 'My Gateway')).json()).toEqual({ success: true, message: '保存成功' });
    expect((await put('DrawingEnabled', false)).json().success).toBe(true);
    expect((await put('QuotaPerUnit', 1000)).json().success).toBe(true);
    expect((await put('ServerAddress', 'https://gw.example.com///')).json().success).toBe(true);
    const status = (await test.app.inject({ method: 'GET', url: '/api/status' })).json().data;
    expect(status.system_name).toBe('My Gateway');
    expect(status.enable_drawing).toBe(false);
    expect(status.quota_per_unit).toBe(1000);
    expect(status.server_address).toBe('https://gw.example.com');

    // Another node writes straight to the shared database; this node sees it after its refresh.
    await test.context.db.kysely.updateTable('options').set({ value: 'Renamed elsewhere' }).where('key', '=', 'SystemName').execute();
    expect((await test.app.inject({ method: 'GET', url: '/api/status' })).json().data.system_name).toBe('My Gateway');
    await test.context.options.refresh();
    expect((await test.app.inject({ method: 'GET', url: '/api/status' })).json().data.system_name).toBe('Renamed elsewhere');
  });

  it('serves notice, about and home page content', async () => {
    const test = await start();
    const headers = await test.login();
    for (const [key, path] of [
      ['Notice', '/api/notice'],
      ['About', '/api/about'],
      ['HomePageContent', '/api/home_page_content'],
    ] as const) {
      await test.app.inject({ method: 'PUT', url: '/api/option/', headers, payload: { key, value: `# ${key} text` } });
      expect((await test.app.inject({ method: 'GET', url: path })).json()).toEqual({ success: true, message: '', data: `# ${key} text` });
    }
  });
});

describe('GET /api/status', () => {
  it('returns every status field of spec 01 §3 and spec 02 §3 plus version and start_time', async () => {
    const { app } = await start();
    const response = await app.inject({ method: 'GET', url: '/api/status' });
    const data = response.json().data;
    const fields = [
      'system_name',
      'logo',
      'footer_html',
      'quota_per_unit',
      'display_in_currency',
      'enable_drawing',
      'enable_task',
      'enable_data_export',
      'chats',
      'data_export_default_time',
      'default_collapse_sidebar',
      'mj_notify_enabled',
      'chat_link',
      'chat_link2',
      'email_verification',
      'turnstile_check',
      'turnstile_site_key',
      'github_oauth',
      'github_client_id',
      'linuxdo_oauth',
      'linuxdo_client_id',
      'wechat_login',
      'wechat_qrcode',
      'telegram_oauth',
      'telegram_bot_name',
      'server_address',
      'top_up_link',
      'min_topup',
      'enable_online_topup',
      'version',
      'start_time',
    ];
    for (const field of fields) expect(data, field).toHaveProperty(field);
    expect(data.version).toBe('test');
    expect(Math.abs(data.start_time - Date.now() / 1000)).toBeLessThan(60);
    expect(data.quota_per_unit).toBe(500000);
    expect(data.min_topup).toBe(1);
    expect(data.enable_online_topup).toBe(false);
    expect(data.chats).toEqual([]);
  });
});

describe('registration', () => {
  it('applies the rules of spec 01 §5 and the registration switches', async () => {
    const test = await start();
    const register = (payload: object) => test.app.inject({ method: 'POST', url: '/api/user/register', payload });
    expect((await register({ username: 'waytoolongname', password: 'password123' })).json().message).toBe('无效的参数，username: 用户名长度不能超过 12 个字符');
    expect((await register({ username: 'dave', password: 'short' })).json().message).toBe('无效的参数，password: 密码长度不得小于 8 位！');
    expect((await register({ username: 'dave', password: 'a'.repeat(21) })).json().message).toBe('无效的参数，password: 密码长度不得大于 20 位！');
    expect((await register({ username: 'dave', password: 'password123', password2: 'password124' })).json().message).toBe('两次输入的密码不一致');
    expect((await register({ username: 'dave', password: 'password123' })).json()).toEqual({ success: true, message: '注册成功！' });
    expect((await register({ username: 'dave', password: 'password123' })).json().message).toBe('用户名已存在，或已注销');

    const row = await test.context.db.kysely.selectFrom('users').selectAll().where('username', '=', 'dave').executeTakeFirstOrThrow();
    expect(row.role).toBe(1);
    expect(row.password).toMatch(/^\$2[aby]\$10\$/);

    const headers = await test.login();
    await test.app.inject({ method: 'PUT', url: '/api/option/', headers, payload: { key: 'RegisterEnabled', value: 'false' } });
    expect((await register({ username: 'erin', password: 'password123' })).json()).toEqual({ success: false, message: '管理员关闭了新用户注册' });
    await test.app.inject({ method: 'PUT', url: '/api/option/', headers, payload: { key: 'RegisterEnabled', value: 'true' } });
    await test.app.inject({ method: 'PUT', url: '/api/option/', headers, payload: { key: 'PasswordRegisterEnabled', value: 'false' } });
    expect((await register({ username: 'erin', password: 'password123' })).json().success).toBe(false);
  });

  it('refuses password login when the switch is off', async () => {
    const test = await start();
    const headers = await test.login();
    await test.app.inject({ method: 'PUT', url: '/api/option/', headers, payload: { key: 'PasswordLoginEnabled', value: 'false' } });
    const response = await test.app.inject({ method: 'POST', url: '/api/user/login', payload: { username: 'root', password: '123456' } });
    expect(response.json()).toEqual({ success: false, message: '管理员关闭了密码登录' });
  });
});

describe('bad input is answered clearly, never with a 500', () => {
  it('handles missing fields, wrong types, broken JSON and oversized bodies', async () => {
    const { app } = await start();
    const login = (payload: string, contentType = 'application/json') =>
      app.inject({ method: 'POST', url: '/api/user/login', payload, headers: { 'content-type': contentType } });

    const missing = await login('{}');
    expect(missing.statusCode).toBe(200);
    expect(missing.json()).toEqual({ success: false, message: '请输入用户名和密码！' });

    const wrongType = await login(JSON.stringify({ username: 123, password: ['x'] }));
    expect(wrongType.statusCode).toBe(200);
    expect(wrongType.json().success).toBe(false);
    expect(wrongType.json().message).toMatch(/^无效的参数，username/);

    const broken = await login('{"username": "root", ');
    expect(broken.statusCode).toBe(200);
    expect(broken.json()).toEqual({ success: false, message: '请求体不是合法的 JSON' });

    const oversized = await login(JSON.stringify({ username: 'root', password: 'x'.repeat(2 * 1024 * 1024) }));
    expect(oversized.statusCode).toBe(413);
    expect(oversized.json()).toEqual({ success: false, message: '请求体过大' });

    const wrongMedia = await login('username=root', 'text/csv');
    expect(wrongMedia.statusCode).toBe(200);
    expect(wrongMedia.json()).toEqual({ success: false, message: '不支持的 Content-Type' });

    const nullBody = await login('null');
    expect(nullBody.statusCode).toBe(200);
    expect(nullBody.json()).toEqual({ success: false, message: '请输入用户名和密码！' });
  });

  it('answers unknown /api paths with a 404 envelope and other paths with the console', async () => {
    const dist = join(process.cwd(), '.tmp', `web-dist-${process.pid}`);
    mkdirSync(join(dist, 'assets'), { recursive: true });
    writeFileSync(join(dist, 'index.html'), '<!doctype html><div id="root">console</div>');
    writeFileSync(join(dist, 'assets', 'app-abc123.js'), 'console.log(1)');
    const { app } = await start({ WEB_DIST: dist });

    const api = await app.inject({ method: 'GET', url: '/api/no/such/thing?x=1' });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toEqual({ success: false, message: '接口不存在：GET /api/no/such/thing' });
    const apiPost = await app.inject({ method: 'POST', url: '/api/nothing', payload: {} });
    expect(apiPost.statusCode).toBe(404);
    expect(apiPost.json().success).toBe(false);

    for (const path of ['/', '/login', '/some/deep/route', '/token?p=2']) {
      const page = await app.inject({ method: 'GET', url: path });
      expect(page.statusCode, path).toBe(200);
      expect(page.body).toContain('<div id="root">console</div>');
      expect(page.headers['cache-control']).toBe('no-cache');
    }
    const asset = await app.inject({ method: 'GET', url: '/assets/app-abc123.js' });
    expect(asset.body).toBe('console.log(1)');
    expect(asset.headers['cache-control']).toContain('immutable');
  });
});

describe('rate limits', () => {
  it('limits critical calls per IP with a 429 envelope', async () => {
    const { app } = await start({ CRITICAL_RATE_LIMIT: '3' });
    const attempt = () => app.inject({ method: 'POST', url: '/api/user/login', payload: { username: 'root', password: 'wrong-one' } });
    // A wrong password is a failed operation, not a lost session: 200 with new-api's message.
    for (let i = 0; i < 3; i += 1) {
      const refused = await attempt();
      expect(refused.statusCode).toBe(200);
      expect(refused.json()).toEqual({ success: false, message: '用户名或密码错误' });
    }
    const limited = await attempt();
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ success: false, message: '请求过于频繁，请稍后再试' });
  });

  it('limits /api calls per IP with GLOBAL_API_RATE_LIMIT', async () => {
    const { app } = await start({ GLOBAL_API_RATE_LIMIT: '5' });
    const codes: number[] = [];
    for (let i = 0; i < 7; i += 1) codes.push((await app.inject({ method: 'GET', url: '/api/status' })).statusCode);
    expect(codes).toEqual([200, 200, 200, 200, 200, 429, 429]);
  });
});

describe('configuration', () => {
  it('stops with one line naming the wrong variable', () => {
    const cases: [Record<string, string>, string][] = [
      [{ PORT: 'eighty' }, 'invalid configuration: PORT must be a whole number, got "eighty"'],
      [{ PORT: '70000' }, 'invalid configuration: PORT must be a port number (0-65535)'],
      [{ SQL_DSN: 'sqlserver://x' }, 'invalid configuration: SQL_DSN must start with postgres:// or mysql:// (leave it empty for SQLite)'],
      [{ NODE_TYPE: 'leader' }, 'invalid configuration: NODE_TYPE must be "master" or "slave"'],
      [{ SYNC_FREQUENCY: '0' }, 'invalid configuration: SYNC_FREQUENCY must be at least 1, got 0'],
      [{ REDIS_CONN_STRING: 'localhost:6379' }, 'invalid configuration: REDIS_CONN_STRING must start with redis:// or rediss://'],
    ];
    for (const [env, message] of cases) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(message);
    }
  });

  it('has the documented defaults and warns-by-flag when SESSION_SECRET is unset', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.sqlitePath).toBe('./data/modelgate.db');
    expect(config.syncFrequencySeconds).toBe(60);
    expect(config.isMaster).toBe(true);
    expect(config.rateLimits).toEqual({ api: 180, web: 60, critical: 20 });
    expect(config.sessionSecretGenerated).toBe(true);
    expect(config.sessionSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(loadConfig({ SESSION_SECRET: 's3cret' }).sessionSecretGenerated).toBe(false);
  });

  it('takes a node for dead after NODE_STALE_SECONDS, by default 12 flush intervals but at least a minute', () => {
    expect(loadConfig({}).nodeStaleSeconds).toBe(60);
    expect(loadConfig({ BATCH_UPDATE_INTERVAL: '10' }).nodeStaleSeconds).toBe(120);
    expect(loadConfig({ NODE_STALE_SECONDS: '4', BATCH_UPDATE_INTERVAL: '1' }).nodeStaleSeconds).toBe(4);
    // A live node heartbeats at every flush: it must be able to miss a few.
    expect(() => loadConfig({ NODE_STALE_SECONDS: '10' })).toThrow(
      'invalid configuration: NODE_STALE_SECONDS must be 0 (the default) or at least 3 × BATCH_UPDATE_INTERVAL (15), got 10',
    );
    expect(() => loadConfig({ NODE_STALE_SECONDS: 'soon' })).toThrow('invalid configuration: NODE_STALE_SECONDS must be a whole number, got "soon"');
  });
});
