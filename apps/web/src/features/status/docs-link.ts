/**
 * The documentation address (general_setting.docs_link, /api/status docs_link) when it is a web
 * address; anything else is not linked. The header's 文档 and the home page's docs button use it.
 */
export function docsAddress(link: string | undefined): string | undefined {
  const trimmed = link?.trim();
  return trimmed && /^https?:\/\//i.test(trimmed) ? trimmed : undefined;
}
