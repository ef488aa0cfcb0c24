import DOMPurify from 'dompurify';
import { marked } from 'marked';

/**
 * Admin-authored content (home page, about, notice) is Markdown, HTML, or both mixed; marked passes
 * HTML through untouched, and DOMPurify removes scripts and event handlers either way.
 */
export function renderMarkdown(source: string): string {
  const html = marked.parse(source, { async: false, gfm: true, breaks: false });
  return DOMPurify.sanitize(html, { ADD_ATTR: ['target', 'rel'] });
}

/** Footer HTML is plain HTML by contract; it is still sanitized because it is rendered on every page. */
export function sanitizeHtml(html: string): string {
  return DOMPurify.sanitize(html, { ADD_ATTR: ['target', 'rel'] });
}

/** Content that is only an https address is shown as an embedded page instead of text. */
export function embeddableUrl(source: string): string | null {
  const trimmed = source.trim();
  if (!trimmed.startsWith('https://') || /\s/.test(trimmed)) return null;
  try {
    return new URL(trimmed).toString();
  } catch {
    return null;
  }
}
