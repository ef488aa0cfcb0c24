import { isObject, type Json } from './gemini-types.js';

/**
 * Gemini's function parameters and responseSchema take a subset of OpenAPI 3.0's schema object
 * (https://ai.google.dev/api/caching#Schema) and answer 400 "Invalid JSON payload received.
 * Unknown name ..." for anything else: `$schema`, `additionalProperties`, `const`, `oneOf`,
 * `$ref`/`$defs`, `exclusiveMinimum`, `examples`... These are the keywords it accepts (new-api's
 * allow-list); the rest is dropped, and the common JSON Schema idioms are rewritten into it.
 */
const ALLOWED_KEYWORDS = new Set([
  'anyOf',
  'default',
  'description',
  'enum',
  'example',
  'format',
  'items',
  'maxItems',
  'maxLength',
  'maxProperties',
  'maximum',
  'minItems',
  'minLength',
  'minProperties',
  'minimum',
  'nullable',
  'pattern',
  'properties',
  'propertyOrdering',
  'required',
  'title',
  'type',
]);

/** The `format` values Gemini accepts, per type; others are rejected. */
const FORMATS: Readonly<Record<string, readonly string[]>> = {
  STRING: ['enum', 'date-time'],
  NUMBER: ['float', 'double'],
  INTEGER: ['int32', 'int64'],
};

const TYPES: Readonly<Record<string, string>> = {
  object: 'OBJECT',
  array: 'ARRAY',
  string: 'STRING',
  integer: 'INTEGER',
  number: 'NUMBER',
  boolean: 'BOOLEAN',
};

const MAX_DEPTH = 64;

/** A JSON Schema (OpenAI tool parameters, a json_schema response format) as Gemini accepts it. */
export function cleanSchemaForGemini(schema: Json): Json {
  const definitions = { ...(isObject(schema.definitions) ? schema.definitions : {}), ...(isObject(schema.$defs) ? schema.$defs : {}) };
  return cleanNode(schema, definitions, 0, new Set());
}

function resolveReference(reference: unknown, definitions: Json): { name: string; target: Json } | undefined {
  if (typeof reference !== 'string') return undefined;
  const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(reference);
  const name = match?.[1];
  const target = name === undefined ? undefined : definitions[name];
  return name !== undefined && isObject(target) ? { name, target } : undefined;
}

