/**
 * Page maps as PNG files: a table's pages as a grid of cells, each shaded by how full its page is, with
 * corner marks where a page holds forwarding stubs or forwarded rows (their names are the format's).
 * Large tables are drawn several pages a cell (RUN_DEFAULTS.pageMapMaxCells), and an image taller than
 * PM_MAX_HEIGHT shows its first rows and says so.
 *
 * rowsim paints the grid itself (paintCells, paintMark), and the canvas (@napi-rs/canvas) draws only the
 * text: the header with its legend, and the row labels, each on a small canvas a thread keeps. The PNG
 * is put together a strip of rows at a time from those and the grid (composedPng, png.ts). The sizes,
 * fonts and number formats are the charts' (charts.ts).
 */
import { createCanvas, ImageData, type Canvas } from '@napi-rs/canvas';
import { encodeRowsPng, encodeStripsPng, LITTLE_ENDIAN } from './png.js';
import {
  CHART_WIDTH,
  ensureSetup,
  FONT_PX,
  formatNumber,
  pmFont,
  scaleOf,
  TEXT_COLOR,
  UNKNOWN_COLOR,
  wrapText,
  type Ctx2D,
} from './charts.js';
import { RUN_DEFAULTS } from '../config/defaults.js';
import { reducePageMap } from '../workload/page-map.js';

export interface PageMapSpec {
  title: string;
  subtitle?: string;
  fill: ArrayLike<number>; // per cell, 0..1: fraction of the usable page bytes in use (a cell's pages: their mean)
  stubs: ArrayLike<number>; // per cell: forwarding stubs
  forwardedIn: ArrayLike<number>; // per cell: forwarded rows living on its pages away from their home
  /** Pages a cell stands for (default 1); the last cell may hold fewer. */
  pagesPerCell?: number;
  /** Pages of the table (default: cells × pagesPerCell). */
  totalPages?: number;
  /** Pages that hold stubs and forwarded-in rows, counted page by page (default: the cells that do). */
  stubPages?: number;
  forwardedInPages?: number;
  /** What the two corner marks stand for, in the format's words; null: the format has no such rows (no marks). */
  marks?: { stubs: string; movedIn: string } | null;
  /** Cells drawn at most (default RUN_DEFAULTS.pageMapMaxCells): more pages are drawn several a cell. */
  maxCells?: number;
  width?: number; // default CHART_WIDTH; height follows from the number of cells
  scale?: number;
}

/** Sequential blue scale (ColorBrewer Blues-like), from a light but non-white tint to navy. */
const FILL_STOPS: Array<[number, [number, number, number]]> = [
  [0, [235, 242, 250]],
  [0.25, [189, 215, 238]],
  [0.5, [107, 174, 214]],
  [0.75, [33, 113, 181]],
  [1, [8, 48, 107]],
];
const STUB_COLOR = '#e0001b';
const FWD_COLOR = '#ff8c00';
const GRID_BG = '#c8c8c8';

/** The solid colours a page map draws besides its fill scale (scripts/doc-images.mjs builds its palette from them). */
export const PAGE_MAP_COLOURS: readonly string[] = [
  STUB_COLOR,
  FWD_COLOR,
  GRID_BG,
  UNKNOWN_COLOR,
  TEXT_COLOR,
  '#111111',
  '#555555',
  '#666666',
  '#888888',
  '#ffffff',
];

/** Colour of a page filled to `f` (0..1); non-finite → grey. */
function fillColor(f: number): string {
  const [r, g, b] = fillRgb(f);
  return `rgb(${r},${g},${b})`;
}

/** The fill scale's colour of a fill (0..1) as red, green, blue; UNKNOWN_COLOR for no figure. */
export function fillRgb(f: number): [number, number, number] {
  if (!Number.isFinite(f)) return hexRgb(UNKNOWN_COLOR);
  const t = Math.min(1, Math.max(0, f));
  for (let i = 1; i < FILL_STOPS.length; i++) {
    const [t1, c1] = FILL_STOPS[i]!;
    if (t <= t1) {
      const [t0, c0] = FILL_STOPS[i - 1]!;
      const u = (t - t0) / (t1 - t0);
      return [0, 1, 2].map((k) => Math.round(c0[k]! + (c1[k]! - c0[k]!) * u)) as [number, number, number];
    }
  }
  return FILL_STOPS[FILL_STOPS.length - 1]![1];
}

