import { rebuildLogRollups } from '../../db/log-rollups.js';
import { DEFAULT_ROOT_PASSWORD, DEFAULT_ROOT_USERNAME } from '@modelgate/contract';
import { sql } from 'kysely';
import { isOptionKey, isSecretOption, normaliseOptionValue } from '../../config/option-registry.js';
import type { Db } from '../../db/index.js';
import { verifyPassword } from '../../domain/users/password.js';
import { openStoredUserSetting, sealStoredUserSetting } from '../../domain/users/user-setting.js';
import { usernameKey } from '../../lib/username.js';
import { IMPORT_COLUMNS, IMPORT_TABLES, mapSourceRow, sameRow, unmappedColumns, type ImportTable, type TargetRow } from './import-columns.js';
import { emptyTableSummary, silentProgress, type ImportProgress, type ImportSummary, type TableSummary } from './import-report.js';
import type { ImportSource } from './import-source.js';

export interface ImportOptions {
  source: ImportSource;
  /** modelgate's database, migrated. */
  target: Db;
  /** Rows per page read and per insert transaction (default 1,000). */
  batchSize?: number;
  progress?: ImportProgress;
}

type IdTable = Exclude<ImportTable, 'abilities' | 'options'>;

const WARNINGS_PER_TABLE = 20;
/** Bound parameters per INSERT, under SQLite's 32,766 and PostgreSQL's and MySQL's 65,535. */
const MAX_PARAMETERS = 30_000;

/** Database errors name the constraint; MySQL's also quote the duplicate value, which may be a key. */
const describeDbError = (error: unknown) =>
  String((error as Error).message ?? error)
    .replace(/'[^']*'/g, "'…'")
    .replace(/\(([^)]*)\)=\(([^)]*)\)/g, '($1)=(…)');

/**
 * Copies users, tokens, channels, abilities, options, redemptions and logs from a one-api/new-api
 * database into modelgate's. Idempotent: a row whose id (abilities: group, model and channel;
 * options: key) is already here is never overwritten, only counted as unchanged or kept; options
 * (set to the source's value) and a first start's untouched root/123456 (replaced by the source's
 * user of that id) are the exceptions. Each batch is one transaction.
 */
export async function importDatabase({ source, target, batchSize = 1000, progress = silentProgress }: ImportOptions): Promise<ImportSummary> {
  const summary: ImportSummary = { source: source.label, tables: [], warnings: [] };
  const nowSeconds = Math.floor(Date.now() / 1000);
  const channelNames = new Map<number, string>();

  for (const table of IMPORT_TABLES) {
    const tableSummary = emptyTableSummary(table);
    summary.tables.push(tableSummary);
    const columns = await source.columns(table);
    if (!columns) {
      tableSummary.absent = true;
      progress.finish(tableSummary);
      continue;
    }
    tableSummary.unmappedColumns = unmappedColumns(table, columns);
    const warn = tableWarner(summary.warnings, table);
    const total = await source.count(table);
    progress.start(table, total);
    const context: BatchContext = { target, table, summary: tableSummary, warn, nowSeconds, channelNames };
    if (table === 'abilities' || table === 'options') {
      const copy = table === 'abilities' ? copyAbilities : copyOptions;
      const existing = await loadExisting(target, table);
      for (let offset = 0; ; offset += batchSize) {
        const order = table === 'abilities' ? ['channel_id', 'model', 'group'] : ['key'];
        const rows = await source.pageByOffset(table, order, offset, batchSize);
        if (rows.length === 0) break;
        await copy(context, rows, existing);
        progress.advance(table, tableSummary.read, total);
      }
    } else {
      for (let afterId = 0; ; ) {
        const rows = await source.pageById(table, afterId, batchSize);
        if (rows.length === 0) break;
        afterId = Number(rows[rows.length - 1]?.id);
        await copyById(context, table, rows);
        progress.advance(table, tableSummary.read, total);
      }
    }
    progress.finish(tableSummary);
  }
  if (target.dialect === 'postgres') await advanceSequences(target);
  // The log screen's totals come from the rollups: counted again over every log, imported or not.
  if (summary.tables.some((table) => table.table === 'logs' && !table.absent)) {
    await target.kysely.transaction().execute((trx) => rebuildLogRollups(trx, target.dialect));
  }
  return summary;
}

interface BatchContext {
  target: Db;
  table: ImportTable;
  summary: TableSummary;
  warn: (message: string) => void;
  nowSeconds: number;
  /** Source channel ids to names, so imported logs show them (new-api computes channel_name at read). */
  channelNames: Map<number, string>;
}

