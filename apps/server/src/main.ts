import { readFileSync } from 'node:fs';
import pino from 'pino';
import { composeServer } from './composition-root.js';
import { ConfigError, loadConfig } from './config/env.js';
import { LogOutput } from './lib/log-output.js';
import { drainDelayFrom, installShutdownSignals, shutdownTimeoutFrom } from './lib/shutdown.js';

const version = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

async function main(): Promise<void> {
  let config;
  let shutdownTimeoutSeconds;
  let drainDelaySeconds;
  try {
    config = loadConfig();
    shutdownTimeoutSeconds = shutdownTimeoutFrom();
    drainDelaySeconds = drainDelayFrom();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`modelgate: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  // JSON lines on stdout, written without blocking the event loop and through a bounded buffer:
  // lines a stalled reader leaves no room for are dropped and counted in /metrics (lib/log-output.ts).
  const logOutput = new LogOutput();
  const logger = pino(
    {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers.cookie', '*.key', '*.password', '*.access_token'],
    },
    logOutput,
  );
  if (config.sessionSecretGenerated) {
    logger.warn('SESSION_SECRET is not set: a random one is used, so sessions will not survive a restart or span several nodes');
  }
  const { context, app } = await composeServer({ config, logger, version, logOutput });

  // SIGTERM/SIGINT: /readyz answers 503 (for SHUTDOWN_DRAIN_DELAY seconds before anything closes), refuse new connections, finish requests and streams up to SHUTDOWN_TIMEOUT,
  // flush counters and logs, close the database and Redis, exit 0 (lib/shutdown.ts).
  installShutdownSignals({ app, context, timeoutSeconds: shutdownTimeoutSeconds, drainDelaySeconds });

  // A burst of new streams (hundreds at once) must not overflow the kernel's accept queue.
  const address = await app.listen({ port: config.port, host: '0.0.0.0', backlog: 4096 });
  logger.info(`modelgate ${version} listening on ${address} (${context.db.dialect} database)`);
}

main().catch((error: unknown) => {
  process.stderr.write(`modelgate: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
