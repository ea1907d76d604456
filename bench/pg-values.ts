/**
 * pg-check's value generator in process (src/pgcheck/values.ts): every value of sim-configs/pg-check's
 * toast-pglz.yaml made as pg-check sends it, each compressible one built and run through the pglz and
 * LZ4 emulations, each long incompressible one through pglz. The simulated run the values are made for
 * is recorded once (pg-check's planCheck), not timed. Values a CPU-second; the test suite's heaviest work outside simulation.
 */
import { measure, timingNote, type BenchLine } from './harness.js';
import type { SuiteContext } from './suite.js';
import { simConfig } from './paths.js';
import { loadConfig } from '../src/loader/config.js';
import { planCheck } from '../src/pgcheck/check.js';
import { ValueStream } from '../src/pgcheck/plan.js';

const CONFIG = 'toast-pglz.yaml';

export async function* benchPgValues(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  const spec = loadConfig(simConfig('pg-check', CONFIG)).storage[0]!.spec;
  // pg-check's own plan (the run recorded, its values numbered and audited), made once and not timed.
  const { cols, ops, totals, rows, minCaps } = planCheck(spec);
  let values = 0;
  let bytes = 0;
  const make = () => {
    const stream = new ValueStream(cols, spec.seed, totals, rows, minCaps);
    values = 0;
    bytes = 0;
    for (const o of ops) {
      const made = o.k === 'insert' ? stream.insert(o) : o.k === 'update' ? stream.update(o).values : [];
      for (const v of made) {
        values++;
        bytes += typeof v === 'string' || Buffer.isBuffer(v) ? v.length : 0;
      }
    }
  };
  const m = await measure(make, { runs: ctx.runs, warmup: 1 });
  yield {
    name: `pg-check values: ${CONFIG} made and checked (pglz, LZ4), in process`,
    value: Math.round(values / m.cpu!.median),
    unit: 'values/CPU-s',
    note: `${values} values, ${(bytes / 1e6).toFixed(1)} MB; ${timingNote(m)}`,
    measurement: m,
  };
}
