/** What `rowsim pg-check` gives back for a storage point: its comparisons, select phases' plans, notes. */
import type { PhaseReplay } from './fidelity.js';
import type { RefusalCheck } from './refusal.js';

export interface Comparison {
  phase: number;
  label: string;
  metric: string;
  /** null: the model does not predict it ("not modelled"). */
  predicted: number | null;
  /** null: not observed (the server cannot say: a PostgreSQL version without the column, no pgstattuple). */
  observed: number | null;
  /** observed − predicted; null when either is missing. */
  diff: number | null;
  /** (observed − predicted) / observed × 100, rounded to 0.01; null when either is missing or observed is 0. */
  diff_pct: number | null;
}

/** A select phase's plan: the simulation's beside the server's (EXPLAIN of the phase's first statement). */
export interface PlanCheck {
  phase: number;
  label: string;
  /** The statement explained, its parameters as $n. */
  statement: string;
  predicted: string;
  observed: string;
  agree: boolean;
}

export interface PgCheckResult {
  label: string;
  /** The table of this storage point and its settings, as checked. */
  table: string;
  settings: string;
  server_version: string;
  notes: string[];
  comparisons: Comparison[];
  /** Select phases: the simulation's plan and the server's. */
  plans: PlanCheck[];
  /** Every phase: whether the replay sent the config's statement or an approximation, and why. */
  replays: PhaseReplay[];
  /** The simulation stops at a statement the server refuses (an index entry over its limit): that refusal beside the server's. */
  refusal?: RefusalCheck;
}

export function diffs(predicted: number | null, observed: number | null): { diff: number | null; diff_pct: number | null } {
  if (predicted === null || observed === null) return { diff: null, diff_pct: null };
  const diff = observed - predicted;
  if (observed === 0) return { diff, diff_pct: predicted === 0 ? 0 : null };
  return { diff, diff_pct: Math.round((diff / observed) * 10000) / 100 };
}
