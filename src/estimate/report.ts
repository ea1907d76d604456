/**
 * estimate.json, the terminal summary, estimate.md and the chart. Pure: returns data, text and PNG
 * buffers; the CLI writes them.
 */
import { renderLineChart, type Marker } from '../report/charts.js';
import { fmt, mdTable, textTable } from '../report/tables.js';
import { ROWSIM_VERSION } from '../version.js';
import type { EstimateConfig } from './config.js';
import type { CandidateFigures, EstimateOutcome, FormatEstimate } from './estimate.js';

interface CompareRow {
  name: string;
  figures: CandidateFigures;
}

/** The side-by-side rows: both recommendations, then the server default, full packing, max and the config's setting. */
export function compareRows(f: FormatEstimate): CompareRow[] {
  const find = (pred: (c: CandidateFigures) => boolean) => f.candidates.find(pred);
  const rows: CompareRow[] = [];
  const add = (name: string, c: CandidateFigures | undefined) => {
    if (c) rows.push({ name, figures: c });
  };
  add('forwarding target', find((c) => c.value === f.forwarding_target.value));
  add('fewest scan reads', find((c) => c.value === f.min_scan_reads.value));
  add('server default', find((c) => c.specials.includes('default')));
  add('pack fully', find((c) => c.specials.includes('pack')));
  add('max', find((c) => c.specials.includes('max')));
  add('current (config)', find((c) => c.specials.includes('current')));
  return rows;
}

function candidateJson(knob: string, c: CandidateFigures): Record<string, unknown> {
  const out: Record<string, unknown> = {
    [knob]: c.value,
    setting: c.setting,
    label: c.label,
  };
  if (c.specials.length) out.specials = c.specials;
  if (c.refined) out.refined = true;
  Object.assign(out, {
    forwarded_rows: c.forwarded_rows,
    forwarded_rows_pct: c.forwarded_rows_pct,
    pages: c.pages,
    table_scan_page_reads: c.table_scan_page_reads,
    packed_pages: c.packed_pages,
    space_overhead_pct: c.space_overhead_pct,
  });
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
    limits: f.limits,
    candidates: f.candidates.map((c) => candidateJson(k, c)),
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
    compare: compareRows(f).map((r) => ({ name: r.name, ...candidateJson(k, r.figures) })),
    commands: f.commands,
    command_note: f.command_note,
    alternative_commands: f.alternative_commands,
  };
}

export function estimateJson(cfg: EstimateConfig, out: EstimateOutcome, charts: string[]): Record<string, unknown> {
  const [primary, ...others] = out.formats;
  return {
    rowsim_version: ROWSIM_VERSION,
    name: cfg.name,
    seed: cfg.seed,
    table: cfg.table.name,
    target_pct: cfg.target_pct,
    sample: {
      ...out.sample,
      interval:
        'interval: 95% prediction interval for the whole table (replicate spread, scaled by sqrt(1/seeds + sample/table)); spread: lowest and highest seed, scaled to the whole table',
    },
    ...formatJson(primary!, cfg.target_pct),
    other_formats: others.map((f) => formatJson(f, cfg.target_pct)),
    notes: out.notes,
    charts,
  };
}

function pct(x: number): string {
  return `${x < 0.01 && x > 0 ? x.toPrecision(2) : fmt(Math.round(x * 100) / 100)}%`;
}

function compareTable(f: FormatEstimate, md: boolean): string {
  const reorg = f.candidates[0]?.reorg;
  const header = [
    '',
    f.knob,
    'fwd rows',
    'fwd %',
    '95% interval',
    'pages',
    'scan reads',
    'over packed',
    ...(reorg ? ['reorg locks'] : []),
  ];
  const rows = compareRows(f).map(({ name, figures: c }) => [
    name,
    c.setting !== String(c.value) ? `${c.setting} (= ${c.value})` : String(c.value),
    fmt(c.forwarded_rows),
    pct(c.forwarded_rows_pct),
    `${pct(c.interval.forwarded_rows_pct[0])}–${pct(c.interval.forwarded_rows_pct[1])}`,
    fmt(c.pages),
    fmt(c.table_scan_page_reads),
    pct(c.space_overhead_pct),
    ...(c.reorg ? [fmt(c.reorg.exclusive_table_locks)] : []),
  ]);
  return md ? mdTable(header, rows) : textTable(header, rows);
}

function sampleLine(cfg: EstimateConfig, out: EstimateOutcome): string {
  const s = out.sample;
  return s.sampled
    ? `${fmt(s.table_rows)} rows, estimated from a sample: ${s.seeds} seeds × ${fmt(s.rows_per_seed)} rows (about ${fmt(s.pages_per_seed)} pages each), extrapolated with 95% intervals`
    : `${fmt(s.table_rows)} rows, simulated whole with ${s.seeds} seeds (intervals: run-to-run variation)`;
}

