import { createHash } from 'node:crypto';

/**
 * Control (Cc) and format (Cf: zero-width characters, bidi overrides, the BOM) characters are
 * invisible or reorder text, so two names that look the same on screen could differ; an unpaired
 * surrogate is not text at all. With the `u` flag a lone surrogate is its own code point and
 * matches \p{Cs}, while a proper pair is one astral code point and does not.
 */
const FORBIDDEN_CHARACTERS = /[\p{Cc}\p{Cf}\p{Cs}]/u;
const FORBIDDEN_CHARACTERS_ALL = new RegExp(FORBIDDEN_CHARACTERS.source, 'gu');

/**
 * Cyrillic and Greek letters that render like Latin ones, so `rоot` (Cyrillic о) cannot pose as
 * `root`. Lower-case only: names are case-folded before the lookup. Deliberately short: the
 * letters people actually mistake, not Unicode's whole confusables table.
 */
const LATIN_LOOKALIKES: Record<string, string> = {
  // Cyrillic
  а: 'a',
  е: 'e',
  о: 'o',
  р: 'p',
  с: 'c',
  у: 'y',
  х: 'x',
  і: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  һ: 'h',
  ԛ: 'q',
  ԝ: 'w',
  // Latin script, but not the ASCII letter
  ɡ: 'g',
  // Greek
  ο: 'o',
  α: 'a',
  ν: 'v',
  ρ: 'p',
  ι: 'i',
  κ: 'k',
  τ: 't',
  υ: 'u',
  χ: 'x',
};
const LOOKALIKE_PATTERN = new RegExp(`[${Object.keys(LATIN_LOOKALIKES).join('')}]`, 'gu');

/** Keys longer than this are stored as a hash, so the unique index stays within MySQL's key size. */
const MAX_PLAIN_KEY_LENGTH = 160;

/**
 * Whether the name holds a character no username may hold. The same rule guards every other name
 * the console shows (display, token and redemption names): only the look-alike rule is the username's own.
 */
export function hasForbiddenCharacters(name: string): boolean {
  return FORBIDDEN_CHARACTERS.test(name);
}

/** A name a sign-in provider hands us, which is cleaned rather than refused: the user did not type it here. */
export function withoutForbiddenCharacters(name: string): string {
  return name.replace(FORBIDDEN_CHARACTERS_ALL, '');
}

/**
 * The form two usernames are compared in: NFKC (full-width and ligature forms to plain ones), then
 * lower case, then Cyrillic/Greek look-alikes to Latin. Two names with the same key read the same
 * to a person, so only one of them may exist.
 */
export function usernameKey(username: string): string {
  const folded = username
    .normalize('NFKC')
    .toLowerCase()
    .replace(LOOKALIKE_PATTERN, (letter) => LATIN_LOOKALIKES[letter] ?? letter);
  if (folded.length <= MAX_PLAIN_KEY_LENGTH) return folded;
  return `sha256:${createHash('sha256').update(folded).digest('hex')}`;
}
