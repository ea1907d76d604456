/**
 * Is a bimodal point's split decided by its start? Its replications are run again, same seeds, over a
 * window PROBE_DURATION_FACTOR times as long (no extensions), from two start states: `idle` (every user
 * thinking, the run's own start: the same trajectories, continued) and `backlog` (every user submitting
 * at time 0). From the histories (history.ts):
 *
 * - metastable: the collapse sustains itself — from either start, no replication that collapsed ever
 *   recovered over the longer window — while the running state lasted (the point is bimodal: some
 *   replications ran through the run's window). A metastable failure in the sense of Bronson et al.
 *   ([METASTABLE]): a bad state that persists once a trigger (a burst, a start state) has pushed the
 *   system into it;
 * - running_state: `holds` when the idle start tipped no more replications in the longer window than in
 *   the run's (the split was decided early), `decays` when more tipped later: the collapsed share grows
 *   with the window, a transient, not a steady-state probability;
 * - depends_on_start: the backlog start collapses a different number of replications than the idle one.
 *
 * The probes run after every replication (bimodality needs them all): `metastabilityProbes` lists them,
 * `attachMetastability` puts their outcome on the points and gaps. Pure.
 */
import type { ContentionResults, ContentionEntry } from './results.js';
import type { BufferManagerKind, ContentionBase, ContentionSpec } from './spec.js';
import type { StartState } from './sim.js';
import { median } from './stats.js';
import {
  round,
  type ContentionPoint,
  type ContentionTaskPayload,
  type Metastability,
  type Replication,
  type StartOutcome,
} from './task.js';

export type { Metastability, StartOutcome };

/** The probes' window, in multiples of `duration` (after the same warm-up). */
export const PROBE_DURATION_FACTOR = 4;

const STARTS: readonly StartState[] = ['idle', 'backlog'];

/** One probe: a replication of a bimodal point, from one start. */
export interface Probe {
  cell: number;
  bm: BufferManagerKind;
  engines: number;
  users: number;
  start: StartState;
}

function pointsOf(results: ContentionResults): Array<{ cell: number; entry: ContentionEntry }> {
  if (!results.sweep) return results.entries.map((entry) => ({ cell: 0, entry }));
  return results.sweep.cells.flatMap((c, cell) => c.entries.map((entry) => ({ cell, entry })));
}

/** The probes of every bimodal point of `results` (in point order, replications in order, idle then backlog) and their payloads. */
export function metastabilityProbes(
  spec: ContentionSpec,
  results: ContentionResults,
): { probes: Probe[]; payloads: ContentionTaskPayload[] } {
  const probes: Probe[] = [];
  const payloads: ContentionTaskPayload[] = [];
  for (const { cell, entry } of pointsOf(results)) {
    const base: ContentionBase = spec.sweep ? spec.sweep.cells[cell]!.spec : spec;
    for (const p of entry.points) {
      if (!p.bimodal) continue;
      for (const start of STARTS)
        for (const r of p.runs) {
          probes.push({ cell, bm: entry.buffer_manager, engines: entry.engines, users: p.users, start });
          payloads.push({
            spec: base,
            buffer_manager: entry.buffer_manager,
            engines: entry.engines,
            users: p.users,
            seed: r.seed,
            probe: { start, duration_factor: PROBE_DURATION_FACTOR },
          });
        }
    }
  }
  return { probes, payloads };
}

function outcomeOf(start: StartState, reps: readonly Replication[]): StartOutcome {
  const collapsed = reps.filter((r) => r.history.first_collapse_ms !== null);
  const running = reps.filter((r) => r.history.first_collapse_ms === null);
  const times = collapsed.map((r) => r.history.first_collapse_ms!);
  const held = collapsed.filter((r) => r.history.switches === 1 && r.history.ends_collapsed);
  const least = (xs: number[]): number | null => (xs.length ? round(Math.min(...xs)) : null);
  return {
    start,
    run_ms: Math.max(...reps.map((r) => r.history.end_ms)),
    replications: reps.length,
    collapsed: collapsed.length,
    switched: collapsed.length - held.length,
    time_to_collapse_ms: times.length ? { median: median(times), min: Math.min(...times), max: Math.max(...times) } : null,
    collapsed_held_ms: least(held.map((r) => r.history.end_ms - r.history.first_collapse_ms!)),
    running_held_ms: least(running.map((r) => r.history.end_ms)),
  };
}

/** The start-state test of a bimodal point from its probes' replications. */
export function metastabilityOf(point: ContentionPoint, idle: readonly Replication[], backlog: readonly Replication[]): Metastability {
  const i = outcomeOf('idle', idle);
  const b = outcomeOf('backlog', backlog);
  return {
    metastable: i.switched === 0 && b.switched === 0,
    running_state: i.collapsed > point.collapsed ? 'decays' : 'holds',
    depends_on_start: b.collapsed !== i.collapsed,
    modes_tps: { collapsed: point.modes!.collapsed.throughput_tps, running: point.modes!.running.throughput_tps },
    idle: i,
    backlog: b,
  };
}

/** Put the probes' outcome (`reps`, one a probe, in order) on their points, and mark the gaps whose points are metastable. */
export function attachMetastability(results: ContentionResults, probes: readonly Probe[], reps: readonly Replication[]): void {
  const by = new Map<string, { idle: Replication[]; backlog: Replication[] }>();
  probes.forEach((p, k) => {
    const key = `${p.cell}|${p.bm}|${p.engines}|${p.users}`;
    let v = by.get(key);
    if (!v) by.set(key, (v = { idle: [], backlog: [] }));
    const r = reps[k];
    if (!r) throw new Error(`contention: missing metastability probe ${k}`);
    v[p.start].push(r);
  });
  for (const { cell, entry } of pointsOf(results))
    for (const p of entry.points) {
      const v = by.get(`${cell}|${entry.buffer_manager}|${entry.engines}|${p.users}`);
      if (v) p.metastability = metastabilityOf(p, v.idle, v.backlog);
    }
  const gaps = results.sweep
    ? results.sweep.cells.flatMap((c, cell) => (c.gap ? [{ gap: c.gap, cell }] : []))
    : results.gaps.map((gap) => ({ gap, cell: 0 }));
  const points = pointsOf(results);
  for (const { gap, cell } of gaps)
    gap.metastable = points.some(
      ({ cell: c, entry }) =>
        c === cell && entry.engines === gap.engines && entry.points.some((p) => p.users === gap.users && !!p.metastability?.metastable),
    );
}

/** Run the probes of `results`' bimodal points with `run` (in order) and attach their outcome. */
export function withMetastability(
  spec: ContentionSpec,
  results: ContentionResults,
  run: (payloads: ContentionTaskPayload[]) => Replication[],
): ContentionResults {
  const { probes, payloads } = metastabilityProbes(spec, results);
  if (probes.length) attachMetastability(results, probes, run(payloads));
  return results;
}
