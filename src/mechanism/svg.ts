/**
 * One page drawn to scale as SVG: the page is a grid of lines of bytes (32 lines: 64 bytes a line on a
 * 2K page, 256 on 8K; a slide's drawing may take 16, 8 or 4), read left to right and top to bottom; every
 * region (header parts, slot array, each row's body and its reservation, holes, free space) is a block
 * of its own bytes. Beside it (or under it, on a narrow slide panel), the page's entries one per line,
 * with a connector from each forwarding stub to the page and slot it points to.
 *
 * layoutPage and renderPageSvg use nothing outside their own bodies but each other, so report.html
 * inlines them as they are (pageScriptSource) and the browser draws the same picture `rowsim page` writes.
 */
import type { PageDrawing } from './drawing.js';

export interface PageSegment {
  start: number;
  bytes: number;
  kind: string;
  label: string;
  slot?: number;
}

export interface PageLayout {
  segments: PageSegment[];
  /** Byte offset of the fillfactor / PCTFREE line, when the format has one. */
  fillAt?: number;
  freeBytes: number;
  holeBytes: number;
  /** Reserved bytes the free space no longer holds (rows grew into their neighbours' reservations). */
  overReservedBytes: number;
}

/** Where every region of the page lies, in bytes from the page's start. */
export function layoutPage(d: PageDrawing): PageLayout {
  return d.detail.positioned ? layoutPositioned(d) : layoutPacked(d);
}

/**
 * A page the page book followed: every entry at its own byte position, holes where rows left them, the
 * contiguous free space between the row area's top and the slot array. ASE and SQL Server fill the page
 * from the header and keep the slot array at the end; PostgreSQL and Oracle keep it after the header and
 * fill from the end (page-book.ts says where each rule comes from). The reservation (exp_row_size) is
 * not a place: it is drawn over the first reserved bytes of the contiguous free space.
 */
function layoutPositioned(d: PageDrawing): PageLayout {
  const det = d.detail;
  const segs: PageSegment[] = [];
  const put = (start: number, bytes: number, kind: string, label: string, slot?: number) => {
    if (bytes <= 0) return;
    const s: PageSegment = { start, bytes, kind, label };
    if (slot !== undefined) s.slot = slot;
    segs.push(s);
  };
  let headerBytes = 0;
  for (const h of d.header) {
    put(headerBytes, h.bytes, 'header', h.label);
    headerBytes += h.bytes;
  }
  const trailer = d.trailer ? d.trailer.bytes : 0;
  const regionEnd = d.pageBytes - trailer;
  const usable = regionEnd - headerBytes;
  const top = usable - det.contiguousBytes - det.slotArrayBytes;
  const fromEnd = d.slotArray.at === 'after-header';
  // A span of the row area (model offset from its origin) as page bytes.
  const at = (off: number, bytes: number) => (fromEnd ? regionEnd - off - bytes : headerBytes + off);
  const stored = det.slots.filter((s) => (s.offset ?? -1) >= 0 && s.bytes > 0).sort((x, y) => x.offset! - y.offset!);
  let mark = 0;
  for (const s of stored) {
    if (s.offset! > mark) put(at(mark, s.offset! - mark), s.offset! - mark, 'holes', 'hole');
    put(
      at(s.offset!, s.bytes),
      s.bytes,
      s.kind,
      s.row !== undefined ? `${s.kind === 'stub' ? 'stub of ' : ''}row ${s.row}` : s.kind,
      s.slot,
    );
    mark = Math.max(mark, s.offset! + s.bytes);
  }
  if (top > mark) put(at(mark, top - mark), top - mark, 'holes', 'hole');
  const free = Math.max(0, det.contiguousBytes);
  const rsv = Math.min(det.reservedBytes, free);
  put(at(top, rsv), rsv, 'reserved', d.words.reservation ?? 'reserved');
  put(at(top + rsv, free - rsv), free - rsv, 'free', 'free');
  put(fromEnd ? headerBytes : regionEnd - det.slotArrayBytes, det.slotArrayBytes, 'slots', d.slotArray.name);
  if (d.trailer) put(regionEnd, trailer, 'header', d.trailer.label);
  segs.sort((x, y) => x.start - y.start);
  const out: PageLayout = { segments: segs, freeBytes: free, holeBytes: det.fragmentedBytes, overReservedBytes: det.reservedBytes - rsv };
  if (d.fillLine && fromEnd) out.fillAt = headerBytes + det.slotArrayBytes + d.fillLine.keepFreeBytes;
  return out;
}

