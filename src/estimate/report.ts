/**
 * estimate.json, the terminal summary, estimate.md and the charts. Pure: returns data, text and PNG
 * buffers; the CLI writes them. The verdict comes first; the `apply:` commands only when the estimate
 * recommends them (or --force); sizes are in pages and in MB or GB of the stated page size.
 */
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { renderLineChart, renderStackedLineChart, type Marker, type Series } from '../report/charts.js';
import { fmt, mdTable, textTable } from '../report/tables.js';
import { ROWSIM_VERSION } from '../version.js';
import { getFormat } from '../formats/registry.js';
import type { EstimateConfig } from './types.js';
import type { CandidateFigures, EstimateOutcome, FormatEstimate } from './estimate.js';
import { binarySize as sizeText, groupedNumber } from '../util/numbers.js';

interface CompareRow {
  name: string;
  figures: CandidateFigures;
}

/** The side-by-side rows: both recommendations, then the server default, full packing, max and the config's setting. */
function compareRows(f: FormatEstimate): CompareRow[] {
  const find = (pred: (c: CandidateFigures) => boolean) => f.candidates.find(pred);
  const rows: CompareRow[] = [];
  const add = (name: string, c: CandidateFigures | undefined) => {
    if (c) rows.push({ name, figures: c });
  };
  if (f.knob === 'none') {
    add('the table as it is', f.candidates[0]);
    return rows;
  }
  add(
    'forwarding target',
    find((c) => c.value === f.forwarding_target.value),
  );
  add(
    'fewest scan reads',
    find((c) => c.value === f.min_scan_reads.value),
  );
  add(
    'server default',
    find((c) => c.specials.includes('default')),
  );
  add(
    'pack fully',
    find((c) => c.specials.includes('pack')),
  );
  add(
    'max',
    find((c) => c.specials.includes('max')),
  );
  add(
    'current (config)',
    find((c) => c.specials.includes('current')),
  );
  return rows;
}

function pageSizeText(bytes: number): string {
  return `${bytes / 1024} KB`;
}

function candidateJson(knob: string, c: CandidateFigures, pageBytes: number): Record<string, unknown> {
  const out: Record<string, unknown> =
    knob === 'none' ? { setting: c.setting, label: 'the table as it is' } : { [knob]: c.value, setting: c.setting, label: c.label };
  if (c.specials.length) out.specials = c.specials;
  if (c.refined) out.refined = true;
  Object.assign(out, {
    forwarded_rows: c.forwarded_rows,
    forwarded_rows_pct: c.forwarded_rows_pct,
    pages: c.pages,
    size_bytes: c.pages * pageBytes,
    table_scan_page_reads: c.table_scan_page_reads,
    packed_pages: c.packed_pages,
    space_overhead_pct: c.space_overhead_pct,
  });
  if (c.vs_current) out.vs_current = { pages: c.vs_current.pages, bytes: c.vs_current.pages * pageBytes, pct: c.vs_current.pct };
  if (c.hot_updates_pct !== undefined) out.hot_updates_pct = c.hot_updates_pct;
  if (c.reorg) out[`reorg_${c.reorg.kind}`] = { exclusive_table_locks: c.reorg.exclusive_table_locks, pages_after: c.reorg.pages_after };
  out.spread = c.spread;
  out.interval = c.interval;
  return out;
}

function formatJson(f: FormatEstimate, targetPct: number): Record<string, unknown> {
  const k = f.knob;
  const at = (v: number) => f.candidates.find((c) => c.value === v)!;
  const ft = at(f.forwarding_target.value);
  const ms = at(f.min_scan_reads.value);
  return {
    format: f.format,
    knob: k,
    page_size_bytes: f.page_bytes,
    limits: f.limits,
    candidates: f.candidates.map((c) => candidateJson(k, c, f.page_bytes)),
    recommendations: {
      forwarding_target: {
        [k]: f.forwarding_target.value,
        target_pct: targetPct,
        met: f.forwarding_target.met,
        forwarded_rows_pct: ft.forwarded_rows_pct,
        interval: ft.interval.forwarded_rows_pct,
        why: f.forwarding_target.why,
      },
      min_scan_reads: {
        [k]: f.min_scan_reads.value,
        table_scan_page_reads: ms.table_scan_page_reads,
        interval: ms.interval.table_scan_page_reads,
        why: f.min_scan_reads.why,
      },
    },
    compare: compareRows(f).map((r) => ({ name: r.name, ...candidateJson(k, r.figures, f.page_bytes) })),
    commands: f.commands,
    command_note: f.command_note,
    alternative_commands: f.alternative_commands,
  };
}

