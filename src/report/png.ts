/**
 * PNG files of the charts and page maps, written from the canvas's pixels by rowsim rather than by the
 * canvas's own encoder. @napi-rs/canvas encodes PNG at zlib's default level with no setting to change
 * it: about 30 ms of CPU to encode a 1200 × 850 page map once drawn, against about 15 here (the pixels'
 * copy out of the canvas included). Here: the pixels as 8-bit RGB (every pixel of a chart or page map is opaque: each paints a
 * white background first), each row with the Up filter (the row above subtracted, which turns the rows
 * a cell repeats into zeros), deflated at zlib level 1. The files are larger than the canvas's (about
 * a quarter) and take half the time; decoded, their pixels are the same. A canvas with any
 * pixel not opaque is left to the canvas's encoder (RGB cannot say transparency).
 *
 * Page maps (page-map-png.ts) are put together a strip of rows at a time (encodeRowsPng): memory first
 * touched costs a page fault a 4 kB page, 15–20 µs each on a virtual machine, and a 4 MB buffer a map
 * is fresh memory nearly every time, where small strips come back to the allocator. On a little-endian
 * machine a row's Up differences are taken a pixel (32-bit word) at a time (upRow).
 *
 * The chunks besides the pixels are the ones the canvas writes: sBIT (8 bits a channel) and sRGB
 * (perceptual).
 */
import * as zlib from 'node:zlib';

/** What a canvas of @napi-rs/canvas offers the encoder. */
export interface PngSource {
  readonly width: number;
  readonly height: number;
  /** The pixels, RGBA, 4 bytes a pixel, row by row (premultiplied: the same as straight for opaque pixels). */
  data(): Uint8Array;
  toBuffer(mime: 'image/png'): Buffer;
}

/** The zlib level: the fastest. */
const LEVEL = 1;

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let crcTable: Uint32Array | undefined;

