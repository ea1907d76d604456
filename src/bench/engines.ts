/**
 * Benchmarks of the other engines' heaps: the storage benchmark's workload (1,000,000 inserts, then
 * 1,000,000 growing updates, one core) on postgres-heap, sqlserver-heap and oracle-heap, and rowsize
 * on the uuid-vs-char(35) schema. Figures are printed by `npm run bench`; tests never assert timings.
 */
import { getFormat } from '../formats/registry.js';
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
  return out;
}
