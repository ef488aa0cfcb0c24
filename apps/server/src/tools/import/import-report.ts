import type { ImportTable } from './import-columns.js';

export interface TableSummary {
  table: ImportTable;
  /** The source has no such table (an older one-api, say): nothing read. */
  absent: boolean;
  read: number;
  inserted: number;
  /** Options whose value differed and was set to the source's. */
  updated: number;
  /** Already in our database with the same content. */
  unchanged: number;
  /** Already in our database (same id or key) with other content: ours is kept, never overwritten. */
  kept: number;
  /** Not imported by rule: option keys our registry does not know. */
  skipped: number;
  /** Refused by our database (a unique name or key taken by another row) or by our option checks. */
  failed: number;
  /** Source columns with no place in our table. */
  unmappedColumns: string[];
  /** The option keys skipped. */
  skippedKeys: string[];
}

export interface ImportSummary {
  source: string;
  tables: TableSummary[];
  /** Row-level notes, capped per table; no secret (key, password hash) ever appears in them. */
  warnings: string[];
}

export const emptyTableSummary = (table: ImportTable): TableSummary => ({
  table,
  absent: false,
  read: 0,
  inserted: 0,
  updated: 0,
  unchanged: 0,
  kept: 0,
  skipped: 0,
  failed: 0,
  unmappedColumns: [],
  skippedKeys: [],
});

export interface ImportProgress {
  start(table: ImportTable, total: number): void;
  advance(table: ImportTable, done: number, total: number): void;
  finish(summary: TableSummary): void;
}

export const silentProgress: ImportProgress = { start() {}, advance() {}, finish() {} };

const BAR_WIDTH = 24;

/**
 * A progress bar on one stderr line (rewritten with \r on a terminal, at most ten times a
 * second); where stderr is not a terminal, one line per table when it is done.
 */
export function stderrProgress(stream: NodeJS.WriteStream = process.stderr): ImportProgress {
  const interactive = stream.isTTY === true;
  let lastDraw = 0;
  const draw = (table: string, done: number, total: number) => {
    const ratio = total === 0 ? 1 : Math.min(1, done / total);
    const filled = Math.round(ratio * BAR_WIDTH);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}`;
    stream.write(`\r${table.padEnd(12)} [${bar}] ${String(Math.round(ratio * 100)).padStart(3)}%  ${done}/${total}\u001b[K`);
  };
  return {
    start(table, total) {
      if (interactive) draw(table, 0, total);
    },
    advance(table, done, total) {
      const now = Date.now();
      if (!interactive || now - lastDraw < 100) return;
      lastDraw = now;
      draw(table, done, total);
    },
    finish(summary) {
      if (interactive) {
        draw(summary.table, summary.read, summary.read);
        stream.write('\n');
      } else {
        stream.write(`${summary.table}: ${summary.absent ? 'not in the source' : `${summary.read} rows read`}\n`);
      }
    },
  };
}

/** The summary as a plain-text table, then the notes. */
export function formatSummary(summary: ImportSummary): string {
  const header = ['table', 'read', 'inserted', 'updated', 'unchanged', 'kept', 'skipped', 'failed'];
  const rows = summary.tables.map((table) =>
    table.absent
      ? [table.table, 'absent', '', '', '', '', '', '']
      : [table.table, table.read, table.inserted, table.updated, table.unchanged, table.kept, table.skipped, table.failed].map(String),
  );
  const widths = header.map((title, index) => Math.max(title.length, ...rows.map((row) => row[index]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0))).join('  ');
  const lines = [`imported from ${summary.source}`, line(header), ...rows.map(line)];
  for (const table of summary.tables) {
    if (table.unmappedColumns.length > 0) lines.push(`${table.table}: source columns not imported: ${table.unmappedColumns.join(', ')}`);
    if (table.skippedKeys.length > 0) lines.push(`options not known to modelgate, skipped: ${table.skippedKeys.join(', ')}`);
  }
  lines.push(...summary.warnings);
  if (summary.tables.some((table) => table.kept > 0)) {
    lines.push("kept: the id (or key) exists here with other content; modelgate's row was kept, not overwritten.");
  }
  return `${lines.join('\n')}\n`;
}
