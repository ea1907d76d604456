/**
 * The estimator's shared result types: what a candidate runner returns, one format's estimate, the
 * calibration against the evidence and the verdict. (estimate.ts, calibrate.ts, verdict.ts and
 * whatif.ts all read them; none of them imports another for its types.)
 */
import type { FormatId } from '../config/schema.js';
import type { Dist, EngineSpec, PhaseSpec, TableDef } from '../config/spec.js';
import type { Count } from '../util/units.js';
import type { Measurements } from './evidence/merge.js';
import type { EvidenceKind } from './evidence/types.js';
import type { Setting } from './knob.js';
import type { LengthPairs } from './rows.js';
import type { CandidateFigures } from './figures.js';
import type { FitPoint, SpreadPoint } from './fit.js';
import type { LengthModel } from './length-model.js';
import type { ReserveKnob } from './knob.js';
import type { CandidateTask, ReplicateFigures } from './simulate.js';

/** Runs candidate tasks; results in task order. */
export type CandidateRunner = (tasks: CandidateTask[]) => Promise<ReplicateFigures[][]>;

export interface Recommendation {
  value: number;
  why: string;
  met?: boolean;
}

export interface FormatEstimate {
  format: FormatId;
  knob: ReserveKnob['key'];
  /** The page size the page counts are in (bytes). */
  page_bytes: number;
  limits: Record<string, number>;
  candidates: CandidateFigures[];
  forwarding_target: Recommendation;
  min_scan_reads: Recommendation;
  commands: string[];
  command_note: string;
  alternative_commands: string[];
}

export interface Calibration {
  /** fit: the insert lengths were fitted to the measurement; check: they were given, and checked. */
  kind: 'fit' | 'check';
  measured: {
    pct: number;
    count: number;
    basis: number;
    basis_word: string;
    label: string;
    figures: { label: string; value: number; file: string; line: number }[];
  };
  simulated: { setting: string; moved_pct: number; interval: [number, number]; pages: number; pages_interval: [number, number] };
  reproduced: boolean;
  fit?: {
    /** Rows inserted at floor + share × (length now − floor). */
    insert_share: number;
    /** The shares whose simulated interval holds the measurement. */
    insert_share_range: [number, number];
    floor_bytes: number;
    insert_avg_bytes: number;
    now_avg_bytes: number;
    growth_avg_bytes: number;
    curve: FitPoint[];
    /** How widely the lengths now spread (0: all at their mean … 1: the whole range, src/estimate/length-model.ts). */
    spread: number;
    spread_fitted: boolean;
    /** Standard deviation and 5th–95th percentile of the row data lengths now at that spread. */
    lengths_now: { mean: number; sd: number; p5: number; p95: number };
    /** Every spread tried, with its fitted growth and the pages it gives. */
    spread_curve: SpreadPoint[];
  };
  /** Every input of the row-length model, measured, fitted or assumed, with where it came from. */
  inputs?: ModelInput[];
  /** The figures the simulation misses, with by how much (empty when every figure is reproduced). */
  misses: string[];
  /** The measured data pages against the simulated ones (a second check, not fitted). */
  pages?: {
    measured: number;
    label: string;
    file: string;
    line: number;
    simulated: number;
    interval: [number, number];
    inside: boolean;
    off_pct: number;
    within_tolerance: boolean;
  };
  sentence: string;
}

export type VerdictStatus = 'recommended' | 'nothing_to_change' | 'target_not_met' | 'evidence_not_reproduced';

export interface Verdict {
  status: VerdictStatus;
  headline: string;
  /** 0: apply the commands; 3: do not (the reason is the headline). */
  exit_status: 0 | 3;
}

// ---- the estimate section, resolved ---------------------------------------------------------------

export const ESTIMATE_DEFAULTS = {
  target_pct: 1,
  seeds: 5,
  sample_rows: 20_000,
} as const;

