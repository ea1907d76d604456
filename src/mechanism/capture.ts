/**
 * A storage point run up to a chosen phase, and its pages read there: what `rowsim page` draws and the
 * report's page-map cells open. The run is the same runStorage every command uses.
 */
import type { StorageSpec, SweepPoint } from '../config/spec.js';
import { UserError } from '../config/errors.js';
import { getFormat } from '../formats/registry.js';
import type { PageDetail, PageInspector } from '../heap/inspect.js';
import type { StorageEngine } from '../heap/engine.js';
import { ForwardingHeap } from '../heap/forwarding-heap.js';
import { PostgresHeap } from '../heap/postgres-heap.js';
import { compareBook, PageBook } from './page-book.js';
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
  /** Why the drawings are not at byte positions, when they are not. */
  note?: string;
}

/** A page book for `engine` (src/mechanism/page-book.ts), or null for an engine it does not follow (a clustered table). */
export function bookFor(spec: StorageSpec, engine: StorageEngine): PageBook | null {
  const g = getFormat(spec.engine.format).rows.layout(spec.table, spec.engine).geometry;
  const geometry = { usable: g.usableBytes, slotBytes: g.slotBytes };
  if (engine instanceof PostgresHeap) return new PageBook('postgres', geometry);
  if (engine instanceof ForwardingHeap) return new PageBook('forwarding', geometry);
  return null;
}

/** Drawings of `spec`'s pages from page details (the engine's or the page book's). */
export function detailDrawer(spec: StorageSpec): (detail: PageDetail) => PageDrawing {
  const format = getFormat(spec.engine.format);
  const layout = format.rows.layout(spec.table, spec.engine);
  return (detail) => pageDrawing(format, layout, spec.engine, detail);
}

/** Drawings of pages of `spec`'s table, from an inspector taken when the table is in that state. */
export function drawer(spec: StorageSpec, inspector: PageInspector): (page: number) => PageDrawing {
  const format = getFormat(spec.engine.format);
  const layout = format.rows.layout(spec.table, spec.engine);
  return (page) => pageDrawing(format, layout, spec.engine, inspector.page(page));
}

/**
 * Run `spec` to the end of phase `after` and read every page there, with a page book beside the engine
 * (the pages at their byte positions) when the engine is one it follows and it agrees with the engine.
 */
export function captureAfter(spec: StorageSpec, after: PhaseChoice, options: RunOptions = {}): Capture {
  const phases = spec.workload.length;
  const at = after === 'final' ? phases : after;
  if (!Number.isInteger(at) || at < 1 || at > phases)
    throw new UserError(`--after: expected a phase number from 1 to ${phases} or "final", found ${after}`);
  let inspector: PageInspector | null = null;
  let book: PageBook | null = null;
  const result = runStorage(
    { ...spec, workload: spec.workload.slice(0, at) },
    {
      ...options,
      onEngine: (engine) => {
        options.onEngine?.(engine);
        book = bookFor(spec, engine);
      },
      events: (e) => {
        options.events?.(e);
        (book as PageBook | null)?.apply(e);
      },
      afterPhase: (engine, index) => {
        options.afterPhase?.(engine, index);
        if (index === at - 1) inspector = engine.inspect();
      },
    },
  );
  const label = result.phases[at - 1]?.label ?? '';
  const inspected = inspector as PageInspector | null;
  if (inspected === null) throw new Error(`no state captured after phase ${at}`);
  const b = book as PageBook | null;
  let note: string | undefined =
    b === null ? 'a clustered table: rows are drawn packed in key order, not at their byte positions' : undefined;
  if (b !== null) {
    b.settle();
    b.forgetUnallocated(inspected);
    const bad = compareBook(b, inspected);
    if (bad.length > 0) note = `rows are drawn packed in slot order: the page book disagreed with the engine (${bad[0]})`;
  }
  const byDetail = detailDrawer(spec);
  const useBook = b !== null && note === undefined;
  return {
    inspector: inspected,
    phase: at,
    phaseLabel: label,
    draw: (page) => byDetail(useBook ? b.detail(page, inspected.page(page)) : inspected.page(page)),
    ...(note ? { note } : {}),
  };
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
