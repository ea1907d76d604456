/**
 * Storage benchmark: 1,000,000 inserts followed by 1,000,000 growing updates on ase-dol, on one core
 * (in this thread). Reports row operations per second (generation, sizing and page engine together)
 * and simulator memory per row (typed arrays held by the engine and the row store).
 */
import { defaultEngineSpec } from '../formats/registry.js';
import type { StorageSpec } from '../config/spec.js';
import { parseType } from '../config/column-types.js';
import { runStorage } from '../workload/runner.js';

export interface BenchLine {
  name: string;
  value: number;
  unit: string;
  note?: string;
}

export function storageBenchSpec(rows: number, format: StorageSpec['engine']['format'] = 'ase-dol'): StorageSpec {
  return {
    name: 'bench',
    seed: 1,
    table: {
      name: 'bench',
      columns: [
        { name: 'id', type: parseType('int'), nullable: false },
        { name: 'status', type: parseType('char(8)'), nullable: false },
        { name: 'body', type: parseType('varchar(300)'), nullable: true },
      ],
      indexes: [{ name: 'bench_pk', columns: ['id'], unique: true, clustered: false }],
    },
    engine: defaultEngineSpec(format, { exp_row_size: 100, fillfactor: 90 }),
    workload: [
      { op: 'insert', rows: { kind: 'count', n: rows }, values: { body: { null: 0, length: { kind: 'uniform', min: 0, max: 40 } } } },
      {
        op: 'update',
        rows: { kind: 'all' },
        order: { kind: 'random' },
        transaction: 'statement',
        set: { body: { kind: 'grow', dist: { kind: 'uniform', min: 20, max: 150 } } },
      },
    ],
  };
}

export async function benchStorage(): Promise<BenchLine[]> {
  const rows = 1_000_000;
  const spec = storageBenchSpec(rows);
  runStorage(spec); // warm up the JIT on the same workload
  const seconds: number[] = [];
  let r = runStorage(spec);
  for (let i = 0; i < 3; i++) {
    const t0 = process.hrtime.bigint();
    r = runStorage(spec);
    seconds.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  seconds.sort((a, b) => a - b);
  const median = seconds[1]!;
  const ops = rows * 2;
  return [
    {
      name: 'storage: ase-dol row operations per second (1M inserts + 1M growing updates, one core)',
      value: Math.round(ops / median),
      unit: 'ops/s',
      note: `target ≥ 5,000,000; median of 3 runs after a warm-up: ${seconds.map((s) => s.toFixed(2)).join(' / ')} s; ${r.final.forwarded_rows} forwarded rows`,
    },
    { name: 'storage: ase-dol simulator memory per row', value: Math.round((r.memory_bytes / rows) * 10) / 10, unit: 'bytes/row', note: 'target ≤ 32; typed arrays of the engine and the row store' },
  ];
}
