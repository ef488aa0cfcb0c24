import Database from 'better-sqlite3';
import { rmSync, copyFileSync } from 'node:fs';
const COLS = ['user_id','created_at','type','content','username','token_name','model_name','quota','prompt_tokens','completion_tokens','use_time','is_stream','channel_id','channel_name','token_id','group','ip','other'];
const other = '{"admin_info":{"use_channel":["3"]},"cache_ratio":1,"completion_ratio":4,"frt":-1000,"group_ratio":1,"is_model_mapped":false,"model_price":-1,"model_ratio":0.075,"request_path":"/v1/chat/completions","user_group_ratio":-1}';
function open(tag) {
  const path = `/tmp/ins-${tag}.db`; for (const s of ['', '-wal', '-shm']) rmSync(path + s, { force: true });
  const src = new Database('/tmp/exp/p.db', { readonly: true });
  const schema = src.prepare("select sql from sqlite_master where tbl_name='logs' and sql is not null").all().map((r) => r.sql);
  src.close();
  const db = new Database(path); db.pragma('journal_mode = WAL'); db.pragma('synchronous = NORMAL'); db.pragma('cache_size = -32768');
  for (const s of schema) db.exec(s);
  return db;
}
const row = (i) => [1, 1795776134 + (i >> 12), 2, '', 'bench', 'bench-token', i % 2 ? 'gpt-4o-mini' : 'gpt-4o', 1234, 40, 20, 0, 1, 1 + (i % 10), 'mock-' + (i % 10), 1, 'default', '', other];
const N = 20000, K = Number(process.env.K ?? 16);
const timings = { one: 0, multi: 0 };
for (let round = 0; round < 4; round++) {
  for (const mode of round % 2 ? ['multi', 'one'] : ['one', 'multi']) {
    const db = open(mode);
    const one = db.prepare(`insert into logs (${COLS.map((c) => `"${c}"`).join(',')}) values (${COLS.map(() => '?').join(',')})`);
    const multi = db.prepare(`insert into logs (${COLS.map((c) => `"${c}"`).join(',')}) values ${Array.from({ length: K }, () => `(${COLS.map(() => '?').join(',')})`).join(',')}`);
    // warm: 50k rows
    db.transaction(() => { for (let i = 0; i < 50000; i++) one.run(...row(i)); })();
    const t = process.hrtime.bigint();
    for (let b = 0; b < 4; b++) db.transaction(() => {
      if (mode === 'one') for (let i = 0; i < N / 4; i++) one.run(...row(i));
      else for (let i = 0; i < N / 4; i += K) { const params = []; for (let j = 0; j < K; j++) params.push(...row(i + j)); multi.run(params); }
    })();
    timings[mode] += Number(process.hrtime.bigint() - t) / N / 1e3 / 4;
    db.close();
  }
}
console.log(timings);
