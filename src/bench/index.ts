/**
 * `npm run bench`: every figure of merit, printed. Benchmarks print numbers; tests never assert timings.
 */
import { benchCli } from './cli.js';
import { benchContention } from './contention.js';
import { benchEngines } from './engines.js';
import { benchEstimate } from './estimate.js';
import { benchMechanism } from './mechanism.js';
import { benchReport } from './report.js';
import { benchStorage, type BenchLine } from './storage.js';
import { benchSweep } from './sweep.js';

const suites: [string, () => Promise<BenchLine[]>][] = [
  ['cli', benchCli],
  ['storage', benchStorage],
  ['engines', benchEngines],
  ['contention', benchContention],
  ['estimate', benchEstimate],
  ['mechanism', benchMechanism],
  ['report', benchReport],
  ['sweep', benchSweep],
];

// `npm run bench | head` closes the pipe early: that is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

async function main(): Promise<void> {
  const only = process.argv[2];
  for (const [name, run] of suites) {
    if (only && only !== name) continue;
    for (const line of await run()) {
      process.stdout.write(`${line.name}: ${line.value.toLocaleString('en-US')} ${line.unit}${line.note ? `  (${line.note})` : ''}\n`);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