/** A page drawn from the engine's totals alone (a clustered table, a report's page): rows packed in slot order, the holes as one block. */
function layoutPacked(d: PageDrawing): PageLayout {
  const segs: PageSegment[] = [];
  let at = 0;
  const put = (bytes: number, kind: string, label: string, slot?: number) => {
    if (bytes <= 0) return;
    const s: PageSegment = { start: at, bytes, kind, label };
    if (slot !== undefined) s.slot = slot;
    segs.push(s);
    at += bytes;
  };
  const det = d.detail;
  for (const h of d.header) put(h.bytes, 'header', h.label);
  // Reservations are drawn out of the free space; rows that grew into their neighbours' reservations can
  // leave more reserved than free: only what the free space still holds is drawn.
  let rsvLeft = Math.min(det.reservedBytes, det.contiguousBytes + det.fragmentedBytes);
  const drawnRsv = rsvLeft;
  let free = det.contiguousBytes - drawnRsv;
  let holes = det.fragmentedBytes;
  if (free < 0) {
    holes += free;
    free = 0;
  }
  const bodies = det.slots.filter((s) => s.bytes > 0 || (s.reserved ?? 0) > 0);
  const body = (s: PageDrawing['detail']['slots'][number]) => {
    const who = s.row !== undefined ? `row ${s.row}` : `${s.count ?? 1} ${s.kind}`;
    put(s.bytes, s.kind, s.kind === 'stub' ? `stub of ${who}` : who, s.slot);
    const r = Math.min(s.reserved ?? 0, rsvLeft);
    rsvLeft -= r;
    put(r, 'reserved', `reserved for ${who}`, s.slot);
  };
  const slotBytes = det.slotArrayBytes;
  let fillAt: number | undefined;
  if (d.slotArray.at === 'after-header') {
    put(slotBytes, 'slots', d.slotArray.name);
    if (d.fillLine) fillAt = at + d.fillLine.keepFreeBytes;
    put(free, 'free', 'free');
    put(holes, 'holes', 'holes');
    for (let k = bodies.length - 1; k >= 0; k--) body(bodies[k]!);
  } else {
    for (const s of bodies) body(s);
    put(holes, 'holes', 'holes');
    put(free, 'free', 'free');
    put(slotBytes, 'slots', d.slotArray.name);
  }
  if (d.trailer) put(d.trailer.bytes, 'header', d.trailer.label);
  const out: PageLayout = { segments: segs, freeBytes: free, holeBytes: holes, overReservedBytes: det.reservedBytes - drawnRsv };
  if (fillAt !== undefined) out.fillAt = fillAt;
  return out;
}

/** What a drawing shows besides the page: the rows to highlight, a bigger lettering, and whether the legend and notes go under it. */
export interface SvgOptions {
  idPrefix?: string;
  /** Rows whose entries are outlined (the rows a trace step changed). */
  highlight?: number[];
  /** Lettering scale, 1 = 15 px labels in the grid (the back row of a classroom: 1.3 or more). */
  scale?: number;
  /** The legend and the notes under the page (default true; a slide leaves them out). */
  legend?: boolean;
  /** A line above the title: what the drawing shows (the sweep point, after which phase). */
  caption?: string;
  /**
   * Fill a box this size (a slide's panel, in CSS pixels at 1280×720): no title, subtitle or legend, the
   * free space on one line above a grid as large as the box allows (32 lines, or 16 or 8 when 32 would be
   * thinner than the lettering), and the SVG scales to its element (width and height 100%).
   */
  box?: SvgBox;
}

/** A box to fill; `entryChars`: the longest entry line of all the drawings that share a slide (svgEntryChars), so that they share a layout. */
export interface SvgBox {
  width: number;
  height: number;
  entryChars?: number;
}

/** The longest line of a drawing's entry list, in characters. */
export function svgEntryChars(d: PageDrawing): number {
  const slotName = d.slotArray.firstSlot === 1 ? 'lp' : 'slot';
  return Math.max(14, ...d.detail.slots.map((s) => svgEntryText(s, slotName).length));
}

/** Where the drawing's parts go: the byte grid (32 lines, bytes a line, line height, origin) and the entry panel beside it. */
interface SvgFrame {
  bpl: number;
  lines: number;
  lineH: number;
  gx: number;
  gy: number;
  gw: number;
  px: number;
  gh: number;
  panelX: number;
  W: number;
  idPrefix: string;
  /** Font sizes: labels in the grid, panel lines, small print. */
  fs: number;
  fp: number;
  fsm: number;
  /** The entry list: its top left corner, columns (filled top to bottom), entries a column, and whether it is under the grid. */
  list: { x: number; y: number; cols: number; colW: number; perCol: number; below: boolean };
}