export function estimateTerminal(cfg: EstimateConfig, out: EstimateOutcome): string {
  const lines: string[] = [];
  lines.push(`${cfg.name}: table ${cfg.table.name}, ${sampleLine(cfg, out)}; target: forwarded rows ≤ ${cfg.target_pct}%`);
  for (const f of out.formats) {
    lines.push('', `${f.format}: ${f.knob} from ${Object.values(f.limits).join(' to ')}, ${f.candidates.length} candidates`);
    lines.push(compareTable(f, false), '');
    lines.push(`recommended ${f.knob} ${f.forwarding_target.value}: ${f.forwarding_target.why}`);
    if (f.min_scan_reads.value !== f.forwarding_target.value) lines.push(`fewest scan reads: ${f.min_scan_reads.why}`);
    lines.push('apply:');
    for (const c of f.commands) lines.push(`  ${c}`);
    lines.push(`  (${f.command_note})`);
  }
  for (const n of out.notes) lines.push(`note: ${n}`);
  return lines.join('\n');
}

export function estimateMarkdown(cfg: EstimateConfig, out: EstimateOutcome, charts: string[]): string {
  const md: string[] = [`# rowsim estimate: ${cfg.name}`, '', `Config \`${cfg.file}\`, seed ${cfg.seed}, rowsim ${ROWSIM_VERSION}.`, ''];
  md.push(`Table ${cfg.table.name}: ${sampleLine(cfg, out)}. Target: forwarded rows ≤ ${cfg.target_pct}%.`, '');
  out.formats.forEach((f, i) => {
    md.push(`## ${f.format}: ${f.knob}`, '', compareTable(f, true), '');
    md.push(`**Recommended ${f.knob} ${f.forwarding_target.value}.** ${f.forwarding_target.why}`, '');
    md.push(`**Fewest table-scan page reads: ${f.knob} ${f.min_scan_reads.value}.** ${f.min_scan_reads.why}`, '');
    md.push('```sql', ...f.commands, '```', '', f.command_note, '');
    if (charts[i]) md.push(`![${charts[i]}](${charts[i]})`, '');
    md.push('### All candidates', '');
    md.push(
      mdTable(
        [f.knob, 'fwd %', '95% interval', 'seeds', 'pages', 'scan reads', 'over packed'],
        f.candidates.map((c) => [
          c.specials.length ? c.label : String(c.value),
          pct(c.forwarded_rows_pct),
          `${pct(c.interval.forwarded_rows_pct[0])}–${pct(c.interval.forwarded_rows_pct[1])}`,
          `${pct(c.spread.forwarded_rows_pct[0])}–${pct(c.spread.forwarded_rows_pct[1])}`,
          fmt(c.pages),
          fmt(c.table_scan_page_reads),
          pct(c.space_overhead_pct),
        ]),
      ),
      '',
    );
  });
  if (out.notes.length) md.push('## Notes', '', ...out.notes.map((n) => `- ${n}`), '');
  return md.join('\n');
}

/** Forwarded rows and pages against the knob, with the recommendations and special values marked. */
export function estimateChart(cfg: EstimateConfig, f: FormatEstimate): Buffer {
  const cs = f.candidates;
  const markers: Marker[] = [
    { x: f.forwarding_target.value, label: `≤ ${cfg.target_pct}% forwarded: ${f.forwarding_target.value}`, color: '#D55E00' },
  ];
  if (f.min_scan_reads.value !== f.forwarding_target.value) {
    markers.push({ x: f.min_scan_reads.value, label: `fewest scan reads: ${f.min_scan_reads.value}`, color: '#009E73' });
  }
  for (const c of cs) {
    for (const s of c.specials) {
      if (s === 'current') continue;
      markers.push({ x: c.value, label: s === 'default' ? `default ${c.value}` : s === 'pack' ? `pack ${c.value}` : `max ${c.value}`, color: '#999999' });
    }
  }
  return renderLineChart({
    title: `${cfg.table.name} on ${f.format}: forwarded rows and pages against ${f.knob}`,
    subtitle: `${cs.length} candidates, ${cfg.seeds} seeds each; dashed red: upper end of the 95% interval of forwarded rows`,
    xLabel: f.knob,
    yLabel: 'forwarded rows (% of rows)',
    y2Label: 'pages',
    series: [
      { label: 'forwarded rows %', points: cs.map((c) => [c.value, c.forwarded_rows_pct]), color: '#D55E00' },
      { label: 'interval, upper', points: cs.map((c) => [c.value, c.interval.forwarded_rows_pct[1]]), color: '#D55E00', dashed: true, showPoints: false },
      { label: 'pages', points: cs.map((c) => [c.value, c.pages]), yAxis: 'right', color: '#0072B2' },
      { label: 'table-scan page reads', points: cs.map((c) => [c.value, c.table_scan_page_reads]), yAxis: 'right', color: '#0072B2', dashed: true },
    ],
    markers,
  });
}
