/**
 * rowsim's PNG writer (src/report/png.ts): the same pixels as the canvas's own PNG, decoded; a canvas
 * with a pixel that is not opaque is left to the canvas's encoder.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { crc32 } from 'node:zlib';
import { crc32Js, encodePixelsPng, encodePng, encodeStripsPng, STRIP_BYTES } from '../src/report/png.js';

async function pixels(png: Buffer): Promise<{ width: number; height: number; data: Buffer }> {
  const img = await loadImage(png);
  const canvas = createCanvas(img.width, img.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  return { width: img.width, height: img.height, data: Buffer.from(ctx.getImageData(0, 0, img.width, img.height).data) };
}

/** A drawing with what charts and page maps have: a white background, cells, antialiased paths and text. */
function drawing(width: number, height: number, background: string | null) {
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  if (background) {
    ctx.fillStyle = background;
    ctx.fillRect(0, 0, width, height);
  }
  for (let i = 0; i < 60; i++) {
    ctx.fillStyle = `rgb(${(i * 37) % 256}, ${(i * 91) % 256}, ${(i * 53) % 256})`;
    ctx.fillRect(10 + (i % 12) * 9, 30 + Math.floor(i / 12) * 9, 8, 8);
  }
  ctx.strokeStyle = '#3366cc';
  ctx.lineWidth = 2.5;
  ctx.beginPath();
  ctx.moveTo(5, height - 5);
  for (let x = 5; x < width; x += 7) ctx.lineTo(x, height / 2 + Math.sin(x / 9) * height * 0.3);
  ctx.stroke();
  ctx.fillStyle = '#222222';
  ctx.font = '15px sans-serif';
  ctx.fillText('forwarded rows 12.5%', 8, 18);
  return canvas;
}

describe('encodePng', () => {
  it.each([
    [333, 177],
    [1, 1],
    [200, 1],
    [1, 90],
  ])('writes the pixels the canvas would (%i × %i)', async (width, height) => {
    const canvas = drawing(width, height, '#ffffff');
    const ours = encodePng(canvas);
    expect(ours.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(ours[25]).toBe(2); // RGB
    const a = await pixels(ours);
    const b = await pixels(canvas.toBuffer('image/png'));
    expect([a.width, a.height]).toEqual([width, height]);
    expect(a.data.equals(b.data)).toBe(true);
  });

  it('read a strip of rows at a time, writes the same file as from all the pixels at once', () => {
    // 300 px a row: 54 rows a strip; heights below one strip, at a strip's edge, and across several.
    const width = 300;
    const strip = Math.floor(STRIP_BYTES / (width * 4));
    for (const height of [1, strip - 1, strip, strip + 1, 3 * strip + 7]) {
      const canvas = drawing(width, height, '#ffffff');
      const px = canvas.data();
      const reads: number[] = [];
      const strips = encodeStripsPng(
        (y, rows) => (reads.push(rows), px.subarray(y * width * 4, (y + rows) * width * 4)),
        width,
        height,
        () => Buffer.from('fallback'),
      );
      expect(strips.equals(encodePixelsPng(px, width, height, () => Buffer.from('fallback')))).toBe(true);
      expect(strips.equals(encodePng(canvas))).toBe(true);
      expect(reads.reduce((a, b) => a + b, 0)).toBe(height);
      expect(Math.max(...reads)).toBeLessThanOrEqual(strip);
    }
  });

  it('read by strips, leaves an image with a transparent pixel in a later strip to the fallback', () => {
    const width = 300;
    const height = 200;
    const canvas = drawing(width, height, '#ffffff');
    const px = Uint8Array.from(canvas.data());
    px[(150 * width + 3) * 4 + 3] = 0; // row 150, in the third strip
    const out = encodeStripsPng(
      (y, rows) => px.subarray(y * width * 4, (y + rows) * width * 4),
      width,
      height,
      () => Buffer.from('fallback'),
    );
    expect(out.toString()).toBe('fallback');
  });

  it('random opaque pixels of any size: decoded, the same; rows a pixel (word) at a time and a byte at a time write the same file', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 70 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        async (width, height, seed) => {
          let x = seed;
          const n = width * height * 4;
          // Pixels at a 4-byte boundary (word at a time) and the same one byte further on (byte at a time).
          const store = new Uint8Array(n + 1);
          for (let i = 0; i < n; i++) store[i + 1] = (i & 3) === 3 ? 255 : ((x = (x * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
          const aligned = Uint8Array.from(store.subarray(1));
          const shifted = store.subarray(1);
          expect(shifted.byteOffset % 4).toBe(1);
          const fallback = () => Buffer.from('fallback');
          const file = encodePixelsPng(aligned, width, height, fallback);
          expect(encodePixelsPng(shifted, width, height, fallback).equals(file)).toBe(true);
          const back = await pixels(file);
          expect(back.data.equals(Buffer.from(aligned))).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('leaves pixels with one not opaque, in any row, to the fallback, word at a time or not', () => {
    const width = 37;
    const height = 5;
    for (const offset of [0, 1]) {
      for (const row of [0, 1, 4]) {
        const store = new Uint8Array(width * height * 4 + offset).fill(255);
        const px = store.subarray(offset);
        px[(row * width + 36) * 4 + 3] = 254;
        expect(encodePixelsPng(px, width, height, () => Buffer.from('fallback')).toString()).toBe('fallback');
      }
    }
  });

  it('leaves a canvas with transparent pixels to the canvas encoder', () => {
    const canvas = drawing(120, 80, null);
    expect(encodePng(canvas).equals(canvas.toBuffer('image/png'))).toBe(true);
    const half = drawing(120, 80, 'rgba(255, 255, 255, 0.5)');
    expect(encodePng(half).equals(half.toBuffer('image/png'))).toBe(true);
  });

  it("the CRC for a Node.js without zlib.crc32 is zlib's: IEND's known CRC and random bytes", () => {
    expect(crc32Js(Buffer.from('IEND', 'latin1'))).toBe(0xae426082);
    let x = 12345;
    const bytes = Uint8Array.from({ length: 10_000 }, () => ((x = (x * 1103515245 + 12345) >>> 0) >>> 16) & 0xff);
    expect(crc32Js(bytes)).toBe(crc32(bytes));
    expect(crc32Js(new Uint8Array(0))).toBe(0);
  });
});
