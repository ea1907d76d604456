/** Runs the config sections owned by other models (contention) and hands their output to the report. */
import type { RunConfig } from '../loader/config.js';
import { contentionMarkdown, contentionTerminal, writeContentionCharts } from '../contention/report.js';
import { runContention } from '../contention/run.js';
import { progressBar } from '../report/progress.js';

export interface SectionRun {
  key: string;
  results: unknown;
  markdown: string;
  terminal: string;
  writeCharts(writeFile: (rel: string, data: Uint8Array) => void): string[];
}

export async function runSections(cfg: RunConfig, opts: { workers?: number; quiet: boolean }): Promise<SectionRun[]> {
  const runs: SectionRun[] = [];
  const spec = cfg.sections.contention;
  if (spec) {
    const bar = opts.quiet ? undefined : progressBar('contention');
    const results = await runContention(spec, cfg.seed, { workers: opts.workers, onProgress: (d, t) => bar?.update(d, t) });
    bar?.finish();
    runs.push({
      key: 'contention',
      results,
      markdown: contentionMarkdown(results),
      terminal: contentionTerminal(results),
      writeCharts: (writeFile) => writeContentionCharts(results, writeFile),
    });
  }
  return runs;
}