/** CRC-32 as PNG computes it, for a Node.js before 20.15 (no zlib.crc32). */
export function crc32Js(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  const t = crcTable;
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = t[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** zlib's own CRC-32 (native) where Node.js has it. */
const crc32: (bytes: Uint8Array) => number = typeof zlib.crc32 === 'function' ? (bytes) => zlib.crc32(bytes) : crc32Js;

function chunk(type: string, body: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(12 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, 'latin1');
  out.set(body, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
  return out;
}

/**
 * The filtered rows, reused from one image to the next on a thread (a fresh 3 MB buffer a map costs
 * more in page faults than the filtering does).
 */
let scratch: Buffer | undefined;

/** Whether the machine stores a 32-bit word's low byte first: a word of RGBA bytes then holds red in its low byte and alpha in its high byte. */
export const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(0x01020304).buffer)[0] === 0x04;

/**
 * Rows `y0` … `y0 + rows − 1` of an image `width` pixels wide, RGBA at `buf[i0 …]` (the row above `y0`, if
 * any, just before it), each as a filter byte (2, Up; 0 for the image's first row) and the RGB differences
 * with the row above, written to `out` from `o`. Returns where the next row goes, or −1 as soon as a row
 * has a pixel that is not opaque. A row equal to the one above is found by one native comparison and
 * written as zeros: most rows of a chart repeat the one above. The others are differenced a pixel (one
 * 32-bit word) at a time where the bytes allow it (upRow).
 */
function filterRows(buf: Buffer, i0: number, y0: number, rows: number, width: number, out: Buffer, o: number): number {
  const rowIn = width * 4;
  const rowOut = width * 3 + 1;
  const words = LITTLE_ENDIAN && (buf.byteOffset + i0) % 4 === 0 ? new Uint32Array(buf.buffer, buf.byteOffset, buf.length >>> 2) : null;
  let i = i0;
  for (let y = y0; y < y0 + rows; y++) {
    // Equal to the row above (a background, a band of cells): all zeros, and opaque as that row was.
    if (y > 0 && buf.compare(buf, i - rowIn, i, i, i + rowIn) === 0) {
      out[o++] = 2;
      out.fill(0, o, o + rowOut - 1);
      o += rowOut - 1;
      i += rowIn;
      continue;
    }
    if (y === 0) {
      out[o++] = 0;
      for (let x = 0; x < width; x++, i += 4) {
        if (buf[i + 3] !== 255) return -1;
        out[o++] = buf[i]!;
        out[o++] = buf[i + 1]!;
        out[o++] = buf[i + 2]!;
      }
    } else if (words) {
      out[o++] = 2;
      o = upRow(words, i >>> 2, width, out, o);
      if (o < 0) return -1;
      i += rowIn;
    } else {
      out[o++] = 2;
      for (let x = 0; x < width; x++, i += 4) {
        if (buf[i + 3] !== 255) return -1;
        out[o++] = (buf[i]! - buf[i - rowIn]!) & 0xff;
        out[o++] = (buf[i + 1]! - buf[i + 1 - rowIn]!) & 0xff;
        out[o++] = (buf[i + 2]! - buf[i + 2 - rowIn]!) & 0xff;
      }
    }
  }
  return o;
}

/**
 * One row's Up differences from its pixels as 32-bit words (`px[p …]`, the row above just before it,
 * little-endian: red in the low byte): the four bytes of a pixel are subtracted at once, each modulo 256
 * (the high bits set aside so that no byte borrows from the next, then put back), and red, green and
 * blue written to `out` from `o`. Returns where the next row goes, or −1 when a pixel is not opaque.
 */
function upRow(px: Uint32Array, p: number, width: number, out: Buffer, o: number): number {
  const above = p - width;
  let alpha = -1;
  for (let x = 0; x < width; x++) {
    const a = px[p + x]!;
    const b = px[above + x]!;
    alpha &= a;
    const d = ((a | 0x80808080) - (b & 0x7f7f7f7f)) ^ ((a ^ ~b) & 0x80808080);
    out[o] = d;
    out[o + 1] = d >>> 8;
    out[o + 2] = d >>> 16;
    o += 3;
  }
  return alpha >>> 24 === 255 ? o : -1;
}

/** The filtered rows' buffer of this thread, `size` bytes or more. */
function filteredBuffer(size: number): Buffer {
  if (!scratch || scratch.length < size) scratch = Buffer.allocUnsafe(size);
  return scratch;
}

function asBuffer(px: Uint8Array | Uint8ClampedArray): Buffer {
  return Buffer.from(px.buffer, px.byteOffset, px.byteLength);
}

function pngFile(width: number, height: number, rows: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bits a channel
  ihdr[9] = 2; // colour type: RGB
  // compression, filter method, interlace: 0
  const idat = zlib.deflateSync(rows, { level: LEVEL });
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', ihdr),
    chunk('sBIT', Uint8Array.of(8, 8, 8)),
    chunk('sRGB', Uint8Array.of(0)),
    chunk('IDAT', idat),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

/** The canvas as a PNG file: RGB, Up-filtered, zlib level 1 when every pixel is opaque; else the canvas's own PNG. */
export function encodePng(canvas: PngSource): Buffer {
  return encodePixelsPng(canvas.data(), canvas.width, canvas.height, () => canvas.toBuffer('image/png'));
}

/**
 * RGBA pixels `px` (`width` × `height`, row by row) as a PNG file: RGB, Up-filtered, zlib level 1 when
 * every pixel is opaque; else what `fallback` makes (the canvas's own encoder).
 */
export function encodePixelsPng(px: Uint8Array | Uint8ClampedArray, width: number, height: number, fallback: () => Buffer): Buffer {
  if (width <= 0 || height <= 0 || px.length !== width * height * 4) return fallback();
  const size = (width * 3 + 1) * height;
  const out = filteredBuffer(size);
  if (filterRows(asBuffer(px), 0, 0, height, width, out, 0) < 0) return fallback();
  return pngFile(width, height, out.subarray(0, size));
}

/** The rows a strip read at a time by encodeStripsPng: about 64 kB of RGBA at 1200 pixels a row. */
export const STRIP_BYTES = 1 << 16;

/** The strip buffer of this thread: the last row of the strip before, then the strip. */
let stripScratch: Buffer | undefined;

/**
 * encodePixelsPng of an image read a strip of rows at a time: `read(y, n)` gives rows y … y + n − 1, RGBA.
 * The strips are small (STRIP_BYTES) so that what reading them allocates comes back to the allocator
 * and is used again, rather than 4 MB of fresh memory a page map, whose first touch costs a page fault a
 * 4 kB page.
 */
export function encodeStripsPng(
  read: (y: number, rows: number) => Uint8Array | Uint8ClampedArray,
  width: number,
  height: number,
  fallback: () => Buffer,
): Buffer {
  return encodeRowsPng(
    (y, rows, into, at) => {
      const px = read(y, rows);
      if (px.length !== rows * width * 4) return false;
      into.set(px, at);
      return true;
    },
    width,
    height,
    fallback,
  );
}

/**
 * encodeStripsPng with the strip written in place: `fill(y, n, into, at)` writes rows y … y + n − 1, RGBA,
 * to `into` from `at` (and returns true; false: the pixels cannot be had, the fallback's file is used).
 */
export function encodeRowsPng(
  fill: (y: number, rows: number, into: Buffer, at: number) => boolean,
  width: number,
  height: number,
  fallback: () => Buffer,
): Buffer {
  if (width <= 0 || height <= 0) return fallback();
  const rowIn = width * 4;
  const strip = Math.max(1, Math.floor(STRIP_BYTES / rowIn));
  if (!stripScratch || stripScratch.length < (strip + 1) * rowIn) stripScratch = Buffer.allocUnsafe((strip + 1) * rowIn);
  const work = stripScratch;
  const size = (width * 3 + 1) * height;
  const out = filteredBuffer(size);
  let o = 0;
  for (let y = 0; y < height; y += strip) {
    const n = Math.min(strip, height - y);
    // The row above this strip's first sits just before it.
    if (y > 0) work.copyWithin(0, strip * rowIn, (strip + 1) * rowIn);
    if (!fill(y, n, work, rowIn)) return fallback();
    o = filterRows(work, rowIn, y, n, width, out, o);
    if (o < 0) return fallback();
    // Keep this strip's last row where the next strip's row above is read from.
    if (n < strip) break;
  }
  return pngFile(width, height, out.subarray(0, size));
}
