/**
 * A run's work as units, and how `--shard K/N` slices it (docs/scale.md). The units are the storage sweep
 * points in sweep order, then the contention tasks (one a distinct replication of a point or grid cell,
 * contentionJobs' payloads) in theirs; unit u belongs to part (u mod N) + 1. The rule depends on nothing
 * but the config and N: every machine that runs part K of N of a config runs the same units, and a part
 * records which it ran so that rowsim merge can check it. Round robin rather than blocks: neighbouring
 * sweep points cost about the same, so each part gets a fair share of the cheap and the dear ones.
 */
import { createHash } from 'node:crypto';
import type { RunConfig } from '../loader/config.js';
import { exactStringify } from '../util/exact-json.js';

/** The work of a run: storage sweep points and contention tasks. */
export interface RunUnits {
  storage: number;
  contention: number;
}

/** Part `index` of `count` (1 ≤ index ≤ count). */
export interface Shard {
  index: number;
  count: number;
}

/** The rule as a part names it (part.json `shard.rule`). */
export const SHARD_RULE = 'round-robin';

/** The units of a run (the contention model is loaded only when the config has a contention section). */
export async function runUnits(cfg: RunConfig): Promise<RunUnits> {
  const spec = cfg.sections.contention;
  if (!spec) return { storage: cfg.storage.length, contention: 0 };
  const { contentionJobs } = await import('../contention/run.js');
  return { storage: cfg.storage.length, contention: contentionJobs(spec, cfg.seed).payloads.length };
}

/**
 * The storage points a config's sweep makes, read from its YAML before the schema is applied: the
 * product of the lengths of the sweep's lists (1 without a sweep). Undefined when the count is not
 * known this early: a contention section (its tasks come from its resolved settings), or a sweep that is
 * not a mapping of lists (the loader reports it). `rowsim run` starts its pool on this count, while the
 * config is checked.
 */
export function rawStoragePoints(raw: unknown): number | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const top = raw as Record<string, unknown>;
  if (top.contention !== undefined || top.workload === undefined) return undefined;
  if (top.sweep === undefined) return 1;
  if (top.sweep === null || typeof top.sweep !== 'object' || Array.isArray(top.sweep)) return undefined;
  let n = 1;
  for (const values of Object.values(top.sweep)) {
    if (!Array.isArray(values) || values.length === 0) return undefined;
    n *= values.length;
  }
  return n;
}

/** The storage points and contention tasks (indexes from 0) of one part. */
export function shardSlice(units: RunUnits, shard: Shard): { storage: number[]; contention: number[] } {
  const mine = (u: number) => u % shard.count === shard.index - 1;
  const storage: number[] = [];
  const contention: number[] = [];
  for (let i = 0; i < units.storage; i++) if (mine(i)) storage.push(i);
  for (let j = 0; j < units.contention; j++) if (mine(units.storage + j)) contention.push(j);
  return { storage, contention };
}

/**
 * The SHA-256 of the resolved config: what every part of a run must share. It covers what the config
 * means once loaded (name, seed, every sweep point's resolved spec, the contention section with any
 * calibration applied), not how the file is written: comments and key order do not change it; a value,
 * a default that resolves differently or a histogram file's content does.
 */
export function configDigest(cfg: RunConfig): string {
  const resolved = {
    name: cfg.name,
    seed: cfg.seed,
    sweep_keys: cfg.sweepKeys,
    storage: cfg.storage,
    contention: cfg.sections.contention ?? null,
  };
  return createHash('sha256').update(exactStringify(resolved)).digest('hex');
}

/** The folder a part goes to by default: out/<name>/part-K-of-N. */
export function partFolderName(shard: Shard): string {
  return `part-${shard.index}-of-${shard.count}`;
}
