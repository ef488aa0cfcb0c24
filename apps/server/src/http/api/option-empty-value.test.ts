import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

// new-api's settings forms send {"key":"SMTPAccount"} (no value at all) for a field the
// administrator emptied: the text keys store the empty string, the others refuse it by name.
let test: TestApp;
let root: Record<string, string>;
beforeAll(async () => {
  test = await startTestApp();
  root = await test.login();
});
afterAll(async () => test.close());

const put = (payload: string) => test.app.inject({ method: 'PUT', url: '/api/option/', headers: { ...root, 'content-type': 'application/json' }, payload });

/** The stored value, opened when sealed (secret options are, lib/secret-box.ts). */
const storedRow = async (key: string) => {
  const value = (await test.context.db.kysely.selectFrom('options').select('value').where('key', '=', key).executeTakeFirst())?.value;
  return value === undefined || value === null ? value : test.context.db.secrets.open(value);
};

const listed = async (key: string) => {
  const body = (await test.app.inject({ method: 'GET', url: '/api/option/', headers: root })).json() as { data: { key: string; value: string }[] };
  return body.data.find((option) => option.key === key)?.value;
};

describe('PUT /api/option/ without a value', () => {
  it('stores the empty string for text, secret and address keys, in the database and in memory', async () => {
    for (const [key, before] of [
      ['SMTPAccount', 'mailer@example.com'],
      ['SMTPToken', 'smtp-secret-token'],
      ['ServerAddress', 'https://gw.example.com'],
      ['Notice', '# hello'],
    ] as const) {
      expect((await put(JSON.stringify({ key, value: before }))).json(), key).toEqual({ success: true, message: '保存成功' });
      expect(await storedRow(key), key).toBe(before);

      const emptied = await put(JSON.stringify({ key }));
      expect(emptied.statusCode, key).toBe(200);
      expect(emptied.json(), key).toEqual({ success: true, message: '保存成功' });
      expect(await storedRow(key), key).toBe('');
      expect(test.context.options.string(key), key).toBe('');
    }
    expect(await listed('SMTPAccount')).toBe('');
    expect(await listed('SMTPToken')).toBeUndefined();
    expect((await test.app.inject({ method: 'GET', url: '/api/status' })).json().data.server_address).toBe('');
  });

  it('treats a null value as no value', async () => {
    await put(JSON.stringify({ key: 'SMTPFrom', value: 'noreply@example.com' }));
    expect((await put('{"key":"SMTPFrom","value":null}')).json()).toEqual({ success: true, message: '保存成功' });
    expect(await storedRow('SMTPFrom')).toBe('');
  });

  it('refuses it for numbers, switches, JSON and enumerated keys, naming the key, and keeps the stored value', async () => {
    const cases: [string, string][] = [
      ['QuotaPerUnit', 'QuotaPerUnit 必须是数字'],
      ['RetryTimes', 'RetryTimes 必须是整数'],
      ['DrawingEnabled', 'DrawingEnabled 必须是 true 或 false'],
      ['GroupRatio', '分组倍率不是合法的 JSON 字符串'],
      ['DataExportDefaultTime', 'DataExportDefaultTime 只能是 hour、day、week 之一'],
    ];
    for (const [key, message] of cases) {
      const before = await listed(key);
      expect(before, key).toBeDefined();
      const refused = await put(JSON.stringify({ key }));
      expect(refused.statusCode, key).toBe(200);
      expect(refused.json(), key).toEqual({ success: false, message });
      expect(await listed(key), key).toBe(before);
    }
  });

  it('still refuses a missing key and a value of the wrong shape', async () => {
    expect((await put('{}')).json()).toEqual({ success: false, message: '无效的参数，key: Invalid input: expected string, received undefined' });
    expect((await put('{"key":"Notice","value":["a"]}')).json()).toEqual({ success: false, message: '无效的参数，value: 配置值必须是字符串、数字或布尔值' });
  });
});
