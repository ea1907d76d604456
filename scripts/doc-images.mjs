#!/usr/bin/env node
/**
 * The two images of the documentation, made from a run of the quickstart:
 *
 *   npm run doc-images      (npm run build first; writes docs/img/*.png)
 *
 * docs/img/quickstart-forwarding.png is the run's charts/forwarding.png drawn 800 pixels wide, as a
 * palette PNG of 16 colours (white, the text, grid and series colours it draws, then the most frequent
 * far apart; every other pixel takes the nearest).
 * docs/img/quickstart-pagemap.png is its page map of exp_row_size 0 before the reorg: title, legend, the
 * first rows and the rows where stubs give way to forwarded rows (PAGEMAP_BANDS), at full size, in a
 * palette of the page map's own colours: its fill scale at every whole percent (so a cell keeps its shade
 * to within 1% of fill and matches the legend), its solid colours (src/report/page-map-png.ts) and 16
 * even greys for the edges of letters. Each is a palette PNG at the fewest bits an index its palette
 * allows (4 for 16 colours), deflated at zlib's best level with rows unfiltered, filtered none/sub/up,
 * and filtered by any of PNG's five filters (per row the smallest sum of |byte|), the smallest kept:
 * 33 kB together, an eighth of the two charts they come from (257 kB), for a page that is read.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as zlib from 'node:zlib';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { crc32Js } from '../dist/report/png.js';
import { fillRgb, PAGE_MAP_COLOURS } from '../dist/report/page-map-png.js';
import { GRID_COLOR, PALETTE, TEXT_COLOR } from '../dist/report/chart-base.js';

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
 * `n` colours of RGBA pixels: `seed` first, then the most frequent (ties by colour value), each at least
 * MIN_DISTANCE from those already taken, so that a legend's light shades keep a colour of their own.
 */
function paletteOf(px, n, seed = []) {
  const count = new Map();
  for (let i = 0; i < px.length; i += 4) {
    const k = (px[i] << 16) | (px[i + 1] << 8) | px[i + 2];
    count.set(k, (count.get(k) ?? 0) + 1);
  }
  const pal = [...seed];
  for (const [k] of [...count.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])) {
    if (pal.length === n) break;
    if (pal.every((p) => distance(p, k) >= MIN_DISTANCE)) pal.push(k);
  }
  return pal;
}

/**
 * A chart's palette seed: white, its text and grid colours and the series colours of
 * src/report/chart-base.ts that the image draws (MIN_SERIES_PIXELS pixels or more within SERIES_DISTANCE
 * of it), so that a thin line keeps its own colour rather than the nearest of the frequent blends.
 */
function chartSeed(px) {
  const hex = (c) => parseInt(c.slice(1), 16);
  const series = PALETTE.map(hex).filter((c) => {
    let n = 0;
    for (let i = 0; i < px.length && n < MIN_SERIES_PIXELS; i += 4) {
      if (distance(c, (px[i] << 16) | (px[i + 1] << 8) | px[i + 2]) < SERIES_DISTANCE) n++;
    }
    return n >= MIN_SERIES_PIXELS;
  });
  return [...new Set([0xffffff, hex(TEXT_COLOR), hex(GRID_COLOR), ...series])];
}

const MIN_SERIES_PIXELS = 30;
const SERIES_DISTANCE = 30 ** 2;

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

/** The page map's palette: its fill scale at each whole percent, its solid colours, 16 even greys. */
function pageMapPalette() {
  const rgb = (r, g, b) => (r << 16) | (g << 8) | b;
  const scale = Array.from({ length: 101 }, (_, k) => rgb(...fillRgb(k / 100)));
  const solid = PAGE_MAP_COLOURS.map((c) => parseInt(c.slice(1), 16));
  const greys = Array.from({ length: 16 }, (_, k) => rgb(k * 17, k * 17, k * 17));
  return [...new Set([...solid, ...greys, ...scale])];
}

/** RGBA pixels as rows of palette indices (each pixel the palette's nearest colour). */
function indexRows(px, width, height, pal) {
  const index = new Map(pal.map((c, i) => [c, i]));
  const rows = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(width);
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const k = (px[i] << 16) | (px[i + 1] << 8) | px[i + 2];
      let j = index.get(k);
      if (j === undefined) index.set(k, (j = nearest(pal, k)));
      row[x] = j;
    }
    rows.push(row);
  }
  return rows;
}

/** Palette indices packed `bits` to a byte (8, 4, 2 or 1), leftmost pixel in the high bits, as PNG packs them. */
function packRows(rows, width, bits) {
  if (bits === 8) return rows;
  const perByte = 8 / bits;
  return rows.map((row) => {
    const out = Buffer.alloc(Math.ceil(width / perByte));
    for (let x = 0; x < width; x++) out[Math.floor(x / perByte)] |= row[x] << (8 - bits * ((x % perByte) + 1));
    return out;
  });
}

