/** Images a question may carry, as OpenAI `image_url` parts: web addresses, or pasted/uploaded files as data: URLs. */

/** More images than this in one question are refused (providers cap them too, often lower). */
export const MAX_IMAGES_PER_MESSAGE = 8;
/** A pasted or uploaded file above this is refused: it travels inside the JSON body as base64. */
export const MAX_IMAGE_FILE_BYTES = 5 * 1024 * 1024;

export type ImageProblem = 'badImageUrl' | 'tooManyImages' | 'duplicateImage';

/** The address typed, trimmed, when it is an http(s) URL or an image data: URL; null otherwise. */
export function normalizeImageUrl(text: string): string | null {
  const url = text.trim();
  if (/^data:image\/[a-z0-9.+-]+;base64,[a-z0-9+/=\s]+$/i.test(url)) return url;
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '' ? url : null;
  } catch {
    return null;
  }
}

/** Adds `text` to the question's images, or says why not. */
export function addImage(images: string[], text: string): { images: string[] } | { problem: ImageProblem } {
  const url = normalizeImageUrl(text);
  if (url === null) return { problem: 'badImageUrl' };
  if (images.includes(url)) return { problem: 'duplicateImage' };
  if (images.length >= MAX_IMAGES_PER_MESSAGE) return { problem: 'tooManyImages' };
  return { images: [...images, url] };
}

/** A short label for a thumbnail's title: the file name of a URL, or "pasted image" for a data: URL (null). */
export function imageLabel(url: string): string | null {
  if (url.startsWith('data:')) return null;
  try {
    const { pathname, hostname } = new URL(url);
    return decodeURIComponent(pathname.split('/').filter(Boolean).at(-1) ?? '') || hostname;
  } catch {
    return url;
  }
}
