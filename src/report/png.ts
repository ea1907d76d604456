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

/**
 * Each row of RGBA `px` as a filter byte (2, Up; 0 for the first row) and the RGB differences with the
 * row above; undefined as soon as a pixel is not opaque. A row equal to the one above is found by one
 * native comparison and written as zeros: most rows of a page map repeat the one above.
 */
function filterRows(px: Uint8Array | Uint8ClampedArray, width: number, height: number): Buffer | undefined {
  const rowIn = width * 4;
  const rowOut = width * 3 + 1;
  const size = rowOut * height;
  if (!scratch || scratch.length < size) scratch = Buffer.allocUnsafe(size);
  const out = scratch;
  // The pixels as a Buffer (no copy), to compare a row with the one above natively.
  const src = Buffer.from(px.buffer, px.byteOffset, px.byteLength);
  let o = 0;
  let i = 0;
  for (let y = 0; y < height; y++) {
    // A row the same as the one above (a chart's background, a page map's band of cells): all zeros, and
    // opaque if that row was.
    if (y > 0 && src.compare(src, i - rowIn, i, i, i + rowIn) === 0) {
      out[o++] = 2;
      out.fill(0, o, o + rowOut - 1);
      o += rowOut - 1;
      i += rowIn;
      continue;
    }
    if (y === 0) {
      out[o++] = 0;
      for (let x = 0; x < width; x++, i += 4) {
        if (px[i + 3] !== 255) return undefined;
        out[o++] = px[i]!;
        out[o++] = px[i + 1]!;
        out[o++] = px[i + 2]!;
      }
    } else {
      out[o++] = 2;
      for (let x = 0; x < width; x++, i += 4) {
        if (px[i + 3] !== 255) return undefined;
        out[o++] = (px[i]! - px[i - rowIn]!) & 0xff;
        out[o++] = (px[i + 1]! - px[i + 1 - rowIn]!) & 0xff;
        out[o++] = (px[i + 2]! - px[i + 2 - rowIn]!) & 0xff;
      }
    }
  }
  return out.subarray(0, size);
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
  const rows = filterRows(px, width, height);
  if (!rows) return fallback();
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bits a channel
  ihdr[9] = 2; // colour type: RGB
  // compression, filter method, interlace: 0
  const idat = zlib.deflateSync(rows, { level: LEVEL });
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('sBIT', Uint8Array.of(8, 8, 8)), chunk('sRGB', Uint8Array.of(0)), chunk('IDAT', idat), chunk('IEND', new Uint8Array(0))]);
}
