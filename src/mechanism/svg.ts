/**
 * One page drawn to scale as SVG: the page is a grid of lines of bytes (64 a line on a 2K page, 128 on
 * 8K), read left to right and top to bottom; every region (header parts, slot array, each row's body and
 * its reservation, holes, free space) is a block of its own bytes. Beside it, the page's entries one per
 * line, with a connector from each forwarding stub to the page and slot it points to.
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

/** Where the drawing's parts go: the byte grid (bytes a line, line height, origin) and the entry panel beside it. */
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
}

function svgFrame(pageBytes: number, idPrefix: string): SvgFrame {
  const bpl = pageBytes <= 2048 ? 64 : pageBytes <= 8192 ? 128 : pageBytes <= 16384 ? 256 : 512;
  const lines = Math.ceil(pageBytes / bpl);
  const lineH = lines <= 32 ? 20 : lines <= 64 ? 11 : 6;
  const gx = 70;
  const gw = 640;
  const panelX = gx + gw + 70;
  return { bpl, lines, lineH, gx, gy: 92, gw, px: gw / bpl, gh: lines * lineH, panelX, W: panelX + 470, idPrefix };
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
    reserved: d.words.reservation ?? 'reserved',
    holes: 'fragmented free space (holes)',
    free: 'contiguous free space',
  };
  return { colour, names };
}

/** Each segment in pieces, one per grid line it crosses; neighbouring rows in two shades. Also where each slot's first piece is. */
function svgSegments(
  L: PageLayout,
  f: SvgFrame,
  colour: Record<string, string>,
): { parts: string[]; firstPiece: Record<number, { x: number; y: number }> } {
  const parts: string[] = [];
  const firstPiece: Record<number, { x: number; y: number }> = {};
  let nth = 0;
  for (const s of L.segments) {
    const shade = s.kind === 'row' || s.kind === 'forwarded' || s.kind === 'heap-only' ? nth++ % 2 : 0;
    const fill =
      shade === 1 ? (s.kind === 'row' ? '#2a5fb0' : s.kind === 'forwarded' ? '#a8302a' : '#6a9be0') : (colour[s.kind] ?? '#cccccc');
    const end = s.start + s.bytes;
    for (let b = s.start; b < end;) {
      const line = Math.floor(b / f.bpl);
      const col = b - line * f.bpl;
      const n = Math.min(end - b, f.bpl - col);
      const x = f.gx + col * f.px;
      const y = f.gy + line * f.lineH;
      const w = n * f.px;
      parts.push(
        `<rect x="${x.toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${f.lineH}" fill="${fill}" stroke="#333" stroke-width="0.4"><title>${svgEsc(`${s.label}: ${s.bytes} bytes at ${s.start}–${s.start + s.bytes - 1}`)}</title></rect>`,
      );
      if (b === s.start && s.slot !== undefined && s.kind !== 'reserved') {
        if (firstPiece[s.slot] === undefined) firstPiece[s.slot] = { x: x + Math.min(w, 8) / 2, y: y + f.lineH / 2 };
        const short = s.kind === 'stub' ? '→' : s.label.startsWith('row ') ? s.label.slice(4) : '';
        if (short && w >= 9 * short.length + 4 && f.lineH >= 11)
          parts.push(
            `<text x="${(x + 3).toFixed(2)}" y="${y + f.lineH - 5}" font-size="${f.lineH >= 20 ? 13 : 9}" fill="#fff">${svgEsc(short)}</text>`,
          );
      }
      b += n;
    }
  }
  return { parts, firstPiece };
}

/** The fill line (fillfactor, PCTFREE) across the grid, and the byte offsets down its left side. */
function svgMarks(d: PageDrawing, L: PageLayout, f: SvgFrame): string[] {
  const parts: string[] = [];
  if (L.fillAt !== undefined && d.fillLine) {
    const line = Math.floor(L.fillAt / f.bpl);
    const x = f.gx + (L.fillAt - line * f.bpl) * f.px;
    const y = f.gy + line * f.lineH;
    parts.push(`<path d="M ${x.toFixed(2)} ${y - 3} V ${y + f.lineH + 3}" stroke="#c00" stroke-width="3"/>`);
    parts.push(`<text x="${f.gx}" y="${f.gy + f.gh + 26}" font-size="15" fill="#c00">▎ ${svgEsc(d.fillLine.label)}</text>`);
  }
  for (let l = 0; l < f.lines; l += f.lines <= 32 ? 4 : 8)
    parts.push(
      `<text x="${f.gx - 8}" y="${f.gy + l * f.lineH + Math.min(f.lineH, 14) - 2}" font-size="12" text-anchor="end" fill="#555">${l * f.bpl}</text>`,
    );
  parts.push(`<text x="${f.gx - 8}" y="${f.gy + f.gh}" font-size="12" text-anchor="end" fill="#555">${d.pageBytes}</text>`);
  return parts;
}

