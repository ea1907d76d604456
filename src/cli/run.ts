import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { RUN_DEFAULTS } from '../config/defaults.js';
import { loadConfig, type RunConfig } from '../loader/config.js';
import type { StorageTask } from '../workload/task.js';
import { progressBar } from '../report/progress.js';
import { setChartScale } from '../report/charts.js';
import { renderReportHtml, reportPageMaps, type ReportPageMap } from '../report/html.js';
import { checkOutputFolder, StagedOutput } from '../report/output.js';
import { storageEntry, storageMarkdown, storageTerminal, writePageMapCharts, writeStorageCharts, type StorageEntry } from '../report/storage.js';
import { runTasksEach } from '../pool/pool.js';
import { ROWSIM_VERSION } from '../version.js';
import type { DrawnStorageResult } from '../mechanism/task.js';
import { checkRunLimits } from './limits.js';
import { runSections, type SectionRun } from './sections.js';

export interface RunOptions {
  out?: string;
  workers?: number;
  quiet?: boolean;
  maxPoints?: number;
  /** Check the page engines' invariants after every phase (also ROWSIM_CHECK=1). */
  check?: boolean;
  /** Every column of the terminal table, whatever the width. */
  wide?: boolean;
  /** Print results.json on standard output instead of the tables. */
  json?: boolean;
  /** The charts' pixel size is multiplied by this (1 to 4; default RUN_DEFAULTS.chartScale). */
  scale?: number;
}

export async function runCommand(file: string, opts: RunOptions): Promise<number> {
  // Bad input throws InputError (a config) or UserError (the output folder): main() prints it, exit 2.
  const cfg: RunConfig = loadConfig(file, undefined, { maxPoints: opts.maxPoints });
  checkRunLimits(cfg, { workers: opts.workers });
  const folder = checkOutputFolder(opts.out ?? join('out', cfg.name), 'run');
  const quiet = opts.quiet === true || opts.json === true;
  const say = (s: string) => {
    if (!quiet) process.stdout.write(`${s}\n`);
  };
  // Files go to a temporary folder as they are made (a sweep's page maps point by point), then are
  // published into the results folder; an error or an interrupt removes the temporary folder.
  const checkInvariants = opts.check === true || process.env.ROWSIM_CHECK === '1';
  const out = new StagedOutput(folder);
  const write = (rel: string, data: string | Uint8Array) => out.write(rel, data);
  const scaleBefore = setChartScale(opts.scale ?? RUN_DEFAULTS.chartScale);
  try {
    const entries: StorageEntry[] = new Array(cfg.storage.length);
    const pageMaps: string[][] = new Array(cfg.storage.length);
    const reportMaps: ReportPageMap[][] = new Array(cfg.storage.length);
    if (cfg.storage.length) {
      const bar = quiet ? undefined : progressBar('storage');
      bar?.update(0, cfg.storage.length);
      await runTasksEach<DrawnStorageResult>(
        cfg.storage.map((p) => ({ kind: 'drawn-storage', payload: { spec: p.spec, pageMapMaxCells: RUN_DEFAULTS.pageMapMaxCells, checkInvariants } satisfies StorageTask })),
        (i, result) => {
          entries[i] = storageEntry(cfg.storage[i]!, result);
          pageMaps[i] = writePageMapCharts(entries[i]!, result, write, cfg.name);
          reportMaps[i] = reportPageMaps(entries[i]!, result, pageMaps[i]!);
        },
        { workers: opts.workers, onProgress: (d, t) => bar?.update(d, t) },
      );
      bar?.finish();
    }
    const sections: SectionRun[] = await runSections(cfg, { workers: opts.workers, quiet });

    const charts: string[] = [];
    if (entries.length) charts.push(...writeStorageCharts(entries, write, cfg.name), ...pageMaps.flat());
    for (const s of sections) charts.push(...s.writeCharts(write));
    const results: Record<string, unknown> = { rowsim_version: ROWSIM_VERSION, name: cfg.name, seed: cfg.seed };
    if (entries.length) results.storage = entries;
    for (const s of sections) results[s.key] = s.results;
    results.charts = charts;
    const md = [`# rowsim: ${cfg.name}`, '', `Config: \`${file}\`, seed ${cfg.seed}, rowsim ${ROWSIM_VERSION}.`, ''];
    if (entries.length) md.push(storageMarkdown(entries, charts));
    for (const s of sections) md.push(s.markdown);
    const summary = `${md.join('\n')}\n`;
    write('summary.md', summary);
    // The same summary with every chart inlined, the page maps clickable: one self-contained file.
    write('report.html', renderReportHtml({ name: cfg.name, markdown: summary, charts, readChart: (rel) => readFileSync(join(out.dir, ...rel.split('/'))), pageMaps: reportMaps.flat() }));
    const json = `${JSON.stringify(results, null, 2)}\n`;
    write('results.json', json);
    out.publish();
    if (opts.json) process.stdout.write(json);

    if (entries.length) {
      say(`${cfg.name}: ${entries.length} storage point${entries.length > 1 ? 's' : ''}`);
      say(storageTerminal(entries, { wide: opts.wide }));
      const notes = [...new Set(entries.flatMap((e) => e.notes))];
      for (const n of notes) say(`note: ${n}`);
    }
    for (const s of sections) say(s.terminal);
  } finally {
    out.discard();
    setChartScale(scaleBefore);
  }
  say(`results: ${relative(process.cwd(), join(folder.dir, 'results.json')) || join(folder.dir, 'results.json')}, summary.md, report.html and charts/ beside it`);
  return 0;
}