function hexRgb(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** An opaque colour as one 32-bit RGBA pixel in the machine's byte order (for Uint32Array views of image data). */
function pixel32([r, g, b]: readonly number[]): number {
  return rgbWord(r!, g!, b!);
}

/** pixel32 of red, green and blue (0–255 each). */
function rgbWord(r: number, g: number, b: number): number {
  return (LITTLE_ENDIAN ? (255 << 24) | (b << 16) | (g << 8) | r : (r << 24) | (g << 16) | (b << 8) | 255) >>> 0;
}

/**
 * Page maps are drawn on one canvas a thread, and their cells in one pixel buffer, kept from one map to
 * the next while they are at most this many pixels. Memory first touched costs a page fault a 4 kB page
 * (15–20 µs each on a virtual machine such as this project's): a fresh 1200 × 850 canvas and its pixels
 * read back cost more in faults than drawing the map does.
 */
const KEEP_PIXELS = 1 << 23;
let keptCanvas: Canvas | undefined;
let keptCells: Uint32Array | undefined;

/** A canvas `w` pixels wide and at least `h` high (the kept one when it fits), for a drawing read back as its top `h` rows. */
function mapCanvas(w: number, h: number): Canvas {
  if (w * h > KEEP_PIXELS) return createCanvas(w, h);
  // Headroom: the maps of a sweep differ in height by a few rows, and rows never drawn on cost nothing.
  if (!keptCanvas || keptCanvas.width !== w || keptCanvas.height < h)
    keptCanvas = createCanvas(w, Math.min(Math.floor(KEEP_PIXELS / w), Math.ceil((h + 1) / 512) * 512));
  return keptCanvas;
}

/**
 * A page map's grid as rowsim paints it, in device pixels: `w` × `h` pixels whose top left corner is at
 * (x, y) of the image, RGBA, row by row (`words` the same memory as 32-bit pixels).
 */
interface GridPixels {
  x: number;
  y: number;
  w: number;
  h: number;
  bytes: Uint8Array;
  words: Uint32Array;
}

/** The top `w` × `h` pixels of `canvas` as a PNG file, read a strip at a time (encodePng's file; the canvas's own encoder where a pixel is not opaque). */
function regionPng(canvas: Canvas, w: number, h: number): Buffer {
  const ctx = canvas.getContext('2d');
  return encodeStripsPng(
    (y, rows) => ctx.getImageData(0, y, w, rows).data,
    w,
    h,
    () => {
      if (canvas.height === h) return canvas.toBuffer('image/png');
      const exact = createCanvas(w, h);
      exact.getContext('2d').drawImage(canvas, 0, 0);
      return exact.toBuffer('image/png');
    },
  );
}

/**
 * The canvases a thread keeps for the parts of page maps the canvas draws: the header (the whole width,
 * the rows above the grid) and the row labels (the columns left of the grid, its rows and those below).
 * Small, because reading a canvas back costs in proportion to its size, and more than that the first
 * few times: Skia copies the canvas's pixels to fresh memory before drawing on it again after a read, a
 * page fault a 4 kB page until the allocator has memory to give back (a 1200 × 1024 canvas: 15–24 ms of
 * CPU a read for the first six reads of a process, then 0.3; a 1200 × 160 one 2–6 ms, then 0.1).
 */
const keptParts = new Map<'header' | 'labels', Canvas>();

/** The kept canvas `part`, at least `w` × `h` (rounded up so that the maps of a sweep share one), or a fresh one past KEEP_PIXELS. */
function partCanvas(part: 'header' | 'labels', w: number, h: number): Canvas {
  if (w * h > KEEP_PIXELS) return createCanvas(w, h);
  const kept = keptParts.get(part);
  if (kept && kept.width >= w && kept.height >= h) return kept;
  const round = (v: number, step: number) => Math.ceil((v + 1) / step) * step;
  const cw = Math.max(w, part === 'labels' ? round(w, 64) : w, kept?.width ?? 0);
  const ch = Math.min(Math.max(h, Math.floor(KEEP_PIXELS / cw)), Math.max(round(h, part === 'header' ? 64 : 512), kept?.height ?? 0));
  const c = createCanvas(cw, ch);
  keptParts.set(part, c);
  return c;
}

/**
 * A page map as a PNG file, put together a strip of rows at a time: the rows above the grid from the
 * header's canvas, then beside the grid the row labels' canvas (its first grid.x columns), the grid's own
 * pixels and white. `full()` is the canvas's own file of the same picture (the fallback: a pixel that is
 * not opaque, which none of these has).
 */
function composedPng(w: number, h: number, header: Canvas, labels: Canvas, grid: GridPixels, full: () => Buffer): Buffer {
  const hctx = header.getContext('2d');
  const lctx = labels.getContext('2d');
  const rowIn = w * 4;
  const top = grid.y;
  const side = grid.x * 4;
  const gw = grid.w * 4;
  return encodeRowsPng(
    (y, rows, into, at) => {
      let r = 0;
      if (y < top) {
        r = Math.min(rows, top - y);
        const px = hctx.getImageData(0, y, w, r).data;
        if (px.length !== r * rowIn) return false;
        into.set(px, at);
      }
      if (r === rows) return true;
      const y1 = y + r;
      const n = rows - r;
      const o = at + r * rowIn;
      into.fill(255, o, o + n * rowIn);
      const left = side > 0 ? lctx.getImageData(0, y1 - top, grid.x, n).data : null;
      for (let k = 0; k < n; k++) {
        const row = o + k * rowIn;
        if (left) into.set(left.subarray(k * side, (k + 1) * side), row);
        const g = y1 + k - top;
        if (g < grid.h) into.set(grid.bytes.subarray(g * gw, (g + 1) * gw), row + side);
      }
      return true;
    },
    w,
    h,
    full,
  );
}

/** `w` × `h` pixels for paintCells, on the kept pixel buffer when it fits (its contents are painted over). */
function cellPixels(x: number, y: number, w: number, h: number): GridPixels {
  const n = w * h;
  let words: Uint32Array;
  if (n > KEEP_PIXELS) words = new Uint32Array(n);
  else {
    if (!keptCells || keptCells.length < n) keptCells = new Uint32Array(n);
    words = keptCells.subarray(0, n);
  }
  return { x, y, w, h, words, bytes: new Uint8Array(words.buffer, words.byteOffset, n * 4) };
}

/**
 * The grid of a page map as pixels, cells and corner marks, drawn by rowsim rather than the canvas
 * (composedPng puts them in the image): a 20,000-cell map costs a millisecond or two. Device pixels:
 * `scale` is applied here. Each cell's row of pixels is one fill of 32-bit words; a mark is the same
 * triangle the legend's sample shows (markPath), each pixel on its slanted edge given the share of it the
 * triangle covers (its colour that share of the mark's and the rest the cell's), as the canvas smooths an
 * edge.
 */
function paintCells(
  L: { cell: number; cols: number; gridLeft: number; gridTop: number; pages: number; scale: number },
  cells: PageCells,
  gap: number,
  marks: boolean,
): GridPixels {
  const { cell, cols, gridLeft, gridTop, pages, scale } = L;
  const rows = Math.ceil(pages / cols);
  const x0 = Math.round(gridLeft * scale);
  const y0 = Math.round(gridTop * scale);
  const w = Math.round((gridLeft + cols * cell) * scale) - x0;
  const h = Math.round((gridTop + rows * cell) * scale) - y0;
  const grid = cellPixels(x0, y0, w, h);
  const words = grid.words;
  /** Fill a box given in layout px from the grid's corner (its device pixels rounded as the cells' are). */
  const box = (x: number, y: number, bw: number, bh: number, word: number): void => {
    const px0 = Math.round((gridLeft + x) * scale) - x0;
    const px1 = Math.min(w, Math.round((gridLeft + x + bw) * scale) - x0);
    const py1 = Math.min(h, Math.round((gridTop + y + bh) * scale) - y0);
    if (px1 <= px0) return;
    for (let py = Math.round((gridTop + y) * scale) - y0; py < py1; py++) words.fill(word, py * w + px0, py * w + px1);
  };
  // White, then grey behind the cells (it shows as the separators).
  words.fill(pixel32([255, 255, 255]));
  const bg = pixel32(hexRgb(GRID_BG));
  const fullRows = Math.floor(pages / cols);
  box(0, 0, cols * cell, fullRows * cell, bg);
  if (pages % cols) box(0, fullRows * cell, (pages % cols) * cell, cell, bg);
  const inner = cell - gap;
  // Each column's and row's device pixels, once: cell (c, r) is [xs[c], xe[c]) × [ys[r], ye[r]). The
  // loop below then does little but fill: a thread's first maps run it before it is compiled.
  const xs = new Int32Array(cols);
  const xe = new Int32Array(cols);
  for (let c = 0; c < cols; c++) {
    xs[c] = Math.round((gridLeft + c * cell) * scale) - x0;
    xe[c] = Math.min(w, Math.round((gridLeft + c * cell + inner) * scale) - x0);
  }
  const ys = new Int32Array(rows);
  const ye = new Int32Array(rows);
  for (let r = 0; r < rows; r++) {
    ys[r] = Math.round((gridTop + r * cell) * scale) - y0;
    ye[r] = Math.min(h, Math.round((gridTop + r * cell + inner) * scale) - y0);
  }
  const cache = new Map<number, { rgb: [number, number, number]; word: number }>();
  const stub = hexRgb(STUB_COLOR);
  const moved = hexRgb(FWD_COLOR);
  for (let i = 0, c = 0, r = 0; i < pages; i++) {
    const f = cells.fill[i]!;
    const key = Number.isFinite(f) ? Math.round(Math.min(1, Math.max(0, f)) * 4096) : -1;
    let k = cache.get(key);
    if (!k) {
      const rgb = fillRgb(key < 0 ? NaN : key / 4096);
      cache.set(key, (k = { rgb, word: pixel32(rgb) }));
    }
    const px0 = xs[c]!;
    const px1 = xe[c]!;
    const py0 = ys[r]!;
    const py1 = ye[r]!;
    if (px1 > px0) for (let py = py0; py < py1; py++) words.fill(k.word, py * w + px0, py * w + px1);
    if (marks) {
      if (valAt(cells.stubs, i) > 0) paintMark(words, w, px0, py0, px1, py1, inner, scale, 'tl', stub, k.rgb);
      if (valAt(cells.forwardedIn, i) > 0) paintMark(words, w, px0, py0, px1, py1, inner, scale, 'br', moved, k.rgb);
    }
    if (++c === cols) {
      c = 0;
      r++;
    }
  }
  return grid;
}

/**
 * A corner mark of a cell of layout size `s` whose device pixels are [px0, px1) × [py0, py1) (markPath's
 * shape): a right triangle of legs t = max(4, round(0.55 s)) when s ≥ 8, its slanted edge's pixels
 * blended by the share the triangle covers; else a square of ceil(s / 2), whole pixels.
 */
function paintMark(
  words: Uint32Array,
  w: number,
  px0: number,
  py0: number,
  px1: number,
  py1: number,
  s: number,
  scale: number,
  corner: 'tl' | 'br',
  mark: readonly number[],
  under: readonly number[],
): void {
  const cw = px1 - px0;
  const ch = py1 - py0;
  if (cw <= 0 || ch <= 0) return;
  const solid = pixel32(mark);
  if (s < 8) {
    const t = Math.min(cw, ch, Math.max(1, Math.round(Math.ceil(s / 2) * scale)));
    for (let v = 0; v < t; v++) {
      const py = corner === 'tl' ? py0 + v : py1 - 1 - v;
      if (corner === 'tl') words.fill(solid, py * w + px0, py * w + px0 + t);
      else words.fill(solid, py * w + px1 - t, py * w + px1);
    }
    return;
  }
  // Legs in device pixels; pixel (u, v) counted from the corner is the square [u, u + 1] × [v, v + 1],
  // and the triangle is X + Y ≤ T.
  const T = Math.max(4, Math.round(s * 0.55)) * scale;
  for (let v = 0; v < Math.min(ch, Math.ceil(T)); v++) {
    const py = corner === 'tl' ? py0 + v : py1 - 1 - v;
    const rowAt = py * w;
    // Whole pixels: u + v + 2 ≤ T.
    const whole = Math.max(0, Math.min(cw, Math.floor(T - v - 2) + 1));
    if (corner === 'tl') words.fill(solid, rowAt + px0, rowAt + px0 + whole);
    else words.fill(solid, rowAt + px1 - whole, rowAt + px1);
    for (let u = whole; u < Math.min(cw, Math.ceil(T - v)); u++) {
      const m = T - u - v;
      const cover = m >= 2 ? 1 : m > 1 ? 1 - ((2 - m) * (2 - m)) / 2 : m > 0 ? (m * m) / 2 : 0;
      if (cover <= 0) continue;
      const px = corner === 'tl' ? px0 + u : px1 - 1 - u;
      const rest = 1 - cover;
      words[rowAt + px] = rgbWord(
        Math.round(mark[0]! * cover + under[0]! * rest),
        Math.round(mark[1]! * cover + under[1]! * rest),
        Math.round(mark[2]! * cover + under[2]! * rest),
      );
    }
  }
}

interface PageMapLayout {
  /** Cells drawn (≤ the cells of the map). */
  pages: number;
  /** Pages of the table. */
  totalPages: number;
  /** Pages a cell stands for (1: one page a cell). */
  pagesPerCell: number;
  /** Cell size in px; cell i is at (gridLeft + (i % cols) * cell, gridTop + floor(i / cols) * cell). */
  cell: number;
  cols: number;
  rows: number;
  gridLeft: number;
  gridTop: number;
  /** Layout size in px (the PNG is `scale` times as many pixels each way). */
  width: number;
  height: number;
  scale: number;
  /** Subtitle as drawn (with the "showing the first N of M cells" note when the image would be too tall). */
  subtitle: string;
}

const PM_MARGIN = 16;
const PM_MAX_CELL = 32;
/** The tallest PNG drawn, in pixels (PNG viewers struggle beyond); taller maps show their first rows and say so. */
const PM_MAX_HEIGHT = 30000;
const DEFAULT_MARKS = { stubs: 'forwarding stubs', movedIn: 'forwarded-in rows' } as const;

function valAt(a: ArrayLike<number>, i: number): number {
  const v = i < a.length ? a[i]! : 0;
  return Number.isFinite(v) ? v : 0;
}

/** The cells to draw: the spec's own, or, when it has more than maxCells, its pages reduced to several a cell. */
interface PageCells {
  fill: ArrayLike<number>;
  stubs: ArrayLike<number>;
  forwardedIn: ArrayLike<number>;
  pagesPerCell: number;
  totalPages: number;
  stubPages?: number;
  forwardedInPages?: number;
}

function pageCells(spec: PageMapSpec): PageCells {
  const maxCells = Math.max(1, Math.floor(spec.maxCells ?? RUN_DEFAULTS.pageMapMaxCells));
  const perCell = Math.max(1, Math.floor(spec.pagesPerCell ?? 1));
  if (spec.fill.length > maxCells) {
    // More cells than drawn: pages (or cells) reduced further; the counts by page survive only if given.
    const r = reducePageMap(spec, maxCells);
    const given = spec.totalPages ?? spec.fill.length * perCell;
    return {
      fill: r.fill,
      stubs: r.stubs,
      forwardedIn: r.forwardedIn,
      pagesPerCell: r.pagesPerCell * perCell,
      totalPages: given,
      stubPages: spec.stubPages ?? (perCell === 1 ? r.stubPages : undefined),
      forwardedInPages: spec.forwardedInPages ?? (perCell === 1 ? r.forwardedInPages : undefined),
    };
  }
  return {
    fill: spec.fill,
    stubs: spec.stubs,
    forwardedIn: spec.forwardedIn,
    pagesPerCell: perCell,
    totalPages: spec.totalPages ?? spec.fill.length * perCell,
    stubPages: spec.stubPages,
    forwardedInPages: spec.forwardedInPages,
  };
}

interface PageTotals {
  stubPages: number | undefined; // undefined: not known page by page (cells only)
  stubTotal: number;
  fwdPages: number | undefined;
  fwdTotal: number;
  meanFill: number; // NaN when no finite fill
}

function pageTotals(c: PageCells): PageTotals {
  let stubCells = 0;
  let fwdCells = 0;
  const t: PageTotals = { stubPages: 0, stubTotal: 0, fwdPages: 0, fwdTotal: 0, meanFill: NaN };
  let fillSum = 0;
  let fillN = 0;
  for (let i = 0; i < c.fill.length; i++) {
    const s = valAt(c.stubs, i);
    const f = valAt(c.forwardedIn, i);
    if (s > 0) {
      stubCells++;
      t.stubTotal += s;
    }
    if (f > 0) {
      fwdCells++;
      t.fwdTotal += f;
    }
    const fl = c.fill[i]!;
    if (Number.isFinite(fl)) {
      // A cell's fill is its pages' mean: weigh it by its pages (the last cell may hold fewer).
      const w = i === c.fill.length - 1 ? c.totalPages - i * c.pagesPerCell : c.pagesPerCell;
      fillSum += Math.min(1, Math.max(0, fl)) * Math.max(1, w);
      fillN += Math.max(1, w);
    }
  }
  if (fillN > 0) t.meanFill = fillSum / fillN;
  t.stubPages = c.stubPages ?? (c.pagesPerCell === 1 ? stubCells : undefined);
  t.fwdPages = c.forwardedInPages ?? (c.pagesPerCell === 1 ? fwdCells : undefined);
  return t;
}

/** "12 pages" and the count of what they hold, for the legend: "(3 pages, 5 stubs)". */
function countText(pages: number | undefined, total: number, what: string): string {
  return pages === undefined ? `(${formatNumber(total)} ${what})` : `(${formatNumber(pages)} pages, ${formatNumber(total)} ${what})`;
}

/**
 * Draws the title, subtitle and legend (what a cell is, the fill scale, the marks) from the top of the
 * image, wrapping lines and legend items when the width runs out. Returns the y below it. Also used on
 * a scratch canvas to measure the header height.
 */
function drawPageMapHeader(ctx: Ctx2D, width: number, spec: PageMapSpec, subtitle: string, c: PageCells, t: PageTotals): number {
  ctx.textAlign = 'left';
  ctx.textBaseline = 'top';
  let y = 10;
  const lines = (text: string, px: number, bold: boolean, color: string): void => {
    ctx.fillStyle = color;
    ctx.font = pmFont(px, bold);
    for (const line of wrapText(ctx, text, width - 2 * PM_MARGIN)) {
      ctx.fillText(line, PM_MARGIN, y);
      y += px + 8;
    }
  };
  if (spec.title) lines(spec.title, FONT_PX.title, true, '#111111');
  if (subtitle) lines(subtitle, FONT_PX.subtitle, false, '#555555');
  const words = legendWords(spec, c, t);
  if (words.cells) {
    y += 4;
    lines(words.cells, FONT_PX.legend, true, TEXT_COLOR);
  }
  y += 6;
  ctx.font = pmFont(FONT_PX.legend);
  const items = [fillScaleItem(ctx, words.fill)];
  if (words.stubs) items.push(markItem(ctx, STUB_COLOR, 'tl', words.stubs));
  if (words.movedIn) items.push(markItem(ctx, FWD_COLOR, 'br', words.movedIn));
  return drawLegendItems(ctx, items, y, width - PM_MARGIN) + 12;
}

/** The page map's legend in words: what a cell is (reduced maps only), the fill scale's caption, the two marks. */
interface LegendWords {
  cells?: string;
  fill: string;
  stubs?: string;
  movedIn?: string;
}

function legendWords(spec: PageMapSpec, c: PageCells, t: PageTotals): LegendWords {
  const reduced = c.pagesPerCell > 1;
  const marks = spec.marks === undefined ? DEFAULT_MARKS : spec.marks;
  const words: LegendWords = {
    fill: `${reduced ? 'mean page fill' : 'page fill'}${Number.isFinite(t.meanFill) ? ` (table: ${Math.round(t.meanFill * 100)}%)` : ''}:`,
  };
  if (reduced) {
    const last = c.totalPages - (c.fill.length - 1) * c.pagesPerCell;
    const lastText = last > 0 && last < c.pagesPerCell ? ` (the last: ${formatNumber(last)})` : '';
    words.cells = `each cell: ${formatNumber(c.pagesPerCell)} pages${lastText}; colour: their mean fill${marks ? '; a mark: any of its pages has one' : ''}`;
  }
  if (marks) {
    words.stubs = `${marks.stubs} ${countText(t.stubPages, t.stubTotal, 'stubs')}`;
    words.movedIn = `${marks.movedIn} ${countText(t.fwdPages, t.fwdTotal, 'rows')}`;
  }
  return words;
}

/** The legend's texts as the page map draws them (for tests and callers that describe the image). */
export function pageMapLegend(spec: PageMapSpec): string[] {
  const c = pageCells(spec);
  const w = legendWords(spec, c, pageTotals(c));
  return [w.cells, w.fill, w.stubs, w.movedIn].filter((x): x is string => !!x);
}

/** A legend item: its width and height, and how to draw it with its top left corner at (x, y). */
interface LegendItem {
  width: number;
  height: number;
  draw(x: number, y: number): void;
}

/** Legend items laid out left to right from PM_MARGIN, wrapping at `right`; returns the y below the last line. */
function drawLegendItems(ctx: Ctx2D, items: LegendItem[], top: number, right: number): number {
  let y = top;
  let x = PM_MARGIN;
  let lineH = 0;
  for (const item of items) {
    if (x > PM_MARGIN && x + item.width > right) {
      y += lineH + 8;
      x = PM_MARGIN;
      lineH = 0;
    }
    ctx.font = pmFont(FONT_PX.legend);
    item.draw(x, y);
    x += item.width + 32;
    lineH = Math.max(lineH, item.height);
  }
  return y + lineH;
}

/** "page fill (mean N%):" and the fill colour scale from 0% to 100%. */
function fillScaleItem(ctx: Ctx2D, caption: string): LegendItem {
  const capW = ctx.measureText(caption).width;
  const barW = 200;
  const barH = 18;
  return {
    width: capW + 12 + barW,
    height: barH + FONT_PX.legend + 8,
    draw: (x, y0) => {
      ctx.fillStyle = TEXT_COLOR;
      ctx.textAlign = 'left';
      ctx.textBaseline = 'middle';
      ctx.fillText(caption, x, y0 + barH / 2);
      const bx = x + capW + 12;
      for (let k = 0; k < barW; k++) {
        ctx.fillStyle = fillColor(k / (barW - 1));
        ctx.fillRect(bx + k, y0, 1, barH);
      }
      ctx.strokeStyle = '#888888';
      ctx.lineWidth = 1;
      ctx.strokeRect(bx + 0.5, y0 + 0.5, barW - 1, barH - 1);
      ctx.fillStyle = TEXT_COLOR;
      ctx.textBaseline = 'top';
      ctx.fillText('0%', bx, y0 + barH + 3);
      ctx.textAlign = 'center';
      ctx.fillText('50%', bx + barW / 2, y0 + barH + 3);
      ctx.textAlign = 'right';
      ctx.fillText('100%', bx + barW, y0 + barH + 3);
    },
  };
}

/** A half-filled sample cell with a corner mark, and its text. */
function markItem(ctx: Ctx2D, color: string, corner: 'tl' | 'br', text: string): LegendItem {
  const s = 20;
  return {
    width: s + 8 + ctx.measureText(text).width,
    height: s + 4,
    draw: (x, y0) => {
      ctx.fillStyle = fillColor(0.5);
      ctx.fillRect(x, y0, s, s);
      ctx.fillStyle = color;
      ctx.beginPath();
      markPath(ctx, x, y0, s, corner);
      ctx.fill();
      ctx.fillStyle = TEXT_COLOR;
      ctx.textAlign = 'left';
      ctx.textBaseline = 'middle';
      ctx.fillText(text, x + s + 8, y0 + s / 2);
    },
  };
}

/** Where everything goes in a page map; exported so callers and tests can find a page's cell in the image. */
export function pageMapLayout(spec: PageMapSpec): PageMapLayout {
  const cells = pageCells(spec);
  return layoutWithTotals(spec, cells, pageTotals(cells));
}

function layoutWithTotals(spec: PageMapSpec, c: PageCells, totals: PageTotals): PageMapLayout {
  ensureSetup();
  const width = Math.max(200, Math.round(spec.width ?? CHART_WIDTH));
  const scale = scaleOf(spec);
  const totalCells = c.fill.length;
  let pages = totalCells;

  const scratch = createCanvas(width, 10).getContext('2d');
  scratch.font = pmFont(FONT_PX.tick);
  const labelW = Math.ceil(scratch.measureText(formatNumber(Math.max(0, c.totalPages - 1))).width) + 10;
  const gridLeft = PM_MARGIN + labelW;
  const gridW = Math.max(2, width - gridLeft - PM_MARGIN);
  const targetH = Math.max(300, Math.round(gridW * 0.6));
  let cell = pages > 0 ? Math.floor(Math.sqrt((gridW * targetH) / pages)) : PM_MAX_CELL;
  cell = Math.max(2, Math.min(PM_MAX_CELL, cell));
  const cols = Math.max(1, Math.floor(gridW / cell));

  const unit = c.pagesPerCell > 1 ? 'cells' : 'pages';
  const note = (n: number): string => `showing the first ${formatNumber(n)} of ${formatNumber(totalCells)} ${unit}`;
  const subtitleFor = (n: number): string => {
    const base = spec.subtitle ?? '';
    if (n >= totalCells) return base;
    return base ? `${base} — ${note(n)}` : note(n);
  };
  // Keep the image a size PNG viewers handle: beyond PM_MAX_HEIGHT pixels, draw fewer cells (and say so).
  const headerMax = drawPageMapHeader(scratch, width, spec, subtitleFor(0), c, totals);
  const maxRows = Math.max(1, Math.floor((PM_MAX_HEIGHT / scale - headerMax - PM_MARGIN) / cell));
  if (Math.ceil(pages / cols) > maxRows) pages = maxRows * cols;
  const rows = Math.ceil(pages / cols);
  const subtitle = subtitleFor(pages);
  const gridTop = drawPageMapHeader(scratch, width, spec, subtitle, c, totals);
  const height = gridTop + Math.max(rows * cell, pages === 0 ? 60 : 0) + PM_MARGIN;
  return {
    pages,
    totalPages: c.totalPages,
    pagesPerCell: c.pagesPerCell,
    cell,
    cols,
    rows,
    gridLeft,
    gridTop,
    width,
    height,
    scale,
    subtitle,
  };
}

export function renderPageMap(spec: PageMapSpec): Buffer {
  ensureSetup();
  const cells = pageCells(spec);
  const totals = pageTotals(cells);
  const L = layoutWithTotals(spec, cells, totals);
  const w = Math.round(L.width * L.scale);
  const h = Math.round(L.height * L.scale);
  if (L.pages === 0) {
    const canvas = mapCanvas(w, h);
    drawOn(canvas, (ctx) => {
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, w, h);
      ctx.scale(L.scale, L.scale);
      drawPageMapHeader(ctx, L.width, spec, L.subtitle, cells, totals);
      ctx.fillStyle = '#666666';
      ctx.font = pmFont(FONT_PX.axisTitle);
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillText('no data', L.width / 2, L.gridTop + 30);
    });
    return regionPng(canvas, w, h);
  }
  // Grey behind the cells shows as 1 px separators once cells are large enough to afford them.
  const grid = paintCells(L, cells, L.cell >= 6 ? 1 : 0, spec.marks !== null);
  const header = partCanvas('header', w, grid.y);
  drawOn(header, (ctx) => {
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, w, grid.y);
    ctx.scale(L.scale, L.scale);
    drawPageMapHeader(ctx, L.width, spec, L.subtitle, cells, totals);
  });
  const labels = partCanvas('labels', Math.max(1, grid.x), h - grid.y);
  drawOn(labels, (ctx) => {
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, grid.x, h - grid.y);
    // Layout coordinates, the grid's top at the canvas's top.
    ctx.scale(L.scale, L.scale);
    ctx.translate(0, -grid.y / L.scale);
    drawRowLabels(ctx, L, cells.pagesPerCell);
  });
  const full = (): Buffer => {
    const c = createCanvas(w, h);
    const ctx = c.getContext('2d');
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, w, h);
    ctx.drawImage(header, 0, 0, w, grid.y, 0, 0, w, grid.y);
    if (grid.x > 0) ctx.drawImage(labels, 0, 0, grid.x, h - grid.y, 0, grid.y, grid.x, h - grid.y);
    ctx.putImageData(
      new ImageData(new Uint8ClampedArray(grid.bytes.buffer, grid.bytes.byteOffset, grid.w * grid.h * 4), grid.w, grid.h),
      grid.x,
      grid.y,
    );
    return c.toBuffer('image/png');
  };
  return composedPng(w, h, header, labels, grid, full);
}