/**
 * The entries the panel lists: all of them when they fit; else every entry that is not a plain row
 * (stubs and what they point to, dead versions …) and the rows in the lines left, in slot order.
 */
function svgShownEntries(slots: PageDrawing['detail']['slots'], maxList: number): PageDrawing['detail']['slots'] {
  if (slots.length <= maxList) return slots;
  const special = slots.filter((e) => e.kind !== 'row' && e.kind !== 'heap-only');
  let room = Math.max(0, maxList - special.length);
  const keep = new Set(special.slice(0, maxList));
  for (const e of slots) {
    if (room === 0) break;
    if (!keep.has(e)) {
      keep.add(e);
      room--;
    }
  }
  return slots.filter((e) => keep.has(e));
}

/** One entry's line in the panel. */
function svgEntryText(s: PageDrawing['detail']['slots'][number], slotName: string, names: Record<string, string>): string {
  const who = s.row !== undefined ? `row ${s.row}` : `${s.count} ${s.count === 1 ? 'entry' : 'entries'}`;
  const range = s.count !== undefined && s.count > 1 ? `${s.slot}–${s.slot + s.count - 1}` : `${s.slot}`;
  let text = `${slotName} ${range}: `;
  if (s.kind === 'stub') text += `${who} → page ${s.to!.page} ${slotName} ${s.to!.slot} (stub, ${s.bytes} B)`;
  else if (s.kind === 'forwarded') text += `${who}, ${s.bytes} B, from page ${s.from!.page} ${slotName} ${s.from!.slot}`;
  else if (s.kind === 'row' || s.kind === 'heap-only') text += `${who}, ${s.bytes} B${s.kind === 'heap-only' ? ' (heap-only)' : ''}`;
  else text += `${who}: ${names[s.kind] ?? s.kind}${s.bytes ? `, ${s.bytes} B` : ''}`;
  if (s.reserved) text += ` + ${s.reserved} B reserved`;
  if (s.pieces) text += `, continues on ${s.pieces} more block${s.pieces > 1 ? 's' : ''}`;
  return text;
}

/** The entry list beside the grid, with connectors from stubs to their entries. */
function svgEntries(
  d: PageDrawing,
  f: SvgFrame,
  kinds: { colour: Record<string, string>; names: Record<string, string> },
  firstPiece: Record<number, { x: number; y: number }>,
  maxList: number,
): string[] {
  const det = d.detail;
  const rows: string[] = [];
  const slotName = d.slotArray.firstSlot === 1 ? 'lp' : 'slot';
  const shown = svgShownEntries(det.slots, maxList);
  shown.forEach((s, i) => {
    const y = f.gy + 14 + i * 20;
    rows.push(
      `<rect x="${f.panelX}" y="${y - 11}" width="12" height="12" fill="${kinds.colour[s.kind] ?? '#ccc'}" stroke="#333" stroke-width="0.5"/><text x="${f.panelX + 18}" y="${y}" font-size="14">${svgEsc(svgEntryText(s, slotName, kinds.names))}</text>`,
    );
    const p = firstPiece[s.slot];
    if (s.kind === 'stub' && p)
      rows.push(
        `<path d="M ${p.x.toFixed(1)} ${p.y.toFixed(1)} C ${(f.gx + f.gw + 30).toFixed(1)} ${p.y.toFixed(1)}, ${f.panelX - 40} ${y - 5}, ${f.panelX - 4} ${y - 5}" fill="none" stroke="#f0902a" stroke-width="1.6" marker-end="url(#${f.idPrefix}-arrow)"/>`,
      );
  });
  if (det.slots.length > shown.length)
    rows.push(
      `<text x="${f.panelX}" y="${f.gy + 14 + shown.length * 20}" font-size="14" fill="#555">… and ${det.slots.length - shown.length} more entries (rowsim page --format text lists all)</text>`,
    );
  if (det.slots.length === 0)
    rows.push(
      `<text x="${f.panelX}" y="${f.gy + 14}" font-size="14" fill="#555">${det.allocated ? 'no rows on this page' : 'this page is not allocated'}</text>`,
    );
  return rows;
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
    const w = 24 + label.length * 7.6;
    if (lx + w > f.W - 20) {
      lx = f.gx;
      ly += 22;
    }
    legend.push(
      `<rect x="${lx}" y="${ly - 12}" width="14" height="14" fill="${kinds.colour[kind]}" stroke="#333" stroke-width="0.5"/><text x="${lx + 19}" y="${ly}" font-size="14">${svgEsc(label)}</text>`,
    );
    lx += w + 14;
  }
  return { legend, bottom: ly };
}

