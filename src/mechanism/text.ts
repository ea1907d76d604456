/**
 * A page as text, one line per entry of its slot array, after PostgreSQL's pageinspect
 * heap_page_items (lp, lp_off, lp_len, t_ctid): the offsets are those of the drawing (layoutPage).
 */
import type { PageDrawing } from './drawing.js';
import { layoutPage, svgSubtitle } from './svg.js';

export function pageText(d: PageDrawing): string {
  const L = layoutPage(d);
  const det = d.detail;
  const offsets = new Map<number, number>();
  for (const s of L.segments) if (s.slot !== undefined && s.kind !== 'reserved' && !offsets.has(s.slot)) offsets.set(s.slot, s.start);
  const num = d.slotArray.firstSlot === 1 ? 'lp' : 'slot';
  const head = [num, 'kind', 'row', 'off', 'len', 'reserved', 'points to / from'];
  const rows = det.slots.map((s) => [
    s.count !== undefined && s.count > 1 ? `${s.slot}-${s.slot + s.count - 1}` : String(s.slot),
    s.count !== undefined ? `${s.kind} ×${s.count}` : s.kind,
    s.row !== undefined ? String(s.row) : '',
    s.bytes > 0 && offsets.has(s.slot) ? String(offsets.get(s.slot)) : '',
    String(s.bytes),
    s.reserved ? String(s.reserved) : '',
    s.to
      ? `→ (${s.to.page},${s.to.slot})`
      : s.from
        ? `← (${s.from.page},${s.from.slot}) home`
        : s.pieces
          ? `+${s.pieces} chained block${s.pieces > 1 ? 's' : ''}`
          : '',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i >= 2 && i <= 5 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [
    `${d.title}: ${d.pageBytes} bytes; the table has ${det.pages} page${det.pages === 1 ? '' : 's'}${det.numbered !== undefined && det.numbered > det.pages ? ` (numbered up to ${det.numbered - 1}: some were given back)` : ''}${det.allocated ? '' : '; this page is not allocated'}`,
    `header ${d.header.map((h) => `${h.label} ${h.bytes}`).join(' + ')} B; ${d.slotArray.name} ${det.slotArrayBytes} B (${d.slotArray.entryBytes} B an entry)`,
    d.detail.positioned
      ? `rows and stubs ${det.storedBytes} B; ${svgSubtitle(d)[0]}${det.reservedBytes ? ` (${d.words.reservation ?? 'reserved'})` : ''}`
      : `rows and stubs ${det.storedBytes} B; free ${det.contiguousBytes + det.fragmentedBytes} B: ${L.freeBytes} contiguous, ${L.holeBytes} ${d.words.holesShort ?? 'in holes'}${det.reservedBytes ? `, ${det.reservedBytes - L.overReservedBytes} reserved (${d.words.reservation ?? 'reserved'})` : ''}${L.overReservedBytes > 0 ? `; ${L.overReservedBytes} B more reserved than free: rows grew into their neighbours' reservations` : ''}`,
    ...(d.fillLine ? [d.fillLine.label] : []),
    ...(d.band ? [d.band] : []),
    ...(det.keyRange
      ? [
          `keys (row ids) ${det.keyRange.first}–${det.keyRange.last}; previous page ${det.keyRange.prev < 0 ? 'none' : det.keyRange.prev}, next ${det.keyRange.next < 0 ? 'none' : det.keyRange.next}`,
        ]
      : []),
    ...det.flags,
    '',
    line(head),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
  ];
  if (det.slots.length === 0) out.push(det.allocated ? '(no rows on this page)' : '(this page is not allocated)');
  return `${out.join('\n')}\n`;
}
