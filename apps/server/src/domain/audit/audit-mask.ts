import { maskSecrets } from '../../lib/mask-secrets.js';

/** What a masked value reads as: nothing of the secret, only that there was one. */
export const MASKED = '******';

/**
 * Field names whose values are secrets wherever they appear: keys, passwords, tokens, client
 * secrets, access tokens, TOTP seeds. Matched on the whole name or its last part (`oidc.client_secret`).
 */
const SECRET_NAME =
  /(^|[._-])(key|keys|password|passwd|secret|token|access_token|client_secret|totp_secret|backup_codes|credential|private_key)$|secret|password|apikey|api_key/i;

/** Longer text is cut: a row records what changed, not whole documents. */
const MAX_TEXT = 4000;

const cut = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}… (${text.length} characters)` : text);

export const isSecretName = (name: string): boolean => SECRET_NAME.test(name);

/**
 * A copy of `value` safe to store in the audit log: every field whose name is a secret's (or that
 * `isSecretField` names) becomes MASKED when it held something, and text elsewhere loses anything
 * that looks like a credential (sk- keys, Bearer values). '' stays '' so that "cleared" reads as such.
 */
export function maskAuditValue(value: unknown, isSecretField: (name: string) => boolean = isSecretName, depth = 0): unknown {
  if (depth > 8) return MASKED;
  if (typeof value === 'string') return cut(maskSecrets(value));
  if (Array.isArray(value)) return value.map((item) => maskAuditValue(item, isSecretField, depth + 1));
  if (value !== null && typeof value === 'object') {
    const masked: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(value)) {
      masked[name] = isSecretField(name) && field !== '' && field !== null && field !== undefined ? MASKED : maskAuditValue(field, isSecretField, depth + 1);
    }
    return masked;
  }
  return value;
}
