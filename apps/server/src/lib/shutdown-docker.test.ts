import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/env.js';
import { startTestApp } from '../test-support/test-app.js';
import { DEFAULT_SHUTDOWN_TIMEOUT_SECONDS } from './shutdown.js';

/**
 * The Dockerfile and docker-compose.yml cannot be built on these machines (no Docker), so this
 * keeps them in step with what can be checked here: `npm start`, the workspaces, the configuration
 * and the health probe.
 */

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const dockerfile = read('Dockerfile');
const compose = read('docker-compose.yml');
const rootPackage = JSON.parse(read('package.json')) as { scripts: Record<string, string>; workspaces: string[] };

/** The instructions of the last stage (the image that runs). */
const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
const instruction = (name: string) => [...runtimeStage.matchAll(new RegExp(`^${name}\\s+(.+)$`, 'gm'))].map((match) => match[1]!.trim());

describe('the Dockerfile', () => {
  it('runs what `npm start` runs, without npm in between', () => {
    const cmd = instruction('CMD');
    expect(cmd).toHaveLength(1);
    expect(JSON.parse(cmd[0]!)).toEqual(rootPackage.scripts.start!.split(/\s+/));
  });

  it('holds every file the start script and the server need at run time', () => {
    const startScript = rootPackage.scripts.start!.split(/\s+/)[1]!;
    const started = read(startScript);
    // start.mjs runs the server built to JavaScript (scripts/build-server.mjs names the bundle); the
    // image's build stage builds it and the runtime stage must hold it.
    expect(started).toContain('SERVER_BUNDLE');
    const entry = /SERVER_BUNDLE = join\(root, '([^']+)'\)/.exec(read('scripts/build-server.mjs'))?.[1];
    expect(dockerfile).toMatch(/RUN npm run build/);
    expect(rootPackage.scripts.build).toContain('scripts/build-server.mjs');
    expect(entry, 'the server entry in the start script').toBeDefined();
    const copied = [...runtimeStage.matchAll(/^COPY --from=build (.+) \.\/\S*$/gm)]
      .flatMap((match) => match[1]!.split(/\s+/))
      .map((path) => path.replace(/^\/app\//, ''));
    expect(
      copied.some((path) => entry!.startsWith(`${path}/`)),
      `${entry} is copied into the image`,
    ).toBe(true);
    expect(copied).toContain(startScript.split('/')[0]);
    for (const path of copied) {
      if (path === 'apps/web/dist' || path === 'apps/server/dist') continue; // built in the image
      expect(existsSync(join(root, path)), `${path} exists in the repository`).toBe(true);
    }
  });

  it('installs every workspace in both the build and the production-dependency stages', () => {
    for (const workspace of rootPackage.workspaces) {
      expect(dockerfile).toContain(`COPY ${workspace}/package.json ${workspace}/`);
      expect(dockerfile).toContain(`COPY --from=build /app/${workspace}/package.json ${workspace}/`);
    }
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/RUN npm run build/);
    expect(rootPackage.scripts.build).toBeDefined();
    // better-sqlite3 may compile from source.
    expect(dockerfile).toMatch(/python3 make g\+\+/);
  });

  it('exposes the default PORT, keeps SQLite in the volume, runs as a non-root user', () => {
    const port = loadConfig({}).port;
    expect(instruction('EXPOSE')).toEqual([String(port)]);
    expect(runtimeStage).toMatch(new RegExp(`PORT=${port}\\b`));
    const volume = JSON.parse(instruction('VOLUME')[0]!) as string[];
    const sqlitePath = /SQLITE_PATH=(\S+)/.exec(runtimeStage)?.[1];
    expect(sqlitePath && volume.some((dir) => sqlitePath.startsWith(`${dir}/`))).toBe(true);
    expect(instruction('USER')).toHaveLength(1);
    expect(instruction('USER')[0]).not.toMatch(/^(root|0)$/);
  });

  it('checks health on a path the server answers with 200', async () => {
    const healthcheck = /^HEALTHCHECK[\s\S]*?CMD (\[.+\])$/m.exec(runtimeStage)?.[1];
    expect(healthcheck).toBeDefined();
    const path = /\/[a-z]+(?=')/.exec(JSON.parse(healthcheck!).join(' '))?.[0];
    expect(path).toBe('/healthz');
    const running = await startTestApp();
    try {
      expect((await running.app.inject({ method: 'GET', url: path! })).statusCode).toBe(200);
    } finally {
      await running.close();
    }
  });
});

describe('docker-compose.yml', () => {
  it('runs one modelgate on PostgreSQL 15 and Redis with the variables the server reads', () => {
    expect(compose).toMatch(/image: postgres:15\b/);
    expect(compose).toMatch(/image: redis:/);
    expect(compose).toMatch(/^ {2}modelgate:$/m);
    expect(compose).toMatch(/SQL_DSN: postgres:\/\/modelgate:[^@]+@postgres:5432\/modelgate/);
    expect(compose).toMatch(/REDIS_CONN_STRING: redis:\/\/redis:6379/);
    expect(compose).toMatch(/SESSION_SECRET: \$\{SESSION_SECRET:\?/);
    // PostgreSQL does not start without the key that seals its secrets (db/secret-key.ts).
    expect(compose).toMatch(/MODELGATE_SECRET_KEY: \$\{MODELGATE_SECRET_KEY:\?/);
    expect(compose).toMatch(/NODE_TYPE=slave|NODE_TYPE: slave/);
    const known = read('apps/server/src/config/env.ts') + read('apps/server/src/lib/shutdown.ts');
    const names = [...compose.matchAll(/^ {2,6}([A-Z][A-Z_]+): /gm)].map((match) => match[1]!).filter((name) => !name.startsWith('POSTGRES_') && name !== 'TZ');
    expect(names.length).toBeGreaterThan(4);
    for (const name of names) expect(known, `${name} is a variable the server reads`).toContain(`${name}:`);
    const port = loadConfig({}).port;
    expect(compose).toContain(`:${port}"`);
  });

  it('gives the server longer than SHUTDOWN_TIMEOUT to stop', () => {
    const configured = Number(/SHUTDOWN_TIMEOUT: "(\d+)"/.exec(compose)?.[1] ?? DEFAULT_SHUTDOWN_TIMEOUT_SECONDS);
    const grace = Number(/stop_grace_period: (\d+)s/.exec(compose)?.[1]);
    expect(grace).toBeGreaterThan(configured);
  });
});