/** The Paeth predictor of PNG: whichever of left, above and upper-left is nearest to left + above − upper-left. */
function paeth(a, b, c) {
  const p = a + b - c;
  const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/**
 * Each row (bytes, not pixels: one byte is the filters' unit below 8 bits) with its PNG filter byte, the
 * filter chosen row by row among `types` (0 none, 1 sub, 2 up, 3 average, 4 Paeth) by the smallest sum
 * of |byte| (bytes taken as signed).
 */
function filterRows(rows, types) {
  const n = rows[0].length;
  const out = Buffer.alloc((n + 1) * rows.length);
  const cost = (b) => b.reduce((s, v) => s + (v < 128 ? v : 256 - v), 0);
  rows.forEach((row, y) => {
    const above = y > 0 ? rows[y - 1] : Buffer.alloc(n);
    const filtered = (type) =>
      row.map((v, x) => {
        const [a, b, c] = [x > 0 ? row[x - 1] : 0, above[x], x > 0 ? above[x - 1] : 0];
        return (v - [0, a, b, (a + b) >> 1, paeth(a, b, c)][type]) & 255;
      });
    const [type, bytes] = types.map((t) => [t, filtered(t)]).reduce((p, q) => (cost(q[1]) < cost(p[1]) ? q : p));
    out[y * (n + 1)] = type;
    out.set(bytes, y * (n + 1) + 1);
  });
  return out;
}

/**
 * RGBA pixels as a palette PNG (colour type 3) of `pal` (0xRRGGBB colours, at most 256), at the fewest bits
 * an index the palette allows; deflated (zlib's best level) with each filter choice and strategy, the
 * smallest kept.
 */
export function palettePng(px, width, height, pal) {
  const bits = pal.length <= 2 ? 1 : pal.length <= 4 ? 2 : pal.length <= 16 ? 4 : 8;
  const rows = packRows(indexRows(px, width, height, pal), width, bits);
  const strategies = [zlib.constants.Z_DEFAULT_STRATEGY, zlib.constants.Z_FILTERED];
  const idat = [[0], [0, 1, 2], [0, 1, 2, 3, 4]]
    .flatMap((types) => strategies.map((strategy) => zlib.deflateSync(filterRows(rows, types), { level: 9, memLevel: 9, strategy })))
    .reduce((a, b) => (b.length < a.length ? b : a));
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = bits;
  ihdr[9] = 3;
  const plte = Buffer.from(pal.flatMap((p) => [p >> 16, (p >> 8) & 255, p & 255]));
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('PLTE', plte), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/**
 * A PNG file drawn `width` pixels wide, then cut to its top `height` pixels (all of it when omitted), in
 * palette `pal` (by default the image's COLOURS most frequent colours far apart). `bands`, when given,
 * are the [top, bottom) pixel rows kept, each after the first set below the one before with GAP white
 * rows between: a long run of like rows shown by its two ends.
 */
async function redraw(file, width, height, pal, bands) {
  const img = await loadImage(readFileSync(file));
  const h = height ?? Math.round((img.height * width) / img.width);
  const canvas = createCanvas(width, h);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0, width, Math.round((img.height * width) / img.width));
  const all = ctx.getImageData(0, 0, width, h).data;
  const px = bands ? keepBands(all, width, bands) : all;
  const kept = px.length / (4 * width);
  return palettePng(px, width, kept, pal ?? paletteOf(px, COLOURS, chartSeed(px)));
}

const GAP = 8;

/** The rows of `bands` ([top, bottom) each) of RGBA pixels `width` wide, GAP white rows between bands. */
function keepBands(px, width, bands) {
  const row = 4 * width;
  const height = bands.reduce((n, [top, bottom]) => n + bottom - top, 0) + GAP * (bands.length - 1);
  const out = new Uint8ClampedArray(height * row).fill(255);
  let y = 0;
  bands.forEach(([top, bottom], i) => {
    if (i > 0) y += GAP;
    out.set(px.subarray(top * row, bottom * row), y * row);
    y += bottom - top;
  });
  return out;
}

/**
 * The page map's title and legend (to y 159, where its grid starts), its first row of cells (pages 0 to
 * 54: 20 pixels a row of 55 pages), then rows 17 to 22 (pages 935 to 1,264), where the stubs give way to
 * the forwarded rows; rows 1 to 16, like the first, and the rows after 22 are left out.
 */
const PAGEMAP_BANDS = [
  [0, 179],
  [499, 619],
];

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
    ['quickstart-forwarding.png', await redraw(join(charts, 'forwarding.png'), 800)],
    [
      'quickstart-pagemap.png',
      await redraw(join(charts, 'pagemap-exp-row-size-0-before-reorg-forwarded-rows.png'), 1200, 640, pageMapPalette(), PAGEMAP_BANDS),
    ],
  ];
  for (const [name, png] of images) {
    writeFileSync(join(ROOT, 'docs', 'img', name), png);
    console.log(`docs/img/${name}: ${png.length} bytes`);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
