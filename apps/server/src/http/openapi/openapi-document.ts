import { z } from 'zod';
import type { RouteDoc, RouteDocs } from './route-docs.js';

/** The parts of an OpenAPI 3.1 document this description uses. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  tags: { name: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: {
    schemas: Record<string, JsonSchema>;
    securitySchemes: Record<string, Record<string, string>>;
  };
}

export type JsonSchema = Record<string, unknown>;

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
  description?: string;
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: Record<string, string[]>[];
  parameters?: OpenApiParameter[];
  requestBody?: { required: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: JsonSchema }> }>;
  'x-modelgate-auth': RouteDoc['auth'];
}

/**
 * A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), on its input side: what a caller
 * sends before coercion. Transforms and refinements cannot be written down and are left open.
 */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  }) as JsonSchema;
  return rest;
}

/** `/api/token/:id` → `/api/token/{id}`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
const pathParams = (path: string): string[] => [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]!);
/** The resource a route belongs to: `/api/token/:id` → `token`. */
export const tagOf = (path: string): string => path.split('/')[2] || 'api';

const ENVELOPE_REF = '#/components/schemas/Envelope';

/**
 * `{success, message, data}`, new-api's answer for every /api route; `data` and any fields beside it
 * as the route documents them, none required: a refusal carries only success and message.
 */
function envelopeOf(data: JsonSchema | undefined, beside: JsonSchema | undefined): JsonSchema {
  if (data === undefined && beside === undefined) return { $ref: ENVELOPE_REF };
  const properties = { ...(beside?.properties as Record<string, JsonSchema> | undefined), ...(data === undefined ? {} : { data }) };
  return { allOf: [{ $ref: ENVELOPE_REF }, { type: 'object', properties }] };
}