function tableWarner(warnings: string[], table: ImportTable): (message: string) => void {
  let count = 0;
  return (message) => {
    count += 1;
    if (count <= WARNINGS_PER_TABLE) warnings.push(`${table} ${message}`);
    else if (count === WARNINGS_PER_TABLE + 1) warnings.push(`${table}: further notes left out`);
  };
}

async function copyById(context: BatchContext, table: IdTable, rows: Record<string, unknown>[]): Promise<void> {
  const { target, summary, warn } = context;
  summary.read += rows.length;
  const mapped: TargetRow[] = [];
  for (const row of rows) {
    const { value, warnings } = mapSourceRow(table, row, context.nowSeconds);
    for (const warning of warnings) warn(`#${String(value.id)} ${warning}`);
    if (table === 'channels') context.channelNames.set(Number(value.id), String(value.name));
    if (table === 'logs' && value.channel_name === '' && Number(value.channel_id) > 0) {
      value.channel_name = context.channelNames.get(Number(value.channel_id)) ?? '';
    }
    mapped.push(value);
  }
  const ids = mapped.map((row) => Number(row.id));
  const existingRows = (await target.kysely.selectFrom(table).selectAll().where('id', 'in', ids).execute()) as Record<string, unknown>[];
  const existing = new Map(existingRows.map((row) => [Number(row.id), row]));
  const fresh: TargetRow[] = [];
  for (const row of mapped) {
    const stored = existing.get(Number(row.id));
    if (!stored) fresh.push(row);
    else if (sameRow(table, openSecrets(target, table, row), openSecrets(target, table, stored))) summary.unchanged += 1;
    else if (table === 'users' && (await isUntouchedDefaultRoot(stored))) {
      try {
        await replaceDefaultRoot(target, row);
        summary.updated += 1;
        warn(`#${String(row.id)}: modelgate's default root (password ${DEFAULT_ROOT_PASSWORD}) was replaced by ${String(row.username)}`);
      } catch (error) {
        summary.failed += 1;
        warn(`#${String(row.id)}: could not replace modelgate's default root: ${describeDbError(error)}`);
      }
    } else {
      summary.kept += 1;
      if (table === 'users') warn(`#${String(row.id)} (${String(stored.username)}): this id is taken here by another user, who was kept`);
    }
  }
  if (table === 'users') await assignUsernameKeys(target, fresh);
  await insertRows(
    context,
    table,
    fresh.map((row) => sealSecrets(target, table, row)),
  );
}

/**
 * The row with its secrets sealed, as they are stored: channel keys, and the webhook secret and
 * gotify token in a user's setting.
 */
function sealSecrets(target: Db, table: IdTable, row: TargetRow): TargetRow {
  if (table === 'channels' && typeof row.key === 'string') return { ...row, key: target.secrets.sealOnce(row.key) };
  if (table === 'users' && typeof row.setting === 'string') return { ...row, setting: sealStoredUserSetting(row.setting, target.secrets) };
  return row;
}

/** The row with its secrets open (and a setting holding any written alike), to compare a stored row with the source's. */
function openSecrets<Row extends Record<string, unknown>>(target: Db, table: IdTable, row: Row): Row {
  if (table === 'channels' && typeof row.key === 'string') return { ...row, key: target.secrets.open(row.key) };
  if (table === 'users' && typeof row.setting === 'string') return { ...row, setting: openStoredUserSetting(row.setting, target.secrets) };
  return row;
}

/**
 * The root / 123456 a first start makes on an empty database, still with that password: it stands
 * in for the source's administrator of the same id (usually 1), who replaces it, rather than
 * leaving the old administrator out and a default password in.
 */
async function isUntouchedDefaultRoot(stored: Record<string, unknown>): Promise<boolean> {
  return stored.username === DEFAULT_ROOT_USERNAME && (await verifyPassword(DEFAULT_ROOT_PASSWORD, String(stored.password ?? '')));
}

async function replaceDefaultRoot(target: Db, row: TargetRow): Promise<void> {
  const id = Number(row.id);
  const values: TargetRow = { ...sealSecrets(target, 'users', row) };
  delete values.id;
  await target.kysely.transaction().execute(async (transaction) => {
    await transaction
      .updateTable('users')
      .set({ ...values, username_key: usernameKey(String(row.username)) } as never)
      .where('id', '=', id)
      .execute();
    // A new password ends the default root's sessions, as a password change does.
    await transaction.deleteFrom('sessions').where('user_id', '=', id).execute();
  });
}

