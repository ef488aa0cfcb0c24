import { describe, expect, it } from 'vitest';
import { embeddableUrl, isSafeImageUrl, isSafeLinkUrl, renderAdminContent, renderAdminHtml, renderUntrustedMarkdown } from './markdown';

/** Every start tag in the output, e.g. ['p', 'a'], to assert which elements a browser would build. */
const tagsOf = (html: string) => [...html.matchAll(/<([a-z][a-z0-9-]*)[\s>/]/gi)].map((match) => match[1]!.toLowerCase());
/** Attributes of real tags only: text between &lt; and &gt; is not a tag. */
const attributesOf = (html: string) =>
  [...html.matchAll(/<[a-z][^<>]*>/gi)].flatMap((tag) => [...tag[0].matchAll(/\s([a-z-]+)=/gi)].map((match) => match[1]!.toLowerCase()));

describe('renderAdminContent (Notice, HomePageContent, About): as the admin wrote it', () => {
  it('renders Markdown headings, lists and links', () => {
    const html = renderAdminContent('# 欢迎\n\n- one\n- two\n\n[docs](https://example.com/docs)');
    expect(html).toContain('<h1>欢迎</h1>');
    expect(html).toContain('<li>one</li>');
    expect(html).toContain('<a href="https://example.com/docs">docs</a>');
  });

  it('keeps <style>, inline styles, classes and custom attributes', () => {
    const source = '<style>.promo { color: tomato; }</style>\n<div class="promo" style="border: 2px solid gold" data-campaign="spring">Spring sale</div>';
    const html = renderAdminContent(source);
    expect(html).toContain('<style>.promo { color: tomato; }</style>');
    expect(html).toContain('<div class="promo" style="border: 2px solid gold" data-campaign="spring">Spring sale</div>');
  });

  it('keeps what the admin wrote even where it could run code: nothing is removed', () => {
    const html = renderAdminContent('<img src="/a.png" onerror="this.remove()">\n\n<script>window.x = 1</script>');
    expect(html).toContain('onerror="this.remove()"');
    expect(html).toContain('<script>window.x = 1</script>');
  });

  it('mixes Markdown and HTML blocks', () => {
    const html = renderAdminContent('## Plans\n\n<table><tr><td style="color:red">Pro</td></tr></table>\n\n**bold**');
    expect(html).toContain('<h2>Plans</h2>');
    expect(html).toContain('<td style="color:red">Pro</td>');
    expect(html).toContain('<strong>bold</strong>');
  });

  it('takes a whole HTML document as HTML, so its indented lines do not become code blocks', () => {
    const page = '<!DOCTYPE html>\n<html>\n  <body>\n\n    <p>indented after a blank line</p>\n  </body>\n</html>';
    expect(renderAdminContent(page)).toBe(page);
    expect(renderAdminContent(page)).not.toContain('<pre>');
  });

  it('the footer HTML is inserted exactly as stored', () => {
    const footer = '<div style="text-align:center" data-x="1"><a href="/about">About</a> © 2025</div>';
    expect(renderAdminHtml(footer)).toBe(footer);
  });
});

