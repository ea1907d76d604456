/**
 * The end of every run: its parts checked to make one run whole, then the files a run writes. A plain
 * `rowsim run` is one part (part 1 of 1, in memory); `rowsim merge` reads the parts that
 * `rowsim run --shard K/N` wrote. Both come here, so a merged run's results.json, summary.md, report.html
 * and charts are byte for byte those of a single run (test/shard.test.ts).
 *
 * The checks (each a UserError, exit 2, naming the folder): every part was written by this rowsim, for
 * the same resolved config (its SHA-256), the same N, units and chart scale; each of the parts 1 … N is
 * there exactly once; each holds exactly the units the rule gives it (plan.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../config/errors.js';
import { assembleResults, contentionJobs, type ContentionResults } from '../contention/run.js';
import { attachMetastability, metastabilityProbes, type Probe } from '../contention/metastability.js';
import type { ContentionTaskPayload, Replication } from '../contention/task.js';
import type { TaskRunner } from '../pool/scheduler.js';
import { reportHtmlTemplate, type ReportPageMap } from '../report/html.js';
import { storageCharts, storageColumnPriority, storageMarkdown, storageTerminal, type StorageEntry } from '../report/storage.js';
import { nestedOutputFiles } from '../report/output.js';
import { companionsMarkdown, type Companions } from '../report/summary-parts.js';
import { base64Of } from '../util/arrays.js';
import { ROWSIM_VERSION } from '../version.js';
import { PRIORITY } from './execute.js';
import type { LoadedPart, PartHeader } from './part.js';
import { partFolderName, SHARD_RULE, shardSlice } from './plan.js';
import type { RenderTask } from './render-task.js';

/** A whole run, put together from its parts. */
export interface MergedRun {
  header: PartHeader;
  entries: StorageEntry[];
  /** Per storage point, its page maps' PNG paths. */
  pageMaps: string[][];
  reportMaps: ReportPageMap[][];
  contention?: ContentionResults;
  parts: LoadedPart[];
}

/** What the run's files say on the terminal, and results.json. */
export interface WrittenRun {
  terminal: string[];
  json: string;
}

function runText(h: PartHeader): string {
  return `${h.name}, config sha256 ${h.config.sha256.slice(0, 12)}…, rowsim ${h.rowsim_version}, ${h.shard.count} part${h.shard.count > 1 ? 's' : ''}, --scale ${h.scale}`;
}

