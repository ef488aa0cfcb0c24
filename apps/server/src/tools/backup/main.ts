import { join, resolve } from 'node:path';
import { ConfigError, loadConfig } from '../../config/env.js';
import { keyFilePath } from '../../db/secret-key.js';
import { dumpCommand } from './dump-hints.js';
import { BackupError, backupSqlite, defaultBackupPath, restoreSqlite, type RowCounts, stamp } from './sqlite-backup.js';

/**
 * `npm run backup -- [--out <file>]`: with SQLite, an online backup of SQLITE_PATH (safe while the
 * gateway runs) and its key file beside it; with SQL_DSN, the pg_dump / mysqldump command to run.
 * `npm run backup -- restore <file> [--to <dir>] [--force]`: copies a backup and its key file to
 * `<dir>/modelgate.db` (else SQLITE_PATH) for a stopped gateway. Exit 0 on success, 2 for bad input.
 */
const USAGE = 'usage: npm run backup -- [--out <file>] | npm run backup -- restore <file> [--to <dir>] [--force]';

type Command = { kind: 'backup'; out: string | undefined } | { kind: 'restore'; file: string; to: string | undefined; force: boolean };

function parseArguments(argv: string[]): Command {
  const restoring = argv[0] === 'restore';
  const rest = restoring ? argv.slice(1) : argv;
  let out: string | undefined;
  let to: string | undefined;
  let file: string | undefined;
  let force = false;
  for (let index = 0; index < rest.length; index += 1) {
    const argument = rest[index] ?? '';
    const value = () => {
      const next = rest[(index += 1)];
      if (!next) throw new BackupError(`${argument} takes a path\n${USAGE}`);
      return next;
    };
    if (argument === '--out' && !restoring) out = value();
    else if (argument === '--to' && restoring) to = value();
    else if (argument === '--force' && restoring) force = true;
    else if (restoring && file === undefined && !argument.startsWith('-')) file = argument;
    else throw new BackupError(USAGE);
  }
  if (restoring) {
    if (!file) throw new BackupError(USAGE);
    return { kind: 'restore', file, to, force };
  }
  return { kind: 'backup', out };
}

const formatCounts = (counts: RowCounts) => `users ${counts.users}, tokens ${counts.tokens}, logs ${counts.logs}`;
const formatBytes = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`);

async function main(argv: string[]): Promise<number> {
  const command = parseArguments(argv);
  const config = loadConfig();
  const now = stamp(new Date());
  if (config.sqlDsn !== '') {
    const hint = dumpCommand(config.sqlDsn, now);
    process.stdout.write(
      command.kind === 'backup'
        ? `SQL_DSN is set: back up with the database's own tool, e.g.\n  ${hint.dump}\n`
        : `SQL_DSN is set: restore into an empty database with the database's own tool, e.g.\n  ${hint.restore}\n`,
    );
    process.stdout.write('the sealed secrets in it open only with MODELGATE_SECRET_KEY: keep that key with every backup\n');
    return 0;
  }
  if (command.kind === 'backup') {
    const out = resolve(command.out ?? defaultBackupPath(config.sqlitePath));
    const result = await backupSqlite(config.sqlitePath, out, { keyFromEnv: config.secretKey !== undefined });
    process.stdout.write(`backed up ${config.sqlitePath} to ${result.file} (${formatBytes(result.bytes)})\n${formatCounts(result.counts)}\n`);
    process.stdout.write(
      result.keyFile
        ? `the secret key is copied to ${result.keyFile}: keep it with the backup, the sealed secrets open only with it\n`
        : config.secretKey !== undefined
          ? 'the secret key comes from MODELGATE_SECRET_KEY: keep that value with the backup, the sealed secrets open only with it\n'
          : `no key file at ${keyFilePath(config.sqlitePath)}: the backup holds no sealed secrets readable without MODELGATE_SECRET_KEY\n`,
    );
    return 0;
  }
  const target = resolve(command.to ? join(command.to, 'modelgate.db') : config.sqlitePath);
  const result = restoreSqlite(resolve(command.file), target, command.force);
  process.stdout.write(`restored ${command.file} to ${result.target}\n${formatCounts(result.counts)}\n`);
  process.stdout.write(
    result.keyFile
      ? `the secret key is restored to ${result.keyFile}\n`
      : `no key file beside ${command.file}: start the gateway with MODELGATE_SECRET_KEY set to the key the backup was sealed with\n`,
  );
  process.stdout.write(`start the gateway on it: SQLITE_PATH=${result.target} npm start\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof BackupError || error instanceof ConfigError) {
      process.stderr.write(`modelgate backup: ${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`modelgate backup failed: ${String((error as Error).message ?? error)}\n`);
    process.exit(1);
  },
);
