import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer, SERVER_BUNDLE } from '../../../../scripts/build-server.mjs';
import { SERVER_NODE_FLAGS } from '../../../../scripts/server-node-flags.mjs';
import { freePort, REPO_ROOT } from '../test-support/server-process.js';

/**
 * `npm start` runs the server built to plain JavaScript (scripts/build-server.mjs), not through
 * tsx: the bundle builds, starts on its own with the flags npm start uses, serves the API, the
 * console and the probes, and shuts down cleanly.
 */
describe('the server built to JavaScript', () => {
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-build-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds one module and runs it as npm start does', async () => {
    const built = await buildServer();
    expect(built).toBe(SERVER_BUNDLE);
    expect(statSync(SERVER_BUNDLE).size).toBeGreaterThan(100_000);
    const port = await freePort();
    const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, SERVER_BUNDLE], {
      cwd: REPO_ROOT,
      env: { ...process.env, PORT: String(port), SQLITE_PATH: join(dir, 'modelgate.db'), LOG_LEVEL: 'warn', SESSION_SECRET: 'build-test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 30_000;
      let status: { success: boolean; data: { version: string } } | undefined;
      while (!status) {
        try {
          status = (await (await fetch(`${url}/api/status`)).json()) as typeof status;
        } catch {
          if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the bundle did not start: ${output.join('')}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      expect(status).toMatchObject({ success: true, data: { version: expect.any(String) } });
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const login = await fetch(`${url}/api/user/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'root', password: '123456' }),
      });
      expect(((await login.json()) as { success: boolean }).success).toBe(true);
      expect((await fetch(`${url}/v1/models`)).status).toBe(401);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 60_000);
});