function svgFrame(pageBytes: number, idPrefix: string, scale: number, top: number): SvgFrame {
  // 32 lines whatever the page size: 64 bytes a line on 2K pages, 256 on 8K.
  const lines = 32;
  const bpl = Math.ceil(pageBytes / lines);
  const lineH = Math.round(18 * Math.max(1, scale * 0.9));
  const gx = 58;
  const gw = 512;
  const fp = Math.round(14 * scale);
  const panelW = Math.round(fp * 19.5);
  const panelX = gx + gw + 22;
  return {
    bpl,
    lines,
    lineH,
    gx,
    gy: top,
    gw,
    px: gw / bpl,
    gh: lines * lineH,
    panelX,
    W: panelX + panelW,
    idPrefix,
    fs: Math.round(15 * scale),
    fp,
    fsm: Math.round(12 * scale),
    list: {
      x: panelX,
      y: top,
      cols: 1,
      colW: panelW,
      perCol: Math.max(8, Math.floor((lines * lineH - 4) / Math.round(fp * 1.35)) - 1) + 1,
      below: false,
    },
  };
}

/**
 * A frame that fills `box`: row ids in 18 px letters (× scale); the grid as many lines (32, 16, 8 or 4) as
 * keep a line a quarter taller than its letters. The entry list goes beside the grid when it fits in
 * half the width at 14 px, else under it in columns, the grid then the box's whole width and
 * at least 16 lines high, the list as many entries as the rest holds.
 */
function svgFitFrame(d: PageDrawing, box: SvgBox, idPrefix: string, scale: number): SvgFrame {
  let fs = Math.round(18 * scale);
  const fsm = Math.round(13 * scale);
  const gy = Math.round(fs * 1.6);
  const gx = Math.round(fsm * 0.62 * String(d.pageBytes).length + 8);
  const chars = (box.entryChars ?? svgEntryChars(d)) + 2;
  const room = box.width - gx - 24;
  const below = chars * 0.56 * 14 * scale > room * 0.5;
  const lineFor = (lines: number) => Math.ceil(fs * 1.25) * lines;
  let gw: number;
  let fp: number;
  let listH = 0;
  let cols = 1;
  let perCol = 0;
  if (below) {
    gw = box.width - gx - 8;
    fp = Math.max(8, Math.min(Math.round(15 * scale), Math.floor((box.width - 8) / (chars * 0.56))));
    cols = Math.max(1, Math.floor((box.width - 8) / (chars * 0.56 * fp + 4)));
    const step = Math.round(fp * 1.35);
    const listRoom = box.height - gy - fp - 14 - lineFor(16);
    perCol = Math.max(1, Math.min(Math.ceil(d.detail.slots.length / cols), Math.floor(listRoom / step)));
    listH = perCol * step + 4;
  } else {
    gw = Math.max(Math.round(room * 0.55), Math.round(room - chars * 0.56 * 16 * scale));
    fp = Math.max(8, Math.min(Math.round(16 * scale), Math.floor((room - gw) / (chars * 0.56))));
  }
  // Under the grid: the fill line's label (as svgMarks writes it) and a margin; then the list, if there.
  const gridRoom = box.height - gy - fp - 14 - listH;
  let lines = 32;
  while (lines > 4 && gridRoom < lineFor(lines)) lines /= 2;
  const lineH = Math.max(4, Math.floor(gridRoom / lines));
  // Row ids no taller than a line (only when even 4 lines are thin: a big --scale in a small panel).
  fs = Math.min(fs, Math.floor(lineH * 0.8));
  const gh = lines * lineH;
  const panelX = below ? 4 : gx + gw + 20;
  if (!below) perCol = Math.max(1, Math.floor((gh - 4) / Math.round(fp * 1.35)));
  const list = {
    x: panelX,
    y: below ? gy + gh + fp + 14 : gy,
    cols,
    colW: below ? (box.width - 8) / cols : box.width - panelX,
    perCol,
    below,
  };
  const bpl = Math.ceil(d.pageBytes / lines);
  return { bpl, lines, lineH, gx, gy, gw, px: gw / bpl, gh, panelX, W: box.width, idPrefix, fs, fp, fsm, list };
}

