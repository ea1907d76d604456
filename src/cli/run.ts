import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadConfig, type RunConfig } from '../config/load.js';
import type { StorageTask } from '../heap/task.js';
import { progressBar } from '../report/progress.js';
import { writeFolderAtomically } from '../report/output.js';
import { storageEntry, storageMarkdown, storageTerminal, writeStorageCharts, type StorageEntry } from '../report/storage.js';
import { runTasks } from '../sweep/pool.js';
import { ROWSIM_VERSION } from '../version.js';
import type { StorageRunResult } from '../workload/runner.js';
import { runSections, type SectionRun } from './sections.js';

/** `rowsim estimate` writes into the same folder: a run keeps its files. */
function isEstimateOutput(relPath: string): boolean {
  return /^(estimate\.(json|md)|charts\/estimate[^/]*\.png)$/.test(relPath);
}

/** Tables with at most this many pages get page-map pictures. */
export const PAGE_MAP_MAX_PAGES = 20_000;

export interface RunOptions {
  out?: string;
  workers?: number;
  quiet?: boolean;
}

export async function runCommand(file: string, opts: RunOptions): Promise<number> {
  // Bad input throws InputError: main() prints it and exits with status 2.
  const cfg: RunConfig = loadConfig(file);
  const outDir = opts.out ?? join('out', cfg.name);
  const say = (s: string) => {
    if (!opts.quiet) process.stdout.write(`${s}\n`);
  };

  let storageResults: StorageRunResult[] = [];
  if (cfg.storage.length) {
    const bar = opts.quiet ? undefined : progressBar('storage');
    storageResults = await runTasks<StorageRunResult>(
      cfg.storage.map((p) => ({ kind: 'storage', payload: { spec: p.spec, pageMapMaxPages: PAGE_MAP_MAX_PAGES } satisfies StorageTask })),
      { workers: opts.workers, onProgress: (d, t) => bar?.update(d, t) },
    );
    bar?.finish();
  }
  const sections: SectionRun[] = await runSections(cfg, { workers: opts.workers, quiet: opts.quiet ?? false });
  const entries: StorageEntry[] = cfg.storage.map((p, i) => storageEntry(p, storageResults[i]!));

  writeFolderAtomically(outDir, (dir) => {
    const charts: string[] = [];
    if (entries.length) charts.push(...writeStorageCharts(entries, storageResults, dir, cfg.name));
    for (const s of sections) charts.push(...s.writeCharts(join(dir, 'charts')));
    const results: Record<string, unknown> = { rowsim_version: ROWSIM_VERSION, name: cfg.name, seed: cfg.seed };
    if (entries.length) results.storage = entries;
    for (const s of sections) results[s.key] = s.results;
    results.charts = charts;
    writeFileSync(join(dir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
    const md = [`# rowsim: ${cfg.name}`, '', `Config: \`${file}\`, seed ${cfg.seed}, rowsim ${ROWSIM_VERSION}.`, ''];
    if (entries.length) md.push(storageMarkdown(entries, charts));
    for (const s of sections) md.push(s.markdown);
    writeFileSync(join(dir, 'summary.md'), `${md.join('\n')}\n`);
  }, isEstimateOutput);

  if (entries.length) {
    say(`${cfg.name}: ${entries.length} storage point${entries.length > 1 ? 's' : ''}`);
    say(storageTerminal(entries));
    const notes = [...new Set(entries.flatMap((e) => e.notes))];
    for (const n of notes) say(`note: ${n}`);
  }
  for (const s of sections) say(s.terminal);
  say(`results: ${relative(process.cwd(), join(outDir, 'results.json')) || join(outDir, 'results.json')}, summary.md and charts/ beside it`);
  return 0;
}
