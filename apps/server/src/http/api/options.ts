import type { OptionEntry } from '@modelgate/contract';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { OPTION_DEFINITIONS, OptionValidationError, type OptionDefinition, type OptionKey } from '../../config/option-registry.js';
import { sendMail } from '../../domain/mail/mailer.js';
import { badRequest } from '../../errors/app-error.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import { parseInput } from '../../lib/parse-input.js';
import { ok } from '../envelope.js';
import { changedFields } from '../../domain/audit/audit-log.js';
import { auditCaller, audited, notAudited } from '../audit-coverage.js';

export const putOptionBody = z.object({
  key: z.string().min(1, '配置项名称不能为空'),
  // new-api's console sends {"key":"SMTPAccount"} for an emptied field: no value is the empty
  // string, which the registry then accepts for text keys and refuses for numbers, switches and JSON.
  value: z
    .union([z.string(), z.number(), z.boolean()], { error: '配置值必须是字符串、数字或布尔值' })
    .nullish()
    .transform((value) => value ?? ''),
});

/** The model ratio editor's options, put back to the built-in tables by rest_model_ratio. */
const MODEL_PRICING_KEYS = ['ModelRatio', 'CompletionRatio', 'ModelPrice', 'CacheRatio', 'CreateCacheRatio'] as const;

const parseObject = (text: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/** The entries of two JSON objects that differ, each side with its own; undefined when either is not an object. */
function jsonEntriesChanged(before: string, after: string): { before: Record<string, unknown>; after: Record<string, unknown> } | undefined {
  const old = parseObject(before || '{}');
  const next = parseObject(after || '{}');
  if (!old || !next) return undefined;
  const changed = changedFields(old, next);
  return { before: changed.before ?? {}, after: changed.after ?? {} };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export function optionRoutes(app: FastifyInstance, context: AppContext): void {
  const rootOnly = authGuard(context.users.repository, 'root');

  app.get('/api/option/', { preHandler: rootOnly }, async () => ok<OptionEntry[]>(context.options.listPublic()));

  app.put('/api/option/', { preHandler: rootOnly, ...audited('option.update') }, async (request) => {
    const { key, value } = parseInput(putOptionBody, request.body);
    const known = Object.hasOwn(OPTION_DEFINITIONS, key) ? (key as OptionKey) : undefined;
    const before = known ? context.options.raw(known) : undefined;
    try {
      await context.options.set(key, value);
    } catch (error) {
      if (error instanceof OptionValidationError) throw badRequest(error.message, 'option:invalid');
      throw error;
    }
    const after = known ? context.options.raw(known) : undefined;
    // A save that changed nothing (the settings screens save every field of a form) is no action.
    if (known && after !== before) {
      // A JSON table (model prices, group ratios) records the entries that changed, not the whole table twice.
      const definition = OPTION_DEFINITIONS[known] as OptionDefinition;
      const change = (definition.kind === 'json' ? jsonEntriesChanged(before ?? '', after ?? '') : undefined) ?? { before: before ?? '', after };
      context.audit.record({
        ...auditCaller(request),
        action: 'option.update',
        target: { type: 'option', id: key },
        summary: `修改设置 ${key}`,
        before: { [key]: change.before },
        after: { [key]: change.after },
        // The registry's secrets (SMTP password, client secrets, Epay key ...) show only that they changed.
        secretFields: definition.secret ? [key] : [],
      });
    }
    return ok(undefined, '保存成功');
  });

  // new-api's spelling of the path ("rest", not "reset") is kept for its consoles and scripts.
  app.post('/api/option/rest_model_ratio', { preHandler: rootOnly, ...audited('option.reset_model_ratio') }, async (request) => {
    for (const key of MODEL_PRICING_KEYS) await context.options.set(key, OPTION_DEFINITIONS[key].default);
    // The tables are large; the row names them, the defaults are in the code.
    const summary = `重置模型倍率为默认值（${MODEL_PRICING_KEYS.join(', ')}）`;
    context.audit.record({
      ...auditCaller(request),
      action: 'option.reset_model_ratio',
      target: { type: 'option', id: 'ModelRatio' },
      summary,
      params: { keys: [...MODEL_PRICING_KEYS] },
    });
    return ok(undefined, '重置模型倍率成功');
  });

  // Sends a mail to the signed-in administrator through the saved SMTP settings, so a wrong
  // server, port or password shows the SMTP server's own answer instead of failing a user's sign-up.
  app.post('/api/option/test_smtp', { preHandler: rootOnly, ...notAudited('sends a test mail; changes nothing') }, async (request) => {
    const admin = currentUser(request);
    if (!admin.email) throw badRequest('请先在个人设置中绑定邮箱，测试邮件将发送到该邮箱', 'mail:no_address');
    const systemName = context.options.string('SystemName');
    await sendMail(context.options, {
      to: admin.email,
      subject: `${systemName} SMTP 测试邮件`,
      html: `<p>这是一封来自 ${escapeHtml(systemName)} 的测试邮件。收到它说明 SMTP 设置可以正常发送邮件。</p>`,
    });
    return ok(undefined, `测试邮件已发送到 ${admin.email}`);
  });
}
