/**
 * The playground's engine: what `rowsim playground`'s page runs in the browser, bundled with the rest of
 * rowsim's page engines (scripts/bundle.mjs). A config's YAML goes through the same loader, runner and
 * trace as `rowsim run` and `rowsim trace`; the page gets back plain data: each sweep point's results.json
 * entry, its counter tables and its trace (steps, narration and page drawings), or the config's problems.
 */
import { InputError, UserError } from '../config/errors.js';
import { FORMAT_IDS, getFormat } from '../formats/registry.js';
import { loadConfig } from '../loader/config.js';
import { parseConfigSource } from '../loader/source.js';
import { traceRun, type Trace } from '../mechanism/trace.js';
import { renderPageSvg, type SvgOptions } from '../mechanism/svg.js';
import type { PageDrawing } from '../mechanism/drawing.js';
import { phaseCounters, storageCounters, storageEntry, type StorageEntry } from '../report/storage.js';
import { runStorage } from '../workload/runner.js';
import { plannedRowOperations } from '../workload/planned-work.js';

export { stringify as stringifyYaml } from 'yaml';

/** A config's YAML as a plain value, read as the loader reads it (`null: true` is a key); throws on invalid YAML. */
export function parseYaml(text: string): unknown {
  return parseConfigSource('config.yaml', text).raw;
}

/** Steps a trace keeps for the page: a teaching config has a few dozen. */
export const PLAY_STEPS = 400;

/**
 * Row operations a config may plan over all its points: the page runs it on its own thread in a second or
 * two at most (a shared `#state` link with 5e7 rows would freeze a student's tab). `rowsim run` takes more.
 */
export const PLAY_MAX_ROW_OPS = 200_000;

export interface CounterTable {
  header: string[];
  rows: string[][];
}

export interface PlayPoint {
  label: string;
  format: string;
  /** The point's results.json entry, as `rowsim run` writes it. */
  entry: StorageEntry;
  /** Its counters after each phase (summary.md's table of the point). */
  phases: CounterTable;
  trace: Trace;
}

export type PlayResult = { ok: true; name: string; points: PlayPoint[]; counters: CounterTable } | { ok: false; problems: string[] };

/** Run a config's text (named `file` in its problems) at every sweep point, with a trace of each. */
export function playConfig(file: string, text: string, steps: number = PLAY_STEPS): PlayResult {
  try {
    const cfg = loadConfig(file, text);
    if (cfg.storage.length === 0) return { ok: false, problems: [`${file}: expected a storage run (table, engine, workload), found none`] };
    const planned = cfg.storage.reduce((n, p) => n + plannedRowOperations(p.spec.workload), 0);
    if (planned > PLAY_MAX_ROW_OPS)
      return {
        ok: false,
        problems: [
          `${file}: the workload plans ${planned.toLocaleString('en-US')} row operations over its points; the playground runs at most ${PLAY_MAX_ROW_OPS.toLocaleString('en-US')} (fewer rows, or rowsim run)`,
        ],
      };
    const points = cfg.storage.map((point): PlayPoint => {
      const entry = storageEntry(point, runStorage(point.spec));
      return {
        label: point.label,
        format: point.spec.engine.format,
        entry,
        phases: phaseCounters(entry),
        trace: traceRun(point.spec, { steps }),
      };
    });
    return { ok: true, name: cfg.name, points, counters: storageCounters(points.map((p) => p.entry)) };
  } catch (err) {
    if (err instanceof InputError) return { ok: false, problems: err.message.split('\n') };
    if (err instanceof UserError) return { ok: false, problems: [err.message] };
    throw err;
  }
}

/** What the page offers for each format: its page sizes and the engine setting that reserves room. */
export interface FormatChoice {
  id: string;
  title: string;
  pageSizes: number[];
  defaultPageBytes: number;
  knob?: string;
  knobUnit?: 'bytes' | '%';
}

export function formatChoices(): FormatChoice[] {
  return FORMAT_IDS.map((id) => {
    const f = getFormat(id);
    return {
      id,
      title: f.title,
      pageSizes: [...f.pageSizes],
      defaultPageBytes: f.defaultPageBytes,
      ...(f.knob.reserveSetting ? { knob: f.knob.reserveSetting } : {}),
      ...(f.knob.reserveUnit ? { knobUnit: f.knob.reserveUnit } : {}),
    };
  });
}

/** A page drawing as SVG: the same drawing code as report.html, the trace deck and `rowsim page`. */
export function pageSvg(d: PageDrawing, options: SvgOptions): string {
  return renderPageSvg(d, options);
}
