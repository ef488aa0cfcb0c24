/**
 * The system tab's own rules (spec 01 §5, §9): the email domain whitelist as a list, the checks
 * each card makes before anything is sent, the OAuth callback addresses. Pure, unit-tested.
 */
import { normaliseOptionDraft } from '../options/option-rules';

/** Spec 01 §9: port 465 is implicit TLS, so the server turns SSL on there whatever the switch says. */
export const SMTP_FORCED_SSL_PORT = 465;

const DOMAIN_PATTERN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$/;

/** One typed domain as it is stored: trimmed, lower case, without a leading "@". */
export function normaliseDomain(typed: string): string {
  return typed.trim().replace(/^@+/, '').toLowerCase();
}

export function isValidDomain(domain: string): boolean {
  return domain.length <= 253 && DOMAIN_PATTERN.test(domain);
}

/** The stored comma list as tags (older values may hold spaces or full-width commas). */
export function parseDomainList(stored: string): string[] {
  return dedupe(
    stored
      .split(/[,，\s]+/)
      .map(normaliseDomain)
      .filter((domain) => domain !== ''),
  );
}

/** The tags as stored: comma-separated, no spaces, each domain once. */
export function formatDomainList(domains: readonly string[]): string {
  return dedupe(domains.map(normaliseDomain).filter((domain) => domain !== '')).join(',');
}

function dedupe(domains: string[]): string[] {
  return [...new Set(domains)];
}

/** Splits what was typed into the tag input into the domains to keep and the ones refused. */
export function splitTypedDomains(typed: readonly string[]): { valid: string[]; invalid: string[] } {
  const valid: string[] = [];
  const invalid: string[] = [];
  for (const raw of typed.flatMap((entry) => entry.split(/[,，\s]+/))) {
    const domain = normaliseDomain(raw);
    if (domain === '') continue;
    (isValidDomain(domain) ? valid : invalid).push(domain);
  }
  return { valid: dedupe(valid), invalid: dedupe(invalid) };
}

/** Why the payment card may not be saved yet: no server address stored (spec 01 §5). */
export type ServerAddressProblem = 'missing' | 'unsaved' | null;

/**
 * Payment callbacks are built from the stored server address, so one must be saved before the
 * payment card is: typed-but-unsaved is told apart so the admin knows to press the general save.
 */
export function serverAddressProblem(saved: string | undefined, typed: string): ServerAddressProblem {
  if (normaliseOptionDraft('ServerAddress', saved ?? '') !== '') return null;
  return normaliseOptionDraft('ServerAddress', typed) !== '' ? 'unsaved' : 'missing';
}

/** The address to register at the OAuth provider, or null when no server address is stored. */
export function oauthCallbackUrl(serverAddress: string | undefined, provider: 'github' | 'linuxdo'): string | null {
  const base = normaliseOptionDraft('ServerAddress', serverAddress ?? '');
  return base === '' ? null : `${base}/oauth/${provider}`;
}

export type NumberProblem = 'notNumber' | 'notInteger' | 'tooSmall' | 'tooLarge';

/** Checks a typed number against the registry's kind and bounds; null when it is fine. */
export function numberProblem(
  typed: string,
  { integer = false, min, max, exclusiveMin = false }: { integer?: boolean; min?: number; max?: number; exclusiveMin?: boolean },
): NumberProblem | null {
  const text = typed.trim();
  if (text === '' || !Number.isFinite(Number(text))) return 'notNumber';
  const value = Number(text);
  if (integer && !/^-?\d+$/.test(text)) return 'notInteger';
  if (min !== undefined && (exclusiveMin ? value <= min : value < min)) return 'tooSmall';
  if (max !== undefined && value > max) return 'tooLarge';
  return null;
}

/** Whether the SSL switch is overridden by the port (shown on and locked). */
export const sslForcedByPort = (port: string): boolean => Number(port.trim()) === SMTP_FORCED_SSL_PORT;