export function estimateJson(cfg: EstimateConfig, out: EstimateOutcome, charts: string[]): Record<string, unknown> {
  const [primary, ...others] = out.formats;
  const json: Record<string, unknown> = {
    rowsim_version: ROWSIM_VERSION,
    name: cfg.name,
    seed: cfg.seed,
    table: cfg.table.name,
    target_pct: cfg.target_pct,
    verdict: out.verdict,
    sample: {
      ...out.sample,
      interval:
        'interval: 95% prediction interval for the whole table (replicate spread, scaled by sqrt(1/seeds + sample/table)); spread: lowest and highest seed, scaled to the whole table',
    },
  };
  if (cfg.evidence) json.evidence = evidenceJson(cfg);
  if (out.calibration) json.calibration = out.calibration;
  if (out.spread_check) json.spread_check = out.spread_check;
  Object.assign(json, formatJson(primary!, cfg.target_pct));
  if (out.maintenance) json.maintenance = out.maintenance;
  if (out.advice) json.advice = out.advice;
  if (out.partitions) json.partitions = { sentence: out.partitions_sentence, partitions: out.partitions };
  json.other_formats = others.map((f) => formatJson(f, cfg.target_pct));
  json.notes = out.notes;
  json.charts = charts;
  return withShownPaths(json, cfg.file) as Record<string, unknown>;
}

/**
 * Input files as estimate.json names them, in `file` keys and inside sentences: relative to the config's
 * folder (so the file is the same wherever the repository lies), or to the working folder for files given
 * on the command line.
 */
