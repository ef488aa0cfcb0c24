/**
 * The rules of the Other tab's content options, pure so they are unit-tested: how the home page
 * and about page will show what the admin typed, and which logo addresses work on every page.
 */
import { embeddableUrl } from '../../../lib/markdown';

/**
 * What the public page does with a HomePageContent/About value (new-api's rules): nothing typed
 * shows the built-in page; a lone https address is embedded in an iframe; anything else is
 * Markdown with HTML kept as written.
 */
export type ContentKind = 'default' | 'embed' | 'markdown';

export function contentKind(source: string): ContentKind {
  if (!source.trim()) return 'default';
  return embeddableUrl(source) ? 'embed' : 'markdown';
}

/**
 * A lone http:// address is not embedded (an https console cannot frame it, and new-api embeds
 * https only): it would show as a plain link, which is rarely what the admin meant.
 */
export function isPlainHttpAddress(source: string): boolean {
  const trimmed = source.trim();
  return /^http:\/\/\S+$/i.test(trimmed);
}

/**
 * The logo is used on every page of the console, from /setting as much as from /: a relative
 * "logo.png" would load from a different folder on each. Absolute http(s) addresses (also
 * protocol-relative), a path from the site's root, or a data: image are accepted; empty means the
 * built-in logo.
 */
export function isUsableLogoAddress(address: string): boolean {
  const trimmed = address.trim();
  if (trimmed === '') return true;
  // A data: image may carry spaces (an inline SVG); browsers load it as typed.
  if (/^data:image\//i.test(trimmed)) return true;
  if (/\s/.test(trimmed)) return false;
  if (trimmed.startsWith('/') && !trimmed.startsWith('//')) return true;
  // A protocol-relative //cdn.example.com/logo.png loads over the page's own scheme.
  const absolute = trimmed.startsWith('//') ? `https:${trimmed}` : trimmed;
  if (!/^https?:\/\/[^/]/i.test(absolute)) return false;
  try {
    new URL(absolute);
    return true;
  } catch {
    return false;
  }
}
