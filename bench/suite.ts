/** What every suite of `npm run bench` is given, and what it is: lines yielded as they are measured. */
import type { BenchLine } from './harness.js';

export interface SuiteContext {
  /** Counted runs of each timed line (each after a warm-up that is not counted). */
  runs: number;
  /** --runs was given: suites with a default of their own (cli: 15, scale: 1) use `runs` instead. */
  runsGiven: boolean;
  /** Seconds a child process (memory, scale) may take before it is killed. */
  timeoutS: number;
  /** The live PostgreSQL of the pg suite, and its table size. */
  pg?: { url: string; rows: number };
}

export type Suite = (ctx: SuiteContext) => AsyncIterable<BenchLine>;
