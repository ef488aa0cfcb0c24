/**
 * An image's width and height read from the first bytes of its file (PNG, JPEG, GIF, WebP), the
 * way an image library reads its header before decoding pixels: enough to price an image without
 * downloading or decoding all of it.
 */
export interface ImageSize {
  width: number;
  height: number;
  format: 'png' | 'jpeg' | 'gif' | 'webp';
}

/** Size found; `more`: the bytes so far end before the size (read on); `unknown`: not one of the four formats, or broken. */
export type ImageSizeResult = ImageSize | 'more' | 'unknown';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function imageSizeOf(head: Buffer): ImageSizeResult {
  if (head.length < 4) return 'more';
  if (head[0] === 0x89 && head[1] === 0x50) return pngSize(head);
  if (head[0] === 0xff && head[1] === 0xd8) return jpegSize(head);
  if (head[0] === 0x47 && head[1] === 0x49 && head[2] === 0x46) return gifSize(head);
  if (head.toString('latin1', 0, 4) === 'RIFF') return webpSize(head);
  return 'unknown';
}

/** Signature, then the IHDR chunk: width and height as 32-bit big-endian numbers at 16 and 20. */
function pngSize(head: Buffer): ImageSizeResult {
  if (head.length < 24) return 'more';
  if (!head.subarray(0, 8).equals(PNG_SIGNATURE) || head.toString('latin1', 12, 16) !== 'IHDR') return 'unknown';
  return sized(head.readUInt32BE(16), head.readUInt32BE(20), 'png');
}

/** GIF87a/GIF89a, then the logical screen's width and height, 16-bit little-endian. */
function gifSize(head: Buffer): ImageSizeResult {
  if (head.length < 10) return 'more';
  const version = head.toString('latin1', 0, 6);
  if (version !== 'GIF87a' && version !== 'GIF89a') return 'unknown';
  return sized(head.readUInt16LE(6), head.readUInt16LE(8), 'gif');
}

/** RIFF....WEBP and a VP8 (lossy), VP8L (lossless) or VP8X (extended) chunk, each with its own encoding of the size. */
function webpSize(head: Buffer): ImageSizeResult {
  if (head.length < 16) return 'more';
  if (head.toString('latin1', 8, 12) !== 'WEBP') return 'unknown';
  const chunk = head.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') {
    if (head.length < 30) return 'more';
    // The frame header's start code, then 14-bit width and height.
    if (head[23] !== 0x9d || head[24] !== 0x01 || head[25] !== 0x2a) return 'unknown';
    return sized(head.readUInt16LE(26) & 0x3fff, head.readUInt16LE(28) & 0x3fff, 'webp');
  }
  if (chunk === 'VP8L') {
    if (head.length < 25) return 'more';
    if (head[20] !== 0x2f) return 'unknown';
    // Two 14-bit fields, each stored as the size less one.
    const bits = head.readUInt32LE(21);
    return sized((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1, 'webp');
  }
  if (chunk === 'VP8X') {
    if (head.length < 30) return 'more';
    // The canvas: two 24-bit fields, each the size less one.
    return sized(head.readUIntLE(24, 3) + 1, head.readUIntLE(27, 3) + 1, 'webp');
  }
  return 'unknown';
}

/**
 * Walks the JPEG's segments to its start-of-frame (SOF0–SOF15 except DHT, JPG and DAC), which
 * holds the height and then the width, 16-bit big-endian, after the precision byte. Metadata
 * segments (EXIF, ICC) before it are skipped by their lengths.
 */
function jpegSize(head: Buffer): ImageSizeResult {
  let at = 2;
  for (;;) {
    if (at + 4 > head.length) return 'more';
    if (head[at] !== 0xff) return 'unknown';
    const marker = head[at + 1]!;
    // Fill bytes: a marker may be preceded by any number of 0xff.
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    // Markers that stand alone, without a length.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      at += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return 'unknown';
    const length = head.readUInt16BE(at + 2);
    if (length < 2) return 'unknown';
    const startOfFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (startOfFrame) {
      if (at + 9 > head.length) return 'more';
      return sized(head.readUInt16BE(at + 7), head.readUInt16BE(at + 5), 'jpeg');
    }
    at += 2 + length;
  }
}

const sized = (width: number, height: number, format: ImageSize['format']): ImageSizeResult =>
  width > 0 && height > 0 ? { width, height, format } : 'unknown';
