/**
 * Keys: for every column an index reads (and every column whose values a config describes with
 * `distinct`, `frequency` or `order`), a number per row that sorts and compares as the column's value
 * does. The B-tree model places index entries by them and deduplicates equal ones; pg-check makes
 * values whose order and equality are those of the keys (it ranks them). A NULL is +Infinity (NULLs
 * sort last in a B-tree and are equal to each other for deduplication).
 *
 * How a phase's keys are drawn (docs/config.md, "Values"):
 *   - ascending (the default): above every earlier key of the column, rising as the phase goes (row by
 *     row for an insert, in the order an update visits its rows); `distinct: N` gives N new values, each
 *     taking a run of consecutive rows as long as its frequency says;
 *   - random: uniform over the column's key range (its smallest to its largest key so far; [0, 1) for a
 *     first phase), in random order; `distinct: N`: N values at fixed random places of that range (the
 *     same N whatever phase draws them), each row one of them by frequency;
 *   - clustered: next to the key of an existing row picked at random (just above it, below the next
 *     key); `distinct: N`: the keys of N existing rows picked at the phase's start, each new row one of
 *     them by frequency (new rows join existing groups of equal keys).
 * Keys of a column without a stored array are implicit, equal to the row id (ascending keys of a load).
 */
import type { Frequency, ValueDomain } from '../config/spec.js';
import { grown } from '../util/arrays.js';
import { Prng } from '../util/prng.js';
import { ZipfSampler } from './dist.js';
import { Permutation } from './permutation.js';

/** The key of a NULL: NULLs sort after every value and are all equal. */
export const NULL_KEY = Infinity;

/** How far above an existing key a clustered key is placed, as a share of the average gap between keys. */
const CLUSTER_GAP_SHARE = 1e-3;
/** Attempts at picking a live, non-NULL row to place a clustered key next to. */
const CLUSTER_PICK_ATTEMPTS = 64;

/** Per row keys of the keyed columns. */
export class KeyStore {
  private readonly arrays: (Float64Array | null)[];
  /** Smallest and largest finite key of each column so far (NaN: none). */
  readonly minKey: Float64Array;
  readonly maxKey: Float64Array;

  constructor(
    /** 1 for a column whose keys are kept. */
    readonly keyed: Uint8Array,
    private capacity: number,
  ) {
    this.arrays = Array.from(keyed, () => null);
    this.minKey = new Float64Array(keyed.length).fill(NaN);
    this.maxKey = new Float64Array(keyed.length).fill(NaN);
  }

  get(col: number, row: number): number {
    const a = this.arrays[col]!;
    return a === null ? row : a[row]!;
  }

  /** Is the column's key of every row its row id (no key stored yet)? */
  implicit(col: number): boolean {
    return this.arrays[col] === null;
  }

  set(col: number, row: number, key: number): void {
    let a = this.arrays[col]!;
    if (a === null) {
      if (key === row) {
        this.seen(col, key);
        return;
      }
      // Keys so far were the row ids.
      a = new Float64Array(Math.max(16, this.capacity, row + 1));
      for (let r = 0; r < a.length; r++) a[r] = r;
      this.arrays[col] = a;
    } else if (row >= a.length) {
      const old = a.length;
      a = grown(a, row + 1);
      for (let r = old; r < a.length; r++) a[r] = r;
      this.arrays[col] = a;
    }
    a[row] = key;
    this.seen(col, key);
  }

  /**
   * Rows row0 … row0 + count − 1 take the keys key0 … key0 + count − 1 (a run of ascending keys): what
   * set() row by row leaves, with the keys still the row ids (the usual load) noted at the run's ends only.
   */
  setRun(col: number, row0: number, count: number, key0: number): void {
    if (count <= 0) return;
    this.set(col, row0, key0);
    if (this.arrays[col] === null) {
      // key0 was row0: every key of the run is its row id.
      this.seen(col, key0 + count - 1);
      return;
    }
    for (let i = 1; i < count; i++) this.set(col, row0 + i, key0 + i);
  }

  private seen(col: number, key: number): void {
    if (key === NULL_KEY) return;
    if (!(key >= this.minKey[col]!)) this.minKey[col] = key;
    if (!(key <= this.maxKey[col]!)) this.maxKey[col] = key;
  }

  /** The row's keys, one per column (NaN where a column is not keyed): what pg-check records. */
  snapshot(row: number): Float64Array {
    const out = new Float64Array(this.keyed.length).fill(NaN);
    for (let c = 0; c < out.length; c++) if (this.keyed[c]) out[c] = this.get(c, row);
    return out;
  }