/** The ranges `estimate.seeds` and `estimate.sample_rows` (and --seeds, --sample-rows) accept. */
export const ESTIMATE_RANGES = {
  seeds: { min: 1, max: 30 },
  sample_rows: { min: 100, max: 5_000_000 },
} as const;

/**
 * The maintenance what-if's defaults, all assumed (no source gives a DBA's schedule or growth rate):
 * a weekly `reorg forwarded_rows`, looked at over four weeks, with 1% of the table's rows inserted
 * (short) and grown each day.
 */
export const MAINTENANCE_DEFAULTS = { every_days: 7, periods: 4, growth_per_day: { kind: 'percent', pct: 1 } as Count } as const;

export interface MaintenanceSpec {
  every_days: number;
  days: number;
  growth_per_day: Count;
  /** The keys left at their assumed defaults. */
  assumed: string[];
}

export interface EstimateConfig {
  file: string;
  name: string;
  seed: number;
  table: TableDef;
  engine: EngineSpec;
  /** The config's format first, then any others asked for. */
  formats: FormatId[];
  target_pct: number;
  seeds: number;
  sample_rows: number;
  /** Rows of the table the estimate is for; absent: what the workload or measurements hold. */
  rows?: number;
  /** Candidate values for the config's format; absent: a grid over the whole accepted range. */
  candidates?: Setting[] | { from: number; to: Setting; step?: number };
  refine: boolean;
  source: EstimateSource;
  /** The DBA's measurements of the table, merged (optdiag, sp_spaceused, DMV, pgstattuple, pg_stat_user_tables). */
  evidence?: Measurements;
  /** The rows' lengths at insert are unknown: fit them so that the current setting reproduces evidence.moved. */
  fit: boolean;
  /** The table's partitions, each estimated on its own figures as well (optdiag's partition blocks). */
  partitions?: PartitionSource[];
  maintenance: MaintenanceSpec;
  notes: string[];
}

export interface EstimateOverrides {
  target_pct?: number;
  seeds?: number;
  sample_rows?: number;
  rows?: number;
  formats?: FormatId[];
  /** Tool outputs given on the command line (--optdiag FILE …): they replace the config's. */
  measured?: MeasuredFiles;
}

export type EstimateSource =
  | { kind: 'workload'; workload: PhaseSpec[] }
  | { kind: 'columns'; workload: PhaseSpec[] }
  | { kind: 'csv'; file: string; pairs: LengthPairs }
  | {
      kind: 'optdiag';
      rows: number;
      min: number;
      avg: number;
      max: number;
      forwarded?: number;
      insertAvg?: number;
      insert: Dist;
      now: Dist;
      model: LengthModel;
    }
  /**
   * Lengths from the tools' figures (column statistics, the average row, the range): the model of their
   * lengths now (src/estimate/length-model.ts); how long rows were at insert, and how widely the lengths
   * spread, are fitted (src/estimate/fit.ts). `inputs` says where each figure of the model came from.
   */
  | { kind: 'evidence'; rows: number; min: number; avg: number; max: number; model: LengthModel; from: string; inputs: ModelInput[] };

/** One partition's own lengths and figures. */
export interface PartitionSource {
  name: string;
  file: string;
  line: number;
  source: Extract<EstimateSource, { kind: 'evidence' }>;
  evidence: Measurements;
}

/** One input of the row-length model: its value, and whether it was measured (file, line), fitted or assumed. */
export interface ModelInput {
  name: string;
  value: string;
  how: 'measured' | 'from the DDL' | 'fitted' | 'assumed';
  /** Where: a file and line, or what it was fitted to, or why it was assumed. */
  from: string;
}

/** The growth the estimate simulates rows with: each row inserted at floor + insert_share × (now − floor), lengths now at `spread`. */
export interface Growth {
  insertShare: number;
  spread: number;
}

/** Files given on the command line (--optdiag …), by measured key; they replace the config's. */
export type MeasuredFiles = Partial<Record<EvidenceKind, string>>;
