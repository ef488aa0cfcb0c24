/**
 * When the home page shows the admin's notice (issue 12: "shown once per change").
 *
 * new-api's classic console keeps the last notice text in localStorage and pops it up only when
 * the text differs; its newer console offers 今日关闭 instead, which brings the same notice back
 * every day. We keep the classic rule, which is what a visitor expects from "once per change": a
 * notice is shown until the visitor closes it, and then not again in this browser until the admin
 * changes its text. Only a fingerprint of the text is stored (a notice can be long), and it is
 * written on close, not on show, so a notice the visitor never saw closed (a reload, a tab closed
 * while it loaded) comes back.
 */

/** localStorage key of the fingerprint of the notice the visitor last closed. */
export const NOTICE_SEEN_KEY = 'notice_seen';

/**
 * A 53-bit hash of the notice (cyrb53) as hex: synchronous and available everywhere, unlike
 * crypto.subtle, which a console served over plain http on a LAN address does not have.
 * Surrounding whitespace does not count as a change.
 */
export function noticeFingerprint(notice: string): string {
  const text = notice.trim();
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const hash = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  return `${text.length.toString(36)}-${hash.toString(16)}`;
}

/** An empty notice is never shown; any other one is shown unless this exact text was closed. */
export function shouldShowNotice(notice: string | undefined, closedFingerprint: string | null): boolean {
  if (!notice || !notice.trim()) return false;
  return closedFingerprint !== noticeFingerprint(notice);
}

export function readClosedNotice(): string | null {
  try {
    return window.localStorage.getItem(NOTICE_SEEN_KEY);
  } catch {
    return null;
  }
}

export function rememberClosedNotice(notice: string): void {
  try {
    window.localStorage.setItem(NOTICE_SEEN_KEY, noticeFingerprint(notice));
  } catch {
    /* without storage the notice simply shows again on the next visit */
  }
}
