/**
 * A run's partial result: what `rowsim run --shard K/N` writes and `rowsim merge` reads (docs/scale.md).
 * A part folder holds `part.json` and the PNG page maps of its storage points under `charts/`, listed in
 * the folder's manifest (`.rowsim-output.json`, owner `part`). part.json is written with
 * src/util/exact-json.ts (NaN, -0 and typed arrays come back as they were), so a merge computes from
 * exactly the figures a single run holds in memory: the merged files are byte for byte a single run's.
 *
 * A single run is a part too (part 1 of 1, held in memory with its PNGs already in the output's
 * staging folder): both go through src/run/merge.ts.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../config/errors.js';
import type { ContentionSpec } from '../contention/spec.js';
import type { Replication } from '../contention/task.js';
import type { ReportPageMap } from '../report/html.js';
import { ownedFiles } from '../report/output.js';
import type { StorageEntry } from '../report/storage.js';
import { errnoText, fileKind } from '../util/fs-text.js';
import { exactParse, exactStringify } from '../util/exact-json.js';
import { SHARD_RULE, type RunUnits, type Shard } from './plan.js';

/** The version of part.json's layout; a merge reads only its own. 2: with `results_sha256`. */
export const PART_FORMAT = 2;
export const PART_FILE = 'part.json';

/** What every part of one run shares, and which part this is. */
export interface PartHeader {
  rowsim_part: number;
  rowsim_version: string;
  /** The config file as the run was given it (summary.md names it) and the SHA-256 of the resolved config (plan.ts configDigest). */
  config: { file: string; sha256: string };
  name: string;
  seed: number;
  shard: Shard & { rule: string };
  units: RunUnits;
  /** The charts' pixel scale (`--scale`). */
  scale: number;
}

/** One storage sweep point of a part. */
export interface PointRecord {
  /** Its index in the sweep, from 0. */
  index: number;
  entry: StorageEntry;
  /** Its page maps' PNGs (charts/pagemap-….png), in the folder. */
  charts: string[];
  report_maps: ReportPageMap[];
}

/** One contention task of a part: its index among the run's tasks (contentionJobs' payloads) and its result. */
export interface ReplicationRecord {
  task: number;
  replication: Replication;
}

export interface RunPart {
  header: PartHeader;
  /** The resolved contention section (a merge assembles the replications with it); absent without one. */
  contention_spec?: ContentionSpec;
  storage: PointRecord[];
  contention: ReplicationRecord[];
}

/** A part as rowsim merge holds it: where it came from and how to read its PNGs. */
export interface LoadedPart extends RunPart {
  /** The folder, as given (messages name it). */
  source: string;
  /** The bytes of one of its page maps. */
  readChart(rel: string): Uint8Array;
  /** Its PNGs are already in the output's staging folder (a single run): nothing to copy. */
  staged: boolean;
}

/**
 * The SHA-256 of a part's results (its storage points, contention tasks and contention spec, as
 * exactStringify writes them): part.json carries it, and a merge recomputes it from what it read, so
 * an edited or damaged part is refused instead of merged.
 */
export function resultsDigest(part: Pick<RunPart, 'storage' | 'contention' | 'contention_spec'>): string {
  const results = {
    storage: part.storage,
    contention: part.contention,
    ...(part.contention_spec ? { contention_spec: part.contention_spec } : {}),
  };
  return createHash('sha256').update(exactStringify(results)).digest('hex');
}

/** part.json's text: the part and the digest of its results. */
export function partJson(part: RunPart): string {
  return `${exactStringify({ ...part, results_sha256: resultsDigest(part) })}\n`;
}

function notAPart(dir: string, found: string): never {
  throw new UserError(`${dir}: expected a part folder that rowsim run --shard K/N wrote (with ${PART_FILE}), found ${found}`);
}

function damaged(dir: string, what: string): never {
  throw new UserError(`${dir}: ${PART_FILE} is damaged (${what}): run that part again`);
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isWhole = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;

/** Check the shape of a parsed part.json; returns it typed. */
function checkShape(dir: string, v: unknown): RunPart {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) damaged(dir, 'not an object');
  const p = v as Partial<RunPart>;
  const h = p.header as Partial<PartHeader> | undefined;
  if (!h || typeof h !== 'object') damaged(dir, 'no header');
  if (h.rowsim_part === 1)
    throw new UserError(
      `${dir}: ${PART_FILE} has no digest of its results (written by rowsim ${String(h.rowsim_version)}, before parts carried one), so a merge cannot tell an edited part from a true one: run that part again with this rowsim (a part is deterministic: the same figures come back)`,
    );
  if (h.rowsim_part !== PART_FORMAT) {
    throw new UserError(
      `${dir}: expected a part in the layout ${PART_FORMAT} this rowsim reads, found ${JSON.stringify(h.rowsim_part)} (rowsim ${String(h.rowsim_version)}): run the shards and the merge with the same rowsim`,
    );
  }
  if (typeof h.rowsim_version !== 'string' || typeof h.name !== 'string' || !isNumber(h.seed) || !isNumber(h.scale))
    damaged(dir, 'header fields');
  if (!h.config || typeof h.config.file !== 'string' || typeof h.config.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(h.config.sha256))
    damaged(dir, 'config');
  const s = h.shard;
  if (!s || !isWhole(s.index) || !isWhole(s.count) || s.index < 1 || s.index > s.count || typeof s.rule !== 'string') damaged(dir, 'shard');
  if (!h.units || !isWhole(h.units.storage) || !isWhole(h.units.contention)) damaged(dir, 'units');
  if (!Array.isArray(p.storage) || !Array.isArray(p.contention)) damaged(dir, 'storage or contention list');
  for (const r of p.storage) {
    if (!r || !isWhole(r.index) || typeof r.entry !== 'object' || !Array.isArray(r.charts) || !Array.isArray(r.report_maps))
      damaged(dir, 'a storage point');
    for (const c of r.charts) if (typeof c !== 'string' || !/^charts\/[^/]+\.png$/.test(c)) damaged(dir, `chart ${JSON.stringify(c)}`);
  }
  for (const r of p.contention) if (!r || !isWhole(r.task) || typeof r.replication !== 'object') damaged(dir, 'a contention task');
  if (h.units.contention > 0 && (p.contention_spec === undefined || typeof p.contention_spec !== 'object')) damaged(dir, 'contention_spec');
  return p as RunPart;
}

