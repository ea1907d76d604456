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

/**
 * The page as a self-contained SVG document (no fonts or images from outside). `idPrefix` names its
 * pattern and marker: drawings that share an HTML document each need their own (a hidden slide's
 * definitions do not draw in another).
 */
export function renderPageSvg(d: PageDrawing, idPrefix = 'rowsim-page'): string {
  const esc = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
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
  const L = layoutPage(d);
  const det = d.detail;
  const bpl = d.pageBytes <= 2048 ? 64 : d.pageBytes <= 8192 ? 128 : d.pageBytes <= 16384 ? 256 : 512;
  const lines = Math.ceil(d.pageBytes / bpl);
  const lineH = lines <= 32 ? 20 : lines <= 64 ? 11 : 6;
  const gx = 70;
  const gy = 92;
  const gw = 640;
  const px = gw / bpl;
  const gh = lines * lineH;
  const panelX = gx + gw + 70;
  const W = panelX + 470;
  const parts: string[] = [];
  const firstPiece: Record<number, { x: number; y: number }> = {};
  // Each segment in pieces, one per grid line it crosses; neighbouring rows in two shades.
  let nth = 0;
  for (const s of L.segments) {
    const shade = s.kind === 'row' || s.kind === 'forwarded' || s.kind === 'heap-only' ? nth++ % 2 : 0;
    let b = s.start;
    const end = s.start + s.bytes;
    let first = true;
    while (b < end) {
      const line = Math.floor(b / bpl);
      const col = b - line * bpl;
      const n = Math.min(end - b, bpl - col);
      const x = gx + col * px;
      const y = gy + line * lineH;
      const w = n * px;
      const fill =
        shade === 1 ? (s.kind === 'row' ? '#2a5fb0' : s.kind === 'forwarded' ? '#a8302a' : '#6a9be0') : (colour[s.kind] ?? '#cccccc');
      parts.push(
        `<rect x="${x.toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${lineH}" fill="${fill}" stroke="#333" stroke-width="0.4"><title>${esc(`${s.label}: ${s.bytes} bytes at ${s.start}–${s.start + s.bytes - 1}`)}</title></rect>`,
      );
      if (first && s.slot !== undefined && s.kind !== 'reserved') {
        if (firstPiece[s.slot] === undefined) firstPiece[s.slot] = { x: x + Math.min(w, 8) / 2, y: y + lineH / 2 };
        const short = s.kind === 'stub' ? '→' : s.label.startsWith('row ') ? s.label.slice(4) : '';
        if (short && w >= 9 * short.length + 4 && lineH >= 11)
          parts.push(
            `<text x="${(x + 3).toFixed(2)}" y="${y + lineH - 5}" font-size="${lineH >= 20 ? 13 : 9}" fill="#fff">${esc(short)}</text>`,
          );
      }
      first = false;
      b += n;
    }
  }
  if (L.fillAt !== undefined && d.fillLine) {
    const line = Math.floor(L.fillAt / bpl);
    const col = L.fillAt - line * bpl;
    const x = gx + col * px;
    const y = gy + line * lineH;
    parts.push(`<path d="M ${x.toFixed(2)} ${y - 3} V ${y + lineH + 3}" stroke="#c00" stroke-width="3"/>`);
    parts.push(`<text x="${gx}" y="${gy + gh + 26}" font-size="15" fill="#c00">▎ ${esc(d.fillLine.label)}</text>`);
  }
  // Byte offsets down the left side.
  for (let l = 0; l < lines; l += lines <= 32 ? 4 : 8)
    parts.push(
      `<text x="${gx - 8}" y="${gy + l * lineH + Math.min(lineH, 14) - 2}" font-size="12" text-anchor="end" fill="#555">${l * bpl}</text>`,
    );
  parts.push(`<text x="${gx - 8}" y="${gy + gh}" font-size="12" text-anchor="end" fill="#555">${d.pageBytes}</text>`);
  // The entries, one a line, and connectors from stubs.
  const rows: string[] = [];
  const maxList = Math.max(8, Math.floor((gh - 16) / 20));
  const slotName = d.slotArray.firstSlot === 1 ? 'lp' : 'slot';
  // When the list is longer than the grid, every entry that is not a plain row is kept (stubs and what
  // they point to, dead versions …) and the rows fill the lines left, in slot order.
  let shown = det.slots;
  if (det.slots.length > maxList) {
    const special = det.slots.filter((e) => e.kind !== 'row' && e.kind !== 'heap-only');
    let room = Math.max(0, maxList - special.length);
    const keep = new Set(special.slice(0, maxList));
    for (const e of det.slots) {
      if (room === 0) break;
      if (!keep.has(e)) {
        keep.add(e);
        room--;
      }
    }
    shown = det.slots.filter((e) => keep.has(e));
  }
  shown.forEach((s, i) => {
    const y = gy + 14 + i * 20;
    const who = s.row !== undefined ? `row ${s.row}` : `${s.count} ${s.count === 1 ? 'entry' : 'entries'}`;
    const range = s.count !== undefined && s.count > 1 ? `${s.slot}–${s.slot + s.count - 1}` : `${s.slot}`;
    let text = `${slotName} ${range}: `;
    if (s.kind === 'stub') text += `${who} → page ${s.to!.page} ${slotName} ${s.to!.slot} (stub, ${s.bytes} B)`;
    else if (s.kind === 'forwarded') text += `${who}, ${s.bytes} B, from page ${s.from!.page} ${slotName} ${s.from!.slot}`;
    else if (s.kind === 'row' || s.kind === 'heap-only') text += `${who}, ${s.bytes} B${s.kind === 'heap-only' ? ' (heap-only)' : ''}`;
    else text += `${who}: ${names[s.kind] ?? s.kind}${s.bytes ? `, ${s.bytes} B` : ''}`;
    if (s.reserved) text += ` + ${s.reserved} B reserved`;
    if (s.pieces) text += `, continues on ${s.pieces} more block${s.pieces > 1 ? 's' : ''}`;
    const sw = colour[s.kind] ?? '#ccc';
    rows.push(
      `<rect x="${panelX}" y="${y - 11}" width="12" height="12" fill="${sw}" stroke="#333" stroke-width="0.5"/><text x="${panelX + 18}" y="${y}" font-size="14">${esc(text)}</text>`,
    );
    const p = firstPiece[s.slot];
    if (s.kind === 'stub' && p)
      rows.push(
        `<path d="M ${p.x.toFixed(1)} ${p.y.toFixed(1)} C ${(gx + gw + 30).toFixed(1)} ${p.y.toFixed(1)}, ${panelX - 40} ${y - 5}, ${panelX - 4} ${y - 5}" fill="none" stroke="#f0902a" stroke-width="1.6" marker-end="url(#${idPrefix}-arrow)"/>`,
      );
  });
  if (det.slots.length > shown.length)
    rows.push(
      `<text x="${panelX}" y="${gy + 14 + shown.length * 20}" font-size="14" fill="#555">… and ${det.slots.length - shown.length} more entries (rowsim page --format text lists all)</text>`,
    );
  if (det.slots.length === 0)
    rows.push(
      `<text x="${panelX}" y="${gy + 14}" font-size="14" fill="#555">${det.allocated ? 'no rows on this page' : 'this page is not allocated'}</text>`,
    );
  // Legend: the kinds on this page with their bytes.
  const totals: Record<string, number> = {};
  for (const s of L.segments) totals[s.kind] = (totals[s.kind] ?? 0) + s.bytes;
  const listBottom = gy + 14 + (Math.min(det.slots.length, maxList) + 1) * 20;
  const legendY = Math.max(gy + gh + (L.fillAt !== undefined ? 50 : 30), listBottom + 10);
  const legend: string[] = [];
  let lx = gx;
  let ly = legendY;
  for (const kind of Object.keys(colour)) {
    if (totals[kind] === undefined) continue;
    const label = `${kind === 'header' ? 'header' : names[kind]} ${totals[kind]} B`;
    const w = 24 + label.length * 7.6;
    if (lx + w > W - 20) {
      lx = gx;
      ly += 22;
    }
    legend.push(
      `<rect x="${lx}" y="${ly - 12}" width="14" height="14" fill="${colour[kind]}" stroke="#333" stroke-width="0.5"/><text x="${lx + 19}" y="${ly}" font-size="14">${esc(label)}</text>`,
    );
    lx += w + 14;
  }
  const freeTotal = L.freeBytes + L.holeBytes + (totals.reserved ?? 0);
  const entries = det.slots.reduce((n, s) => n + (s.count ?? 1), 0);
  const sub = [
    `${d.pageBytes} bytes; ${entries} ${d.slotArray.name} entr${entries === 1 ? 'y' : 'ies'} of ${d.slotArray.entryBytes} B`,
    `the table: ${det.pages} page${det.pages === 1 ? '' : 's'}${det.numbered !== undefined && det.numbered > det.pages ? ` (numbered up to ${det.numbered - 1}: some were given back)` : ''}${det.allocated ? '' : '; this page is not allocated'}`,
    `free ${freeTotal} B: ${L.freeBytes} contiguous, ${L.holeBytes} in holes${totals.reserved ? `, ${totals.reserved} reserved` : ''}${L.overReservedBytes > 0 ? ` (${L.overReservedBytes} B more reserved than free)` : ''}`,
    ...(d.band ? [d.band] : []),
    ...(det.keyRange ? [`keys (row ids) ${det.keyRange.first}–${det.keyRange.last}`] : []),
  ].join(' · ');
  const notesY = ly + 30;
  const notes = [...det.flags.map((f) => `• ${f}`), ...d.notes.map((n) => `• ${n}`)];
  const noteLines: string[] = [];
  for (const n of notes) {
    // Wrap each note to the drawing's width.
    const words = n.split(' ');
    let line = '';
    for (const w of words) {
      if ((line + ' ' + w).length > 140) {
        noteLines.push(line);
        line = `  ${w}`;
      } else line = line ? `${line} ${w}` : w;
    }
    if (line) noteLines.push(line);
  }
  const H = notesY + noteLines.length * 19 + 16;
  const title = d.title;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="DejaVu Sans, Verdana, sans-serif" role="img" aria-label="${esc(title)}">`,
    `<defs><pattern id="${idPrefix}-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#dce8fb"/><line x1="0" y1="0" x2="0" y2="6" stroke="#3f7fe0" stroke-width="3"/></pattern>`,
    `<marker id="${idPrefix}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#f0902a"/></marker></defs>`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${gx}" y="34" font-size="24" font-weight="bold">${esc(title)}</text>`,
    `<text x="${gx}" y="62" font-size="15" fill="#333">${esc(sub)}</text>`,
    `<text x="${gx}" y="${gy - 8}" font-size="12" fill="#555">${bpl} bytes a line, byte offsets on the left; numbers in blocks: row ids</text>`,
    `<text x="${panelX}" y="${gy - 8}" font-size="15" font-weight="bold">${esc(d.slotArray.name)}</text>`,
    `<rect x="${gx}" y="${gy}" width="${gw}" height="${gh}" fill="none" stroke="#000" stroke-width="1.5"/>`,
    ...parts,
    ...rows,
    ...legend,
    ...noteLines.map((t, i) => `<text x="${gx}" y="${notesY + i * 19}" font-size="14" fill="#333">${esc(t)}</text>`),
    '</svg>',
  ].join('\n');
}

/**
 * The functions' source as tsc compiled it, put in by the bundler (scripts/bundle.mjs), whose own
 * printing of the code would differ: a report is the same whether the bundle or dist/ wrote it.
 */
declare const ROWSIM_PAGE_SCRIPT: string | undefined;

/** The two functions as script source, for report.html and the trace deck (they draw in the browser). */
export function pageScriptSource(): string {
  if (typeof ROWSIM_PAGE_SCRIPT === 'string') return ROWSIM_PAGE_SCRIPT;
  return `${layoutPage.toString()}\n${renderPageSvg.toString()}\n`;
}
