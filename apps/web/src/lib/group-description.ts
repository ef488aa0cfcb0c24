import type { TFunction } from 'i18next';
import type { Language } from '../i18n';

/**
 * The descriptions the server ships (option-registry's UserUsableGroups default, new-api's too) and
 * the one it gives a user's own unlisted group (usable-groups.ts): fixed Chinese words, so they are
 * shown through i18n keys in the reader's language. Matched by the text, not the group's name: an
 * admin who rewrote `default`'s description gets their own words.
 */
const SHIPPED_DESCRIPTIONS: Record<string, 'default' | 'vip' | 'svip' | 'own'> = {
  默认分组: 'default',
  vip分组: 'vip',
  svip分组: 'svip',
  用户分组: 'own',
};

/** zh when the text holds Chinese characters, en when it holds Latin letters and none, unknown otherwise (digits, signs). */
export function textLanguage(text: string): Language | 'unknown' {
  if (/\p{Script=Han}/u.test(text)) return 'zh';
  if (/[A-Za-z]/.test(text)) return 'en';
  return 'unknown';
}

/**
 * A group's description (GET /api/user/self/groups) as a reader of `language` should see it, or
 * undefined when it is better left out. Shipped descriptions are translated. An admin's own
 * description is free text in whatever language the admin wrote it, which the console cannot
 * translate: it is shown when it is in the reader's language (or in none we can tell, e.g. "1.5x"),
 * and left out otherwise, so an English reader sees `pro`, not `pro（专业分组）`. The group's name,
 * which tokens and logs show, is always beside it.
 */
export function shownGroupDescription(desc: string | undefined, language: Language, t: TFunction<'common'>): string | undefined {
  if (!desc) return undefined;
  const shipped = SHIPPED_DESCRIPTIONS[desc];
  if (shipped !== undefined) return t(`groups.${shipped}`);
  const written = textLanguage(desc);
  return written === language || written === 'unknown' ? desc : undefined;
}
