import { Role } from '@modelgate/contract';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { hashPassword } from '../../domain/users/password.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { jsonSchemaOf, openApiPath, type JsonSchema, type OpenApiDocument } from './openapi-document.js';
import { ROUTE_DOCS } from './route-docs.js';
import { routesOf } from '../../test-support/route-walk.js';

/*
 * The description cannot drift from the app: every /api route Fastify holds is documented with
 * its method, no entry names a route that is gone, each documented auth level is what the route
 * enforces, and every zod schema a route parses its input with is the one the description shows.
 */

const here = dirname(fileURLToPath(import.meta.url));

/** The routes under /api, as `METHOD /path`, sorted. */
function registeredApiRoutes(app: FastifyInstance): string[] {
  return routesOf(app)
    .filter((route) => route.path.startsWith('/api/'))
    .map((route) => `${route.method} ${route.path}`)
    .sort();
}

/** Every zod schema a documented schema is built from: itself, union members, object fields. */
function schemasWithin(schema: z.ZodType, into = new Set<unknown>()): Set<unknown> {
  if (into.has(schema)) return into;
  into.add(schema);
  const def = (schema as unknown as { _zod: { def: { type: string; options?: z.ZodType[]; shape?: Record<string, z.ZodType> } } })._zod.def;
  for (const option of def.options ?? []) schemasWithin(option, into);
  for (const field of Object.values(def.shape ?? {})) schemasWithin(field, into);
  return into;
}

/** Where a file imports `name` from, with its exported name (`import { a as b }`). */
function importedFrom(source: string, name: string): { from: string; name: string } | undefined {
  for (const match of source.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'([^']+)'/g)) {
    for (const part of match[1]!.split(',')) {
      const [exported, local] = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/);
      if ((local ?? exported) === name && exported) return { from: match[2]!, name: exported };
    }
  }
  return undefined;
}

let test: TestApp;
let document: OpenApiDocument;
let routes: string[];
let userHeaders: Record<string, string>;

beforeAll(async () => {
  test = await startTestApp();
  routes = registeredApiRoutes(test.app);
  const response = await test.app.inject({ method: 'GET', url: '/api/openapi.json' });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  document = response.json();
  await test.context.users.repository.insert({ username: 'plain', password: await hashPassword('password123'), display_name: 'plain', role: Role.Common });
  userHeaders = await test.login('plain', 'password123');
});

afterAll(async () => {
  await test?.close();
});

