/**
 * rowsim trace: the workload one row operation at a time, as the page engine does it, for the rows or
 * the page chosen; on the terminal and as an HTML slide deck (out/<name>/trace/trace.html).
 */
import { join, relative } from 'node:path';
import { UserError } from '../config/errors.js';
import { loadConfig } from '../loader/config.js';
import { choosePoint } from '../mechanism/capture.js';
import { traceRun } from '../mechanism/trace.js';
import { StagedOutput, checkOutputFolder } from '../report/output.js';
import { slug } from '../util/units.js';

export interface TraceOptions {
  point?: string;
  rows?: [number, number];
  page?: number;
  steps?: number;
  out?: string;
  quiet?: boolean;
  scale?: number;
}

/** The deck's file name, from its sweep point and filter: two points (or filters) never share one. */
export function deckName(point: string, rows?: [number, number], page?: number): string {
  const filter = rows ? `-rows-${rows[0]}-${rows[1]}` : page !== undefined ? `-page-${page}` : '';
  return `trace-${slug(point)}${filter}`;
}

export const TRACE_DEFAULT_STEPS = 50;

export async function traceCommand(file: string, opts: TraceOptions): Promise<number> {
  if (opts.page !== undefined && opts.rows !== undefined) throw new UserError('--rows and --page: expected one of them, found both');
  const cfg = loadConfig(file);
  const point = choosePoint(cfg.storage, opts.point, file);
  const folder = checkOutputFolder(opts.out ?? join('out', cfg.name, 'trace'), 'trace');
  const steps = opts.steps ?? TRACE_DEFAULT_STEPS;
  const trace = traceRun(point.spec, {
    ...(opts.rows ? { rows: opts.rows } : {}),
    ...(opts.page !== undefined ? { page: opts.page } : {}),
    steps,
  });
  const what = opts.rows ? `rows ${opts.rows[0]}..${opts.rows[1]}` : opts.page !== undefined ? `page ${opts.page}` : 'every operation';
  const title = `${cfg.name}: ${point.label}`;
  const subtitle = `${what}, ${point.spec.engine.format}`;
  const { traceDeck } = await import('../mechanism/deck.js');
  const name = deckName(point.label, opts.rows, opts.page);
  const out = new StagedOutput(folder);
  try {
    out.write(`${name}.html`, traceDeck(title, subtitle, trace, { scale: opts.scale ?? 1 }));
    out.write(
      `${name}.json`,
      `${JSON.stringify({ config: file, point: point.label, filter: { rows: opts.rows ?? null, page: opts.page ?? null, steps }, truncated: trace.truncated, steps: trace.steps.map(({ pages, ...s }) => ({ ...s, pages: pages.map((p) => p.page) })) })}\n`,
    );
    await out.publish({ accumulate: true });
  } finally {
    out.discard();
  }
  if (!opts.quiet) {
    const lines = [`${title} (${subtitle})`];
    if (trace.steps.length === 0) lines.push(`no step of the workload touches ${what}`);
    for (const s of trace.steps) {
      const [first, ...rest] = s.text.split('\n');
      lines.push(`${String(s.step).padStart(3)}. [${s.phase} ${s.phaseLabel}] ${first}`, ...rest.map((r) => `     ${r}`));
    }
    if (trace.truncated) lines.push(`(stopped after ${trace.steps.length} steps; --steps shows more)`);
    const shown = relative(process.cwd(), folder.dir) || folder.dir;
    if (trace.note) lines.push(`note: ${trace.note}`);
    lines.push(`slide deck: ${join(shown, `${name}.html`)} (→ / Space / click: next, ← back, #N: step N)`);
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return 0;
}
