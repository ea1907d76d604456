/**
 * A contention run: one pool task per replication of each (sweep cell, buffer manager, engines, users)
 * point, merged into points (means, 95% intervals, collapse shares), result entries per (buffer manager,
 * engines) with a USL fit over engines, the lockless/latched gaps and, with a sweep, the phase diagram
 * and its conditional headline. Each replication's seed is derived from (seed, buffer manager, engines,
 * users, replication) — not from the swept values, so the cells of a sweep share their random numbers
 * (common random numbers: differences between cells are the parameters', not the seeds'). Results do
 * not depend on the worker count or finishing order. Replications whose model and seed are identical
 * (a lockless point in a sweep over latched keys) run once.
 */
import { Prng } from '../util/prng.js';
import type { BufferManagerKind, ContentionBase, ContentionSpec } from './spec.js';
import { runReplication, summarisePoint, round, type ContentionPoint, type ContentionTaskPayload, type Replication } from './task.js';
import { buildPointModel, pointNetwork, type PointModel } from './model.js';
import { fitUsl } from './usl.js';
import { ratioInterval, type Interval } from './stats.js';
import { modelInputs } from './inputs.js';
import { phaseHeadline } from './phase.js';
import { groupedNumber } from '../util/numbers.js';
import { withMetastability } from './metastability.js';
import type { BoundaryAgreement, ContentionEntry, ContentionResults, FactorEffects, Gap, SweepCellResult, UslResult } from './results.js';

export type { ContentionEntry, ContentionResults, Gap, SweepCellResult };

/** The replication seed: a stream derived from the run seed and the point's coordinates. */
function replicationSeed(seed: number, bm: BufferManagerKind, engines: number, users: number, replication: number): number {
  return Prng.derive(seed, 'contention', bm, engines, users, replication).nextU32();
}

export interface Job {
  cell: number;
  bm: BufferManagerKind;
  engines: number;
  users: number;
  rep: number;
  /** Index into the unique payloads. */
  task: number;
}

function models(spec: ContentionSpec): ContentionBase[] {
  return spec.sweep ? spec.sweep.cells.map((c) => c.spec) : [spec];
}

/** Fields of a point model that cannot change the simulation of the other buffer manager. */
const LATCHED_ONLY = [
  'lock',
  'ttas',
  'tas',
  'give_up',
  'random_handoff',
  'handoff_ns',
  'backoff_min_ns',
  'backoff_max_ns',
  'spin_limit_ns',
  'spinlocks',
  'hold_ns',
  'block',
];
const LOCKLESS_ONLY = [
  'cas_ns',
  'line_transfer_ns',
  'optimistic',
  'faa',
  'lookup_ns',
  'update_share',
  'write_share',
  'write_hold_ns',
  'cached_data_pages',
  'cached_level_pages',
];

/**
 * A canonical text of what a point's simulation depends on: the model without the other manager's
 * settings (a lockless point without index latches never takes a spinlock; a latched point never
 * CASes), so that a sweep over one manager's keys runs the other's points once.
 */
function modelKey(m: PointModel): string {
  const drop = m.buffer_manager === 'latched' ? LOCKLESS_ONLY : m.index_latches ? [] : LATCHED_ONLY;
  return JSON.stringify(m, (k, v) => (drop.includes(k) ? undefined : v));
}

/**
 * The unique payloads of a run (its tasks: what rowsim run --shard slices) and, for every replication of
 * every point, which payload it is.
 */
export function contentionJobs(spec: ContentionSpec, seed: number): { payloads: ContentionTaskPayload[]; jobs: Job[] } {
  const payloads: ContentionTaskPayload[] = [];
  const byKey = new Map<string, number>();
  const jobs: Job[] = [];
  models(spec).forEach((m, cell) => {
    for (const bm of m.buffer_managers)
      for (const engines of m.engines)
        for (const users of m.users)
          for (let rep = 0; rep < m.replications; rep++) {
            const s = replicationSeed(seed, bm, engines, users, rep);
            const key = `${s}:${modelKey(buildPointModel(m, bm, engines, users))}`;
            let task = byKey.get(key);
            if (task === undefined) {
              task = payloads.length;
              byKey.set(key, task);
              payloads.push({ spec: m, buffer_manager: bm, engines, users, seed: s });
            }
            jobs.push({ cell, bm, engines, users, rep, task });
          }
  });
  return { payloads, jobs };
}

/** A contention run on the calling thread (tests, benchmarks): the results of runContention on a pool (src/run/contention-pool.ts). */
export function runContentionInProcess(spec: ContentionSpec, seed: number): ContentionResults {
  const { payloads, jobs } = contentionJobs(spec, seed);
  return withMetastability(spec, assembleResults(spec, jobs, payloads.map(runReplication)), (probes) => probes.map(runReplication));
}

