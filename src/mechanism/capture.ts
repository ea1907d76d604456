/**
 * A storage point run up to a chosen phase, and its pages read there: what `rowsim page` draws and the
 * report's page-map cells open. The run is the same runStorage every command uses.
 */
import type { StorageSpec, SweepPoint } from '../config/spec.js';
import { UserError } from '../config/errors.js';
import { getFormat } from '../formats/registry.js';
import type { PageInspector } from '../heap/inspect.js';
import { runStorage, type RunOptions } from '../workload/runner.js';
import type { PageDrawing } from './drawing.js';
import { pageDrawing } from './page.js';

/** After which phase the table is looked at: a phase's number from 1, or the end of the workload. */
export type PhaseChoice = number | 'final';

export interface Capture {
  inspector: PageInspector;
  /** 1-based number of the phase it was taken after, and that phase's label. */
  phase: number;
  phaseLabel: string;
  draw(page: number): PageDrawing;
}

/** Drawings of pages of `spec`'s table, from an inspector taken when the table is in that state. */
export function drawer(spec: StorageSpec, inspector: PageInspector): (page: number) => PageDrawing {
  const format = getFormat(spec.engine.format);
  const layout = format.layout(spec.table, spec.engine);
  return (page) => pageDrawing(format, layout, spec.engine, inspector.page(page));
}

/** Run `spec` to the end of phase `after` and read every page there. */
export function captureAfter(spec: StorageSpec, after: PhaseChoice, options: RunOptions = {}): Capture {
  const phases = spec.workload.length;
  const at = after === 'final' ? phases : after;
  if (!Number.isInteger(at) || at < 1 || at > phases)
    throw new UserError(`--after: expected a phase number from 1 to ${phases} or "final", found ${after}`);
  let inspector: PageInspector | null = null;
  let label = '';
  const phaseSpec = spec.workload.slice(0, at);
  const result = runStorage(
    { ...spec, workload: phaseSpec },
    {
      ...options,
      afterPhase: (engine, index) => {
        options.afterPhase?.(engine, index);
        if (index === at - 1) inspector = engine.inspect();
      },
    },
  );
  label = result.phases[at - 1]?.label ?? '';
  const inspected = inspector as PageInspector | null;
  if (inspected === null) throw new Error(`no state captured after phase ${at}`);
  return { inspector: inspected, phase: at, phaseLabel: label, draw: drawer(spec, inspected) };
}

/** The sweep point a `--point` label names (default the first), or a clear error listing the labels. */
export function choosePoint(points: readonly SweepPoint[], label: string | undefined, file: string): SweepPoint {
  if (points.length === 0) throw new UserError(`${file}: expected a workload to run, found a config without one`);
  if (label === undefined) return points[0]!;
  const p = points.find((q) => q.label === label);
  if (!p)
    throw new UserError(
      `--point: expected one of the sweep points of ${file} (${points.map((q) => q.label).join(', ')}), found "${label}"`,
    );
  return p;
}

/** The first page with a forwarding stub, else one with a forwarded or dead entry, else page 0: the page worth looking at. */
export function interestingPage(inspector: PageInspector): number {
  for (const kinds of [['stub'], ['forwarded', 'dead', 'heap-only', 'redirect']]) {
    for (let p = 0; p < inspector.pages; p++) if (inspector.page(p).slots.some((s) => kinds.includes(s.kind))) return p;
  }
  return 0;
}