describe('GET /api/openapi.json', () => {
  it('is an OpenAPI 3.1 document served without a session, the same on every read', async () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info.title).toBe('modelgate management API');
    expect(document.info.version).toBe(test.context.version);
    expect(Object.keys(document.paths).length).toBeGreaterThan(50);
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['accessToken', 'newApiUser', 'session']);
    const again = await test.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(again.body).toBe(JSON.stringify(document));
  });

  it('documents every /api route the app registers, and no route it does not', () => {
    const undocumented = routes.filter((route) => ROUTE_DOCS[route] === undefined);
    expect(undocumented, 'routes with no entry in http/openapi/route-docs*.ts').toEqual([]);
    const stale = Object.keys(ROUTE_DOCS).filter((route) => !routes.includes(route));
    expect(stale, 'entries in route-docs*.ts for routes the app does not register').toEqual([]);
    const described = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
    expect(described.sort()).toEqual(
      routes
        .map((route) => {
          const [method, path] = route.split(' ');
          return `${method} ${openApiPath(path!)}`;
        })
        .sort(),
    );
  });

  it('gives every operation a summary, a tag, its auth and the {success, message, data} envelope', () => {
    const problems: string[] = [];
    const operationIds = new Set<string>();
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const name = `${method.toUpperCase()} ${path}`;
        if (!operation.summary || operation.summary === 'Undocumented route') problems.push(`${name}: no summary`);
        if (operation.tags.length !== 1) problems.push(`${name}: no tag`);
        if (operationIds.has(operation.operationId)) problems.push(`${name}: duplicate operationId ${operation.operationId}`);
        operationIds.add(operation.operationId);
        const isPublic = operation['x-modelgate-auth'] === 'public';
        if (isPublic !== (operation.security.length === 0)) problems.push(`${name}: security does not match its auth`);
        if (!isPublic && operation.responses['401'] === undefined) problems.push(`${name}: no 401 answer`);
        const content = operation.responses['200']?.content ?? {};
        const json = JSON.stringify(content);
        if (!json.includes('#/components/schemas/Envelope') && content['text/plain'] === undefined) problems.push(`${name}: no envelope`);
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in === 'path' && !path.includes(`{${parameter.name}}`)) problems.push(`${name}: stray path parameter ${parameter.name}`);
        }
        for (const placeholder of path.matchAll(/\{(\w+)\}/g)) {
          if (!(operation.parameters ?? []).some((parameter) => parameter.in === 'path' && parameter.name === placeholder[1])) {
            problems.push(`${name}: path parameter ${placeholder[1]} not described`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('holds only valid JSON Schema 2020-12: every schema, answers included, compiles with Ajv', () => {
    const ajv = new Ajv2020({ strict: false });
    const $defs = document.components.schemas;
    const failures: string[] = [];
    let compiled = 0;
    // The answers point at the envelope among the components; here it sits beside them as a $def.
    const standalone = (schema: JsonSchema): JsonSchema => ({
      ...(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"#/$defs/')) as JsonSchema),
      $defs,
    });
    const check = (where: string, schema: JsonSchema) => {
      try {
        ajv.compile(standalone(schema));
        compiled += 1;
      } catch (error) {
        failures.push(`${where}: ${(error as Error).message}`);
      }
    };
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const name = `${method.toUpperCase()} ${path}`;
        for (const parameter of operation.parameters ?? []) check(`${name} ${parameter.name}`, parameter.schema);
        for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) check(`${name} body ${type}`, media.schema);
        for (const [status, answer] of Object.entries(operation.responses)) {
          for (const [type, media] of Object.entries(answer.content ?? {})) check(`${name} ${status} ${type}`, media.schema);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(compiled).toBeGreaterThan(300);
    // An answer's schema accepts new-api's envelope and refuses what is not one.
    const validate = ajv.compile(standalone(document.paths['/api/token/{id}/key']!.get!.responses['200']!.content!['application/json']!.schema));
    expect(validate({ success: true, message: '', data: { key: 'abc' } })).toBe(true);
    expect(validate({ success: true, message: '', data: { key: 7 } })).toBe(false);
    expect(validate({ ok: true })).toBe(false);
  });

  it("shows each route's body schema as the zod schema converts to JSON Schema", () => {
    const token = document.paths['/api/token/']!.post!;
    const body = token.requestBody!.content['application/json']!.schema as { properties: Record<string, unknown> };
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(['name', 'remain_quota', 'expired_time', 'unlimited_quota']));
    const login = document.paths['/api/user/login']!.post!.requestBody!.content['application/json']!.schema;
    expect(login).toEqual(jsonSchemaOf(ROUTE_DOCS['POST /api/user/login']!.body!));
    expect(login).toMatchObject({ type: 'object', properties: { username: { type: 'string' }, password: { type: 'string' } } });
    const register = document.paths['/api/user/register']!.post!.requestBody!.content['application/json']!.schema;
    expect(register).toMatchObject({ required: expect.arrayContaining(['username', 'password']) });
    for (const [route, doc] of Object.entries(ROUTE_DOCS)) {
      if (doc.body === undefined) continue;
      const [method, path] = route.split(' ');
      const described = document.paths[openApiPath(path!)]![method!.toLowerCase()]!.requestBody;
      expect(described?.content['application/json']?.schema, route).toEqual(jsonSchemaOf(doc.body));
    }
  });
});

describe('the description matches what the routes do', () => {
  it('describes the data real answers carry, field for field (tokens and users)', async () => {
    const ajv = new Ajv2020({ strict: false });
    const $defs = document.components.schemas;
    const answerOf = (method: string, path: string) => {
      const schema = document.paths[path]![method]!.responses['200']!.content!['application/json']!.schema;
      return ajv.compile({ ...(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"#/$defs/')) as JsonSchema), $defs });
    };
    const root = await test.login();
    const calls: [string, string, Record<string, string>, unknown?][] = [
      ['post', '/api/token/', userHeaders, { name: 'documented', remain_quota: 1000, expired_time: -1 }],
      ['get', '/api/token/', userHeaders],
      ['get', '/api/user/self', userHeaders],
      ['get', '/api/user/', root],
    ];
    const wrong: string[] = [];
    let tokenId = 0;
    let userId = 0;
    const check = async (method: string, path: string, url: string, headers: Record<string, string>, payload?: unknown) => {
      const response = await test.app.inject({ method: method.toUpperCase() as 'GET', url, headers, payload: payload as object });
      const body = response.json() as { success: boolean; data: { id?: number; items?: { id: number }[] } };
      expect(body.success, `${method} ${url}: ${response.body}`).toBe(true);
      const validate = answerOf(method, path);
      if (!validate(body)) wrong.push(`${method.toUpperCase()} ${url}: ${ajv.errorsText(validate.errors)}`);
      return body.data;
    };
    for (const [method, path, headers, payload] of calls) {
      const data = await check(method, path, path, headers, payload);
      if (path === '/api/token/' && method === 'get') tokenId = data.items![0]!.id;
      if (path === '/api/user/') userId = data.items!.find((user) => user.id !== 1)?.id ?? 1;
    }
    await check('get', '/api/token/{id}', `/api/token/${tokenId}`, userHeaders);
    await check('put', '/api/token/', '/api/token/', userHeaders, { id: tokenId, name: 'renamed', remain_quota: 5, expired_time: -1 });
    await check('get', '/api/user/{id}', `/api/user/${userId}`, root);
    expect(wrong).toEqual([]);
    // The schemas are strict: an answer with a field the description lacks does not pass.
    const token = (await test.app.inject({ method: 'GET', url: `/api/token/${tokenId}`, headers: userHeaders })).json() as { data: object };
    expect(answerOf('get', '/api/token/{id}')({ ...token, data: { ...token.data, extra: 1 } })).toBe(false);
  });

  it('documents every zod schema a route file parses its input with', async () => {
    const documented = new Set<unknown>();
    for (const doc of Object.values(ROUTE_DOCS)) {
      for (const schema of [doc.body, doc.query, doc.params]) if (schema !== undefined) schemasWithin(schema, documented);
    }
    const apiDir = join(here, '../api');
    const files = [
      ...readdirSync(apiDir)
        .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
        .map((name) => join(apiDir, name)),
      join(here, '../../domain/channels/channel-service.ts'),
    ];
    const missing: string[] = [];
    for (const file of files) {
      const source = readFileSync(file, 'utf8');
      const names = [...source.matchAll(/parseInput\(\s*(\w+)\s*,/g)].map((match) => match[1]!);
      if (names.length === 0) continue;
      const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      for (const name of new Set(names)) {
        const imported = importedFrom(source, name);
        if (imported !== undefined) {
          const origin = (await import(pathToFileURL(join(dirname(file), imported.from.replace(/\.js$/, '.ts'))).href)) as Record<string, unknown>;
          if (!documented.has(origin[imported.name]))
            missing.push(`${file}: ${name} (from ${imported.from}) is parsed by a route but no entry in route-docs*.ts uses it`);
        } else if (module[name] === undefined) missing.push(`${file}: ${name} is not exported, so the description cannot show it`);
        else if (!documented.has(module[name])) missing.push(`${file}: ${name} is parsed by a route but no entry in route-docs*.ts uses it`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('states the auth each route enforces: 401 without a session, a refusal for a common user below its role', async () => {
    const wrong: string[] = [];
    const NO_PERMISSION = '无权进行此操作，权限不足';
    for (const route of routes) {
      const doc = ROUTE_DOCS[route];
      if (doc === undefined || doc.auth === 'public') continue;
      const [method, path] = route.split(' ') as [string, string];
      const url = path.replace(/:[A-Za-z_]\w*/g, '1');
      const payload = method === 'GET' ? undefined : {};
      const anonymous = await test.app.inject({ method: method as 'GET', url, payload });
      if (anonymous.statusCode !== 401) wrong.push(`${route} (${doc.auth}): anonymous got ${anonymous.statusCode}`);
      // Deleting the test user's own account or sessions would sign it out for the routes after.
      if (method === 'DELETE' && path.startsWith('/api/user/self')) continue;
      const common = await test.app.inject({ method: method as 'GET', url, payload, headers: userHeaders });
      // A CSV download (doc.csv) answers a file, not the envelope, when it is allowed.
      const body = (doc.csv && common.headers['content-type']?.toString().startsWith('text/csv') ? {} : common.json()) as {
        success?: boolean;
        message?: string;
      };
      const refused = common.statusCode === 401 || (body.success === false && body.message === NO_PERMISSION);
      if (doc.auth === 'user' && refused) wrong.push(`${route} (user): a common user was refused: ${common.statusCode} ${common.body.slice(0, 80)}`);
      if (doc.auth !== 'user' && !refused) wrong.push(`${route} (${doc.auth}): a common user got ${common.statusCode} ${common.body.slice(0, 80)}`);
    }
    expect(wrong).toEqual([]);
  });
});