/** Read and check one part folder (exit 2 naming the folder when it is not a part, or a damaged one). */
export function readPart(dir: string): LoadedPart {
  let st;
  try {
    st = statSync(dir);
  } catch (err) {
    notAPart(dir, errnoText(err));
  }
  if (!st.isDirectory()) notAPart(dir, fileKind(st));
  const files = ownedFiles(dir, 'part');
  if (!files || !files.includes(PART_FILE))
    notAPart(
      dir,
      ownedFiles(dir, 'run')
        ? "a run's results folder (rowsim merge reads the part-K-of-N folders inside it)"
        : 'no part.json listed in a rowsim manifest',
    );
  let text: string;
  try {
    text = readFileSync(join(dir, PART_FILE), 'utf8');
  } catch (err) {
    damaged(dir, errnoText(err));
  }
  let parsed: unknown;
  try {
    parsed = exactParse(text);
  } catch (err) {
    damaged(dir, (err as Error).message);
  }
  const part = checkShape(dir, parsed);
  checkDigest(dir, parsed as RunPart & { results_sha256?: unknown });
  checkFigures(dir, part);
  for (const r of part.storage) for (const c of r.charts) if (!files.includes(c)) damaged(dir, `${c} is not in the folder's manifest`);
  return {
    ...part,
    source: dir,
    staged: false,
    readChart(rel) {
      try {
        return readFileSync(join(dir, ...rel.split('/')));
      } catch (err) {
        throw new UserError(`${dir}: expected ${rel} (a page map listed in ${PART_FILE}), found ${errnoText(err)}: run that part again`);
      }
    },
  };
}

/** A part's rule as part.json names it. */
export function shardHeader(shard: Shard): PartHeader['shard'] {
  return { ...shard, rule: SHARD_RULE };
}

/** The part's results against the digest it carries: a part edited after it was written is refused. */
function checkDigest(dir: string, part: RunPart & { results_sha256?: unknown }): void {
  if (typeof part.results_sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(part.results_sha256)) damaged(dir, 'no results_sha256');
  if (resultsDigest(part) !== part.results_sha256)
    throw new UserError(
      `${dir}: ${PART_FILE}: expected results whose SHA-256 is the results_sha256 the part carries, found others (the file was edited or damaged after rowsim wrote it): run that part again`,
    );
}

/** Counts that may not exceed the table's rows (a forwarded or chained row is a row of the table). */
const COUNTS_OF_ROWS = ['forwarded_rows', 'chained_rows', 'heap_only_rows'] as const;

/**
 * The figures of every storage point, at every phase: whole counters, no count of rows above the rows,
 * shares from 0 to 100 %. A part that fails is inconsistent, even with a matching digest.
 */
function checkFigures(dir: string, part: RunPart): void {
  for (const r of part.storage) {
    const e = r.entry as Partial<StorageEntry>;
    if (!Array.isArray(e.phases) || typeof e.final !== 'object' || e.final === null) damaged(dir, `storage point ${r.index}`);
    const states = [...e.phases.map((p, i) => ({ where: `after workload[${i}]`, m: p?.metrics })), { where: 'at the end', m: e.final }];
    for (const { where, m } of states) {
      const problem = figuresProblem(m as unknown as Record<string, unknown> | undefined);
      if (problem)
        throw new UserError(
          `${dir}: ${PART_FILE}: storage point ${JSON.stringify(e.label ?? r.index)} ${where}: ${problem}: the part is inconsistent: run that part again`,
        );
    }
  }
}

function figuresProblem(m: Record<string, unknown> | undefined): string | undefined {
  if (!m || typeof m !== 'object') return 'expected its metrics, found none';
  const rows = m.rows;
  if (!isWhole(rows)) return `expected rows a whole number ≥ 0, found ${JSON.stringify(rows)}`;
  for (const [key, v] of Object.entries(m)) {
    if (typeof v !== 'number') continue;
    if (v < 0 || v === Infinity) return `expected ${key} a number ≥ 0, found ${v}`;
    if (key.endsWith('_pct') && v > 100) return `expected ${key} from 0 to 100 %, found ${v}`;
  }
  for (const key of COUNTS_OF_ROWS) {
    const v = m[key];
    if (typeof v === 'number' && v > rows) return `expected ${key} at most the ${rows} rows of the table, found ${v}`;
  }
  const hot = m.hot_updates;
  if (typeof hot === 'number' && typeof m.updates === 'number' && hot > m.updates)
    return `expected hot_updates at most the ${m.updates} updates, found ${hot}`;
  return undefined;
}
