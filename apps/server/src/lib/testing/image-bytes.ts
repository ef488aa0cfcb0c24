/**
 * Image files for tests, byte for byte as the formats lay out their headers, followed by filler
 * standing in for the pixel data (only headers are ever read).
 */
const filler = (length: number) => Buffer.alloc(length, 0x5a);

export function pngOf(width: number, height: number, pixels = 64): Buffer {
  const header = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
  header.writeUInt32BE(13, 8);
  header.write('IHDR', 12, 'latin1');
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  header.writeUInt8(8, 24);
  header.writeUInt8(6, 25);
  return Buffer.concat([header, filler(pixels)]);
}

export function gifOf(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.write('GIF89a', 0, 'latin1');
  header.writeUInt16LE(width, 6);
  header.writeUInt16LE(height, 8);
  return Buffer.concat([header, filler(32)]);
}

/** SOI, an APP1 (EXIF) segment of `metadataBytes` when asked, a DQT segment, then the frame header. */
export function jpegOf(width: number, height: number, metadataBytes = 0, frameMarker = 0xc0): Buffer {
  const segments: Buffer[] = [Buffer.from([0xff, 0xd8])];
  let remaining = metadataBytes;
  while (remaining > 0) {
    const length = Math.min(remaining, 65_000);
    const segment = Buffer.alloc(4 + length);
    segment.writeUInt16BE(0xffe1, 0);
    segment.writeUInt16BE(length + 2, 2);
    segments.push(segment);
    remaining -= length;
  }
  const quantisation = Buffer.alloc(4 + 65);
  quantisation.writeUInt16BE(0xffdb, 0);
  quantisation.writeUInt16BE(67, 2);
  segments.push(quantisation);
  const frame = Buffer.alloc(19);
  frame.writeUInt8(0xff, 0);
  frame.writeUInt8(frameMarker, 1);
  frame.writeUInt16BE(17, 2);
  frame.writeUInt8(8, 4);
  frame.writeUInt16BE(height, 5);
  frame.writeUInt16BE(width, 7);
  segments.push(frame, filler(64));
  return Buffer.concat(segments);
}

function riff(chunk: Buffer): Buffer {
  const header = Buffer.alloc(12);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(4 + chunk.length, 4);
  header.write('WEBP', 8, 'latin1');
  return Buffer.concat([header, chunk, filler(32)]);
}

export function webpLossyOf(width: number, height: number): Buffer {
  const chunk = Buffer.alloc(18);
  chunk.write('VP8 ', 0, 'latin1');
  chunk.writeUInt32LE(10, 4);
  Buffer.from([0x9d, 0x01, 0x2a]).copy(chunk, 11);
  chunk.writeUInt16LE(width, 14);
  chunk.writeUInt16LE(height, 16);
  return riff(chunk);
}

export function webpLosslessOf(width: number, height: number): Buffer {
  const chunk = Buffer.alloc(13);
  chunk.write('VP8L', 0, 'latin1');
  chunk.writeUInt32LE(5, 4);
  chunk.writeUInt8(0x2f, 8);
  chunk.writeUInt32LE(((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14), 9);
  return riff(chunk);
}

export function webpExtendedOf(width: number, height: number): Buffer {
  const chunk = Buffer.alloc(18);
  chunk.write('VP8X', 0, 'latin1');
  chunk.writeUInt32LE(10, 4);
  chunk.writeUIntLE(width - 1, 12, 3);
  chunk.writeUIntLE(height - 1, 15, 3);
  return riff(chunk);
}
