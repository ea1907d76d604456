/**
 * Benchmarks of the other engines' heaps: the storage benchmark's workload (1,000,000 inserts, then
 * 1,000,000 growing updates, one core) on postgres-heap, sqlserver-heap and oracle-heap, and rowsize
 * on the uuid-vs-char(35) schema; and postgres-heap with every row through the toaster (compressed,
 * moved out of line, its TOAST relation kept). Figures are printed by `npm run bench`; tests never
 * assert timings.
 */
import type { StorageSpec } from '../config/spec.js';
import { parseType } from '../config/column-types.js';
import { defaultEngineSpec, getFormat } from '../formats/registry.js';
import { metric } from '../heap/metrics.js';
import { runStorage } from '../workload/runner.js';
import { storageBenchSpec } from './storage.js';

export async function benchEngines(): Promise<Array<{ name: string; value: number; unit: string; note?: string }>> {
  const rows = 1_000_000;
  const out: Array<{ name: string; value: number; unit: string; note?: string }> = [];
  for (const format of ['postgres-heap', 'sqlserver-heap', 'oracle-heap'] as const) {
    runStorage(storageBenchSpec(50_000, format)); // warm up the JIT
    const t0 = process.hrtime.bigint();
    const r = runStorage(storageBenchSpec(rows, format));
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const moved = getFormat(format).movedRows;
    const detail = `${metric(r.final, moved.metric)} ${moved.word} rows, ${r.final.hot_updates} HOT updates`;
    out.push({
      name: `engines: ${format} row operations per second (1M inserts + 1M growing updates, one core)`,
      value: Math.round((2 * rows) / seconds),
      unit: 'ops/s',
      note: `${seconds.toFixed(2)} s; ${detail}; ${r.final.pages} pages, ${r.index_pages.total} index pages`,
    });
    out.push({ name: `engines: ${format} simulator memory per row`, value: Math.round((r.memory_bytes / rows) * 10) / 10, unit: 'bytes/row' });
  }
  out.push(...benchToast());
  return out;
}

/**
 * postgres-heap with TOAST: documents of 1–6 kB of text at compressibility 0.6 (pglz keeps about half),
 * so every row over 2 kB goes through the toaster's passes and the biggest bodies out of line in
 * 1,996-byte chunks; then every row gets a new body (the old chunks deleted).
 */
export function toastBenchSpec(rows: number): StorageSpec {
  return {
    name: 'bench-toast',
    seed: 1,
    table: {
      name: 'bench_toast',
      columns: [
        { name: 'id', type: parseType('int'), nullable: false },
        { name: 'title', type: parseType('varchar(120)'), nullable: false },
        { name: 'body', type: parseType('text'), nullable: false },
      ],
      indexes: [{ name: 'bench_toast_pk', columns: ['id'], unique: true, clustered: false }],
    },
    engine: defaultEngineSpec('postgres-heap', {}),
    workload: [
      { op: 'insert', rows: { kind: 'count', n: rows }, values: { title: { null: 0, length: { kind: 'uniform', min: 20, max: 120 } }, body: { null: 0, length: { kind: 'uniform', min: 1000, max: 6000 }, compressibility: 0.6 } } },
      { op: 'update', rows: { kind: 'all' }, order: { kind: 'random' }, transaction: 'statement', set: { body: { kind: 'length', dist: { kind: 'uniform', min: 1000, max: 6000 }, compressibility: 0.6 } } },
    ],
  };
}

function benchToast(): Array<{ name: string; value: number; unit: string; note?: string }> {
  const rows = 200_000;
  runStorage(toastBenchSpec(20_000)); // warm up the JIT
  const cpu: number[] = [];
  let r = runStorage(toastBenchSpec(20_000));
  for (let i = 0; i < 3; i++) {
    const t0 = process.cpuUsage();
    r = runStorage(toastBenchSpec(rows));
    const used = process.cpuUsage(t0);
    cpu.push((used.user + used.system) / 1e6);
  }
  cpu.sort((a, b) => a - b);
  const m = r.final;
  return [
    {
      name: 'engines: postgres-heap with TOAST row operations per CPU-second (200k inserts of 1–6 kB compressible text + 200k new bodies, pglz)',
      value: Math.round((2 * rows) / cpu[1]!),
      unit: 'ops/s',
      note: `median of 3 runs after a warm-up: ${cpu.map((s) => s.toFixed(2)).join(' / ')} s CPU; ${m.pages} heap pages, ${m.toast_pages} TOAST pages, ${m.toast_values} values out of line, ${m.compressed_values} compressed`,
    },
    { name: 'engines: postgres-heap with TOAST simulator memory per row', value: Math.round((r.memory_bytes / rows) * 10) / 10, unit: 'bytes/row', note: 'the engine, the row store, each row\'s values as stored and the TOAST heap of chunks' },
  ];
}
