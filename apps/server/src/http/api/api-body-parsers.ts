import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import { exceedsJsonDepth, jsonTooDeep } from '../../lib/json-depth.js';

/** As many fields as qs allows by default; payment notifies and OAuth forms send a dozen. */
export const MAX_FORM_FIELDS = 1000;
/** The names the JSON parser refuses as prototype poisoning, refused in forms too. */
const FORBIDDEN_FIELD_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

const badForm = (message: string) => new AppError('request:invalid_form', message, { status: 400 });

/**
 * Body parsers of the console API (the relay installs its own in its scope). JSON keeps
 * Fastify's parser, with its prototype-poisoning checks, behind a nesting-depth check; forms
 * (payment notifies, some OAuth providers) are flat and bounded.
 */
export function installApiBodyParsers(app: FastifyInstance): void {
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request: FastifyRequest, body: string | Buffer, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (exceedsJsonDepth(text)) {
      done(jsonTooDeep(), undefined);
      return;
    }
    defaultJson(request, text, done);
  });

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request: FastifyRequest, body: string | Buffer, done) => {
    const fields: Record<string, string> = {};
    let count = 0;
    for (const [name, value] of new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))) {
      count += 1;
      if (count > MAX_FORM_FIELDS) {
        done(badForm(`表单字段过多，最多 ${MAX_FORM_FIELDS} 个 (too many form fields)`), undefined);
        return;
      }
      if (FORBIDDEN_FIELD_NAMES.has(name)) {
        done(badForm(`表单字段名 ${name} 不允许使用 (form field name not allowed)`), undefined);
        return;
      }
      fields[name] = value;
    }
    done(null, fields);
  });
}