/** Draw on a kept canvas: its state is the default again afterwards (every pixel read is painted over). */
function drawOn(canvas: Canvas, draw: (ctx: Ctx2D) => void): void {
  const ctx = canvas.getContext('2d');
  ctx.save();
  try {
    draw(ctx);
  } finally {
    ctx.restore();
  }
}

/** Row labels left of the grid: the number of the first page of every few rows. */
function drawRowLabels(ctx: Ctx2D, L: PageMapLayout, pagesPerCell: number): void {
  const { cell, cols, rows, gridLeft, gridTop } = L;
  const inner = cell - (cell >= 6 ? 1 : 0);
  let step = 1;
  for (const m of [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]) {
    step = m;
    if (m * cell >= FONT_PX.tick * 2.5) break;
  }
  ctx.font = pmFont(FONT_PX.tick);
  ctx.fillStyle = '#555555';
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (let r = 0; r < rows; r += step) {
    const ly = gridTop + r * cell + inner / 2;
    ctx.fillText(formatNumber(r * cols * pagesPerCell), gridLeft - 6, Math.max(gridTop + 8, ly));
  }
}

/** A corner mark of a cell of size s at (x, y), added to the current path: a triangle when there is room, else a small square. */
function markPath(ctx: Ctx2D, x: number, y: number, s: number, corner: 'tl' | 'br'): void {
  if (s >= 8) {
    const t = Math.max(4, Math.round(s * 0.55));
    if (corner === 'tl') {
      ctx.moveTo(x, y);
      ctx.lineTo(x + t, y);
      ctx.lineTo(x, y + t);
    } else {
      ctx.moveTo(x + s, y + s);
      ctx.lineTo(x + s - t, y + s);
      ctx.lineTo(x + s, y + s - t);
    }
    ctx.closePath();
  } else {
    const t = Math.max(1, Math.ceil(s / 2));
    if (corner === 'tl') ctx.rect(x, y, t, t);
    else ctx.rect(x + s - t, y + s - t, t, t);
  }
}
