import { useMemo } from 'react';
import { embeddableUrl, renderAdminContent } from '../../lib/markdown';

interface RichContentProps {
  /** Admin-authored Markdown/HTML (HomePageContent, About, Notice), or an https address to embed. */
  source: string;
  title: string;
  /** The notice is never a page of its own: an address in it stays a link. */
  embed?: boolean;
}

/**
 * Renders an admin content option by the home/about rules: an https address is embedded, anything
 * else is Markdown with the admin's HTML kept as written (lib/markdown.ts says why). Only for the
 * admin's options: text from anyone else goes through renderUntrustedMarkdown.
 */
export function RichContent({ source, title, embed = true }: RichContentProps) {
  const url = useMemo(() => (embed ? embeddableUrl(source) : null), [source, embed]);
  const html = useMemo(() => (url ? '' : renderAdminContent(source)), [source, url]);

  if (url) {
    return <iframe className="mg-embedded-page" src={url} title={title} data-testid="rich-content-frame" />;
  }
  return <article className="mg-markdown" data-testid="rich-content" dangerouslySetInnerHTML={{ __html: html }} />;
}