function cleanNode(input: Json, definitions: Json, depth: number, resolving: Set<string>): Json {
  let node = input;
  // `$ref` into the schema's own definitions is inlined (pydantic and zod emit these); a
  // recursive one stops at the second visit as a plain object.
  const reference = resolveReference(node.$ref, definitions);
  if (reference) {
    if (resolving.has(reference.name)) return { type: 'OBJECT' };
    resolving = new Set(resolving).add(reference.name);
    node = { ...reference.target, ...Object.fromEntries(Object.entries(node).filter(([key]) => key !== '$ref')) };
  }
  if (Array.isArray(node.allOf) && node.allOf.length === 1 && isObject(node.allOf[0])) {
    node = { ...node.allOf[0], ...Object.fromEntries(Object.entries(node).filter(([key]) => key !== 'allOf')) };
  }
  const cleaned: Json = {};
  for (const [key, value] of Object.entries(node)) if (ALLOWED_KEYWORDS.has(key)) cleaned[key] = value;
  if (!('anyOf' in cleaned) && Array.isArray(node.oneOf)) cleaned.anyOf = node.oneOf;
  if (node.const !== undefined && !('enum' in cleaned)) cleaned.enum = [node.const];

  normaliseType(cleaned);
  const type = typeof cleaned.type === 'string' ? cleaned.type : undefined;
  if (typeof cleaned.format === 'string' && !(type !== undefined && FORMATS[type]?.includes(cleaned.format))) delete cleaned.format;
  // Gemini's enum is for strings only.
  if ('enum' in cleaned && !(Array.isArray(cleaned.enum) && cleaned.enum.every((value) => typeof value === 'string'))) delete cleaned.enum;
  if (Array.isArray(cleaned.enum) && type === undefined) cleaned.type = 'STRING';

  if (depth >= MAX_DEPTH) {
    delete cleaned.properties;
    delete cleaned.items;
    delete cleaned.anyOf;
    return cleaned;
  }
  if (isObject(cleaned.properties)) {
    const properties: Json = {};
    for (const [name, value] of Object.entries(cleaned.properties)) {
      properties[name] = isObject(value) ? cleanNode(value, definitions, depth + 1, resolving) : {};
    }
    cleaned.properties = properties;
    if (Array.isArray(cleaned.required)) cleaned.required = cleaned.required.filter((name) => typeof name === 'string' && name in properties);
  } else {
    delete cleaned.properties;
  }
  if (Array.isArray(cleaned.items)) cleaned.items = cleaned.items[0];
  if (isObject(cleaned.items)) cleaned.items = cleanNode(cleaned.items, definitions, depth + 1, resolving);
  else delete cleaned.items;
  if (Array.isArray(cleaned.anyOf)) {
    const variants = cleaned.anyOf.filter(isObject).map((variant) => cleanNode(variant, definitions, depth + 1, resolving));
    // `anyOf: [X, {type: null}]` (how optional fields are often written) is a nullable X.
    const nonNull = variants.filter((variant) => !(variant.nullable === true && variant.type === undefined && Object.keys(variant).length === 1));
    if (nonNull.length < variants.length && nonNull.length === 1) {
      Object.assign(cleaned, nonNull[0], { nullable: true });
      delete cleaned.anyOf;
    } else {
      cleaned.anyOf = nonNull;
    }
  }
  if (Array.isArray(cleaned.required) && cleaned.required.length === 0) delete cleaned.required;
  return cleaned;
}

function normaliseType(schema: Json): void {
  const raw = schema.type;
  const upper = (name: string): string | null => (name.toLowerCase() === 'null' ? null : (TYPES[name.toLowerCase()] ?? name.toUpperCase()));
  if (typeof raw === 'string') {
    const type = upper(raw);
    if (type === null) {
      delete schema.type;
      schema.nullable = true;
    } else schema.type = type;
  } else if (Array.isArray(raw)) {
    const types = raw.filter((item): item is string => typeof item === 'string').map(upper);
    if (types.includes(null)) schema.nullable = true;
    const first = types.find((type): type is string => type !== null);
    if (first === undefined) delete schema.type;
    else schema.type = first;
  } else if (raw !== undefined) {
    delete schema.type;
  }
}

/**
 * Gemini's OpenAPI-style schema (types in capitals, `nullable`) as JSON Schema, for an OpenAI
 * upstream's tool parameters: types in lower case, `nullable: true` as a `null` type.
 */
export function geminiSchemaToJsonSchema(schema: Json, depth = 0): Json {
  const converted: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable') continue;
    if (key === 'type' && typeof value === 'string') converted.type = value.toLowerCase();
    else if (key === 'properties' && isObject(value) && depth < MAX_DEPTH) {
      converted.properties = Object.fromEntries(
        Object.entries(value).map(([name, property]) => [name, isObject(property) ? geminiSchemaToJsonSchema(property, depth + 1) : property]),
      );
    } else if (key === 'items' && isObject(value) && depth < MAX_DEPTH) converted.items = geminiSchemaToJsonSchema(value, depth + 1);
    else if (key === 'anyOf' && Array.isArray(value) && depth < MAX_DEPTH) {
      converted.anyOf = value.map((variant) => (isObject(variant) ? geminiSchemaToJsonSchema(variant, depth + 1) : variant));
    } else converted[key] = value;
  }
  if (schema.nullable === true) {
    if (typeof converted.type === 'string') converted.type = [converted.type, 'null'];
    else if (converted.type === undefined && !Array.isArray(converted.anyOf)) converted.type = 'null';
  }
  return converted;
}