function withShownPaths(value: unknown, configFile: string): unknown {
  const base = configFile === '(command line)' || configFile === '' ? process.cwd() : dirname(resolve(configFile));
  // Sentences name files too (the inputs' sources, a miss's place): those under the base are named from it.
  const prefix = `${base}${sep}`;
  const walk = (v: unknown, key?: string): unknown => {
    if (key === 'file' && typeof v === 'string' && isAbsolute(v)) return relative(base, v) || v;
    if (typeof v === 'string' && v.includes(prefix)) return v.split(prefix).join('');
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(value);
}

function evidenceJson(cfg: EstimateConfig): Record<string, unknown> {
  const e = cfg.evidence!;
  const fig = (f: { value: number; kind: string; label: string; file: string; line: number } | undefined) =>
    f ? { value: f.value, from: `${f.kind} ${f.label}`, file: f.file, line: f.line } : undefined;
  const out: Record<string, unknown> = { inputs: e.kinds, page_size_bytes: e.pageBytes };
  for (const key of ['rows', 'pages', 'forwarded', 'deleted', 'emptyPages', 'avgRowBytes', 'minRowBytes', 'maxRowBytes'] as const) {
    const v = fig(e[key]);
    if (v) out[key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = v;
  }
  if (e.columns) out.columns = e.columns;
  return out;
}

function pct(x: number): string {
  return `${x < 0.01 && x > 0 ? x.toPrecision(2) : fmt(Math.round(x * 100) / 100)}%`;
}

function compareTable(f: FormatEstimate, md: boolean): string {
  const reorg = f.candidates[0]?.reorg;
  const hasCurrent = f.candidates.some((c) => c.vs_current);
  const header = [
    '',
    ...(f.knob === 'none' ? [] : [f.knob]),
    'fwd rows',
    'fwd %',
    '95% interval',
    'pages',
    'size',
    ...(hasCurrent && f.knob !== 'none' ? ['vs current'] : []),
    'scan reads',
    'over packed',
    ...(reorg ? ['reorg locks'] : []),
  ];
  const rows = compareRows(f).map(({ name, figures: c }) => [
    name,
    ...(f.knob === 'none' ? [] : [c.setting !== String(c.value) ? `${c.setting} (= ${c.value})` : String(c.value)]),
    fmt(c.forwarded_rows),
    pct(c.forwarded_rows_pct),
    `${pct(c.interval.forwarded_rows_pct[0])}–${pct(c.interval.forwarded_rows_pct[1])}`,
    fmt(c.pages),
    sizeText(c.pages * f.page_bytes),
    ...(hasCurrent && f.knob !== 'none' ? [vsCurrent(c, f.page_bytes)] : []),
    fmt(c.table_scan_page_reads),
    pct(c.space_overhead_pct),
    ...(c.reorg ? [fmt(c.reorg.exclusive_table_locks)] : []),
  ]);
  return md ? mdTable(header, rows) : textTable(header, rows);
}

/** The space a candidate costs against the current setting: "+241.3 MB (+24.52%)"; the current row itself: "—". */
function vsCurrent(c: CandidateFigures, pageBytes: number): string {
  if (!c.vs_current || c.specials.includes('current')) return c.specials.includes('current') ? '—' : '';
  const sign = c.vs_current.pages >= 0 ? '+' : '';
  return `${sign}${sizeText(c.vs_current.pages * pageBytes)} (${sign}${c.vs_current.pct}%)`;
}

function sampleLine(out: EstimateOutcome): string {
  const s = out.sample;
  return s.sampled
    ? `${fmt(s.table_rows)} rows, estimated from a sample: ${s.seeds} seeds × ${fmt(s.rows_per_seed)} rows (about ${fmt(s.pages_per_seed)} pages each), extrapolated with 95% intervals`
    : `${fmt(s.table_rows)} rows, simulated whole with ${s.seeds} seeds (intervals: run-to-run variation)`;
}

function formatTitle(f: FormatEstimate): string {
  const pages = `pages of ${pageSizeText(f.page_bytes)}`;
  return f.knob === 'none'
    ? `${f.format}: no reserve setting (${f.command_note}): the table as it is; ${pages}`
    : `${f.format}: ${f.knob} from ${Object.values(f.limits).join(' to ')}, ${f.candidates.length} candidates; ${pages}`;
}

/** The lines that apply the recommendation, or why there are none. */
function applyLines(f: FormatEstimate, primary: boolean, out: EstimateOutcome, force: boolean): string[] {
  if (f.commands.length === 0) return [];
  const withheld = primary && out.verdict.exit_status !== 0;
  if (withheld && !force)
    return [`no apply: command (${out.verdict.status.replace(/_/g, ' ')}; --force prints the best setting's command anyway)`];
  return [
    withheld ? 'apply (--force: the estimate does not recommend it):' : 'apply:',
    ...f.commands.map((c) => `  ${c}`),
    `  (${f.command_note})`,
  ];
}

export function estimateTerminal(cfg: EstimateConfig, out: EstimateOutcome, force = false): string {
  const lines: string[] = [];
  lines.push(`${cfg.name}: table ${cfg.table.name}, ${sampleLine(out)}; target: forwarded rows ≤ ${cfg.target_pct}%`);
  lines.push('', `${out.verdict.exit_status === 0 ? '' : 'NOT APPLICABLE: '}${out.verdict.headline}`);
  if (out.calibration)
    lines.push('', `calibration (${out.calibration.kind === 'fit' ? 'fitted' : 'checked'}): ${out.calibration.sentence}`);
  if (out.spread_check) lines.push('', `across the spreads: ${out.spread_check.sentence}`);
  if (out.calibration?.inputs) {
    lines.push('', 'the row-length model, input by input:');
    for (const i of out.calibration.inputs) lines.push(`  ${i.how.padEnd(12)} ${i.name}: ${i.value} — ${i.from}`);
  }
  const unexplained = out.verdict.status === 'evidence_not_reproduced';
  out.formats.forEach((f, i) => {
    lines.push(
      '',
      `${formatTitle(f)}${unexplained ? ' (simulated with the closest growth, which does not reproduce the evidence: not a recommendation)' : ''}`,
      compareTable(f, false),
      '',
    );
    // The primary format's recommendation is the verdict above.
    if (i > 0) lines.push(`recommended ${f.knob} ${f.forwarding_target.value}: ${f.forwarding_target.why}`);
    if (f.knob !== 'none' && f.min_scan_reads.value !== f.forwarding_target.value) lines.push(`fewest scan reads: ${f.min_scan_reads.why}`);
    lines.push(...applyLines(f, i === 0, out, force));
  });
  lines.push(...adviceLines(out), ...rebuildFillLines(out));
  lines.push(...partitionLines(cfg, out));
  if (out.maintenance) {
    const m = out.maintenance;
    lines.push(
      '',
      `maintenance what-if (${m.days} days${m.assumed.length ? `; assumed: ${m.assumed.join(', ')} (estimate.maintenance)` : ''}): ${m.summary}`,
    );
    for (const c of m.costs) lines.push(`  - ${c}`);
  }
  for (const n of out.notes) lines.push(`note: ${n}`);
  // Input files named relative to the working folder where they lie under it (as the user typed them).
  return lines.join('\n').split(`${process.cwd()}${sep}`).join('');
}

/** The rebuild-fill study (rebuild-fill.ts) as lines: the sentence, each value tried, the key orders, the commands. */
export function rebuildFillLines(out: EstimateOutcome): string[] {
  const s = out.rebuild_fill;
  if (!s) return [];
  const lines = ['', `rebuild fill: ${s.sentence}; assumed: ${s.assumed.join('; ')}`];
  for (const r of s.rows)
    lines.push(
      `  ${s.key} ${r.value}: ${groupedNumber(r.pages_after_rebuild)} pages after the rebuild, ${groupedNumber(r.splits)} split by the growth`,
    );
  if (s.key_order)
    for (const k of s.key_order.rows)
      lines.push(
        `  ${s.key_order.column} inserted ${k.order}: ${groupedNumber(k.pages)} pages, ${groupedNumber(k.splits)} splits (the story as given)`,
      );
  if (s.commands.length) lines.push('apply (rebuild fill):', ...s.commands.map((c) => `  ${c}`), `  (${s.source})`);
  return lines;
}

function adviceLines(out: EstimateOutcome): string[] {
  const a = out.advice;
  if (!a) return [];
  const lines: string[] = [];
  if (a.rebuild) lines.push('', `rebuild: ${a.rebuild.sentence}`);
  if (a.alternatives.length) lines.push('', 'other space settings:', ...a.alternatives.map((x) => `  - ${x}`));
  return lines;
}

function partitionTable(out: EstimateOutcome, knob: string, text = false): string {
  return (text ? textTable : mdTable)(
    [
      'partition',
      'rows',
      'measured fwd %',
      'simulated fwd %',
      '95% interval',
      'pages measured',
      'simulated',
      'reproduced',
      `least ${knob}`,
    ],
    out.partitions!.map((p) => [
      p.name,
      fmt(p.rows),
      p.measured_pct === undefined ? '—' : pct(p.measured_pct),
      pct(p.simulated_pct),
      `${pct(p.interval[0])}–${pct(p.interval[1])}`,
      fmt(p.pages_measured),
      fmt(p.pages_simulated),
      p.reproduced ? 'yes' : `no: ${p.misses.join('; ')}`,
      `${p.recommended}${p.met ? '' : ' (target not met)'}`,
    ]),
  );
}

function partitionLines(cfg: EstimateConfig, out: EstimateOutcome): string[] {
  if (!out.partitions) return [];
  const knob = out.formats[0]!.knob;
  return [
    '',
    `per partition of ${cfg.table.name} (each fitted to its own figures): ${out.partitions_sentence}`,
    partitionTable(out, knob, true),
  ];
}

export function estimateMarkdown(cfg: EstimateConfig, out: EstimateOutcome, charts: string[], force = false): string {
  const md: string[] = [`# rowsim estimate: ${cfg.name}`, '', `Config \`${cfg.file}\`, seed ${cfg.seed}, rowsim ${ROWSIM_VERSION}.`, ''];
  md.push(`Table ${cfg.table.name}: ${sampleLine(out)}. Target: forwarded rows ≤ ${cfg.target_pct}%.`, '');
  md.push(`**${out.verdict.exit_status === 0 ? 'Verdict' : 'Not applicable (exit status 3)'}:** ${out.verdict.headline}`, '');
  if (out.calibration) md.push(...calibrationMarkdown(out), '');
  if (out.spread_check) md.push(`**Across the spreads the evidence allows:** ${out.spread_check.sentence}.`, '');
  out.formats.forEach((f, i) => {
    md.push(
      `## ${f.format}: ${f.knob === 'none' ? 'no reserve setting' : f.knob}`,
      '',
      `Pages of ${pageSizeText(f.page_bytes)}.`,
      '',
      compareTable(f, true),
      '',
    );
    if (f.knob !== 'none') {
      md.push(`**Forwarding target: ${f.knob} ${f.forwarding_target.value}.** ${f.forwarding_target.why}`, '');
      md.push(`**Fewest table-scan page reads: ${f.knob} ${f.min_scan_reads.value}.** ${f.min_scan_reads.why}`, '');
    }
    const apply = applyLines(f, i === 0, out, force);
    if (apply[0]?.startsWith('apply')) md.push('```sql', ...f.commands, '```', '', f.command_note, '');
    else if (apply.length) md.push(apply[0]!, '');
    if (charts[i]) md.push(`![${charts[i]}](${charts[i]})`, '');
    if (f.knob !== 'none') md.push('### All candidates', '', candidatesTable(f), '');
  });
  if (out.advice) {
    md.push('## Beside the recommendation', '');
    if (out.advice.rebuild) md.push(`**Rebuild:** ${out.advice.rebuild.sentence}`, '');
    md.push(...out.advice.alternatives.map((x) => `- ${x}`), '');
  }
  if (out.rebuild_fill) md.push('## Rebuild fill', '', '```', ...rebuildFillLines(out).slice(1), '```', '');
  if (out.partitions) md.push('## Per partition', '', out.partitions_sentence!, '', partitionTable(out, out.formats[0]!.knob), '');
  if (out.maintenance) md.push(...maintenanceMarkdown(out, charts), '');
  if (out.notes.length) md.push('## Notes', '', ...out.notes.map((n) => `- ${n}`), '');
  return md.join('\n');
}

function candidatesTable(f: FormatEstimate): string {
  return mdTable(
    [f.knob, 'fwd %', '95% interval', 'seeds', 'pages', 'size', 'scan reads', 'over packed'],
    f.candidates.map((c) => [
      c.specials.length ? c.label : String(c.value),
      pct(c.forwarded_rows_pct),
      `${pct(c.interval.forwarded_rows_pct[0])}–${pct(c.interval.forwarded_rows_pct[1])}`,
      `${pct(c.spread.forwarded_rows_pct[0])}–${pct(c.spread.forwarded_rows_pct[1])}`,
      fmt(c.pages),
      sizeText(c.pages * f.page_bytes),
      fmt(c.table_scan_page_reads),
      pct(c.space_overhead_pct),
    ]),
  );
}

function calibrationMarkdown(out: EstimateOutcome): string[] {
  const c = out.calibration!;
  const md = ['## Calibration', '', c.sentence, ''];
  md.push(
    mdTable(
      ['', 'measured', 'simulated (current setting)', '95% interval'],
      [
        [
          `moved share of ${c.measured.basis_word}`,
          pct(c.measured.pct),
          pct(c.simulated.moved_pct),
          `${pct(c.simulated.interval[0])}–${pct(c.simulated.interval[1])}`,
        ],
        ...(c.pages
          ? [['data pages', fmt(c.pages.measured), fmt(c.pages.simulated), `${fmt(c.pages.interval[0])}–${fmt(c.pages.interval[1])}`]]
          : []),
      ],
    ),
  );
  if (c.misses.length) md.push('', 'Missed:', '', ...c.misses.map((m) => `- ${m}`));
  if (c.inputs)
    md.push(
      '',
      '### The row-length model, input by input',
      '',
      mdTable(
        ['input', 'value', 'how', 'from'],
        c.inputs.map((i) => [i.name, i.value, i.how, i.from]),
      ),
    );
  if (c.fit?.spread_curve.length && c.fit.spread_curve.length > 1) {
    md.push('', `The spread against the data pages (the insert share fitted to the ${c.measured.basis_word} at each spread):`, '');
    md.push(
      mdTable(
        ['spread', 'insert share', 'moved %', 'reproduced', 'pages'],
        c.fit.spread_curve.map((p) => [
          String(p.spread),
          String(p.insert_share),
          pct(p.moved_pct),
          p.reproduced ? 'yes' : 'no',
          fmt(p.pages),
        ]),
      ),
    );
  }
  if (c.fit) {
    md.push(
      '',
      `Fitted: rows inserted at ${fmt(c.fit.insert_avg_bytes)} data bytes on average and grown by ${fmt(c.fit.growth_avg_bytes)} to ${fmt(c.fit.now_avg_bytes)} (insert share ${c.fit.insert_share}; the evidence allows ${c.fit.insert_share_range[0]}–${c.fit.insert_share_range[1]}).`,
    );
  }
  return md;
}

function maintenanceMarkdown(out: EstimateOutcome, charts: string[]): string[] {
  const m = out.maintenance!;
  const md = ['## Maintenance what-if', '', m.summary, ''];
  if (m.assumed.length) md.push(`Assumed (set them in estimate.maintenance): ${m.assumed.join(', ')}.`, '');
  md.push(
    '```sql',
    `-- every ${m.every_days} days, living with the current setting`,
    m.periodic_command,
    ...(m.change_commands.length ? ['-- or, once: the recommended setting', ...m.change_commands] : []),
    '```',
    '',
  );
  md.push(...m.costs.map((c) => `- ${c}`), '');
  md.push(
    mdTable(
      ['run (day)', 'forwarded rows before', 'exclusive table locks', '95% interval'],
      m.current.runs.map((r) => [
        String(r.day),
        fmt(r.forwarded_rows_before),
        fmt(r.exclusive_table_locks),
        `${fmt(r.exclusive_table_locks_interval[0])}–${fmt(r.exclusive_table_locks_interval[1])}`,
      ]),
    ),
  );
  const chart = charts.find((c) => c.endsWith('estimate-maintenance.png'));
  if (chart) md.push('', `![${chart}](${chart})`);
  return md;
}

/** The knob's axis title with its unit: "exp_row_size (bytes)", "fillfactor (%)". */
function knobAxis(f: FormatEstimate): string {
  const unit = getFormat(f.format).knob.reserveUnit;
  return unit ? `${f.knob} (${unit === '%' ? '% of the page' : unit})` : f.knob;
}

/** The chosen setting, the fewest scan reads and the special values as vertical lines. */
function estimateMarkers(cfg: EstimateConfig, f: FormatEstimate): Marker[] {
  const markers: Marker[] = [
    {
      x: f.forwarding_target.value,
      label: `chosen: ${f.knob} ${f.forwarding_target.value} (≤ ${cfg.target_pct}% forwarded)`,
      color: '#D55E00',
    },
  ];
  if (f.min_scan_reads.value !== f.forwarding_target.value) {
    markers.push({ x: f.min_scan_reads.value, label: `fewest scan reads: ${f.min_scan_reads.value}`, color: '#009E73' });
  }
  for (const c of f.candidates) {
    for (const s of c.specials) {
      if (s === 'current') continue;
      markers.push({ x: c.value, label: `${s === 'default' ? 'default' : s === 'pack' ? 'pack' : 'max'} ${c.value}`, color: '#999999' });
    }
  }
  return markers;
}

/**
 * Forwarded rows against the knob with the target drawn across (top), pages and scan reads (bottom): two
 * panels, since a share and a page count on one chart with two axes make unequal figures look equal.
 */
export function estimateChart(cfg: EstimateConfig, f: FormatEstimate): Buffer {
  const cs = f.candidates;
  // No reserve setting (a SQL Server heap): one candidate, the table as it is, drawn as a category.
  const asIs = f.knob === 'none';
  const x = (c: CandidateFigures, i: number): number => (asIs ? i : c.value);
  const shared = asIs
    ? { xLabel: 'setting', xCategories: cs.map(() => 'the table as it is (no reserve setting)') }
    : { xLabel: knobAxis(f), markers: estimateMarkers(cfg, f) };
  return renderStackedLineChart({
    title: `${cfg.table.name} on ${f.format}: forwarded rows and pages ${asIs ? 'of the table as it is' : `against ${f.knob}`}`,
    subtitle: `${cs.length} candidates, ${cfg.seeds} seeds each; top: forwarded rows, dashed: upper end of their 95% interval, the target across; bottom: pages of ${pageSizeText(f.page_bytes)}`,
    panels: [
      {
        ...shared,
        yLabel: 'forwarded rows (% of rows)',
        series: [
          { label: 'forwarded rows %', points: cs.map((c, i) => [x(c, i), c.forwarded_rows_pct]), color: '#D55E00' },
          {
            label: 'interval, upper',
            points: cs.map((c, i) => [x(c, i), c.interval.forwarded_rows_pct[1]]),
            color: '#D55E00',
            dashed: true,
            showPoints: false,
          },
        ],
        referenceLines: [{ y: cfg.target_pct, label: `target: ≤ ${cfg.target_pct}% forwarded`, color: '#7a2e00' }],
      },
      {
        ...shared,
        yLabel: `table size and scan (pages of ${pageSizeText(f.page_bytes)})`,
        series: [
          { label: 'pages', points: cs.map((c, i) => [x(c, i), c.pages]), color: '#0072B2' },
          { label: 'table-scan page reads', points: cs.map((c, i) => [x(c, i), c.table_scan_page_reads]), color: '#0072B2', dashed: true },
        ],
      },
    ],
  });
}

/** Forwarded rows day by day: the current setting with its periodic reorg, and the recommended one after its rebuild. */
export function maintenanceChart(cfg: EstimateConfig, out: EstimateOutcome): Buffer {
  const m = out.maintenance!;
  const f = out.formats[0]!;
  const sawtooth: Array<[number, number]> = [];
  for (const d of m.current.days) {
    sawtooth.push([d.day, d.forwarded_rows]);
    if (d.forwarded_rows_after_reorg !== undefined) sawtooth.push([d.day, d.forwarded_rows_after_reorg]);
  }
  const current = f.knob === 'none' ? 'the table as it is' : `${f.knob} ${m.current.setting}`;
  const series: Series[] = [
    { label: `${current}, ${m.periodic_command} every ${m.every_days} days`, points: sawtooth, color: '#D55E00', showPoints: false },
  ];
  if (m.recommended)
    series.push({
      label: `${f.knob} ${m.recommended.setting} after one rebuild, no reorg`,
      points: m.recommended.days.map((d) => [d.day, d.forwarded_rows]),
      color: '#009E73',
      showPoints: false,
    });
  return renderLineChart({
    title: `${cfg.table.name} on ${f.format}: forwarded rows over ${m.days} days`,
    subtitle:
      `${groupedNumber(m.growth_rows_per_day)} rows a day inserted short and grown (the fitted growth); day 0: today's ${fmt(m.totals.first_run_forwarded)} forwarded rows removed` +
      `${m.assumed.length ? `; assumed: ${m.assumed.join(', ')}` : ''}`,
    xLabel: 'time (days)',
    yLabel: 'forwarded (rows)',
    series,
    markers: m.current.runs
      .filter((r) => r.day > 0)
      .map((r) => ({ x: r.day, label: `reorg: ${fmt(r.exclusive_table_locks)} locks`, color: '#999999' })),
  });
}