/** The line under the title: the page's size, entries, the table's pages, free space and what else the drawing knows. */
function svgSubtitle(d: PageDrawing, L: PageLayout, totals: Record<string, number>): string {
  const det = d.detail;
  const freeTotal = L.freeBytes + L.holeBytes + (totals.reserved ?? 0);
  const entries = det.slots.reduce((n, s) => n + (s.count ?? 1), 0);
  return [
    `${d.pageBytes} bytes; ${entries} ${d.slotArray.name} entr${entries === 1 ? 'y' : 'ies'} of ${d.slotArray.entryBytes} B`,
    `the table: ${det.pages} page${det.pages === 1 ? '' : 's'}${det.numbered !== undefined && det.numbered > det.pages ? ` (numbered up to ${det.numbered - 1}: some were given back)` : ''}${det.allocated ? '' : '; this page is not allocated'}`,
    `free ${freeTotal} B: ${L.freeBytes} contiguous, ${L.holeBytes} in holes${totals.reserved ? `, ${totals.reserved} reserved` : ''}${L.overReservedBytes > 0 ? ` (${L.overReservedBytes} B more reserved than free)` : ''}`,
    ...(d.band ? [d.band] : []),
    ...(det.keyRange ? [`keys (row ids) ${det.keyRange.first}–${det.keyRange.last}`] : []),
  ].join(' · ');
}

/** The page's flags and notes as bullets, each wrapped to the drawing's width. */
function svgNoteLines(d: PageDrawing): string[] {
  const out: string[] = [];
  for (const n of [...d.detail.flags.map((f) => `• ${f}`), ...d.notes.map((n) => `• ${n}`)]) {
    let line = '';
    for (const w of n.split(' ')) {
      if ((line + ' ' + w).length > 140) {
        out.push(line);
        line = `  ${w}`;
      } else line = line ? `${line} ${w}` : w;
    }
    if (line) out.push(line);
  }
  return out;
}

/**
 * The page as a self-contained SVG document (no fonts or images from outside). `idPrefix` names its
 * pattern and marker: drawings that share an HTML document each need their own (a hidden slide's
 * definitions do not draw in another).
 */
export function renderPageSvg(d: PageDrawing, idPrefix = 'rowsim-page'): string {
  const kinds = svgKinds(d, idPrefix);
  const L = layoutPage(d);
  const f = svgFrame(d.pageBytes, idPrefix);
  const { parts, firstPiece } = svgSegments(L, f, kinds.colour);
  const maxList = Math.max(8, Math.floor((f.gh - 16) / 20));
  const rows = svgEntries(d, f, kinds, firstPiece, maxList);
  const totals: Record<string, number> = {};
  for (const s of L.segments) totals[s.kind] = (totals[s.kind] ?? 0) + s.bytes;
  const listBottom = f.gy + 14 + (Math.min(d.detail.slots.length, maxList) + 1) * 20;
  const { legend, bottom } = svgLegend(totals, f, kinds, Math.max(f.gy + f.gh + (L.fillAt !== undefined ? 50 : 30), listBottom + 10));
  const notesY = bottom + 30;
  const noteLines = svgNoteLines(d);
  const W = f.W;
  const H = notesY + noteLines.length * 19 + 16;
  const title = d.title;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="DejaVu Sans, Verdana, sans-serif" role="img" aria-label="${svgEsc(title)}">`,
    `<defs><pattern id="${idPrefix}-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#dce8fb"/><line x1="0" y1="0" x2="0" y2="6" stroke="#3f7fe0" stroke-width="3"/></pattern>`,
    `<marker id="${idPrefix}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#f0902a"/></marker></defs>`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${f.gx}" y="34" font-size="24" font-weight="bold">${svgEsc(title)}</text>`,
    `<text x="${f.gx}" y="62" font-size="15" fill="#333">${svgEsc(svgSubtitle(d, L, totals))}</text>`,
    `<text x="${f.gx}" y="${f.gy - 8}" font-size="12" fill="#555">${f.bpl} bytes a line, byte offsets on the left; numbers in blocks: row ids</text>`,
    `<text x="${f.panelX}" y="${f.gy - 8}" font-size="15" font-weight="bold">${svgEsc(d.slotArray.name)}</text>`,
    `<rect x="${f.gx}" y="${f.gy}" width="${f.gw}" height="${f.gh}" fill="none" stroke="#000" stroke-width="1.5"/>`,
    ...parts,
    ...svgMarks(d, L, f),
    ...rows,
    ...legend,
    ...noteLines.map((t, i) => `<text x="${f.gx}" y="${notesY + i * 19}" font-size="14" fill="#333">${svgEsc(t)}</text>`),
    '</svg>',
  ].join('\n');
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
    svgFrame,
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
