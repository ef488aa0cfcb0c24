import { describe, expect, it } from 'vitest';
import { cleanSchemaForGemini, geminiSchemaToJsonSchema } from './gemini-schema-cleaner.js';

describe('cleanSchemaForGemini', () => {
  it('drops the keywords Gemini rejects, at every depth, and writes types in capitals', () => {
    const cleaned = cleanSchemaForGemini({
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: 'x',
      type: 'object',
      additionalProperties: false,
      properties: {
        name: { type: 'string', minLength: 1, examples: ['a'], format: 'email' },
        when: { type: 'string', format: 'date-time' },
        count: { type: 'integer', exclusiveMinimum: 0, format: 'int32' },
        ratio: { type: 'number', format: 'percent' },
        tags: { type: 'array', items: { type: 'object', additionalProperties: { type: 'string' }, properties: { k: { type: 'string' } } } },
      },
      required: ['name', 'missing'],
    });
    expect(cleaned).toEqual({
      type: 'OBJECT',
      properties: {
        name: { type: 'STRING', minLength: 1 },
        when: { type: 'STRING', format: 'date-time' },
        count: { type: 'INTEGER', format: 'int32' },
        ratio: { type: 'NUMBER' },
        tags: { type: 'ARRAY', items: { type: 'OBJECT', properties: { k: { type: 'STRING' } } } },
      },
      required: ['name'],
    });
  });

  it('rewrites const, nullable type lists, optional anyOf, oneOf and local $refs', () => {
    const cleaned = cleanSchemaForGemini({
      type: 'object',
      $defs: { Unit: { type: 'string', enum: ['c', 'f'], title: 'Unit' } },
      properties: {
        kind: { const: 'weather' },
        note: { type: ['string', 'null'] },
        limit: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'max rows' },
        shape: { oneOf: [{ type: 'string' }, { type: 'number' }] },
        unit: { $ref: '#/$defs/Unit' },
        level: { type: 'integer', enum: [1, 2, 3] },
      },
    });
    expect(cleaned.properties).toEqual({
      kind: { type: 'STRING', enum: ['weather'] },
      note: { type: 'STRING', nullable: true },
      limit: { type: 'INTEGER', nullable: true, description: 'max rows' },
      shape: { anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }] },
      unit: { type: 'STRING', enum: ['c', 'f'], title: 'Unit' },
      level: { type: 'INTEGER' },
    });
  });

  it('stops at a recursive $ref instead of looping', () => {
    const cleaned = cleanSchemaForGemini({
      type: 'object',
      definitions: { Node: { type: 'object', properties: { child: { $ref: '#/definitions/Node' } } } },
      properties: { root: { $ref: '#/definitions/Node' } },
    });
    expect(cleaned.properties).toEqual({ root: { type: 'OBJECT', properties: { child: { type: 'OBJECT' } } } });
  });
});

describe('geminiSchemaToJsonSchema', () => {
  it('lower-cases types and turns nullable into a null type', () => {
    expect(
      geminiSchemaToJsonSchema({
        type: 'OBJECT',
        properties: { a: { type: 'STRING', nullable: true }, b: { type: 'ARRAY', items: { type: 'INTEGER' } } },
        required: ['a'],
      }),
    ).toEqual({ type: 'object', properties: { a: { type: ['string', 'null'] }, b: { type: 'array', items: { type: 'integer' } } }, required: ['a'] });
  });
});
