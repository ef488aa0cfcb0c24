import { describe, expect, it } from 'vitest';
import { imageSizeOf } from './image-size.js';
import { gifOf, jpegOf, pngOf, webpLosslessOf, webpLossyOf, webpExtendedOf } from './testing/image-bytes.js';

describe('imageSizeOf', () => {
  it('reads the size of each format from its header', () => {
    expect(imageSizeOf(pngOf(1024, 768))).toEqual({ width: 1024, height: 768, format: 'png' });
    expect(imageSizeOf(gifOf(300, 200))).toEqual({ width: 300, height: 200, format: 'gif' });
    expect(imageSizeOf(jpegOf(4032, 3024))).toEqual({ width: 4032, height: 3024, format: 'jpeg' });
    expect(imageSizeOf(webpLossyOf(640, 480))).toEqual({ width: 640, height: 480, format: 'webp' });
    expect(imageSizeOf(webpLosslessOf(1000, 16383))).toEqual({ width: 1000, height: 16383, format: 'webp' });
    expect(imageSizeOf(webpExtendedOf(5000, 3000))).toEqual({ width: 5000, height: 3000, format: 'webp' });
  });

  it('walks a JPEG past its metadata segments (EXIF, ICC) to the frame header', () => {
    const jpeg = jpegOf(1920, 1080, 70_000);
    expect(jpeg.indexOf(Buffer.from([0xff, 0xc0]))).toBeGreaterThan(70_000);
    expect(imageSizeOf(jpeg)).toEqual({ width: 1920, height: 1080, format: 'jpeg' });
    // A progressive JPEG's frame header (SOF2) counts too.
    expect(imageSizeOf(jpegOf(800, 600, 0, 0xc2))).toEqual({ width: 800, height: 600, format: 'jpeg' });
  });

  it('asks for more bytes while the header is cut short, at every length', () => {
    for (const image of [pngOf(10, 20), gifOf(10, 20), jpegOf(10, 20, 300), webpLossyOf(10, 20), webpLosslessOf(10, 20), webpExtendedOf(10, 20)]) {
      const whole = imageSizeOf(image);
      expect(typeof whole).toBe('object');
      let firstKnown = -1;
      for (let length = 0; length <= image.length; length += 1) {
        const result = imageSizeOf(image.subarray(0, length));
        if (result === 'more') continue;
        expect(result).toEqual(whole);
        if (firstKnown === -1) firstKnown = length;
      }
      expect(firstKnown).toBeGreaterThan(0);
    }
  });

  it('says unknown for other files and broken headers', () => {
    expect(imageSizeOf(Buffer.from('<!doctype html><html><body>not an image</body></html>'))).toBe('unknown');
    expect(imageSizeOf(Buffer.from('%PDF-1.7\n'))).toBe('unknown');
    expect(imageSizeOf(pngOf(0, 10))).toBe('unknown');
    const notIhdr = pngOf(10, 10);
    notIhdr.write('IDAT', 12, 'latin1');
    expect(imageSizeOf(notIhdr)).toBe('unknown');
    // A JPEG that reaches its image data without a frame header.
    expect(imageSizeOf(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x08, 0, 0, 0, 0, 0, 0]))).toBe('unknown');
  });
});