function svgEsc(t: string): string {
  return t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Each kind's fill and its name in the legend and the entry list. */
function svgKinds(d: PageDrawing, idPrefix: string): { colour: Record<string, string>; names: Record<string, string> } {
  const colour: Record<string, string> = {
    header: '#8d99a6',
    slots: '#5b6b7c',
    row: '#3f7fe0',
    'heap-only': '#8fb8f5',
    stub: '#f0902a',
    forwarded: '#d9473f',
    pending: '#b48ad0',
    dead: '#7d7d7d',
    redirect: '#ffffff',
    'dead-lp': '#ffffff',
    unused: '#ffffff',
    reserved: `url(#${idPrefix}-hatch)`,
    holes: '#f2d16b',
    free: '#ffffff',
  };
  const names: Record<string, string> = {
    header: 'header',
    slots: d.slotArray.name,
    row: 'row',
    'heap-only': 'heap-only tuple (HOT)',
    stub: d.words.stub,
    forwarded: d.words.forwarded,
    pending: 'old version, its transaction still open',
    dead: 'dead version (not yet pruned)',
    redirect: 'LP_REDIRECT (no storage)',
    'dead-lp': 'LP_DEAD (no storage)',
    unused: 'LP_UNUSED',
    reserved: d.words.reservation ?? 'reserved',
    holes: d.words.holes ?? 'fragmented free space (holes)',
    free: 'contiguous free space',
  };
  return { colour, names };
}

/** A segment's fill: neighbouring rows in two shades on a packed drawing (a positioned one marks where each starts). */
function svgFill(kind: string, nth: number, colour: Record<string, string>): string {
  if (nth % 2 === 1) {
    if (kind === 'row') return '#2a5fb0';
    if (kind === 'forwarded') return '#a8302a';
    if (kind === 'heap-only') return '#6a9be0';
  }
  return colour[kind] ?? '#cccccc';
}

/**
 * Each segment in pieces, one per grid line it crosses; a row's id written in its widest piece (a stub's
 * with an arrow), highlighted rows outlined. Also where each slot's widest piece is (for the arrows).
 */
function svgSegments(
  d: PageDrawing,
  L: PageLayout,
  f: SvgFrame,
  colour: Record<string, string>,
  highlight: number[],
): { parts: string[]; marks: string[]; at: Record<number, { x: number; y: number; w: number }> } {
  const parts: string[] = [];
  const marks: string[] = [];
  const at: Record<number, { x: number; y: number; w: number }> = {};
  const rowOf: Record<number, number | undefined> = {};
  for (const s of d.detail.slots) rowOf[s.slot] = s.row;
  let nth = 0;
  for (const s of L.segments) {
    const shaded = !d.detail.positioned && (s.kind === 'row' || s.kind === 'forwarded' || s.kind === 'heap-only');
    const fill = svgFill(s.kind, shaded ? nth++ : 0, colour);
    const row = s.slot !== undefined && s.kind !== 'reserved' ? rowOf[s.slot] : undefined;
    const lit = row !== undefined && highlight.indexOf(row) >= 0;
    let best = { x: 0, y: 0, w: -1 };
    for (let b = s.start, end = s.start + s.bytes; b < end;) {
      const line = Math.floor(b / f.bpl);
      const n = Math.min(end - b, f.bpl - (b - line * f.bpl));
      const x = f.gx + (b - line * f.bpl) * f.px;
      const y = f.gy + line * f.lineH;
      const w = n * f.px;
      parts.push(
        `<rect x="${x.toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${f.lineH}" fill="${fill}" stroke="#333" stroke-width="0.4"><title>${svgEsc(`${s.label}: ${s.bytes} bytes at ${s.start}–${s.start + s.bytes - 1}`)}</title></rect>`,
      );
      if (lit)
        marks.push(
          `<rect x="${(x + 1.5).toFixed(2)}" y="${y + 1.5}" width="${Math.max(0, w - 3).toFixed(2)}" height="${f.lineH - 3}" fill="none" stroke="#ffd400" stroke-width="3"/>`,
        );
      if (w > best.w) best = { x, y, w };
      if (b === s.start && d.detail.positioned && s.kind !== 'free')
        marks.push(`<path d="M ${x.toFixed(2)} ${y} V ${y + f.lineH}" stroke="#000" stroke-width="2.5"/>`);
      b += n;
    }
    if (row === undefined || s.slot === undefined) continue;
    at[s.slot] = best;
    const short = s.kind === 'stub' ? `${row}→` : `${row}`;
    const fits = best.w >= f.fs * 0.62 * short.length + 4;
    if (fits)
      parts.push(
        `<text class="rid${s.kind === 'stub' ? ' stub' : ''}" x="${(best.x + best.w / 2).toFixed(2)}" y="${(best.y + f.lineH / 2 + f.fs * 0.36).toFixed(1)}" font-size="${f.fs}" font-weight="bold" text-anchor="middle" fill="${s.kind === 'heap-only' || s.kind === 'stub' ? '#111' : '#fff'}">${svgEsc(short)}</text>`,
      );
    else if (s.kind === 'stub') {
      // A stub too narrow for its id: a tag beside it (right, or left at the grid's edge), above the rows.
      const tw = f.fs * 0.62 * short.length + 8;
      const th = Math.min(f.lineH, f.fs + 4);
      const right = best.x + best.w + 2;
      const tx = right + tw <= f.gx + f.gw ? right : Math.max(f.gx, best.x - tw - 2);
      const ty = best.y + (f.lineH - th) / 2;
      marks.push(
        `<rect x="${tx.toFixed(2)}" y="${ty.toFixed(1)}" width="${tw.toFixed(1)}" height="${th}" rx="3" fill="#fff" stroke="#f0902a" stroke-width="2"/><text class="rid stub" x="${(tx + tw / 2).toFixed(2)}" y="${(ty + th / 2 + f.fs * 0.36).toFixed(1)}" font-size="${f.fs}" font-weight="bold" text-anchor="middle" fill="#111">${svgEsc(short)}</text>`,
      );
    }
  }
  return { parts, marks, at };
}

/** The fill line (fillfactor, PCTFREE) or the reservation's start drawn across the page, and the byte offsets down its left side. */
function svgMarks(d: PageDrawing, L: PageLayout, f: SvgFrame): string[] {
  const parts: string[] = [];
  const rsv = L.segments.find((s) => s.kind === 'reserved');
  const lineAt = L.fillAt !== undefined ? L.fillAt : d.detail.positioned && rsv ? rsv.start : undefined;
  if (lineAt !== undefined) {
    const line = Math.floor(lineAt / f.bpl);
    const x = f.gx + (lineAt - line * f.bpl) * f.px;
    const y = f.gy + line * f.lineH;
    // A step across the whole grid: the bytes before the line above and left of it, the rest below.
    parts.push(
      `<path d="M ${f.gx} ${y + f.lineH} H ${x.toFixed(2)} V ${y} H ${f.gx + f.gw}" fill="none" stroke="#d00000" stroke-width="4"/>`,
    );
    const label =
      L.fillAt !== undefined && d.fillLine
        ? d.fillLine.label
        : `${d.words.reservation ?? 'reserved'}: ${rsv ? rsv.bytes : 0} B of the free space`;
    parts.push(
      `<text x="${f.gx}" y="${f.gy + f.gh + f.fp + 8}" font-size="${f.fp}" font-weight="bold" fill="#d00000">━ ${svgEsc(label)}</text>`,
    );
  }
  for (let l = 0; l < f.lines; l += 4)
    parts.push(
      `<text x="${f.gx - 6}" y="${f.gy + l * f.lineH + f.fsm}" font-size="${f.fsm}" text-anchor="end" fill="#555">${l * f.bpl}</text>`,
    );
  parts.push(`<text x="${f.gx - 6}" y="${f.gy + f.gh}" font-size="${f.fsm}" text-anchor="end" fill="#555">${d.pageBytes}</text>`);
  return parts;
}

/**
 * The entries the panel lists: all of them when they fit; else the highlighted rows' entries, every
 * entry that is not a plain row (stubs and what they point to, dead versions …), and the rows in the
 * lines left, in slot order.
 */
function svgShownEntries(slots: PageDrawing['detail']['slots'], maxList: number, highlight: number[]): PageDrawing['detail']['slots'] {
  if (slots.length <= maxList) return slots;
  const lit = slots.filter((e) => e.row !== undefined && highlight.indexOf(e.row) >= 0);
  const special = slots.filter((e) => e.kind !== 'row' && e.kind !== 'heap-only' && lit.indexOf(e) < 0);
  const keep = new Set([...lit, ...special].slice(0, maxList));
  let room = Math.max(0, maxList - keep.size);
  for (const e of slots) {
    if (room === 0) break;
    if (!keep.has(e)) {
      keep.add(e);
      room--;
    }
  }
  return slots.filter((e) => keep.has(e));
}

/** One entry's line in the panel, short: slot, row, bytes, where it points. */
function svgEntryText(s: PageDrawing['detail']['slots'][number], slotName: string): string {
  const range = s.count !== undefined && s.count > 1 ? `${s.slot}–${s.slot + s.count - 1}` : `${s.slot}`;
  const who = s.row !== undefined ? `row ${s.row}` : `${s.count ?? 1}×`;
  const link = (r: { page: number; slot: number }) => `(${r.page},${r.slot})`;
  let text = `${slotName} ${range}  `;
  if (s.kind === 'stub') text += `${who} stub → ${link(s.to!)}`;
  else if (s.kind === 'forwarded') text += `${who} ${s.bytes} B ← ${link(s.from!)}`;
  else if (s.kind === 'row') text += `${who} ${s.bytes} B`;
  else if (s.kind === 'heap-only') text += `${who} ${s.bytes} B heap-only`;
  else if (s.kind === 'redirect') text += s.to ? `redirect → ${s.to.slot}${s.row !== undefined ? ` (${who})` : ''}` : `${who} redirect`;
  else if (s.kind === 'dead-lp') text += `LP_DEAD${s.row !== undefined ? ` (${who})` : ''}`;
  else if (s.kind === 'unused') text += s.count !== undefined ? `${s.count}× unused` : 'unused';
  else text += `${who} ${s.kind}${s.bytes ? ` ${s.bytes} B` : ''}${s.to ? ` → ${link(s.to)}` : ''}`;
  if (s.reserved) text += ` +${s.reserved} rsv`;
  if (s.pieces) text += ` +${s.pieces} blk`;
  return text;
}

/** The entry list beside the grid, with arrows: a stub to its entry, an old version (t_ctid) or a redirect to the version it leads to. */
function svgEntries(
  d: PageDrawing,
  f: SvgFrame,
  colour: Record<string, string>,
  at: Record<number, { x: number; y: number; w: number }>,
  highlight: number[],
): string[] {
  const det = d.detail;
  const out: string[] = [];
  const slotName = d.slotArray.firstSlot === 1 ? 'lp' : 'slot';
  const step = Math.round(f.fp * 1.35);
  const L = f.list;
  // Room for every entry, or for all but one and the line saying how many more.
  const room = L.cols * L.perCol;
  const shown = svgShownEntries(det.slots, det.slots.length <= room || room < 2 ? room : room - 1, highlight);
  const place = (i: number) => ({ x: L.x + Math.floor(i / L.perCol) * L.colW, y: L.y + f.fp + (i % L.perCol) * step });
  shown.forEach((s, i) => {
    const { x, y } = place(i);
    if (s.row !== undefined && highlight.indexOf(s.row) >= 0)
      out.push(`<rect x="${x - 3}" y="${y - f.fp}" width="${L.colW}" height="${step}" fill="#fff2a8"/>`);
    out.push(
      `<rect x="${x}" y="${y - f.fp * 0.8}" width="${f.fp * 0.8}" height="${f.fp * 0.8}" fill="${colour[s.kind] ?? '#ccc'}" stroke="#333" stroke-width="0.6"/><text x="${x + f.fp + 2}" y="${y}" font-size="${f.fp}">${svgEsc(svgEntryText(s, slotName))}</text>`,
    );
    const p = at[s.slot];
    const mid = y - f.fp * 0.35;
    // A stub to its entry beside the grid (under it, the entry's "→ (page,slot)" says where it points).
    if (s.kind === 'stub' && p && !L.below)
      out.push(
        `<path d="M ${(p.x + p.w / 2).toFixed(1)} ${(p.y + f.lineH / 2).toFixed(1)} C ${f.gx + f.gw + 12} ${(p.y + f.lineH / 2).toFixed(1)}, ${x - 30} ${mid.toFixed(1)}, ${x - 3} ${mid.toFixed(1)}" fill="none" stroke="#f0902a" stroke-width="2" marker-end="url(#${f.idPrefix}-arrow)"/>`,
      );
    const t = s.to && s.kind !== 'stub' && s.to.page === det.page ? at[s.to.slot] : undefined;
    const tx = t ? (t.x + t.w / 2).toFixed(1) : '';
    // Beside the grid: from the entry to the version it leads to; under it, from the old version where it lies.
    // Under the grid the arrow runs between the pieces, just right of their row ids (never over them).
    const beside = (q: { x: number; w: number }) => Math.min(q.x + q.w - 2, q.x + q.w / 2 + f.fs);
    const from = L.below && p ? { x: beside(p), y: p.y + f.lineH / 2 } : { x: x - 3, y: mid };
    const curve = !t
      ? ''
      : L.below
        ? `C ${(from.x + 60).toFixed(1)} ${from.y.toFixed(1)}, ${(beside(t) + 60).toFixed(1)} ${(t.y + f.lineH / 2).toFixed(1)}, ${beside(t).toFixed(1)} ${(t.y + f.lineH / 2).toFixed(1)}`
        : `C ${f.gx + f.gw + 30} ${mid.toFixed(1)}, ${tx} ${(t.y - 30).toFixed(1)}, ${tx} ${t.y.toFixed(1)}`;
    if (t)
      out.push(
        `<path d="M ${from.x.toFixed(1)} ${from.y.toFixed(1)} ${curve}" fill="none" stroke="#7a2db0" stroke-width="2" marker-end="url(#${f.idPrefix}-chain)"><title>${svgEsc(`row ${s.row ?? ''}: ${slotName} ${s.slot} → ${slotName} ${s.to!.slot}`)}</title></path>`,
      );
  });
  // The line saying how many more, where it has a place (a list of one shows the one).
  if (det.slots.length > shown.length && shown.length < room) {
    const { x, y } = place(shown.length);
    const more = `… ${det.slots.length - shown.length} more${L.below ? '' : ' (rowsim page --format text)'}`;
    out.push(`<text x="${x}" y="${y}" font-size="${f.fsm}" fill="#555">${more}</text>`);
  }
  if (det.slots.length === 0)
    out.push(
      `<text x="${L.x}" y="${L.y + f.fp}" font-size="${f.fp}" fill="#555">${det.allocated ? 'no rows on this page' : 'this page is not allocated'}</text>`,
    );
  return out;
}

/** The legend: the kinds on this page with their bytes, wrapped to the drawing's width; and where it ends. */
function svgLegend(
  totals: Record<string, number>,
  f: SvgFrame,
  kinds: { colour: Record<string, string>; names: Record<string, string> },
  top: number,
): { legend: string[]; bottom: number } {
  const legend: string[] = [];
  let lx = f.gx;
  let ly = top;
  for (const kind of Object.keys(kinds.colour)) {
    if (totals[kind] === undefined) continue;
    const label = `${kind === 'header' ? 'header' : kinds.names[kind]} ${totals[kind]} B`;
    const w = 24 + label.length * f.fsm * 0.6;
    if (lx + w > f.W - 10) {
      lx = f.gx;
      ly += f.fsm + 8;
    }
    legend.push(
      `<rect x="${lx}" y="${ly - f.fsm}" width="${f.fsm}" height="${f.fsm}" fill="${kinds.colour[kind]}" stroke="#333" stroke-width="0.5"/><text x="${lx + f.fsm + 5}" y="${ly}" font-size="${f.fsm}">${svgEsc(label)}</text>`,
    );
    lx += w + 12;
  }
  return { legend, bottom: ly };
}

/** The lines under the title: free space (as the narration states it), entries, what else the page says. */
export function svgSubtitle(d: PageDrawing): string[] {
  const det = d.detail;
  const fig = pageFigures(det);
  const entries = det.slots.reduce((n, s) => n + (s.count ?? 1), 0);
  const free = `free ${fig.free} B: ${fig.contiguous} contiguous${fig.reserved ? ` (${Math.min(fig.reserved, fig.contiguous)} of it reserved)` : ''}, ${fig.holes} ${d.words.holesShort ?? 'in holes'}`;
  const more = [
    d.words.entries ? `${entries} ${d.words.entries}` : `${entries} ${d.slotArray.name} entr${entries === 1 ? 'y' : 'ies'}`,
    `table: ${det.pages} page${det.pages === 1 ? '' : 's'}${det.allocated ? '' : ', this one not allocated'}`,
    ...(d.band ? [d.band] : []),
    ...det.flags,
    ...(det.keyRange ? [`keys ${det.keyRange.first}–${det.keyRange.last}`] : []),
  ].join(' · ');
  return [free, more];
}

/** The page's flags and notes as bullets, each wrapped to the drawing's width. */
function svgNoteLines(d: PageDrawing, width: number): string[] {
  const out: string[] = [];
  const notes = d.detail.positioned
    ? d.notes
    : [...d.notes, 'Rows are drawn packed in slot order: this page was not followed byte by byte.'];
  for (const n of notes.map((x) => `• ${x}`)) {
    let line = '';
    for (const w of n.split(' ')) {
      if ((line + ' ' + w).length > width) {
        out.push(line);
        line = `  ${w}`;
      } else line = line ? `${line} ${w}` : w;
    }
    if (line) out.push(line);
  }
  return out;
}

/**
 * The page as a self-contained SVG document (no fonts or images from outside), a pure function of the
 * drawing: the browser playground and report.html run it as it is. `idPrefix` names its pattern and
 * markers: drawings that share an HTML document each need their own.
 */
export function renderPageSvg(d: PageDrawing, options: SvgOptions | string = {}): string {
  const o = typeof options === 'string' ? { idPrefix: options } : options;
  const idPrefix = o.idPrefix ?? 'rowsim-page';
  const scale = o.scale ?? 1;
  const kinds = svgKinds(d, idPrefix);
  const L = layoutPage(d);
  const head = o.caption ? 26 * scale : 0;
  const f = o.box ? svgFitFrame(d, o.box, idPrefix, scale) : svgFrame(d.pageBytes, idPrefix, scale, Math.round(head + 82 * scale));
  const { parts, marks, at } = svgSegments(d, L, f, kinds.colour, o.highlight ?? []);
  const rows = svgEntries(d, f, kinds.colour, at, o.highlight ?? []);
  const totals: Record<string, number> = {};
  for (const s of L.segments) totals[s.kind] = (totals[s.kind] ?? 0) + s.bytes;
  const hasLine = L.fillAt !== undefined || (d.detail.positioned === true && totals.reserved !== undefined);
  let H = o.box ? o.box.height : f.gy + f.gh + (hasLine ? f.fp + 16 : 8);
  const extra: string[] = [];
  if (o.legend !== false && !o.box) {
    const { legend, bottom } = svgLegend(totals, f, kinds, H + f.fsm + 6);
    const notes = svgNoteLines(d, Math.floor((f.W - f.gx) / (f.fsm * 0.58)));
    extra.push(
      ...legend,
      ...notes.map((t, i) => `<text x="${f.gx}" y="${bottom + 24 + i * (f.fsm + 6)}" font-size="${f.fsm}" fill="#333">${svgEsc(t)}</text>`),
    );
    H = bottom + 24 + notes.length * (f.fsm + 6) + 6;
  }
  const W = f.W;
  // In a box: the SVG takes its element's size, the drawing scaled to fit it whole.
  const size = o.box ? 'width="100%" height="100%" preserveAspectRatio="xMidYMid meet"' : `width="${W}" height="${H}"`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" ${size} viewBox="0 0 ${W} ${H}" font-family="DejaVu Sans, Verdana, sans-serif" role="img" aria-label="${svgEsc(d.title)}">`,
    `<defs><pattern id="${idPrefix}-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#dce8fb"/><line x1="0" y1="0" x2="0" y2="6" stroke="#3f7fe0" stroke-width="3"/></pattern>`,
    `<marker id="${idPrefix}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#f0902a"/></marker>`,
    `<marker id="${idPrefix}-chain" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#7a2db0"/></marker></defs>`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    ...svgHeading(d, f, o, head, scale),
    `<rect x="${f.gx}" y="${f.gy}" width="${f.gw}" height="${f.gh}" fill="none" stroke="#000" stroke-width="1.5"/>`,
    ...parts,
    ...marks,
    ...svgMarks(d, L, f),
    ...rows,
    ...extra,
    '</svg>',
  ].join('\n');
}