function operationIdOf(method: string, path: string): string {
  const words = path
    .replace(/^\/api\//, '')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '');
  return [method.toLowerCase(), ...words.map((word) => word[0]!.toUpperCase() + word.slice(1))].join('');
}

const securityOf = (auth: RouteDoc['auth']): Record<string, string[]>[] => {
  switch (auth) {
    case 'public':
      return [];
    case 'user':
    case 'admin':
    case 'root':
      return [
        { session: [], newApiUser: [] },
        { accessToken: [], newApiUser: [] },
      ];
    default: {
      const unknownAuth: never = auth;
      throw new Error(`unknown auth level ${String(unknownAuth)}`);
    }
  }
};

const ROLE_NOTE: Record<RouteDoc['auth'], string> = {
  public: 'No session needed.',
  user: 'Any signed-in user (role ≥ 1).',
  admin: 'Administrators only (role ≥ 10); others get success:false.',
  root: 'The super administrator only (role 100); others get success:false.',
};

function parametersOf(path: string, doc: RouteDoc): OpenApiParameter[] {
  const parameters: OpenApiParameter[] = [];
  const paramsSchema = doc.params === undefined ? undefined : jsonSchemaOf(doc.params);
  for (const name of pathParams(path)) {
    const properties = paramsSchema?.properties as Record<string, JsonSchema> | undefined;
    parameters.push({ name, in: 'path', required: true, schema: properties?.[name] ?? { type: 'string' } });
  }
  const pagingParameter = (name: string, description: string): OpenApiParameter => ({
    name,
    in: 'query',
    required: false,
    schema: { type: 'string', pattern: '^\\d+$' },
    description,
  });
  if (doc.paged === true) parameters.push(pagingParameter('p', 'Page number, from 1.'), pagingParameter('page_size', 'Rows per page.'));
  if (doc.query !== undefined) {
    const query = jsonSchemaOf(doc.query);
    const required = new Set((query.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((query.properties as Record<string, JsonSchema> | undefined) ?? {})) {
      parameters.push({ name, in: 'query', required: required.has(name), schema });
    }
  }
  return parameters;
}

function operationOf(method: string, path: string, doc: RouteDoc): OpenApiOperation {
  const operation: OpenApiOperation = {
    operationId: operationIdOf(method, path),
    summary: doc.summary,
    description: [doc.description, ROLE_NOTE[doc.auth]].filter((text) => text !== undefined).join('\n\n'),
    tags: [tagOf(path)],
    security: securityOf(doc.auth),
    responses: {},
    'x-modelgate-auth': doc.auth,
  };
  const parameters = parametersOf(path, doc);
  if (parameters.length > 0) operation.parameters = parameters;
  if (doc.body !== undefined) {
    operation.requestBody = { required: true, content: { 'application/json': { schema: jsonSchemaOf(doc.body) } } };
  }
  const answer: OpenApiOperation['responses'][string] = doc.plainText
    ? { description: 'Plain text for the payment provider: success or fail.', content: { 'text/plain': { schema: { type: 'string' } } } }
    : doc.csv
      ? {
          description: 'A CSV file (UTF-8 with a BOM, RFC 4180); X-Total-Count holds its row count. A refusal is the envelope, as JSON.',
          content: { 'text/csv': { schema: { type: 'string' } }, 'application/json': { schema: { $ref: ENVELOPE_REF } } },
        }
      : {
          description: 'The envelope; a refusal (bad input, a rule, a missing role) is success:false with a message.',
          content: {
            'application/json': {
              schema: envelopeOf(doc.data === undefined ? undefined : jsonSchemaOf(doc.data), doc.beside === undefined ? undefined : jsonSchemaOf(doc.beside)),
            },
          },
        };
  operation.responses['200'] = answer;
  if (doc.auth !== 'public')
    operation.responses['401'] = {
      description: 'No valid session or access token, or no matching New-Api-User header.',
      content: { 'application/json': { schema: { $ref: ENVELOPE_REF } } },
    };
  operation.responses['429'] = { description: 'Rate limited.', content: { 'application/json': { schema: { $ref: ENVELOPE_REF } } } };
  return operation;
}

/**
 * The OpenAPI 3.1 description of the routes registered under /api, each with its documented
 * summary, auth level and input schemas. A registered route with no entry still appears, marked
 * undocumented (the drift test refuses that); an entry for a route not registered is left out.
 */
export function buildOpenApiDocument(routes: readonly { method: string; path: string }[], docs: RouteDocs, meta: { version: string }): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const tags = new Set<string>();
  const operationIds = new Set<string>();
  const sorted = [...routes].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  for (const { method, path } of sorted) {
    const doc = docs[`${method} ${path}`] ?? { summary: 'Undocumented route', auth: 'user' };
    const item = (paths[openApiPath(path)] ??= {});
    const operation = operationOf(method, path, doc);
    // `/api/log/self` and `/api/log/self/` are both registered (new-api's consoles call either).
    if (operationIds.has(operation.operationId)) operation.operationId += 'TrailingSlash';
    operationIds.add(operation.operationId);
    item[method.toLowerCase()] = operation;
    tags.add(tagOf(path));
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'modelgate management API',
      version: meta.version,
      description:
        'The console API under /api, compatible with new-api. Every answer is {success, message, data}; ' +
        'a refusal is HTTP 200 with success:false. Authenticate with the session cookie from POST /api/user/login, ' +
        'or with `Authorization: <access token>` (GET /api/user/token); both need `New-Api-User: <user id>`.',
    },
    servers: [{ url: '/' }],
    tags: [...tags].sort().map((name) => ({ name })),
    paths,
    components: {
      schemas: {
        Envelope: {
          type: 'object',
          required: ['success', 'message'],
          properties: { success: { type: 'boolean' }, message: { type: 'string' }, data: {} },
        },
      },
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'session', description: 'Set by POST /api/user/login.' },
        accessToken: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'The system access token from GET /api/user/token (optionally "Bearer ").',
        },
        newApiUser: { type: 'apiKey', in: 'header', name: 'New-Api-User', description: "The signed-in user's id; required with either credential." },
      },
    },
  };
}
