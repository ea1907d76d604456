/**
 * Two parts of summary.md (and so of report.html) made for a class: a point's engine as a short list a
 * reader takes in at a glance ("ase-dol · page 2 KiB · exp_row_size 100 bytes (given 0) · …", what the
 * page works out below it), and the links to the slide decks (`rowsim trace`) and page drawings (`rowsim
 * page`) that sit beside the results.
 */
import type { StorageFormat } from '../formats/format.js';
import { groupedNumber } from '../util/numbers.js';
import type { StorageRunResult } from '../workload/runner.js';

/** A point's engine settings and figures, as results.json has them. */
type Engine = StorageRunResult['engine'];
type EngineValue = Engine[string];

/** A value as a reader says it: 2,002; yes/no for a flag; strings as they are. */
function valueText(v: EngineValue): string {
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'number') return groupedNumber(v);
  return String(v);
}

/** A page size: "2 KiB", "8 KiB" (bytes when not whole KiB). */
function pageSizeText(bytes: number): string {
  return bytes % 1024 === 0 ? `page ${bytes / 1024} KiB` : `page ${groupedNumber(bytes)} bytes`;
}

/** One setting: "fillfactor 90%", "exp_row_size 100 bytes (given 0)", "compaction on". */
function settingText(key: string, engine: Engine, f: StorageFormat): string {
  const v = engine[key];
  if (key === 'page_size' && typeof v === 'number') return pageSizeText(v);
  if (key !== f.knob.reserveSetting || !f.knob.reserveUnit) return `${key} ${valueText(v)}`;
  const unit = f.knob.reserveUnit === '%' ? '%' : ' bytes';
  const given = engine[`${key}_setting`];
  return `${key} ${valueText(v)}${unit}${given !== undefined && String(given) !== String(v) ? ` (given ${given})` : ''}`;
}

/** A figure the format works out: "usable page 2,002 bytes", "max rows per page 166", "exp_row_size min 20". */
function derivedText(key: string, v: EngineValue, f: StorageFormat): string {
  const base = key.replace(/_bytes$/, '');
  const prefix =
    f.knob.reserveSetting && (base === f.knob.reserveSetting || base.startsWith(`${f.knob.reserveSetting}_`)) ? f.knob.reserveSetting : '';
  const rest = prefix ? base.slice(prefix.length + 1) : base;
  const name = [prefix, rest.replace(/_/g, ' ')].filter(Boolean).join(' ');
  return `${name} ${valueText(v)}${key.endsWith('_bytes') ? ' bytes' : ''}`;
}

/**
 * A point's engine as two short lists: the settings (the format, then the keys the format reads, as the
 * config spells them) and what the page works out from them. Each a line `Name: item · item · item.`,
 * which report.html shows as a list.
 */
export function engineMarkdown(e: { engine: Engine }, f: StorageFormat): string[] {
  const keys = Object.keys(e.engine).filter((k) => k !== 'format');
  const given = new Set<string>(f.settings);
  const settings = keys.filter((k) => given.has(k));
  const reserveGiven = f.knob.reserveSetting ? `${f.knob.reserveSetting}_setting` : '';
  const derived = keys.filter((k) => !given.has(k) && k !== reserveGiven);
  const out = [`Engine: ${[String(e.engine.format), ...settings.map((k) => settingText(k, e.engine, f))].join(' · ')}.`, ''];
  if (derived.length) out.push(`Worked out: ${derived.map((k) => derivedText(k, e.engine[k], f)).join(' · ')}.`, '');
  return out;
}

/** The files beside the results that `rowsim trace` and `rowsim page` wrote (paths relative to the results folder). */
export interface Companions {
  decks: string[];
  drawings: string[];
}

/** A section linking the slide decks and page drawings that exist, or saying how to make them. */
export function companionsMarkdown(c: Companions, configFile: string): string[] {
  const out = ['## Slide decks and page drawings', ''];
  const link = (rel: string) => `- [${rel}](${rel})`;
  if (c.decks.length) out.push('Slide decks (`rowsim trace`), one a sweep point:', '', ...c.decks.map(link), '');
  else out.push(`No slide deck yet: \`rowsim trace ${configFile}\` writes them to \`trace/\`.`, '');
  if (c.drawings.length) out.push('Page drawings (`rowsim page`):', '', ...c.drawings.map(link), '');
  else out.push(`No page drawing yet: \`rowsim page ${configFile}\` writes them to \`pages/\`.`, '');
  out.push('A run links those it finds beside its results.', '');
  return out;
}
