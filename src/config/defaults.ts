/**
 * The defaults and ranges of the command line and of a config's top level, in one place: the config
 * loader, the option parsers and the `--help` texts all read them here. (The engine settings' defaults
 * are each format's own, merged once in src/formats/registry.ts; the contention section's are in its
 * schema; the estimate section's in src/estimate/types.ts.)
 */

/** A whole-number setting's accepted range, inclusive. */
export interface Range {
  readonly min: number;
  readonly max: number;
}

export const RUN_DEFAULTS = Object.freeze({
  /** The seed of a config that gives none. */
  seed: 42,
  /** The largest sweep (or contention grid) a run accepts unless --max-points says otherwise. */
  maxSweepPoints: 1000,
  /** Page maps have at most this many cells: a page a cell up to this many pages, several pages a cell above (src/workload/page-map.ts). */
  pageMapMaxCells: 20_000,
  /** The PNG charts' pixel size is multiplied by this (`run --scale`; for projectors). */
  chartScale: 1,
});

export const RUN_RANGES = Object.freeze({
  workers: { min: 1, max: 256 } satisfies Range,
  maxSweepPoints: { min: 1, max: 1_000_000 } satisfies Range,
  /** `run --shard K/N`: the number of parts N. */
  shards: { min: 1, max: 1_000_000 } satisfies Range,
});

/** `rowsim calibrate`: how long each benchmark run lasts and how often a fitting run is repeated. */
export const CALIBRATE_DEFAULTS = Object.freeze({ durationMs: 300, repeats: 3 });

export const CALIBRATE_RANGES = Object.freeze({
  durationMs: { min: 50, max: 60_000 } satisfies Range,
  repeats: { min: 1, max: 15 } satisfies Range,
  threads: { min: 1, max: 256 } satisfies Range,
});
