import { useMemo } from 'react';
import { embeddableUrl, renderMarkdown } from '../../lib/markdown';

interface RichContentProps {
  /** Admin-authored Markdown/HTML, or an https address to embed. */
  source: string;
  title: string;
}

/** Renders an admin content option by the home/about rules: an https address is embedded, anything else is Markdown. */
export function RichContent({ source, title }: RichContentProps) {
  const url = useMemo(() => embeddableUrl(source), [source]);
  const html = useMemo(() => (url ? '' : renderMarkdown(source)), [source, url]);

  if (url) {
    return <iframe className="mg-embedded-page" src={url} title={title} />;
  }
  return <article className="mg-markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
