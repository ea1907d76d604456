/**
 * The shapes of a contention run's results (results.json's `contention`): an entry per buffer manager and
 * engine count, the lockless ÷ latched gaps, a sweep's cells, its headline and boundary. run.ts makes
 * them; metastability.ts and report.ts read them.
 */
import type { BufferManagerKind, ContentionSpec } from './spec.js';
import type { ContentionPoint } from './task.js';
import type { Interval } from './stats.js';
import type { ModelInput } from './inputs.js';
import type { PhaseHeadline } from './phase.js';

export interface UslResult {
  lambda: number;
  sigma: number;
  kappa: number;
  over: 'engines';
  /** The population the fit is made at (the largest). */
  users: number;
  /** Engine counts fitted. */
  engines: number[];
  rms_error_pct: number;
  /** N* = √((1 − σ)/κ), null when κ = 0. */
  peak_engines: number | null;
  /** The curve is drawn from the smallest to this engine count (the largest fitted unless usl.extrapolate_to asks). */
  drawn_to: number;
}

export interface ContentionEntry {
  buffer_manager: BufferManagerKind;
  engines: number;
  points: ContentionPoint[];
  /** USL fit of throughput against engines at the largest population; only with two or more engine counts. */
  usl?: UslResult;
  /** Per-transaction service demands of this network (µs) and whether it is product-form. */
  network: {
    engine_demand_us: number;
    hottest_lock_demand_us: number;
    total_demand_us: number;
    cas_per_transaction: number;
    product_form: boolean;
  };
  /** Throughput relative to the smallest engine count at the same users (engine scaling only). */
  speedup?: number;
}

/** Lockless ÷ latched at one (engines, users). */
export interface Gap {
  engines: number;
  users: number;
  throughput_ratio: number;
  throughput_ratio_ci95: Interval;
  response_ratio: number;
  latched_collapsed_share: number;
  lockless_collapsed_share: number;
  /** Either manager's point is bimodal. */
  bimodal: boolean;
  /** Either manager's point is metastable (a collapse, once reached, held over a longer window from either start; metastability.ts). */
  metastable: boolean;
}

export interface SweepCellResult {
  params: Record<string, string | number | boolean>;
  index: number[];
  entries: ContentionEntry[];
  /** The gap at the cell's largest engine count and population. */
  gap: Gap | null;
  stationary: boolean;
}

/**
 * Features one at a time (a sweep whose keys each take two values, both buffer managers): the baseline
 * is the latched manager with every key at its first value; each feature alone changes one of them
 * (the lockless manager is one feature); `all` changes every one. A feature's share is its log gain
 * over the log gain of all together; what the shares leave is the interaction.
 */
export interface FactorEffects {
  users: number;
  engines: number;
  baseline_tps: number;
  features: Array<{ feature: string; tps: number; gain: number; share_pct: number }>;
  all: { tps: number; gain: number };
  interaction_pct: number;
}

/** The closed-form boundary (drain.ts) beside the simulated one, over the cells of a sweep (latched manager). */
export interface BoundaryAgreement {
  /** Cells where the criterion predicts collapse. */
  predicted_cells: number;
  /** Cells where the simulation collapsed in at least half the replications. */
  simulated_cells: number;
  agree: number;
  cells: number;
  /** Cells where they disagree, by their values, with what each says. */
  disagree: Array<{
    params: Record<string, string | number | boolean>;
    predicted: boolean;
    collapsed_share: number;
    w_star: number | null;
  }>;
}

export interface ContentionResults {
  replications: number;
  inputs: ModelInput[];
  /** Without a sweep: the entries of the section. With one: empty (each cell has its own). */
  entries: ContentionEntry[];
  /** Without a sweep: lockless ÷ latched at the largest population, per engine count. */
  gaps: Gap[];
  sweep?: {
    axes: Array<{ key: string; values: Array<string | number | boolean> }>;
    cells: SweepCellResult[];
    headline: PhaseHeadline;
    boundary: BoundaryAgreement;
    factors?: FactorEffects;
  };
  /** Every point of the run passed the stationarity checks. */
  stationary: boolean;
  /** Points that did not, as labels. */
  not_stationary: string[];
  calibration: ContentionSpec['calibration'];
}