function sameRun(a: PartHeader, b: PartHeader): boolean {
  return (
    a.config.sha256 === b.config.sha256 &&
    a.shard.count === b.shard.count &&
    a.shard.rule === b.shard.rule &&
    a.units.storage === b.units.storage &&
    a.units.contention === b.units.contention &&
    a.scale === b.scale &&
    a.name === b.name &&
    a.seed === b.seed
  );
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function folders(parts: readonly LoadedPart[]): string {
  const shown = parts.slice(0, 4).map((p) => p.source);
  return shown.join(', ') + (parts.length > shown.length ? ` and ${parts.length - shown.length} more` : '');
}

/**
 * The contention results of a merged run from every part's replications. The start-state probes of its
 * bimodal points (metastability.ts) need every replication: `probeMetastability` runs them next.
 */
function mergedContention(
  ref: LoadedPart,
  spec: NonNullable<LoadedPart['contention_spec']>,
  seed: number,
  units: number,
  reps: Replication[],
): ContentionResults {
  const { payloads, jobs } = contentionJobs(spec, seed);
  if (payloads.length !== units)
    throw new UserError(
      `${ref.source}: part.json is damaged (expected ${units} contention tasks from its contention section, found ${payloads.length})`,
    );
  return assembleResults(spec, jobs, reps);
}

/** The start-state probes a merged run still needs (none without bimodal contention points). */
export function pendingProbes(run: MergedRun): { probes: Probe[]; payloads: ContentionTaskPayload[] } {
  const spec = run.parts[0]?.contention_spec;
  if (!run.contention || !spec) return { probes: [], payloads: [] };
  return metastabilityProbes(spec, run.contention);
}

/**
 * Run the start-state probes of the merged run's bimodal points as contention tasks on `runner` (the
 * worker pool, like the replications) and put their outcome on run.contention: the same figures as on
 * one thread, each probe being one replication.
 */
export async function probeMetastability(run: MergedRun, runner: TaskRunner, pending = pendingProbes(run)): Promise<void> {
  if (!run.contention || pending.probes.length === 0) return;
  const reps = await Promise.all(
    pending.payloads.map((payload) => runner.run<Replication>({ kind: 'contention', payload }, PRIORITY.unit)),
  );
  attachMetastability(run.contention, pending.probes, reps);
}

/** Check that `parts` are one run's parts 1 … N, each once, and put the run together. */
export function mergeParts(parts: LoadedPart[]): MergedRun {
  const ref = parts[0];
  if (!ref) throw new UserError('rowsim merge: expected one or more part folders (rowsim run --shard K/N writes them), found none');
  const h = ref.header;
  for (const p of parts) {
    if (p.header.rowsim_version !== ROWSIM_VERSION) {
      throw new UserError(
        `${p.source}: expected a part written by rowsim ${ROWSIM_VERSION} (the rowsim that merges), found one of rowsim ${p.header.rowsim_version}: run the shards and the merge with the same rowsim`,
      );
    }
    if (p.header.shard.rule !== SHARD_RULE)
      throw new UserError(`${p.source}: expected a part sliced by the rule ${SHARD_RULE}, found ${JSON.stringify(p.header.shard.rule)}`);
    if (!sameRun(p.header, h)) {
      throw new UserError(
        `${p.source}: expected a part of the same run as ${ref.source} (${runText(h)}), found a part of another (${runText(p.header)}): another config, another N, another --scale, or a config that changed between the runs`,
      );
    }
  }
  const N = h.shard.count;
  const byIndex = new Map<number, LoadedPart>();
  for (const p of parts) {
    const k = p.header.shard.index;
    const other = byIndex.get(k);
    if (other) throw new UserError(`${p.source}: expected each part once, found part ${k} of ${N} twice (also ${other.source})`);
    byIndex.set(k, p);
  }
  const missing: number[] = [];
  for (let k = 1; k <= N; k++) if (!byIndex.has(k)) missing.push(k);
  if (missing.length) {
    const shown = missing.slice(0, 5).join(', ') + (missing.length > 5 ? ` and ${missing.length - 5} more` : '');
    throw new UserError(
      `rowsim merge: expected all ${N} parts of ${h.name}'s run (${runText(h)}), found no part ${shown} of ${N} among ${folders(parts)}; run ${missing.length === 1 ? 'it' : 'each'} with rowsim run ${h.config.file} --shard K/${N} (it writes out/${h.name}/${partFolderName({ index: missing[0]!, count: N })} and so on)`,
    );
  }
  const S = h.units.storage;
  const entries: StorageEntry[] = new Array(S);
  const pageMaps: string[][] = new Array(S);
  const reportMaps: ReportPageMap[][] = new Array(S);
  const reps: Replication[] = new Array(h.units.contention);
  for (const p of parts) {
    const want = shardSlice(h.units, p.header.shard);
    const storage = p.storage.map((r) => r.index);
    const tasks = p.contention.map((r) => r.task);
    if (!sameList(storage, want.storage) || !sameList(tasks, want.contention)) {
      throw new UserError(
        `${p.source}: part.json is damaged (expected the storage points ${want.storage.join(', ') || 'none'} and ${want.contention.length} contention tasks of part ${p.header.shard.index} of ${N}, found ${storage.join(', ') || 'none'} and ${tasks.length}): run that part again`,
      );
    }
    for (const r of p.storage) {
      entries[r.index] = r.entry;
      pageMaps[r.index] = r.charts;
      reportMaps[r.index] = r.report_maps;
    }
    for (const r of p.contention) reps[r.task] = r.replication;
  }
  const contention = ref.contention_spec ? mergedContention(ref, ref.contention_spec, h.seed, h.units.contention, reps) : undefined;
  // The run's header is part 1's: summary.md names the config file as part 1 was given it.
  const first = byIndex.get(1)!.header;
  return { header: { ...first, shard: { index: 1, count: N, rule: first.shard.rule } }, entries, pageMaps, reportMaps, contention, parts };
}

/** The charts over the sweep points (storageCharts), one run-render task on `runner` (render-task.ts): their files and PNGs. */
export async function storageChartPngs(
  entries: StorageEntry[],
  title: string,
  scale: number,
  runner: TaskRunner,
): Promise<{ file: string; png: Uint8Array }[]> {
  const charts = storageCharts(entries);
  if (charts.length === 0) return [];
  const pngs = await runner.run<Uint8Array[]>(
    { kind: 'run-render', payload: { what: 'storage-charts', entries, title, charts, scale } satisfies RenderTask },
    PRIORITY.chart,
  );
  return charts.map((chart, i) => ({ file: `charts/${chart.file}`, png: pngs[i]! }));
}

/** Where the run's files go: rowsim's staged output folder. */
interface Output {
  readonly dir: string;
  /** The folder the files are published into (where rowsim trace and rowsim page put theirs beside them). */
  readonly folder?: { readonly dir: string };
  /** A file's bytes, or its text (as one string or in pieces). */
  write(rel: string, data: string | Uint8Array | Iterable<string>): void;
}

/** summary.md: the run's header line, the storage section with the links beside it, the contention section. */
function summaryMarkdown(h: PartHeader, entries: StorageEntry[], charts: string[], beside: Companions, contention?: string): string {
  const md = [`# rowsim: ${h.name}`, '', `Config: \`${h.config.file}\`, seed ${h.seed}, rowsim ${ROWSIM_VERSION}.`, ''];
  if (entries.length) md.push(storageMarkdown(entries, charts), ...companionsMarkdown(beside, h.config.file));
  if (contention) md.push(contention);
  return `${md.join('\n')}\n`;
}

/** The slide decks and page drawings rowsim trace and rowsim page published beside the results. */
function companions(out: Output): Companions {
  const dir = out.folder?.dir;
  if (!dir) return { decks: [], drawings: [] };
  const pages = nestedOutputFiles(dir, 'pages', 'page');
  return {
    decks: nestedOutputFiles(dir, 'trace', 'trace').filter((f) => f.endsWith('.html')),
    // A drawing as SVG (it scales), as PNG where there is no SVG of it.
    drawings: pages.filter((f) => f.endsWith('.svg') || (f.endsWith('.png') && !pages.includes(f.replace(/\.png$/, '.svg')))),
  };
}

/** Let the event loop run what is waiting (a worker thread's finished task) before going on. */
function giveWay(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The run's text made, its charts over the sweep points still to come: finish() writes the files. */
export interface PreparedRun {
  /** Write the charts over the sweep points (`drawn`: storageChartPngs' result), summary.md, report.html and results.json. */
  finish(drawn: readonly { file: string; png: Uint8Array }[]): WrittenRun;
}

/**
 * Write a whole run's files into `out`: the page maps (copied from the parts that are folders), the
 * charts over the sweep points (drawn on `runner`), the contention charts, summary.md, report.html and
 * results.json. Returns the terminal's text and results.json.
 */
export async function writeRun(
  run: MergedRun,
  out: Output,
  runner: TaskRunner,
  options: {
    wide?: boolean;
    storageCharts?: Promise<{ file: string; png: Uint8Array }[]>;
    chartBase64?: (rel: string) => string | undefined;
  } = {},
): Promise<WrittenRun> {
  // Queued early by a single run (the same function, on the same entries), else drawn now: the text is made while they draw.
  const drawn = run.entries.length
    ? (options.storageCharts ?? storageChartPngs(run.entries, run.header.name, run.header.scale, runner))
    : Promise.resolve([]);
  drawn.catch(() => {}); // awaited below; a failure while preparing is the one reported
  const prepared = await prepareRun(run, out, options);
  return prepared.finish(await drawn);
}

/**
 * All of writeRun that does not need the charts over the sweep points: the page maps copied, the
 * contention charts drawn and written, summary.md, results.json, the terminal's text and report.html
 * laid out (reportHtmlTemplate). A single run prepares while its worker threads still draw: the steps
 * give way to the event loop between them, so that a thread that finishes a task meanwhile gets its next
 * one from this thread without waiting for all of them.
 */
export async function prepareRun(
  run: MergedRun,
  out: Output,
  options: { wide?: boolean; chartBase64?: (rel: string) => string | undefined } = {},
): Promise<PreparedRun> {
  const { header: h, entries } = run;
  for (const p of run.parts) if (!p.staged) for (const r of p.storage) for (const c of r.charts) out.write(c, p.readChart(c));
  const storageChartFiles = entries.length ? storageCharts(entries).map((c) => `charts/${c.file}`) : [];
  const charts: string[] = entries.length ? [...storageChartFiles, ...run.pageMaps.flat()] : [];
  let contention: { markdown: string; terminal: string } | undefined;
  if (run.contention) {
    const report = await import('../contention/report.js');
    const { setChartScale } = await import('../report/charts.js');
    const before = setChartScale(h.scale);
    try {
      charts.push(...report.writeContentionCharts(run.contention, (rel, data) => out.write(rel, data)));
    } finally {
      setChartScale(before);
    }
    contention = { markdown: report.contentionMarkdown(run.contention), terminal: report.contentionTerminal(run.contention) };
  }
  await giveWay();
  const results: Record<string, unknown> = { rowsim_version: ROWSIM_VERSION, name: h.name, seed: h.seed };
  if (entries.length) results.storage = entries;
  if (run.contention) results.contention = run.contention;
  results.charts = charts;
  const summary = summaryMarkdown(h, entries, charts, companions(out), contention?.markdown);
  await giveWay();
  // The same summary with every chart inlined, the page maps clickable: one self-contained file.
  const html = reportHtmlTemplate({
    name: h.name,
    markdown: summary,
    charts,
    pageMaps: run.reportMaps.flat(),
    columnPriority: entries.length ? storageColumnPriority(entries) : {},
  });
  await giveWay();
  const json = `${JSON.stringify(results, null, 2)}\n`;
  await giveWay();
  const terminal: string[] = [];
  if (entries.length) {
    terminal.push(`${h.name}: ${entries.length} storage point${entries.length > 1 ? 's' : ''}`);
    terminal.push(storageTerminal(entries, { wide: options.wide }));
    for (const n of new Set(entries.flatMap((e) => e.notes))) terminal.push(`note: ${n}`);
  }
  if (contention) terminal.push(contention.terminal);
  return {
    finish(drawn) {
      const files = drawn.map((c) => c.file);
      if (files.length !== storageChartFiles.length || files.some((f, i) => f !== storageChartFiles[i])) {
        throw new Error(`writeRun: expected the charts ${storageChartFiles.join(', ') || 'none'}, was given ${files.join(', ') || 'none'}`);
      }
      const pngs = new Map<string, Uint8Array>();
      for (const { file, png } of drawn) {
        out.write(file, png);
        pngs.set(file, png);
      }
      out.write('summary.md', summary);
      const bytes = (rel: string) => pngs.get(rel) ?? readFileSync(join(out.dir, ...rel.split('/')));
      out.write(
        'report.html',
        html((rel) => options.chartBase64?.(rel) ?? base64Of(bytes(rel))),
      );
      out.write('results.json', json);
      return { terminal, json };
    },
  };
}