/** Entries of one model from its replications (jobs in payload order). */
function cellEntries(
  m: ContentionBase,
  repsOf: (bm: BufferManagerKind, engines: number, users: number) => Replication[],
): ContentionEntry[] {
  const entries: ContentionEntry[] = [];
  for (const bm of m.buffer_managers) {
    for (const engines of m.engines) {
      const points = m.users.map((users) => summarisePoint(m, bm, engines, users, repsOf(bm, engines, users)));
      const net = pointNetwork(buildPointModel(m, bm, engines, m.users[0]!));
      entries.push({
        buffer_manager: bm,
        engines,
        points,
        network: {
          engine_demand_us: round(net.engine_demand_ns / 1e3),
          hottest_lock_demand_us: round(net.lock_demands_ns.reduce((a, b) => Math.max(a, b), 0) / 1e3),
          total_demand_us: round(net.total_demand_ns / 1e3),
          cas_per_transaction: round(net.cas_per_transaction),
          product_form: net.product_form,
        },
      });
    }
  }
  // engine scaling: a USL fit over engines (never over users with think time) at the largest population
  if (m.engines.length >= 2) {
    const users = Math.max(...m.users);
    for (const bm of m.buffer_managers) {
      const list = entries.filter((r) => r.buffer_manager === bm).sort((a, b) => a.engines - b.engines);
      const at = (r: ContentionEntry): ContentionPoint => r.points.find((p) => p.users === users)!;
      const fit = fitUsl(
        list.map((r) => r.engines),
        list.map((r) => at(r).throughput_tps),
      );
      const peak = fit.kappa > 0 ? Math.sqrt((1 - fit.sigma) / fit.kappa) : null;
      const engines = list.map((r) => r.engines);
      const maxE = Math.max(...engines);
      const usl: UslResult = {
        lambda: round(fit.lambda),
        sigma: round(fit.sigma),
        kappa: round(fit.kappa),
        over: 'engines',
        users,
        engines,
        rms_error_pct: round(fit.rms_error_pct),
        peak_engines: peak === null ? null : round(peak),
        drawn_to: Math.max(maxE, m.usl_extrapolate_to ?? maxE),
      };
      const base = at(list[0]!).throughput_tps;
      for (const r of list) {
        r.usl = usl;
        r.speedup = base > 0 ? round(at(r).throughput_tps / base) : 0;
      }
    }
  }
  return entries;
}

function gapsOf(
  entries: readonly ContentionEntry[],
  repsOf: (bm: BufferManagerKind, engines: number, users: number) => Replication[],
  onlyTop: boolean,
): Gap[] {
  const out: Gap[] = [];
  const engineCounts = [...new Set(entries.map((e) => e.engines))];
  const users = Math.max(...entries.flatMap((e) => e.points.map((p) => p.users)));
  for (const e of onlyTop ? [Math.max(...engineCounts)] : engineCounts) {
    const lat = entries.find((r) => r.engines === e && r.buffer_manager === 'latched')?.points.find((p) => p.users === users);
    const ll = entries.find((r) => r.engines === e && r.buffer_manager === 'lockless')?.points.find((p) => p.users === users);
    if (!lat || !ll || !(lat.throughput_tps > 0) || !(ll.response_time_ms > 0)) continue;
    const ri = ratioInterval(
      repsOf('lockless', e, users).map((r) => r.throughput_tps),
      repsOf('latched', e, users).map((r) => r.throughput_tps),
    );
    out.push({
      engines: e,
      users,
      throughput_ratio: round(ri.ratio),
      throughput_ratio_ci95: ri.ci95.map((v) => round(v)) as Interval,
      response_ratio: round(lat.response_time_ms / ll.response_time_ms),
      latched_collapsed_share: lat.collapsed_share,
      lockless_collapsed_share: ll.collapsed_share,
      bimodal: lat.bimodal || ll.bimodal,
      metastable: !!(lat.metastability?.metastable || ll.metastability?.metastable),
    });
  }
  return out;
}

function notStationary(entries: readonly ContentionEntry[], prefix: string): string[] {
  const out: string[] = [];
  for (const r of entries)
    for (const p of r.points)
      if (!p.stationary)
        out.push(
          `${prefix}${r.buffer_manager}, ${r.engines} engines, ${p.users} users (${p.not_stationary} of ${p.replications} replications)`,
        );
  return out;
}

