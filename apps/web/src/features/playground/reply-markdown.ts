import { Marked, type Tokens } from 'marked';

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/**
 * Markdown of a model's reply. Unlike the admin's content (lib/markdown.ts), HTML in a reply is
 * text the model wrote, often about HTML: it is shown as written, never rendered. Single line
 * breaks stay line breaks, as chat answers expect. An unfinished code fence (mid-stream) renders
 * as a code block up to the end. The result still goes through DOMPurify before display.
 */
const replyMarked = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag) {
      const text = escapeHtml(token.text);
      return 'block' in token && token.block ? `<p>${text}</p>\n` : text;
    },
  },
});

export function replyToHtml(source: string): string {
  return replyMarked.parse(source, { async: false });
}
