import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES, Role, type AuditAction, type AuditEntry, type AuditTargetType } from '@modelgate/contract';
import type { TFunction } from 'i18next';
import { formatTimestamp } from '../../lib/date-time';
import type { AuditFilters } from './api';

export const isAuditAction = (code: string): code is AuditAction => (AUDIT_ACTIONS as readonly string[]).includes(code);
export const isAuditTarget = (type: string): type is AuditTargetType => (AUDIT_TARGET_TYPES as readonly string[]).includes(type);

/** The filters as the address holds them (a filtered page can be shared and reloaded). */
export function filtersFromParams(params: URLSearchParams): AuditFilters {
  const integer = (name: string) => {
    const value = Number(params.get(name));
    return Number.isInteger(value) && value > 0 ? value : 0;
  };
  const action = params.get('action') ?? '';
  const targetType = params.get('target_type') ?? '';
  return {
    action: isAuditAction(action) ? action : '',
    actor: params.get('actor') ?? '',
    targetType: isAuditTarget(targetType) ? targetType : '',
    targetId: params.get('target_id') ?? '',
    ip: params.get('ip') ?? '',
    start: integer('start'),
    end: integer('end'),
  };
}

export type RoleKey = 'user' | 'admin' | 'root';
export const roleKey = (role: number): RoleKey => (role >= Role.Root ? 'root' : role >= Role.Admin ? 'admin' : 'user');

/** The action's name in the reader's language; a code this console does not know shows as itself. */
export function actionName(t: TFunction<'audit'>, code: string): string {
  return isAuditAction(code) ? t(`actions.${code}`) : code;
}

/** A value of a before/after column as text: strings as they are, '' as "(empty)", the rest as JSON. */
export function showValue(t: TFunction<'audit'>, value: unknown): string {
  if (value === undefined) return '';
  if (value === '' || value === null) return t('details.empty');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export interface ChangedField {
  field: string;
  before: unknown;
  after: unknown;
}

/** One line per field either side names, in the order they were recorded. */
export function changedFields(entry: AuditEntry): ChangedField[] {
  const before = entry.details.before ?? {};
  const after = entry.details.after ?? {};
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return fields.map((field) => ({ field, before: before[field], after: after[field] }));
}

const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');

/**
 * The row's summary in the reader's language, from its action and recorded fields; the server's
 * Chinese line is the fallback for an action this console does not know.
 */
export function auditSummary(t: TFunction<'audit'>, entry: AuditEntry, formatQuota: (quota: number) => string): string {
  if (!isAuditAction(entry.action)) return entry.summary;
  const { before = {}, after = {}, params = {} } = entry.details;
  const action = actionName(t, entry.action);
  const id = entry.target_id;
  const name = text(after.name ?? before.name ?? after.username ?? before.username ?? params.target_username);
  switch (entry.action) {
    case 'user.quota_change':
      return t('summaries.quota', {
        name,
        id,
        from: formatQuota(Number(before.quota ?? 0)),
        to: formatQuota(Number(after.quota ?? 0)),
      });
    case 'option.update':
      return t('summaries.option', { key: id, from: showValue(t, before[id]), to: showValue(t, after[id]) });
    case 'log.delete':
      return t('summaries.logDelete', { time: formatTimestamp(Number(params.target_timestamp ?? 0)), count: Number(params.deleted ?? 0) });
    case 'admin.login':
      return t('summaries.login', { name: entry.actor_username });
    case 'admin.login_failed':
      return t(params.reason === '2fa' ? 'summaries.loginFailed2fa' : 'summaries.loginFailed', { name: entry.actor_username });
    case 'channel.delete_disabled':
    case 'channel.batch_delete':
    case 'channel.batch_tag':
    case 'channel.tag_status':
    case 'redemption.create':
      if (params.count !== undefined || after.count !== undefined) return t('summaries.count', { action, count: Number(params.count ?? after.count) });
      return t('summaries.plain', { action });
    default:
      if (name && id) return t('summaries.named', { action, name, id });
      if (id && isAuditTarget(entry.target_type)) return t('summaries.target', { action, target: t(`targets.${entry.target_type}`), id });
      return t('summaries.plain', { action });
  }
}