  memoryBytes(): number {
    return this.arrays.reduce((a, x) => a + (x?.byteLength ?? 0), 0);
  }
}

/** What a phase's key draws need to know about the table. */
export interface KeyContext {
  store: KeyStore;
  seed: number;
  phase: number;
  op: string;
  /** Values the phase draws for the column (its rows). */
  count: number;
  /** Row ids used so far (existing rows are below). */
  rowIds: number;
  isLive(row: number): boolean;
  /** The column's stored bytes in a row now (NULL_LEN for NULL). */
  bytesOf(row: number): number;
}

/** 53 well-mixed bits of (a, b) as a double in [0, 1): splitmix-style finalisers on 32-bit halves. */
function hashUnit(a: number, b: number): number {
  const mix = (x: number) => {
    x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
    x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
    return (x ^ (x >>> 16)) >>> 0;
  };
  const lo = b >>> 0;
  const hi = Math.floor(b / 0x100000000) >>> 0;
  const h1 = mix(a ^ mix(lo ^ 0x9e3779b9) ^ Math.imul(hi, 0x27d4eb2f));
  const h2 = mix(h1 ^ mix(lo + 0x7f4a7c15) ^ hi);
  return ((h1 >>> 5) * 67108864 + (h2 >>> 6)) / 9007199254740992;
}

/** Picks value numbers 0 … n − 1 by frequency: uniform, or Zipf (rank 1 the most frequent). */
class ValuePick {
  private readonly zipf: ZipfSampler | null;
  constructor(
    private readonly n: number,
    frequency: Frequency,
  ) {
    this.zipf = frequency.kind === 'zipf' && n > 1 ? new ZipfSampler(n, frequency.s) : null;
  }
  pick(rng: Prng): number {
    return this.zipf ? this.zipf.sample(rng) - 1 : rng.int(this.n);
  }
}

/**
 * The values of an ascending phase with `distinct: N`: the j-th of `count` draws takes the value whose
 * cumulative frequency first passes (j + ½) / count, values in order; a Zipf frequency's ranks scattered
 * over the values by a permutation.
 */
class AscendingRuns {
  private v = 0;
  private cum: number;
  private readonly weight: (v: number) => number;
  constructor(
    private readonly n: number,
    private readonly count: number,
    frequency: Frequency,
    rng: Prng,
  ) {
    if (frequency.kind === 'zipf' && n > 1) {
      const perm = new Permutation(Math.min(n, 0x7fffffff), rng);
      const s = frequency.s;
      let h = 0;
      for (let k = 1; k <= n; k++) h += Math.pow(k, -s);
      this.weight = (v) => Math.pow(perm.at(v) + 1, -s) / h;
    } else this.weight = () => 1 / n;
    this.cum = this.weight(0);
  }
  at(j: number): number {
    const target = (j + 0.5) / this.count;
    while (this.cum <= target && this.v < this.n - 1) {
      this.v++;
      this.cum += this.weight(this.v);
    }
    return this.v;
  }
}

/**
 * One column's keys for one phase. `next(j, current)` gives the key of the phase's j-th value (j counts
 * the phase's values in the order they are made); `current` is the row's key before an update (NaN for
 * an insert): a value drawn equal to it moves to another of the phase's values where there is one.
 * After next(), `valueId` names a distinct value (for its own length; −1 without `distinct`), and
 * `sourceRow` the existing row a clustered distinct value repeats (−1 otherwise).
 */
export class ColumnKeys {
  private readonly order: ValueDomain['order'];
  private readonly distinct: number;
  private readonly rng: Prng;
  /** Ascending: the largest key before the phase (−1 when none). */
  private readonly base: number;
  /** Random: the key range drawn from. */
  private readonly lo: number;
  private readonly span: number;
  private pick: ValuePick | null;
  private readonly runs: AscendingRuns | null;
  /** Clustered distinct: the keys, rows and bytes of the existing values new rows repeat. */
  private sourceKeys: Float64Array | null = null;
  private sourceRows: Int32Array | null = null;
  private readonly gap: number;
  /** Random distinct: a per-column salt, so two columns' values sit at different places. */
  private readonly salt: number;
  valueId = -1;
  sourceRow = -1;

