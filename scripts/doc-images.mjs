#!/usr/bin/env node
/**
 * The two images of the documentation, made from a run of the quickstart:
 *
 *   npm run doc-images      (npm run build first; writes docs/img/*.png)
 *
 * docs/img/quickstart-forwarding.png is the run's charts/forwarding.png drawn 900 pixels wide;
 * docs/img/quickstart-pagemap.png is the top of its page map of exp_row_size 0 before the reorg (title,
 * legend, and the rows where stubs give way to forwarded rows), at full size. Both are written as
 * palette PNGs of at most 16 colours (frequent and far apart; every other pixel takes the nearest), at
 * zlib's best level: a tenth of the size of the charts rowsim writes, for a page that is read, not measured.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as zlib from 'node:zlib';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { crc32Js } from '../dist/report/png.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const COLOURS = 16;
const MIN_DISTANCE = 40 ** 2;
const crc32 = typeof zlib.crc32 === 'function' ? (b) => zlib.crc32(b) : crc32Js;

function chunk(type, body) {
  const out = Buffer.alloc(12 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, 'latin1');
  out.set(body, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)) >>> 0, 8 + body.length);
  return out;
}

/**
 * `n` colours of RGBA pixels: the most frequent first (ties by colour value), each at least MIN_DISTANCE
 * from those already taken, so that a legend's light shades keep a colour of their own.
 */
function paletteOf(px, n) {
  const count = new Map();
  for (let i = 0; i < px.length; i += 4) {
    const k = (px[i] << 16) | (px[i + 1] << 8) | px[i + 2];
    count.set(k, (count.get(k) ?? 0) + 1);
  }
  const pal = [];
  for (const [k] of [...count.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])) {
    if (pal.length === n) break;
    if (pal.every((p) => distance(p, k) >= MIN_DISTANCE)) pal.push(k);
  }
  return pal;
}

/** Squared RGB distance of two 0xRRGGBB colours. */
function distance(p, k) {
  return ((k >> 16) - (p >> 16)) ** 2 + (((k >> 8) & 255) - ((p >> 8) & 255)) ** 2 + ((k & 255) - (p & 255)) ** 2;
}

/** The index of the palette colour nearest to `k` (squared RGB distance). */
function nearest(pal, k) {
  let best = 0;
  let bestD = Infinity;
  for (let i = 0; i < pal.length; i++) {
    const d = distance(pal[i], k);
    if (d < bestD) [best, bestD] = [i, d];
  }
  return best;
}

/** RGBA pixels as a palette PNG (colour type 3, 8 bits an index, no filter, zlib level 9). */
export function palettePng(px, width, height, colours = COLOURS) {
  const pal = paletteOf(px, colours);
  const index = new Map(pal.map((c, i) => [c, i]));
  const raw = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const k = (px[i] << 16) | (px[i + 1] << 8) | px[i + 2];
      let j = index.get(k);
      if (j === undefined) index.set(k, (j = nearest(pal, k)));
      raw[y * (width + 1) + 1 + x] = j;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 3;
  const plte = Buffer.from(pal.flatMap((p) => [p >> 16, (p >> 8) & 255, p & 255]));
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const idat = zlib.deflateSync(raw, { level: 9, memLevel: 9 });
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('PLTE', plte), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** A PNG file drawn `width` pixels wide, then cut to its top `height` pixels (all of it when omitted). */
async function redraw(file, width, height) {
  const img = await loadImage(readFileSync(file));
  const h = height ?? Math.round((img.height * width) / img.width);
  const canvas = createCanvas(width, h);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0, width, Math.round((img.height * width) / img.width));
  return palettePng(ctx.getImageData(0, 0, width, h).data, width, h);
}

const out = mkdtempSync(join(tmpdir(), 'rowsim-doc-images-'));
try {
  execFileSync(process.execPath, [
    join(ROOT, 'bin', 'rowsim.js'),
    'run',
    join(ROOT, 'sim-configs', 'quickstart.yaml'),
    '--out',
    join(out, 'q'),
    '--quiet',
  ]);
  const charts = join(out, 'q', 'charts');
  const images = [
    ['quickstart-forwarding.png', await redraw(join(charts, 'forwarding.png'), 900)],
    ['quickstart-pagemap.png', await redraw(join(charts, 'pagemap-exp-row-size-0-before-reorg-forwarded-rows.png'), 1200, 640)],
  ];
  for (const [name, png] of images) {
    writeFileSync(join(ROOT, 'docs', 'img', name), png);
    console.log(`docs/img/${name}: ${png.length} bytes`);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