describe('renderUntrustedMarkdown (users, models, upstreams): sanitised', () => {
  it('still renders Markdown', () => {
    const html = renderUntrustedMarkdown('# Title\n\n**bold** and `code`\n\n| a | b |\n|---|---|\n| 1 | 2 |');
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<code>code</code>');
    expect(html).toContain('<td>1</td>');
  });

  it('removes <script>: raw HTML is shown as text', () => {
    const html = renderUntrustedMarkdown('hello <script>alert(1)</script>\n\n<script>\nsteal()\n</script>');
    expect(tagsOf(html)).not.toContain('script');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('removes event handlers such as onerror and inline style', () => {
    const html = renderUntrustedMarkdown('<img src=x onerror="alert(1)">\n\n<div style="position:fixed;inset:0" onclick="x()">cover</div>');
    expect(tagsOf(html)).not.toContain('img');
    expect(tagsOf(html)).not.toContain('div');
    const attributes = attributesOf(html);
    expect(attributes).not.toContain('onerror');
    expect(attributes).not.toContain('onclick');
    expect(attributes).not.toContain('style');
  });

  it('removes <style> blocks', () => {
    expect(tagsOf(renderUntrustedMarkdown('<style>body { display: none }</style>'))).not.toContain('style');
  });

  it('removes javascript: links in every spelling, keeping their text', () => {
    for (const target of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'java\tscript:alert(1)',
      'javascript&#58;alert(1)',
      'vbscript:x',
      'data:text/html;base64,PHNjcmlwdD4=',
    ]) {
      const html = renderUntrustedMarkdown(`[click](<${target}>)`);
      expect(html, target).not.toMatch(/href="\s*(java|vb)script:/i);
      expect(html, target).not.toMatch(/href="data:/i);
      expect(html, target).toContain('click');
    }
    const autolink = renderUntrustedMarkdown('<javascript:alert(1)>');
    expect(tagsOf(autolink)).not.toContain('a');
  });

  it('escapes attribute values, so an encoded colon cannot turn back into a scheme', () => {
    const html = renderUntrustedMarkdown('[x](javascript&#58;alert(1))');
    expect(html).not.toContain('href="javascript&#58;');
    expect(html).not.toContain('href="javascript:');
  });

  it('keeps http(s), mailto and relative links, opening outside the console', () => {
    const html = renderUntrustedMarkdown('[a](https://example.com/?a=1&b=2) [m](mailto:x@example.com) [r](/pricing) [h](#top)');
    expect(html).toContain('<a href="https://example.com/?a=1&amp;b=2" target="_blank" rel="noopener noreferrer nofollow">a</a>');
    expect(html).toContain('href="mailto:x@example.com"');
    expect(html).toContain('href="/pricing"');
    expect(html).toContain('href="#top"');
  });

  it('keeps http(s) and raster data: images, drops script-capable sources', () => {
    expect(renderUntrustedMarkdown('![cat](https://example.com/cat.png)')).toContain('<img src="https://example.com/cat.png" alt="cat"');
    expect(renderUntrustedMarkdown('![dot](data:image/png;base64,iVBORw0KGgo=)')).toContain('<img src="data:image/png;base64,iVBORw0KGgo="');
    const svg = renderUntrustedMarkdown('![bad](data:image/svg+xml;base64,PHN2Zz4=)');
    expect(tagsOf(svg)).not.toContain('img');
    expect(tagsOf(renderUntrustedMarkdown('![bad](javascript:alert(1))'))).not.toContain('img');
  });

  it('turns single line breaks into <br> only when asked', () => {
    expect(renderUntrustedMarkdown('a\nb')).not.toContain('<br>');
    expect(renderUntrustedMarkdown('a\nb', { breaks: true })).toContain('<br>');
  });
});

describe('address checks', () => {
  it('links: relative, anchors, http(s), mailto only', () => {
    expect(isSafeLinkUrl('/a')).toBe(true);
    expect(isSafeLinkUrl('#x')).toBe(true);
    expect(isSafeLinkUrl('https://a.b')).toBe(true);
    expect(isSafeLinkUrl(' javascript:x')).toBe(false);
    expect(isSafeLinkUrl('\u0001javascript:x')).toBe(false);
    expect(isSafeLinkUrl('file:///etc/passwd')).toBe(false);
  });

  it('images: no svg data', () => {
    expect(isSafeImageUrl('data:image/jpeg;base64,AAAA')).toBe(true);
    expect(isSafeImageUrl('data:image/svg+xml,<svg/>')).toBe(false);
    expect(isSafeImageUrl('mailto:x@y')).toBe(false);
  });
});

describe('embeddableUrl', () => {
  it('embeds a lone https address only', () => {
    expect(embeddableUrl('  https://docs.example.com/home  ')).toBe('https://docs.example.com/home');
    expect(embeddableUrl('http://docs.example.com')).toBeNull();
    expect(embeddableUrl('see https://docs.example.com')).toBeNull();
    expect(embeddableUrl('https://a.com\nmore')).toBeNull();
  });
});
