import { LogType, Role } from '@modelgate/contract';
import { Agent, request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { insertLogRows, type LogRowInsert } from '../../domain/logs/log-buffer.js';
import { EXPORT_PAGE_ROWS, LogExport, logCsvStream } from '../../domain/logs/log-export.js';
import { hashPassword } from '../../domain/users/password.js';
import { createFreshDb, DIALECTS, type FreshDb } from '../../test-support/dialects.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { readFilter } from './logs.js';

type Session = Record<string, string>;

/**
 * A strict RFC 4180 reader: records end with CRLF (the last one too), a quoted field doubles its
 * quotes and is followed by a comma or the record's end, an unquoted field holds no quote, CR or LF.
 * Throws on anything else, so a writer's slip fails the test instead of shifting cells.
 */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let at = 0;
  const fail = (why: string) => {
    throw new Error(`CSV: ${why} at ${at}: ${JSON.stringify(text.slice(Math.max(0, at - 20), at + 20))}`);
  };
  const special = /[",\r\n]/g;
  while (at < text.length) {
    let field = '';
    if (text[at] === '"') {
      at += 1;
      for (;;) {
        const quote = text.indexOf('"', at);
        if (quote < 0) fail('unterminated quote');
        field += text.slice(at, quote);
        at = quote + 1;
        if (text[at] !== '"') break;
        field += '"';
        at += 1;
      }
    } else {
      special.lastIndex = at;
      const end = special.exec(text)?.index ?? text.length;
      field = text.slice(at, end);
      at = end;
      if (text[at] === '"' || text[at] === '\n') fail('quote or LF in an unquoted field');
    }
    record.push(field);
    if (text[at] === ',') {
      at += 1;
    } else if (text.startsWith('\r\n', at)) {
      at += 2;
      records.push(record);
      record = [];
    } else {
      fail('a field not followed by a comma or CRLF');
    }
  }
  if (record.length > 0) fail('no CRLF after the last record');
  return records;
}

interface Csv {
  header: string[];
  rows: Record<string, string>[];
}

function readCsv(raw: string): Csv {
  expect(raw.startsWith('\uFEFF')).toBe(true);
  const [header, ...records] = parseCsv(raw.slice(1));
  for (const record of records) expect(record.length).toBe(header!.length);
  return { header: header!, rows: records.map((record) => Object.fromEntries(header!.map((name, index) => [name, record[index]!]))) };
}

const T0 = 1_700_000_000;
const TRICKY = ['=SUM(A1:A2)', '+1', '-2', '@cmd', '\tTAB', '\rCR', 'a,b', 'say "hi"', 'line1\nline2', 'crlf\r\nend', '中文内容，逗号', 'plain'];
const guarded = (value: string) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);