/** Our users carry the folded name they are kept unique by; a clash (Root and root) gets `#id`. */
async function assignUsernameKeys(target: Db, rows: TargetRow[]): Promise<void> {
  if (rows.length === 0) return;
  const keys = rows.map((row) => usernameKey(String(row.username)));
  const taken = new Set(
    (await target.kysely.selectFrom('users').select('username_key').where('username_key', 'in', keys).execute()).map((row) => row.username_key),
  );
  rows.forEach((row, index) => {
    let key = keys[index] ?? '';
    while (taken.has(key)) key = `${key}#${String(row.id)}`;
    taken.add(key);
    row.username_key = key;
  });
}

/** Inserts in one transaction per batch; if the batch is refused, row by row so one bad row costs only itself. */
async function insertRows(context: BatchContext, table: ImportTable, rows: TargetRow[]): Promise<void> {
  if (rows.length === 0) return;
  const { target, summary, warn } = context;
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / (Object.keys(IMPORT_COLUMNS[table]).length + 1)));
  try {
    await target.kysely.transaction().execute(async (transaction) => {
      for (let start = 0; start < rows.length; start += perStatement) {
        await transaction
          .insertInto(table)
          .values(rows.slice(start, start + perStatement) as never)
          .execute();
      }
    });
    summary.inserted += rows.length;
    return;
  } catch {
    // Fall through: find the rows that are refused.
  }
  for (const row of rows) {
    try {
      await target.kysely
        .insertInto(table)
        .values(row as never)
        .execute();
      summary.inserted += 1;
    } catch (error) {
      summary.failed += 1;
      warn(`${describeRow(table, row)}: not imported: ${describeDbError(error)}`);
    }
  }
}

const describeRow = (table: ImportTable, row: TargetRow) =>
  table === 'abilities'
    ? `${String(row.group)}/${String(row.model)}/channel ${String(row.channel_id)}`
    : table === 'options'
      ? String(row.key)
      : `#${String(row.id)}`;

const abilityKey = (row: Record<string, unknown>) => `${String(row.group)}\u0000${String(row.model)}\u0000${Number(row.channel_id)}`;

async function loadExisting(target: Db, table: 'abilities' | 'options'): Promise<Map<string, Record<string, unknown>>> {
  if (table === 'abilities') {
    const rows = (await target.kysely.selectFrom('abilities').selectAll().execute()) as Record<string, unknown>[];
    return new Map(rows.map((row) => [abilityKey(row), row]));
  }
  const rows = await target.kysely.selectFrom('options').selectAll().execute();
  return new Map(rows.map((row) => [row.key, row as Record<string, unknown>]));
}

async function copyAbilities(context: BatchContext, rows: Record<string, unknown>[], existing: Map<string, Record<string, unknown>>): Promise<void> {
  const { summary } = context;
  summary.read += rows.length;
  const fresh: TargetRow[] = [];
  for (const row of rows) {
    const { value } = mapSourceRow('abilities', row, context.nowSeconds);
    const stored = existing.get(abilityKey(value));
    if (!stored) {
      fresh.push(value);
      existing.set(abilityKey(value), value);
    } else if (sameRow('abilities', value, stored)) summary.unchanged += 1;
    else summary.kept += 1;
  }
  await insertRows(context, 'abilities', fresh);
}

/** Options known to our registry, checked by it; the source's value replaces ours. */
async function copyOptions(context: BatchContext, rows: Record<string, unknown>[], existing: Map<string, Record<string, unknown>>): Promise<void> {
  const { target, summary, warn } = context;
  summary.read += rows.length;
  const fresh: TargetRow[] = [];
  for (const row of rows) {
    const key = String(row.key);
    if (!isOptionKey(key)) {
      summary.skipped += 1;
      summary.skippedKeys.push(key);
      continue;
    }
    let value: string;
    try {
      value = normaliseOptionValue(key, row.value ?? '');
    } catch (error) {
      summary.failed += 1;
      warn(`${key}: not imported: ${(error as Error).message}`);
      continue;
    }
    const stored = existing.get(key);
    const secret = isSecretOption(key);
    const storedValue = secret ? target.secrets.open(String(stored?.value ?? '')) : String(stored?.value ?? '');
    const written = secret ? target.secrets.seal(value) : value;
    if (!stored) fresh.push({ key, value: written });
    else if (storedValue === value) summary.unchanged += 1;
    else {
      await target.kysely.updateTable('options').set({ value: written }).where('key', '=', key).execute();
      summary.updated += 1;
    }
  }
  await insertRows(context, 'options', fresh);
}

/** PostgreSQL's serials do not move when ids are written: set them past the largest id. */
async function advanceSequences(target: Db): Promise<void> {
  for (const table of IMPORT_TABLES) {
    if (table === 'abilities' || table === 'options') continue;
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'), (select coalesce(max(id), 0) + 1 from ${sql.table(table)}), false)`.execute(target.kysely);
  }
}
