/**
 * Advice a DBA expects beside the recommended setting: the free space the rebuild that applies it to the
 * existing pages needs, as a figure (the table at the new setting, plus its indexes where the evidence
 * gives their size), and the format's word on its DBMS's other space settings (ASE's reservepagegap and
 * max_rows_per_page). The wording of each DBMS's commands and sources is the format's
 * (StorageFormat.rebuild, estimateAlternatives). Pure.
 */
import { getFormat } from '../formats/registry.js';
import { binarySize as sizeText, groupedNumber } from '../util/numbers.js';
import type { ReserveKnob } from './knob.js';
import type { EstimateConfig, FormatEstimate } from './types.js';

export interface RebuildSpace {
  command: string;
  /** The table's data pages at the recommended setting, and their bytes. */
  pages: number;
  data_bytes: number;
  /** The indexes' bytes, where the evidence gives them (sp_spaceused index_size), and from where. */
  index_bytes?: number;
  index_from?: string;
  total_bytes: number;
  sentence: string;
}

export interface Advice {
  rebuild?: RebuildSpace;
  alternatives: string[];
}

function rebuildSpace(cfg: EstimateConfig, knob: ReserveKnob, f: FormatEstimate): RebuildSpace | undefined {
  const format = getFormat(knob.format);
  const rec = f.candidates.find((c) => c.value === f.forwarding_target.value);
  if (!format.knob.rebuild || !rec) return undefined;
  const r = format.knob.rebuild(cfg.table.name);
  const dataBytes = rec.pages * f.page_bytes;
  const idx = r.indexesToo ? cfg.evidence?.indexKB : undefined;
  const indexBytes = idx ? idx.value * 1024 : undefined;
  const total = dataBytes + (indexBytes ?? 0);
  const indexText = idx
    ? ` and its indexes, ${sizeText(indexBytes!)} (${idx.kind} ${idx.label}, ${idx.file}:${idx.line})`
    : r.indexesToo
      ? " (its indexes not counted: no input gives their size; sp_spaceused's index_size would)"
      : '';
  const sentence = `\`${r.command}\` at ${knob.key} ${rec.value} needs about ${sizeText(total)} free: the table at the new setting, ${groupedNumber(rec.pages)} pages (${sizeText(dataBytes)})${indexText}; ${r.needs}`;
  return {
    command: r.command,
    pages: rec.pages,
    data_bytes: dataBytes,
    ...(indexBytes !== undefined ? { index_bytes: indexBytes, index_from: `${idx!.kind} ${idx!.label}` } : {}),
    total_bytes: total,
    sentence,
  };
}

/** The advice for the primary format's recommendation (none when there is no setting to change). */
export function estimateAdvice(cfg: EstimateConfig, knob: ReserveKnob, f: FormatEstimate): Advice | undefined {
  if (knob.key === 'none') return undefined;
  const format = getFormat(knob.format);
  const cur = f.candidates.find((c) => c.specials.includes('current'));
  const rec = f.candidates.find((c) => c.value === f.forwarding_target.value);
  if (!cur || !rec) return undefined;
  const rebuild = rebuildSpace(cfg, knob, f);
  const layout = format.rows.layout(cfg.table, cfg.engine);
  const g = layout.geometry;
  const alternatives =
    format.knob.estimateAlternatives?.({
      table: cfg.table.name,
      pageBytes: f.page_bytes,
      current: { setting: `${knob.key} ${cur.setting}`, pages: cur.pages, forwarded: cur.forwarded_rows },
      recommended: { setting: `${knob.key} ${rec.value}`, value: rec.value, pages: rec.pages, forwarded: rec.forwarded_rows },
      rowsPerPage: Math.max(1, Math.min(g.maxRowsPerPage, Math.floor(g.usableBytes / (rec.value + g.slotBytes)))),
      ...(cfg.table.storage?.reservepagegap ? { reservepagegap: cfg.table.storage.reservepagegap.value } : {}),
    }) ?? [];
  return { ...(rebuild ? { rebuild } : {}), alternatives };
}
