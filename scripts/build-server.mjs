#!/usr/bin/env node
// Builds the server to plain JavaScript, as the console is built: one ES module,
// apps/server/dist/main.mjs, with the workspace packages (@modelgate/contract, @modelgate/protocol)
// bundled in and the npm dependencies left to node_modules. The file sits as deep as
// apps/server/src/main.ts, so the paths the server resolves from its own location (the built
// console, the root package.json) are the same for both.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
export const SERVER_ENTRY = join(root, 'apps/server/src/main.ts');
export const SERVER_BUNDLE = join(root, 'apps/server/dist/main.mjs');

/** esbuild is a development dependency: a production install runs the bundle it was shipped with. */
export async function buildServer() {
  const { build } = await import('esbuild');
  const manifest = JSON.parse(readFileSync(join(root, 'apps/server/package.json'), 'utf8'));
  const dependencies = Object.keys(manifest.dependencies).filter((name) => !name.startsWith('@modelgate/'));
  await build({
    entryPoints: [SERVER_ENTRY],
    outfile: SERVER_BUNDLE,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: dependencies.flatMap((name) => [name, `${name}/*`]),
    sourcemap: true,
    logLevel: 'warning',
    // Dependencies that still call require() from ESM get one.
    banner: { js: "import { createRequire as __modelgateCreateRequire } from 'node:module'; const require = __modelgateCreateRequire(import.meta.url);" },
  });
  return SERVER_BUNDLE;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = Date.now();
  await buildServer();
  console.log(`modelgate: server built to apps/server/dist/main.mjs in ${Date.now() - started} ms`);
}