describe.each(DIALECTS)('the log CSV export on %s', (dialect) => {
  let fresh: FreshDb | undefined;
  let test: TestApp;
  let admin: Session;
  let alice: { id: number; username: string; session: Session };
  let bob: { id: number; username: string; session: Session };
  let carolId = 0;

  const insertLogs = async (rows: LogRowInsert[]) => {
    for (let start = 0; start < rows.length; start += 500) await insertLogRows(test.context.db.kysely, rows.slice(start, start + 500));
  };

  const download = async (url: string, session: Session = {}, headers: Record<string, string> = {}) => {
    const response = await test.app.inject({ method: 'GET', url, headers: { ...session, ...headers } });
    return { status: response.statusCode, headers: response.headers, raw: response.rawPayload.toString('utf8') };
  };

  /** The ids the list route answers for these filters, every page of them. */
  const listedIds = async (path: string, query: string, session: Session) => {
    const ids: number[] = [];
    for (let page = 1; ; page += 1) {
      const response = await test.app.inject({ method: 'GET', url: `${path}?p=${page}&page_size=100&${query}`, headers: session });
      const body = response.json() as { success: boolean; data: { items: { id: number }[]; total: number } };
      expect(body.success).toBe(true);
      ids.push(...body.data.items.map((row) => row.id));
      if (ids.length >= body.data.total || body.data.items.length === 0) return ids;
    }
  };

  beforeAll(async () => {
    if (dialect !== 'sqlite') fresh = await createFreshDb(dialect);
    test = await startTestApp(fresh ? { SQL_DSN: fresh.sqlDsn } : {});
    admin = await test.login();
    const password = await hashPassword('password123');
    const signUp = async (username: string) => {
      const id = await test.context.users.repository.insert({ username, password, display_name: username, role: Role.Common });
      return { id, username, session: await test.login(username, 'password123') };
    };
    alice = await signUp('alice');
    bob = await signUp('bob');
    carolId = await test.context.users.repository.insert({ username: 'carol', password, display_name: 'carol', role: Role.Common });
    const types = [LogType.Consume, LogType.Consume, LogType.Consume, LogType.TopUp, LogType.Manage, LogType.System, LogType.Error];
    await insertLogs(
      Array.from({ length: 120 }, (_, i) => {
        const owner = i % 3 === 0 ? bob : alice;
        return {
          user_id: owner.id,
          username: owner.username,
          created_at: T0 + i * 60,
          type: types[i % types.length]!,
          token_name: i === 7 ? '=HYPERLINK("http://x")' : ['main', 'side'][i % 2]!,
          model_name: ['gpt-4o', 'gpt-4o-mini', 'claude-3'][i % 3]!,
          group: i % 4 === 0 ? 'vip' : 'default',
          channel_id: i % 5 === 0 ? 12 : 11,
          channel_name: i % 5 === 0 ? 'backup, "eu"' : 'main',
          quota: i * 100 - 50,
          prompt_tokens: i,
          completion_tokens: i * 2,
          use_time: i % 9,
          is_stream: i % 2,
          ip: i % 2 ? '10.0.0.1' : '',
          content: TRICKY[i % TRICKY.length]!,
          other: JSON.stringify({ model_ratio: 1.5, note: `n "${i}", x`, admin_info: { use_channel: [String(i % 5 === 0 ? 12 : 11)] } }),
        };
      }),
    );
  });
  // The HTTP cases' own connections, closed before the app: no kept-alive socket is left for its close to wait on.
  const agent = new Agent();
  const request = (url: string, options: { headers: Session }) => undiciRequest(url, { ...options, dispatcher: agent });
  afterAll(async () => {
    await agent.destroy();
    await test?.close();
    await fresh?.drop();
  });

  it('exports exactly the rows the list shows for the same filters, newest first', async () => {
    const adminQueries = [
      '',
      'type=2',
      'type=1',
      'token_name=main',
      'model_name=gpt-4o',
      'model_name=gpt-4o%25',
      'group=vip',
      'channel=12',
      'username=alice',
      `start_timestamp=${T0 + 600}&end_timestamp=${T0 + 3000}`,
      'type=2&token_name=side&group=default&channel=11',
      'type=abc&channel=99999999999999999999&start_timestamp=1e308',
      'start_timestamp=-5&end_timestamp=-1',
      `end_timestamp=${T0 + 1200}`,
      `type=2&start_timestamp=${T0 + 1800}`,
      `username=bob&start_timestamp=${T0 + 60}&end_timestamp=${T0 + 6000}`,
    ];
    for (const query of adminQueries) {
      const listed = await listedIds('/api/log/', query, admin);
      const exported = await download(`/api/log/export?${query}`, admin);
      expect(exported.status, query).toBe(200);
      expect(exported.headers['x-total-count'], query).toBe(String(listed.length));
      expect(
        readCsv(exported.raw).rows.map((row) => Number(row.id)),
        query,
      ).toEqual(listed);
    }
    for (const query of ['', 'type=2', 'username=bob&channel=12', 'model_name=claude%25&group=default']) {
      const listed = await listedIds('/api/log/self', query, alice.session);
      const exported = await download(`/api/log/self/export?${query}`, alice.session);
      expect(exported.headers['x-total-count'], query).toBe(String(listed.length));
      expect(
        readCsv(exported.raw).rows.map((row) => Number(row.id)),
        query,
      ).toEqual(listed);
    }
    // The filters narrow: a spot check that the comparison above is not over empty lists.
    const aliceConsumed = Array.from({ length: 120 }, (_, i) => i).filter((i) => i % 3 !== 0 && i % 7 < 3).length;
    expect((await listedIds('/api/log/', 'username=alice&type=2', admin)).length).toBe(aliceConsumed);
  });

  it("never shows a user another user's rows, admin_info or the channel columns", async () => {
    const exported = readCsv((await download('/api/log/self/export?username=alice&channel=11', bob.session)).raw);
    expect(exported.rows.length).toBe(40);
    expect(new Set(exported.rows.map((row) => row.username))).toEqual(new Set(['bob']));
    expect(exported.header).not.toContain('channel_id');
    expect(exported.header).not.toContain('channel_name');
    for (const row of exported.rows) expect(JSON.parse(row.other!)).not.toHaveProperty('admin_info');
    const asAdmin = readCsv((await download('/api/log/export?username=bob', admin)).raw);
    expect(JSON.parse(asAdmin.rows[0]!.other!).admin_info.use_channel).toHaveLength(1);
  });

  it('quotes and guards cells so they read back as written, and keeps numbers numeric', async () => {
    const response = await download('/api/log/export', admin);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="logs-\d{8}-\d{6}\.csv"$/);
    const { header, rows } = readCsv(response.raw);
    expect(header).toEqual([
      'id',
      'time (UTC)',
      'timestamp',
      'type',
      'username',
      'token_name',
      'model_name',
      'group',
      'channel_id',
      'channel_name',
      'prompt_tokens',
      'completion_tokens',
      'quota',
      'cost (USD)',
      'use_time (s)',
      'is_stream',
      'ip',
      'content',
      'other',
    ]);
    const stored = await test.context.db.kysely.selectFrom('logs').selectAll().orderBy('id', 'desc').execute();
    expect(rows.length).toBe(stored.length);
    rows.forEach((row, index) => {
      const source = stored[index]!;
      expect(row.content).toBe(guarded(source.content));
      expect(row.token_name).toBe(guarded(source.token_name));
      expect(row.channel_name).toBe(source.channel_name);
      expect(JSON.parse(row.other!)).toEqual(JSON.parse(source.other));
      expect(row.quota).toBe(String(source.quota));
      expect(row.timestamp).toBe(String(source.created_at));
      expect(row['time (UTC)']).toBe(new Date(Number(source.created_at) * 1000).toISOString().slice(0, 19).replace('T', ' '));
    });
    const first = rows.find((row) => row.id === String(stored.at(-1)!.id))!;
    expect(first).toMatchObject({ quota: '-50', content: "'=SUM(A1:A2)", type: 'consume', is_stream: 'no', 'time (UTC)': '2023-11-14 22:13:20' });
    expect(rows.find((row) => row.content === "'-2")).toBeDefined();
    expect(rows.find((row) => row.token_name === '\'=HYPERLINK("http://x")')).toBeDefined();
  });

  it('writes Chinese headers for lang=zh or a Chinese Accept-Language, and the cost only while amounts show in currency', async () => {
    const byQuery = readCsv((await download('/api/log/self/export?lang=zh&type=2', alice.session, { 'accept-language': 'en-US' })).raw);
    expect(byQuery.header.slice(0, 5)).toEqual(['ID', '时间（UTC）', '时间戳', '类型', '用户名']);
    expect(byQuery.rows[0]).toMatchObject({ 类型: '消费' });
    const byHeader = readCsv((await download('/api/log/self/export', alice.session, { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' })).raw);
    expect(byHeader.header).toContain('内容');
    // new-api's default: amounts in currency, so the cost column is there.
    expect(test.context.options.bool('DisplayInCurrencyEnabled')).toBe(true);
    const { rows } = readCsv((await download('/api/log/export?type=2&username=alice', admin)).raw);
    const perUnit = test.context.options.number('QuotaPerUnit');
    for (const row of rows) expect(row['cost (USD)']).toBe((Number(row.quota) / perUnit).toFixed(6));
    await test.context.options.set('DisplayInCurrencyEnabled', 'false');
    try {
      expect(readCsv((await download('/api/log/export?type=2', admin)).raw).header).not.toContain('cost (USD)');
    } finally {
      await test.context.options.set('DisplayInCurrencyEnabled', 'true');
    }
  });

  it('refuses without a session (401) and refuses a user the admin export (200, success:false JSON)', async () => {
    for (const url of ['/api/log/export', '/api/log/self/export']) {
      const anonymous = await test.app.inject({ method: 'GET', url });
      expect(anonymous.statusCode, url).toBe(401);
      expect(anonymous.json().success, url).toBe(false);
    }
    const refused = await test.app.inject({ method: 'GET', url: '/api/log/export', headers: alice.session });
    expect(refused.statusCode).toBe(200);
    expect(refused.json()).toEqual({ success: false, message: '无权进行此操作，权限不足' });
  });

  describe('10,000 rows', () => {
    const LARGE = 10_000;
    const LARGE_ROW_BYTES = 500;
    let origin = '';
    beforeAll(async () => {
      const body = 'x'.repeat(LARGE_ROW_BYTES);
      await insertLogs(
        Array.from({ length: LARGE }, (_, i) => ({
          user_id: carolId,
          username: 'carol',
          created_at: T0 + 100_000 + i,
          type: LogType.Consume,
          model_name: 'gpt-4o',
          quota: i,
          content: `${i} ${body}`,
        })),
      );
      origin = await test.app.listen({ port: 0, host: '127.0.0.1' });
    });

    it('streams every row over HTTP with the count first', async () => {
      const response = await request(`${origin}/api/log/export?username=carol`, { headers: admin });
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-total-count']).toBe(String(LARGE));
      expect(response.headers['transfer-encoding']).toBe('chunked');
      // Buffer decoding keeps the BOM (TextDecoder, body.text(), would drop it).
      const { rows } = readCsv(Buffer.from(await response.body.arrayBuffer()).toString('utf8'));
      expect(rows.length).toBe(LARGE);
      expect(rows[0]!.quota).toBe(String(LARGE - 1));
      expect(rows.at(-1)!.quota).toBe('0');
    });

    it('pages through a time range (3 pages) to exactly its rows', async () => {
      const start = T0 + 100_000 + 1_000;
      const response = await download(`/api/log/export?type=2&start_timestamp=${start}&end_timestamp=${start + 4_999}`, admin);
      expect(response.headers['x-total-count']).toBe('5000');
      const { rows } = readCsv(response.raw);
      expect(rows.map((row) => Number(row.quota))).toEqual(Array.from({ length: 5_000 }, (_, i) => 5_999 - i));
    });

    it('reads a page only when the reader has taken the one before (memory bounded by one page)', async () => {
      let queries = 0;
      let resumed = 0;
      let firstPage!: () => void;
      const firstPageRead = new Promise<void>((resolve) => {
        firstPage = resolve;
      });
      const exporter = new LogExport(test.context.db);
      const pages = exporter.pages.bind(exporter);
      exporter.pages = async function* (...args) {
        for await (const page of pages(...args)) {
          queries += 1;
          if (queries === 1) firstPage();
          yield page;
          resumed += 1;
        }
      };
      const stream = logCsvStream(exporter, readFilter({ username: 'carol' }), { admin: true, language: 'en' });
      stream.read(0); // starts the reading, takes nothing
      await firstPageRead;
      // Every microtask of the push settled: the buffer is past its mark and nothing asks for page 2.
      await new Promise((resolve) => setImmediate(resolve));
      expect(queries).toBe(1);
      expect(resumed).toBe(0);
      expect(stream.readableLength).toBeGreaterThan(LARGE_ROW_BYTES);
      expect(stream.readableLength).toBeLessThan(EXPORT_PAGE_ROWS * LARGE_ROW_BYTES * 1.5);
      let bytes = 0;
      let mostBuffered = 0;
      for await (const chunk of stream) {
        bytes += (chunk as Buffer).length;
        mostBuffered = Math.max(mostBuffered, stream.readableLength);
      }
      expect(queries).toBe(LARGE / EXPORT_PAGE_ROWS);
      expect(bytes).toBeGreaterThan(LARGE * LARGE_ROW_BYTES);
      expect(mostBuffered).toBeLessThan(EXPORT_PAGE_ROWS * LARGE_ROW_BYTES * 1.5);
    });

    it('cuts the connection when a page fails after the answer has started (no short file that looks whole)', async () => {
      const original = LogExport.prototype.pages;
      const spy = vi.spyOn(LogExport.prototype, 'pages').mockImplementation(async function* (this: LogExport, ...args) {
        for await (const page of original.apply(this, args)) {
          yield page;
          throw new Error('the database went away');
        }
      });
      try {
        const response = await request(`${origin}/api/log/export?username=carol`, { headers: admin });
        expect(response.statusCode).toBe(200);
        await expect(response.body.arrayBuffer()).rejects.toThrow();
      } finally {
        spy.mockRestore();
      }
    });

    it('stops reading pages when the client disconnects', async () => {
      let rowsRead = 0;
      let ended!: () => void;
      const done = new Promise<void>((resolve) => {
        ended = resolve;
      });
      const original = LogExport.prototype.pages;
      const spy = vi.spyOn(LogExport.prototype, 'pages').mockImplementation(async function* (this: LogExport, ...args) {
        try {
          for await (const page of original.apply(this, args)) {
            rowsRead += page.length;
            yield page;
          }
        } finally {
          ended();
        }
      });
      try {
        const response = await request(`${origin}/api/log/export?username=carol`, { headers: admin });
        expect(response.headers['x-total-count']).toBe(String(LARGE));
        for await (const _chunk of response.body) break; // the first bytes, then the client leaves
        await done;
        expect(rowsRead).toBeGreaterThan(0);
        expect(rowsRead).toBeLessThan(LARGE);
      } finally {
        spy.mockRestore();
      }
    });
  });
});
