/** Runs the config sections owned by other models (contention) and hands their output to the report. */
import type { RunConfig } from '../config/load.js';

export interface SectionRun {
  key: string;
  results: unknown;
  markdown: string;
  terminal: string;
  writeCharts(chartsDir: string): string[];
}

export async function runSections(_cfg: RunConfig, _opts: { workers?: number; quiet: boolean }): Promise<SectionRun[]> {
  return [];
}
