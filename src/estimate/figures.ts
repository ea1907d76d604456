/**
 * One candidate's figures for the whole table: the replicates' per-row ratios extrapolated to the
 * table's rows with their spread and 95% interval (src/estimate/stats.ts). Pure.
 */
import type { ReserveKnob, Setting, SpecialName } from './knob.js';
import type { ReplicateFigures } from './simulate.js';
import { extrapolate, type Extrapolated } from './stats.js';

export interface Cand {
  value: number;
  setting: Setting;
  specials: SpecialName[];
  refined: boolean;
}

export interface CandidateFigures {
  value: number;
  setting: string;
  specials: SpecialName[];
  label: string;
  refined: boolean;
  forwarded_rows: number;
  forwarded_rows_pct: number;
  pages: number;
  table_scan_page_reads: number;
  packed_pages: number;
  space_overhead_pct: number;
  hot_updates_pct?: number;
  reorg?: { kind: string; exclusive_table_locks: number; pages_after: number };
  /** Pages against the current setting's (set once every candidate is known). */
  vs_current?: { pages: number; pct: number };
  spread: { forwarded_rows_pct: [number, number]; pages: [number, number]; table_scan_page_reads: [number, number] };
  interval: { forwarded_rows_pct: [number, number]; pages: [number, number]; table_scan_page_reads: [number, number] };
}

// ---- aggregation --------------------------------------------------------------------------------

export function r2(x: number): number {
  return Math.round(x * 100) / 100;
}
export function r4(x: number): number {
  return Math.round(x * 10000) / 10000;
}
function rInt(x: number): number {
  return Math.round(x);
}
function pair(x: [number, number], f: (v: number) => number): [number, number] {
  return [f(x[0]), f(x[1])];
}

export function aggregate(knob: ReserveKnob, c: Cand, figs: ReplicateFigures[], tableRows: number, sampleRows: number): CandidateFigures {
  const ratio = (key: keyof ReplicateFigures) => figs.map((f) => (f.rows > 0 ? f[key] / f.rows : 0));
  // Sample-edge allowance: one page's worth of rows (forwarded rows), one page (pages), both (scan reads).
  const rowsPerPage = figs.reduce((s, f) => s + (f.pages > 0 ? f.rows / f.pages : 0), 0) / Math.max(1, figs.length);
  const S = Math.max(1, sampleRows);
  const edges: Partial<Record<keyof ReplicateFigures, number>> = {
    forwarded_rows: rowsPerPage / S,
    pages: 1 / S,
    table_scan_page_reads: (1 + rowsPerPage) / S,
    packed_pages: 1 / S,
  };
  const ex = (key: keyof ReplicateFigures): Extrapolated => extrapolate(ratio(key), tableRows, sampleRows, edges[key] ?? 0);
  const fwd = ex('forwarded_rows');
  const pages = ex('pages');
  const scan = ex('table_scan_page_reads');
  const packed = ex('packed_pages');
  const pct = (v: number) => r4((100 * v) / Math.max(1, tableRows));
  const updates = figs.reduce((s, f) => s + f.updates, 0);
  const special = knob.specials.filter((s) => c.specials.includes(s.name));
  const out: CandidateFigures = {
    value: c.value,
    setting: String(c.setting),
    specials: c.specials,
    label:
      [...special.map((s) => s.label), ...(c.specials.includes('current') ? [`current (config: ${c.setting})`] : [])].join(', ') ||
      String(c.value),
    refined: c.refined,
    forwarded_rows: rInt(fwd.value),
    forwarded_rows_pct: pct(fwd.value),
    pages: rInt(pages.value),
    table_scan_page_reads: rInt(scan.value),
    packed_pages: rInt(packed.value),
    space_overhead_pct: packed.value > 0 ? r2(100 * (pages.value / packed.value - 1)) : 0,
    spread: { forwarded_rows_pct: pair(fwd.spread, pct), pages: pair(pages.spread, rInt), table_scan_page_reads: pair(scan.spread, rInt) },
    interval: {
      forwarded_rows_pct: pair(fwd.interval, pct),
      pages: pair(pages.interval, rInt),
      table_scan_page_reads: pair(scan.interval, rInt),
    },
  };
  if (knob.movedMetric === 'newpage_updates' && updates > 0)
    out.hot_updates_pct = r2((100 * figs.reduce((s, f) => s + f.hot_updates, 0)) / updates);
  if (knob.reorg) {
    out.reorg = {
      kind: knob.reorg,
      exclusive_table_locks: rInt(ex('reorg_exclusive_table_locks').value),
      pages_after: rInt(ex('pages_after_reorg').value),
    };
  }
  return out;
}