/** Above the grid: the caption, title, subtitle and the slot array's name; in a box, the free space on one line. */
function svgHeading(d: PageDrawing, f: SvgFrame, o: SvgOptions, head: number, scale: number): string[] {
  const sub = svgSubtitle(d);
  if (o.box) {
    const line = d.band ? `${sub[0]} · ${d.band}` : sub[0]!;
    const size = Math.max(8, Math.min(Math.round(16 * scale), Math.floor((f.W - 8) / (line.length * 0.56))));
    return [`<text x="4" y="${Math.round(f.gy * 0.7)}" font-size="${size}" fill="#222">${svgEsc(line)}</text>`];
  }
  return [
    ...(o.caption ? [`<text x="8" y="${Math.round(20 * scale)}" font-size="${f.fp}" fill="#23313f">${svgEsc(o.caption)}</text>`] : []),
    `<text x="8" y="${Math.round(head + 24 * scale)}" font-size="${Math.round(20 * scale)}" font-weight="bold">${svgEsc(d.title)}</text>`,
    ...sub.map(
      (t, i) =>
        `<text x="8" y="${Math.round(head + (46 + i * 18) * scale)}" font-size="${i === 0 ? f.fp : f.fsm}" fill="#222">${svgEsc(t)}</text>`,
    ),
    `<text x="${f.panelX}" y="${f.gy - 6}" font-size="${f.fsm}" font-weight="bold">${svgEsc(d.words.entries ?? d.slotArray.name)}</text>`,
  ];
}

