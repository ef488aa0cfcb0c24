/**
 * Credentials out of any text that leaves the process or lands in the database. Upstreams echo
 * the key they were called with ("Incorrect API key provided: sk-..."), so every message built
 * from an upstream answer goes through here with the channel's own keys; the patterns catch
 * keys of other shapes and channels we were not told about.
 */

/** Shorter values are not masked by name: "{" or "abc" would blot out ordinary words. */
const MIN_KNOWN_SECRET_LENGTH = 8;

/**
 * A key cut down to enough to tell keys apart in a message: `sk-abcdef…wxyz` → `sk-ab****yz`.
 * A known prefix (`sk-`, `sk-ant-`, `AIza`) stays whole; short values are hidden entirely.
 */
export function maskKey(key: string): string {
  const prefix = /^(?:sk-ant-|sk-proj-|sk-|AIza)/.exec(key)?.[0] ?? '';
  const rest = key.slice(prefix.length);
  if (rest.length < 12) return `${prefix}****`;
  return `${prefix}${rest.slice(0, 2)}****${rest.slice(-2)}`;
}

/** A value an earlier pattern already masked keeps its form, so masking twice changes nothing. */
const maskValue = (value: string) => (value.includes('****') ? value : maskKey(value));

const SECRET_PATTERNS: [RegExp, (match: string, ...groups: string[]) => string][] = [
  // sk- keys (ours, OpenAI's, Anthropic's sk-ant-) and Google's AIza keys
  [/\b(?:sk-|AIza)[A-Za-z0-9_-]{8,}/g, (match) => maskKey(match)],
  // Bearer credentials of any other shape
  [/(Bearer\s+)([A-Za-z0-9._~+/=-]{8,})/gi, (_match, lead = '', value = '') => `${lead}${maskValue(value)}`],
  // key=... in query strings (Gemini style)
  [/([?&](?:key|api_key|api-key|token|access_token)=)([^&\s"']+)/gi, (_match, lead = '', value = '') => `${lead}${maskValue(value)}`],
];

/**
 * Replaces every occurrence of `knownSecrets` (a channel's keys, one per entry) and anything that
 * looks like a credential with a masked form. Masking twice gives the same text.
 */
export function maskSecrets(text: string, knownSecrets: readonly string[] = []): string {
  let masked = text;
  const known = knownSecrets
    .map((secret) => secret.trim())
    .filter((secret) => secret.length >= MIN_KNOWN_SECRET_LENGTH)
    // The longest first, so a key that contains another is not left half-masked.
    .sort((a, b) => b.length - a.length);
  for (const secret of known) {
    if (masked.includes(secret)) masked = masked.split(secret).join(maskKey(secret));
  }
  for (const [pattern, replace] of SECRET_PATTERNS) masked = masked.replace(pattern, replace);
  return masked;
}

/** A channel's key field as the separate secrets to mask: one per line, as multi-key channels hold them. */
export const channelSecrets = (keyField: string): string[] =>
  keyField
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
