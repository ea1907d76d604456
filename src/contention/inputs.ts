/**
 * Every input of the contention model with its value and where it comes from: a measurement (the
 * calibration file), a source the config names (`contention.sources`), a default's published source
 * (keys of docs/sources.md), or "assumed". Pure: reads the resolved spec only.
 */
import type { ContentionBase, ContentionSpec } from './spec.js';

export interface ModelInput {
  key: string;
  value: string;
  /** calibration (measured), config (set in the config), default (rowsim's default), swept (a sweep axis). */
  origin: 'calibration' | 'config' | 'default' | 'swept';
  /** A source key of docs/sources.md, a measurement, or "assumed …". */
  source: string;
}

const ns = (x: number): string => {
  if (x === 0) return '0';
  if (x >= 1e9) return `${+(x / 1e9).toPrecision(4)} s`;
  if (x >= 1e6) return `${+(x / 1e6).toPrecision(4)} ms`;
  if (x >= 1e3) return `${+(x / 1e3).toPrecision(4)} µs`;
  return `${+x.toPrecision(4)} ns`;
};

interface InputDef {
  key: string;
  value(s: ContentionBase): string;
  /** The default's source; undefined for a required key (it has no default). */
  source?: string;
  applies?(s: ContentionBase): boolean;
}

const latched = (s: ContentionBase): boolean => s.buffer_managers.includes('latched');
const lockless = (s: ContentionBase): boolean => s.buffer_managers.includes('lockless');

/** The inputs in the order the summary lists them. */
const INPUT_DEFS: readonly InputDef[] = [
  { key: 'engines', value: (s) => s.engines.join(', ') },
  { key: 'users', value: (s) => s.users.join(', ') },
  { key: 'think_time', value: (s) => ns(s.think_time_ns), source: 'assumed' },
  { key: 'transaction.logical_reads', value: (s) => String(s.transaction.logical_reads), source: 'assumed' },
  { key: 'transaction.cpu_per_read', value: (s) => ns(s.transaction.cpu_per_read_ns), source: 'assumed' },
  { key: 'transaction.cpu_per_transaction', value: (s) => ns(s.transaction.cpu_per_transaction_ns), source: 'assumed' },
  { key: 'pages.count', value: (s) => String(s.pages.count), source: 'assumed' },
  { key: 'pages.skew', value: (s) => String(s.pages.skew), source: '[YCSB] (Zipf 0.99 of hot-key workloads)' },
  { key: 'service_times', value: (s) => s.service_times, source: 'assumed' },
  {
    key: 'latched.spinlocks',
    value: (s) => String(s.latched.spinlocks),
    source: '[PG-BUFMAP] (16 buffer-mapping partitions, PostgreSQL 8.2)',
    applies: latched,
  },
  {
    key: 'latched.hold',
    value: (s) => ns(s.latched.hold_ns),
    source: 'assumed (a hash-chain walk: a few dependent cache misses)',
    applies: latched,
  },
  {
    key: 'latched.handoff_per_waiter',
    value: (s) => ns(s.latched.handoff_per_waiter_ns),
    source: '[LOCKS] (one cache-line transfer)',
    applies: latched,
  },
  { key: 'latched.lock', value: (s) => s.latched.lock, source: '[LOCKS] (test-and-set spinlocks)', applies: latched },
  { key: 'latched.wait', value: (s) => s.latched.wait, source: 'assumed (spinlocks spin)', applies: latched },
  {
    key: 'latched.backoff_min',
    value: (s) => ns(s.latched.backoff_min_ns),
    source: 'assumed ([ANDERSON]: exponential back-off)',
    applies: (s) => latched(s) && s.latched.lock === 'ttas_backoff',
  },
  {
    key: 'latched.backoff_max',
    value: (s) => ns(s.latched.backoff_max_ns),
    source: 'assumed ([ANDERSON]: exponential back-off)',
    applies: (s) => latched(s) && s.latched.lock === 'ttas_backoff',
  },
  {
    key: 'latched.spin_limit',
    value: (s) => ns(s.latched.spin_limit_ns),
    source: 'assumed ([PG-SLOCK]: spin, then sleep)',
    applies: (s) => latched(s) && (s.latched.lock === 'spin_yield' || s.latched.lock === 'spin_sleep'),
  },
  {
    key: 'lockless.cas',
    value: (s) => ns(s.lockless.cas_ns),
    source: '[CAS] [LOCKS] (a contended atomic ≥ ~70 cycles)',
    applies: lockless,
  },
  {
    key: 'lockless.line_transfer',
    value: (s) => ns(s.lockless.line_transfer_ns),
    source: '= latched.handoff_per_waiter ([LOCKS]: one transfer per failed CAS)',
    applies: lockless,
  },
  { key: 'lockless.read', value: (s) => s.lockless.read, source: 'assumed (cas: pin on every read)', applies: lockless },
  {
    key: 'lockless.lookup',
    value: (s) => ns(s.lockless.lookup_ns),
    source: '= latched.hold (the same walk without the latch)',
    applies: lockless,
  },
  {
    key: 'lockless.update_share',
    value: (s) => String(s.lockless.update_share),
    source: 'assumed (every read pins)',
    applies: (s) => lockless(s) && s.lockless.read === 'cas',
  },
  { key: 'lockless.write_share', value: (s) => String(s.lockless.write_share), source: 'assumed', applies: lockless },
  {
    key: 'lockless.write_hold',
    value: (s) => ns(s.lockless.write_hold_ns),
    source: '= latched.hold (assumed)',
    applies: (s) => lockless(s) && s.lockless.write_share > 0,
  },
  { key: 'lockless.local_cache_pages', value: (s) => String(s.lockless.local_cache_pages), source: 'assumed', applies: lockless },
  { key: 'xoltp.snap_cpu_factor', value: (s) => String(s.xoltp.snap_cpu_factor), source: 'assumed ([X] names the feature, no figure)' },
  { key: 'xoltp.latch_free_btree', value: (s) => String(s.xoltp.latch_free_btree), source: 'assumed ([Y] names the feature)' },
  { key: 'xoltp.index.traversals', value: (s) => String(s.xoltp.index.traversals), source: 'assumed' },
  {
    key: 'xoltp.index.levels',
    value: (s) => String(s.xoltp.index.levels),
    source: 'assumed',
    applies: (s) => s.xoltp.index.traversals > 0,
  },
  {
    key: 'xoltp.index.fanout',
    value: (s) => String(s.xoltp.index.fanout),
    source: 'assumed',
    applies: (s) => s.xoltp.index.traversals > 0,
  },
  {
    key: 'xoltp.index.latch_hold',
    value: (s) => ns(s.xoltp.index.latch_hold_ns),
    source: 'assumed',
    applies: (s) => s.xoltp.index.traversals > 0,
  },
];