  constructor(
    private readonly col: number,
    name: string,
    domain: ValueDomain | undefined,
    private readonly ctx: KeyContext,
    /** Random distinct values keep the range of the column's first phase that drew them: held by the caller across phases. */
    randomRange: { lo: number; span: number } | undefined,
  ) {
    const store = ctx.store;
    this.order = domain?.order ?? 'ascending';
    this.distinct = domain?.distinct ?? 0;
    this.rng = Prng.derive(ctx.seed, 'phase', ctx.phase, ctx.op, 'column', name, 'key');
    this.salt = Prng.derive(ctx.seed, 'column', name, 'values').nextU32();
    const min = store.minKey[col]!;
    const max = store.maxKey[col]!;
    this.base = Number.isNaN(max) ? -1 : max;
    if (randomRange) {
      this.lo = randomRange.lo;
      this.span = randomRange.span;
    } else {
      this.lo = Number.isNaN(min) ? 0 : min;
      this.span = Number.isNaN(max) || max <= min ? 1 : max - min;
    }
    const frequency = domain?.frequency ?? { kind: 'uniform' };
    this.pick = this.distinct > 0 && this.order !== 'ascending' ? new ValuePick(this.distinct, frequency) : null;
    this.runs =
      this.distinct > 0 && this.order === 'ascending'
        ? new AscendingRuns(this.distinct, Math.max(1, ctx.count), frequency, this.rng)
        : null;
    this.gap = Number.isNaN(max) || max <= min ? 1 : (max - min) / Math.max(1, ctx.rowIds);
    if (this.order === 'clustered' && this.distinct > 0 && ctx.rowIds > 0) {
      const keys: number[] = [];
      const rows: number[] = [];
      for (let k = 0; k < this.distinct; k++) {
        const r = this.existingRow(col);
        if (r < 0) break;
        keys.push(store.get(col, r));
        rows.push(r);
      }
      if (keys.length > 0) {
        this.sourceKeys = Float64Array.from(keys);
        this.sourceRows = Int32Array.from(rows);
        this.pick = new ValuePick(keys.length, frequency);
      }
    }
  }

  /** A live row with a value (not NULL) among the rows before the phase, picked at random; −1 if none is found. */
  private existingRow(col: number): number {
    const n = this.ctx.rowIds;
    if (n === 0) return -1;
    for (let a = 0; a < CLUSTER_PICK_ATTEMPTS; a++) {
      const r = this.rng.int(n);
      if (this.ctx.isLive(r) && this.ctx.store.get(col, r) !== Infinity) return r;
    }
    return -1;
  }

  /** The key of a random distinct value v: a fixed place in the range. */
  private randomValue(v: number): number {
    return this.lo + this.span * hashUnit(this.salt, v);
  }

  /** Are the phase's keys its ascending row count (ascending, no `distinct`): the j-th key base + 1 + j, with no draw? */
  get plainAscending(): boolean {
    return this.order === 'ascending' && this.distinct === 0;
  }

  /** The j-th key of a plainAscending phase (what next(j) returns, without next's bookkeeping). */
  ascendingKey(j: number): number {
    return this.base + 1 + j;
  }

  next(j: number, current: number): number {
    this.valueId = -1;
    this.sourceRow = -1;
    const n = this.distinct;
    if (this.order === 'ascending') {
      if (n === 0) return this.ascendingKey(j);
      const v = this.runs!.at(j);
      this.valueId = v;
      return this.base + 1 + v;
    }
    if (this.order === 'clustered') {
      if (this.sourceKeys !== null) {
        const m = this.sourceKeys.length;
        let v = this.pick!.pick(this.rng);
        if (this.sourceKeys[v] === current && m > 1) v = (v + 1) % m;
        this.sourceRow = this.sourceRows![v]!;
        this.valueId = v;
        return this.sourceKeys[v]!;
      }
      if (n === 0) {
        const r = this.existingRow(this.col);
        if (r >= 0) return this.ctx.store.get(this.col, r) + this.gap * CLUSTER_GAP_SHARE * this.rng.floatOpen();
      }
      // No existing row to cluster around: drawn as random keys are.
    }
    if (n === 0) return this.lo + this.span * this.rng.float();
    let v = this.pick ? this.pick.pick(this.rng) : this.rng.int(n);
    if (this.randomValue(v) === current && n > 1) v = (v + 1) % n;
    this.valueId = v;
    return this.randomValue(v);
  }

  /** The range random distinct values of this column are placed in (kept by the caller for later phases). */
  range(): { lo: number; span: number } {
    return { lo: this.lo, span: this.span };
  }
}
