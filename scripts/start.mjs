#!/usr/bin/env node
// `npm start`: build the console and the server when their sources are newer than the last builds,
// then run the built server. Keeps `npm install && npm start` a two-command start on a fresh clone.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildServer, SERVER_BUNDLE } from './build-server.mjs';
import { SERVER_NODE_FLAGS } from './server-node-flags.mjs';

const root = new URL('..', import.meta.url).pathname;
const webDir = join(root, 'apps/web');
const builtIndex = join(webDir, 'dist/index.html');

function newestMtime(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

const sources = [join(webDir, 'src'), join(webDir, 'index.html'), join(webDir, 'vite.config.ts'), join(root, 'packages/contract/src')];
const stale = !existsSync(builtIndex) || sources.some((source) => existsSync(source) && newestMtime(source) > statSync(builtIndex).mtimeMs);

if (stale && existsSync(join(webDir, 'package.json'))) {
  console.log('modelgate: building the console (apps/web)...');
  const build = spawnSync('npm', ['run', 'build', '-w', 'apps/web'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// The server runs as plain JavaScript, built like the console when its sources are newer than the build.
const serverSources = [
  join(root, 'apps/server/src'),
  join(root, 'apps/server/package.json'),
  join(root, 'packages/contract/src'),
  join(root, 'packages/protocol/src'),
  join(root, 'scripts/build-server.mjs'),
];
const serverStale = !existsSync(SERVER_BUNDLE) || serverSources.some((source) => existsSync(source) && newestMtime(source) > statSync(SERVER_BUNDLE).mtimeMs);
if (serverStale) {
  console.log('modelgate: building the server (apps/server)...');
  try {
    await buildServer();
  } catch (error) {
    console.error(`modelgate: the server build failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

const server = spawn(process.execPath, [...SERVER_NODE_FLAGS, SERVER_BUNDLE], {
  cwd: root,
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
