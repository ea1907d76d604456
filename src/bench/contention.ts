/**
 * Contention benchmark: events per second of the simulation core on one thread (fixed points of the
 * xoltp-80-engines model, run in this thread after a JIT warm-up), and the wall time of the whole
 * xoltp-80-engines sweep through the worker pool with 2 workers.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { contentionSchema, type BufferManagerKind, type ContentionSpec } from '../contention/schema.js';
import { runPoint } from '../contention/task.js';
import { runContention } from '../contention/run.js';

function configPath(name: string): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return resolve(here, '../../sim-configs', name);
}

function loadXoltp(): { seed: number; spec: ContentionSpec } {
  const doc = parse(readFileSync(configPath('xoltp-80-engines.yaml'), 'utf8')) as { seed: number; contention: unknown };
  return { seed: doc.seed, spec: contentionSchema.parse(doc.contention) };
}

function timePoint(spec: ContentionSpec, bm: BufferManagerKind, users: number): { events: number; seconds: number } {
  const t0 = performance.now();
  const p = runPoint({ spec, buffer_manager: bm, engines: spec.engines[0]!, users, seed: 1 });
  return { events: p.events, seconds: (performance.now() - t0) / 1000 };
}

export async function benchContention(): Promise<Array<{ name: string; value: number; unit: string; note?: string }>> {
  const { seed, spec } = loadXoltp();
  const short: ContentionSpec = { ...spec, duration_ns: 400e6, warmup_ns: 100e6 };
  timePoint({ ...short, duration_ns: 50e6, warmup_ns: 0 }, 'latched', 5000); // JIT warm-up
  timePoint({ ...short, duration_ns: 50e6, warmup_ns: 0 }, 'lockless', 4000);
  const latched = timePoint(short, 'latched', 5000);
  const lockless = timePoint(short, 'lockless', 4000);
  const events = latched.events + lockless.events;
  const seconds = latched.seconds + lockless.seconds;
  const t0 = performance.now();
  const results = await runContention(spec, seed, { workers: 2 });
  const sweepSeconds = (performance.now() - t0) / 1000;
  const sweepEvents = results.reduce((a, r) => a + r.points.reduce((b, p) => b + p.events, 0), 0);
  const round = (x: number): number => Number(x.toPrecision(3));
  return [
    {
      name: 'contention simulation core',
      value: round(events / seconds),
      unit: 'events/s',
      note: `one thread, xoltp-80-engines points latched@5000 and lockless@4000 users, ${round(events / 1e6)}M events`,
    },
    { name: 'contention core, latched (spinning, ttas)', value: round(latched.events / latched.seconds), unit: 'events/s' },
    { name: 'contention core, lockless (CAS)', value: round(lockless.events / lockless.seconds), unit: 'events/s' },
    {
      name: 'xoltp-80-engines sweep wall time',
      value: round(sweepSeconds),
      unit: 's',
      note: `${results.reduce((a, r) => a + r.points.length, 0)} points, 2 workers, ${round(sweepEvents / 1e6)}M events`,
    },
  ];
}
