/**
 * Profiles of the bench's storage, contention and estimate lines (docs/performance.md), with Node.js's
 * own sampling profiler:
 *
 *   node --cpu-prof --cpu-prof-dir=out/profile bench/dist/bench/profile.js storage [FORMAT] [random|sequential]
 *   node --cpu-prof --cpu-prof-dir=out/profile bench/dist/bench/profile.js contention
 *   node --cpu-prof --cpu-prof-dir=out/profile bench/dist/bench/profile.js estimate
 *   node bench/dist/bench/profile.js top out/profile/<file>.cpuprofile [N]
 *
 * `storage` runs the storage suite's 1M-row workload 4 times on one format (ase-dol by default);
 * `contention` runs the repairman model 4 times (2 s simulated each); `estimate` runs the titles
 * estimate at 1e9 rows twice in this thread (the work the pool's threads share out); `top` prints the N
 * functions with the most self time (default 15) and their share of the samples, placed in the
 * TypeScript sources through dist/'s source maps.
 */
import { readFileSync } from 'node:fs';
import { isFormatId } from '../src/formats/registry.js';
import { runReplication } from '../src/contention/task.js';
import { runStorage } from '../src/workload/runner.js';
import { inProcessRunner, runEstimate } from '../src/estimate/estimate.js';
import { loadEstimateConfig } from '../src/loader/config.js';
import { REPAIRMAN, repairmanSpec } from './repairman.js';
import { storageBenchSpec } from './storage.js';
import { sourceMapLocate, topSelfTime, type CpuProfile } from './cpuprofile.js';
import { ROOT, simConfig } from './paths.js';

const TITLES = simConfig('estimate-titles.yaml');

async function main(argv: string[]): Promise<void> {
  const [what, a, b] = argv;
  if (what === 'top' && a) {
    for (const t of topSelfTime(JSON.parse(readFileSync(a, 'utf8')) as CpuProfile, b ? Number(b) : 15, sourceMapLocate(ROOT))) {
      process.stdout.write(`${(100 * t.share).toFixed(1).padStart(5)}%  ${String(t.ms).padStart(6)} ms  ${t.name}\n`);
    }
  } else if (what === 'storage') {
    const format = a ?? 'ase-dol';
    if (!isFormatId(format)) throw new Error(`expected a format, found ${format}`);
    const spec = storageBenchSpec(1_000_000, format, b === 'sequential' ? 'sequential' : 'random');
    for (let i = 0; i < 4; i++) runStorage(spec);
  } else if (what === 'contention') {
    for (let i = 0; i < 4; i++)
      runReplication({
        spec: repairmanSpec(2000),
        buffer_manager: 'lockless',
        engines: REPAIRMAN.engines,
        users: REPAIRMAN.users,
        seed: 1,
      });
  } else if (what === 'estimate') {
    const cfg = loadEstimateConfig(TITLES, { rows: 1e9 });
    for (let i = 0; i < 2; i++) await runEstimate(cfg, inProcessRunner);
  } else {
    process.stderr.write(
      'usage: node [--cpu-prof] bench/dist/bench/profile.js storage [FORMAT] [random|sequential] | contention | estimate | top FILE.cpuprofile [N]\n',
    );
    process.exitCode = 2;
  }
}

await main(process.argv.slice(2));