/** A measured cost's repeat range and spread, as the summary states it. */
function measuredSpread(m: { spread_pct: number | null; repeats_ns: [number, number] | null }): string {
  const parts: string[] = [];
  if (m.repeats_ns) parts.push(`repeats ${ns(m.repeats_ns[0])} – ${ns(m.repeats_ns[1])}`);
  if (m.spread_pct !== null) parts.push(`runs' repeat spread ${m.spread_pct}%`);
  return parts.length ? `, ${parts.join(', ')}` : '';
}

/** The model's inputs as the spec resolves them, each with its origin and source. */
export function modelInputs(spec: ContentionSpec): ModelInput[] {
  const swept = new Map<string, Array<string | number | boolean>>((spec.sweep?.axes ?? []).map((a) => [a.key, a.values]));
  const out: ModelInput[] = [];
  for (const d of INPUT_DEFS) {
    if (d.applies && !d.applies(spec)) continue;
    const given = spec.sources[d.key];
    const values = swept.get(d.key);
    if (values) {
      out.push({
        key: d.key,
        value: values.map(String).join(', '),
        origin: 'swept',
        source: given ?? (d.source ? `swept; default's source ${d.source}` : 'swept; assumed'),
      });
      continue;
    }
    const value = d.value(spec);
    const cal = spec.calibration;
    const refusedNote = cal?.refused[d.key] !== undefined ? `; rowsim calibrate refused to measure it (${cal.refused[d.key]})` : '';
    if (cal && cal.values[d.key] !== undefined) {
      const before = cal.replaced[d.key];
      const m = cal.measured[d.key];
      const spread = m ? measuredSpread(m) : '';
      out.push({
        key: d.key,
        value,
        origin: 'calibration',
        source: `${m ? 'measured' : `follows a measured cost (${d.source ?? 'derived'})`}: ${cal.file} (${cal.machine})${spread}${before !== undefined ? `; replaces ${ns(before)}` : ''}${refusedNote}`,
      });
    } else if (spec.explicit_keys.includes(d.key)) {
      out.push({ key: d.key, value, origin: 'config', source: (given ?? 'assumed (set in the config, no source given)') + refusedNote });
    } else {
      out.push({ key: d.key, value, origin: 'default', source: (given ?? d.source ?? 'assumed') + refusedNote });
    }
  }
  return out;
}