/**
 * The functions' source as tsc compiled it, put in by the bundler (scripts/bundle.mjs), whose own
 * printing of the code would differ: a report is the same whether the bundle or dist/ wrote it.
 */
declare const ROWSIM_PAGE_SCRIPT: string | undefined;

/** The drawing functions as script source, for report.html and the trace deck (they draw in the browser). */
export function pageScriptSource(): string {
  if (typeof ROWSIM_PAGE_SCRIPT === 'string') return ROWSIM_PAGE_SCRIPT;
  // Every function the drawing calls, as plain declarations the browser can run.
  const fns = [
    layoutPage,
    layoutPositioned,
    layoutPacked,
    pageFigures,
    svgFrame,
    svgFitFrame,
    svgEntryChars,
    svgFill,
    svgEsc,
    svgKinds,
    svgSegments,
    svgMarks,
    svgShownEntries,
    svgEntryText,
    svgEntries,
    svgLegend,
    svgSubtitle,
    svgNoteLines,
    renderPageSvg,
    svgHeading,
  ];
  return `${fns.map((f) => f.toString()).join('\n')}\n`;
}

/** A page's free space as the drawing and the narration state it: in all, in one piece (reserved bytes included), in holes, reserved. */
export interface PageFigures {
  free: number;
  contiguous: number;
  holes: number;
  reserved: number;
}

export function pageFigures(d: PageDrawing['detail']): PageFigures {
  return {
    free: d.contiguousBytes + d.fragmentedBytes,
    contiguous: d.contiguousBytes,
    holes: d.fragmentedBytes,
    reserved: d.reservedBytes,
  };
}
