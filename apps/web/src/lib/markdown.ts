import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';

/*
 * Two ways to turn text into HTML, by who wrote the text. Keep them apart:
 *
 * - renderAdminContent / renderAdminHtml: what a super administrator typed into the Notice,
 *   HomePageContent, About and Footer options. Shown as the admin wrote it, <style>, inline
 *   styles, classes, data-* and event attributes included: that is the feature (issue 12), and
 *   only root can write these options. Like new-api's console, which puts them in the page with
 *   dangerouslySetInnerHTML, the HTML is inserted with innerHTML, so a <script> element in it is
 *   kept but never runs. We match that on purpose rather than re-creating script elements:
 *   running admin JavaScript on every visitor's page (sessions, the console) is a different
 *   feature, and an admin who needs a whole page of their own sets an https address, which is
 *   embedded in an iframe (embeddableUrl).
 *
 * - renderUntrustedMarkdown: Markdown from anyone else (users, upstream models, channels). Raw
 *   HTML in it is shown as text, never rendered; links and images keep only http(s)/mailto (and
 *   raster data: images) addresses, and attribute values are escaped, so an entity-encoded
 *   "javascript&#58;" stays inert text. This holds without a DOM (it is unit-tested in Node);
 *   in the browser DOMPurify then runs over the result as a second line.
 */

const adminMarked = new Marked({ gfm: true, breaks: false });

/** A whole HTML document (<!doctype html> or <html>) pasted as content is HTML, not Markdown. */
const HTML_DOCUMENT = /^\s*(<!--[\s\S]*?-->\s*)*<(!doctype\s+html|html)[\s>]/i;

/**
 * Admin-authored Markdown, HTML or both mixed (Notice, HomePageContent, About), as HTML to insert
 * as written. marked passes HTML blocks and inline tags through untouched; nothing is removed.
 */
export function renderAdminContent(source: string): string {
  if (HTML_DOCUMENT.test(source)) return source;
  return adminMarked.parse(source, { async: false });
}

/** The admin's Footer option is HTML by contract (new-api: 支持 HTML 代码): inserted as written. */
export function renderAdminHtml(html: string): string {
  return html;
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Browsers drop ASCII whitespace and control characters inside a scheme, so "java\tscript:" counts. */
function schemeOf(address: string): string | null {
  const compact = address.replace(/[\u0000-\u0020\u007f]/g, '').toLowerCase();
  const match = /^([a-z][a-z0-9+.-]*):/.exec(compact);
  return match ? match[1]! : null;
}

const SAFE_LINK_SCHEMES: ReadonlySet<string> = new Set(['http', 'https', 'mailto']);

/** A link target untrusted Markdown may keep: relative, #anchor, http(s) or mailto. */
export function isSafeLinkUrl(address: string): boolean {
  const scheme = schemeOf(address);
  return scheme === null || SAFE_LINK_SCHEMES.has(scheme);
}

/** An image source untrusted Markdown may keep: as links, or a raster data: image (no SVG). */
export function isSafeImageUrl(address: string): boolean {
  if (/^data:image\/(png|jpe?g|gif|webp|avif);/i.test(address.trim())) return true;
  const scheme = schemeOf(address);
  return scheme === null || scheme === 'http' || scheme === 'https';
}

function untrustedMarked(breaks: boolean): Marked {
  return new Marked({
    gfm: true,
    breaks,
    renderer: {
      html(token: Tokens.HTML | Tokens.Tag) {
        const text = escapeHtml(token.text);
        return 'block' in token && token.block ? `<p>${text}</p>\n` : text;
      },
      link(token: Tokens.Link) {
        const text = this.parser.parseInline(token.tokens);
        if (!isSafeLinkUrl(token.href)) return text;
        const title = token.title ? ` title="${escapeHtml(token.title)}"` : '';
        return `<a href="${escapeHtml(token.href)}"${title} target="_blank" rel="noopener noreferrer nofollow">${text}</a>`;
      },
      image(token: Tokens.Image) {
        if (!isSafeImageUrl(token.href)) return escapeHtml(token.text);
        const title = token.title ? ` title="${escapeHtml(token.title)}"` : '';
        return `<img src="${escapeHtml(token.href)}" alt="${escapeHtml(token.text)}"${title} loading="lazy">`;
      },
    },
  });
}

const untrustedRenderers = { paragraphs: untrustedMarked(false), lineBreaks: untrustedMarked(true) };

/**
 * Markdown nobody trusted wrote, as HTML that is safe to insert. `breaks` turns single line breaks
 * into <br> (chat answers expect that).
 */
export function renderUntrustedMarkdown(source: string, { breaks = false }: { breaks?: boolean } = {}): string {
  const html = (breaks ? untrustedRenderers.lineBreaks : untrustedRenderers.paragraphs).parse(source, { async: false });
  return sanitizeUntrustedHtml(html);
}

/**
 * DOMPurify over HTML built from untrusted text, with page-restyling <style> and style="" removed
 * too. Without a DOM (Node) DOMPurify returns its input: the renderer above is what makes it safe.
 */
function sanitizeUntrustedHtml(html: string): string {
  if (!DOMPurify.isSupported) return html;
  return DOMPurify.sanitize(html, {
    ADD_ATTR: ['target'],
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select'],
    FORBID_ATTR: ['style'],
  });
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