/** Group replications (one a payload of contentionJobs, in its order) into points, entries, gaps and (with a sweep) the phase diagram. */
export function assembleResults(spec: ContentionSpec, jobs: readonly Job[], reps: readonly Replication[]): ContentionResults {
  const byPoint = new Map<string, Replication[]>();
  for (const j of jobs) {
    const key = `${j.cell}|${j.bm}|${j.engines}|${j.users}`;
    let list = byPoint.get(key);
    if (!list) byPoint.set(key, (list = []));
    const r = reps[j.task];
    if (!r) throw new Error(`contention: missing replication ${j.task}`);
    list[j.rep] = r;
  }
  const repsOf = (cell: number) => (bm: BufferManagerKind, engines: number, users: number) =>
    byPoint.get(`${cell}|${bm}|${engines}|${users}`) ?? [];
  const inputs = modelInputs(spec);
  if (!spec.sweep) {
    const entries = cellEntries(spec, repsOf(0));
    const ns = notStationary(entries, '');
    return {
      replications: spec.replications,
      inputs,
      entries,
      gaps: gapsOf(entries, repsOf(0), false),
      stationary: ns.length === 0,
      not_stationary: ns,
      calibration: spec.calibration,
    };
  }
  const cells: SweepCellResult[] = spec.sweep.cells.map((c, i) => {
    const entries = cellEntries(c.spec, repsOf(i));
    const gap = gapsOf(entries, repsOf(i), true)[0] ?? null;
    return { params: c.params, index: c.index, entries, gap, stationary: entries.every((e) => e.points.every((p) => p.stationary)) };
  });
  const ns = cells.flatMap((c) =>
    notStationary(
      c.entries,
      `${Object.entries(c.params)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}: `,
    ),
  );
  const top = cells.find((c) => c.gap)?.gap;
  const fixed: string[] = [];
  const sweptKeys = spec.sweep.axes.map((a) => a.key);
  if (top && !sweptKeys.includes('engines')) fixed.push(`${top.engines} engines`);
  if (top && !sweptKeys.includes('users')) fixed.push(`${groupedNumber(top.users)} users`);
  const context = `${fixed.length ? `${fixed.join(', ')}, ` : ''}this workload, ${spec.replications} replications a point`;
  const headline = phaseHeadline(
    spec.sweep.axes,
    cells
      .filter((c) => c.gap)
      .map((c) => ({
        index: c.index,
        ratio: c.gap!.throughput_ratio,
        collapsed_share: c.gap!.latched_collapsed_share,
        lockless_collapsed_share: c.gap!.lockless_collapsed_share,
      })),
    context,
  );
  const factors = factorEffects(spec, cells);
  return {
    replications: spec.replications,
    inputs,
    entries: [],
    gaps: [],
    sweep: { axes: spec.sweep.axes, cells, headline, boundary: boundaryAgreement(cells), ...(factors ? { factors } : {}) },
    stationary: ns.length === 0,
    not_stationary: ns,
    calibration: spec.calibration,
  };
}

/** The latched point at a cell's gap (largest engines and users). */
export function gapLatchedPoint(c: SweepCellResult): ContentionPoint | undefined {
  if (!c.gap) return undefined;
  return c.entries
    .find((e) => e.buffer_manager === 'latched' && e.engines === c.gap!.engines)
    ?.points.find((p) => p.users === c.gap!.users);
}

function boundaryAgreement(cells: readonly SweepCellResult[]): BoundaryAgreement {
  const out: BoundaryAgreement = { predicted_cells: 0, simulated_cells: 0, agree: 0, cells: 0, disagree: [] };
  for (const c of cells) {
    const p = gapLatchedPoint(c);
    if (!p) continue;
    const predicted = p.drain.collapse_predicted;
    const simulated = p.collapsed_share >= 0.5;
    out.cells++;
    if (predicted) out.predicted_cells++;
    if (simulated) out.simulated_cells++;
    if (predicted === simulated) out.agree++;
    else out.disagree.push({ params: c.params, predicted, collapsed_share: p.collapsed_share, w_star: p.drain.w_star });
  }
  return out;
}

function factorEffects(spec: ContentionSpec, cells: readonly SweepCellResult[]): FactorEffects | undefined {
  const axes = spec.sweep!.axes;
  if (!axes.every((a) => a.values.length === 2) || !(spec.buffer_managers.includes('latched') && spec.buffer_managers.includes('lockless')))
    return undefined;
  const engines = Math.max(...spec.engines);
  const users = Math.max(...spec.users);
  const tps = (index: number[], bm: BufferManagerKind): number | undefined =>
    cells
      .find((c) => c.index.every((v, i) => v === index[i]))
      ?.entries.find((e) => e.buffer_manager === bm && e.engines === engines)
      ?.points.find((p) => p.users === users)?.throughput_tps;
  const zero = axes.map(() => 0);
  const base = tps(zero, 'latched');
  const all = tps(
    axes.map(() => 1),
    'lockless',
  );
  if (!base || !all) return undefined;
  const logAll = Math.log(all / base);
  const features: FactorEffects['features'] = [];
  const add = (feature: string, x: number | undefined): void => {
    if (x === undefined) return;
    features.push({ feature, tps: x, gain: round(x / base), share_pct: logAll !== 0 ? round((100 * Math.log(x / base)) / logAll) : 0 });
  };
  add('lockless buffer manager', tps(zero, 'lockless'));
  axes.forEach((a, i) =>
    add(
      `${a.key}: ${String(a.values[0])} → ${String(a.values[1])}`,
      tps(
        zero.map((_v, k) => (k === i ? 1 : 0)),
        'latched',
      ),
    ),
  );
  return {
    users,
    engines,
    baseline_tps: base,
    features,
    all: { tps: all, gain: round(all / base) },
    interaction_pct: round(100 - features.reduce((a, f) => a + f.share_pct, 0)),
  };
}
