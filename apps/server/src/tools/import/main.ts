import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../../config/env.js';
import { connectDb } from '../../db/index.js';
import { formatSummary, stderrProgress } from './import-report.js';
import { importDatabase } from './import-runner.js';
import { ImportSourceError, openImportSource, redactDsn } from './import-source.js';

/**
 * `npm run import -- <source> [--batch-size N]`: copies a one-api/new-api database into the one
 * modelgate's own configuration selects (SQL_DSN or SQLITE_PATH), migrated first. Exit 0 when
 * every row was imported or already there, 1 when some rows were refused, 2 for bad input.
 */
const USAGE = 'usage: npm run import -- <new-api.db | postgres://user:pass@host/db | mysql://user:pass@host/db> [--batch-size N]';

function parseArguments(argv: string[]): { source: string; batchSize: number } {
  let source: string | undefined;
  let batchSize = 1000;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] ?? '';
    if (argument === '--batch-size') {
      batchSize = Number(argv[(index += 1)]);
      if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) throw new ImportSourceError('--batch-size takes a whole number from 1 to 10000');
    } else if (argument === '--help' || argument === '-h') {
      throw new ImportSourceError(USAGE);
    } else if (source === undefined) {
      source = argument;
    } else {
      throw new ImportSourceError(`unexpected argument ${redactDsn(argument)}\n${USAGE}`);
    }
  }
  if (!source) throw new ImportSourceError(USAGE);
  return { source, batchSize };
}

async function main(): Promise<number> {
  let config;
  let parsed;
  try {
    parsed = parseArguments(process.argv.slice(2));
    config = loadConfig();
  } catch (error) {
    if (error instanceof ImportSourceError || error instanceof ConfigError) {
      process.stderr.write(`modelgate import: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (config.sqlDsn === '' && !/^[a-z]+:\/\//i.test(parsed.source) && resolve(parsed.source) === resolve(config.sqlitePath)) {
    process.stderr.write("modelgate import: the source is modelgate's own database (SQLITE_PATH); give the one-api/new-api database\n");
    return 2;
  }
  let source;
  try {
    source = await openImportSource(parsed.source);
  } catch (error) {
    if (error instanceof ImportSourceError) {
      process.stderr.write(`modelgate import: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const target = await connectDb({ sqlitePath: config.sqlitePath, sqlDsn: config.sqlDsn, migrate: true, secretKey: config.secretKey });
  try {
    const destination = config.sqlDsn === '' ? config.sqlitePath : redactDsn(config.sqlDsn);
    process.stderr.write(`importing ${source.label} into ${destination}\n`);
    const summary = await importDatabase({ source, target, batchSize: parsed.batchSize, progress: stderrProgress() });
    process.stdout.write(formatSummary(summary));
    return summary.tables.some((table) => table.failed > 0) ? 1 : 0;
  } finally {
    await source.close();
    await target.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`modelgate import failed: ${String((error as Error).message ?? error)}\n`);
    process.exit(1);
  },
);
