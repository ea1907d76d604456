/**
 * Reporting of contention results: PNG charts (throughput and response time against users with 95%
 * intervals, engine scaling with the USL fit clipped at the operational bound, where engine time goes,
 * the phase diagram of a sweep), a markdown section for summary.md (inputs and their sources, points,
 * flags) and a short terminal table. The only module of src/contention with I/O.
 */
import { renderBarChart, renderHeatMap, renderLineChart, PALETTE, type Series } from '../report/charts.js';
import { fmt, mdTable, textTable } from '../report/tables.js';
import { gapLatchedPoint, type ContentionEntry, type ContentionResults, type Gap, type SweepCellResult } from './run.js';
import type { ContentionPoint } from './task.js';
import { PROBE_DURATION_FACTOR, type Metastability, type StartOutcome } from './metastability.js';
import { uslThroughput } from './usl.js';

const BM_COLOR: Record<string, string> = { latched: PALETTE[1]!, lockless: PALETTE[0]! };

function label(r: ContentionEntry, results: readonly ContentionEntry[]): string {
  const engineCounts = new Set(results.map((x) => x.engines));
  return engineCounts.size > 1 ? `${r.buffer_manager}, ${r.engines} engines` : r.buffer_manager;
}

function colorOf(r: ContentionEntry, results: readonly ContentionEntry[]): string {
  const same = results.filter((x) => x.buffer_manager === r.buffer_manager);
  if (same.length <= 1) return BM_COLOR[r.buffer_manager] ?? PALETTE[2]!;
  const i = same.indexOf(r);
  const base = r.buffer_manager === 'latched' ? [1, 3, 4, 7] : [0, 5, 2, 6];
  return PALETTE[base[i % base.length]!]!;
}

const ratioText = (x: number): string => (x >= 10 ? x.toFixed(0) : x.toFixed(1));
const ci = (iv: readonly [number, number], f: (x: number) => string): string => `${f(iv[0])}–${f(iv[1])}`;

/** One gap as a sentence fragment: "5.1× (95% CI 4.9–5.3)", with the collapse shares when they matter. */
function gapText(g: Gap): string {
  let s = `lockless ${ratioText(g.throughput_ratio)}× the latched throughput (95% CI ${ci(g.throughput_ratio_ci95, ratioText)}), ${g.response_ratio >= 10 ? g.response_ratio.toFixed(0) : g.response_ratio.toFixed(1)}× lower mean response time`;
  if (g.bimodal)
    s += `; BIMODAL: ${Math.round(g.latched_collapsed_share * 100)}% of the latched replications collapsed, the mean describes neither outcome${g.metastable ? ' (METASTABLE: a collapse, once reached, holds; the share is not a steady-state probability)' : ''}`;
  else if (g.latched_collapsed_share === 1) s += '; the latched manager collapsed in every replication';
  return s;
}

const flag = (p: ContentionPoint): string =>
  `${p.metastability?.metastable ? ' (metastable)' : p.bimodal ? ' (bimodal)' : ''}${p.stationary ? '' : ' (not stationary)'}`;

/** "48–240 ms (median 100 ms)". */
function collapseTimes(t: NonNullable<StartOutcome['time_to_collapse_ms']>): string {
  return t.min === t.max ? `${n2(t.min)} ms` : `${n2(t.min)}–${n2(t.max)} ms (median ${n2(t.median)} ms)`;
}

/** One start's probes in words. */
function startText(o: StartOutcome, what: string): string {
  const t = o.time_to_collapse_ms;
  const fell = t
    ? `${o.collapsed} of ${o.replications} collapse${o.collapsed === 1 ? 's' : ''} ${collapseTimes(t)} after the start`
    : `none of ${o.replications} collapses`;
  const stayed = o.collapsed === 0 ? '' : o.switched === 0 ? ', and stay collapsed' : `, ${o.switched} of them recover or switch again`;
  return `from ${what} ${fell}${stayed}`;
}

/** The verdict of a start-state test, in words (bold where it matters). */
function verdictText(m: Metastability): string {
  const start = m.depends_on_start ? '; **the answer depends on the start**' : '';
  if (!m.metastable)
    return m.depends_on_start
      ? '**The answer depends on the start, but a collapse does not hold: collapsed replications recover.**'
      : '**Not metastable: collapsed replications recover.**';
  const running = m.running_state === 'holds' ? 'each replication kept the state it reached early' : 'the running state tips given time';
  return `**Metastable: a collapse, once reached, holds;** ${running}${start}.`;
}

/** A bimodal point's start-state test in words: whether a collapse holds, how long the running state lasts, whether the answer depends on the start. */
export function metastableText(p: ContentionPoint): string {
  const m = p.metastability!;
  const i = m.idle;
  const held = [
    i.collapsed_held_ms !== null ? `collapsed for ≥ ${n2(i.collapsed_held_ms)} ms` : '',
    i.running_held_ms !== null ? `running for ≥ ${n2(i.running_held_ms)} ms` : '',
  ].filter(Boolean);
  const share =
    m.running_state === 'holds'
      ? 'how often this start tipped'
      : `how many tipped within the run's window (${i.collapsed} of ${i.replications} within ${n2(i.run_ms)} ms)`;
  return `${verdictText(m)} Modes ${n0(m.modes_tps.collapsed)} and ${n0(m.modes_tps.running)} tps. The same seeds over ${n2(i.run_ms)} ms (${PROBE_DURATION_FACTOR}× the window): ${startText(i, 'the idle start (every user thinking)')}; ${startText(m.backlog, 'a backlog start (every user submitting at once)')}.${held.length ? ` States held: ${held.join(', ')}.` : ''}${m.metastable ? ` "${p.collapsed} of ${p.replications}" is ${share}, not a steady-state probability.` : ''}`;
}

/** The bimodal points' start-state tests, one line each, for the summary's and the terminal's head. */
export function metastabilityHeadlines(entries: readonly ContentionEntry[]): string[] {
  return entries.flatMap((r) =>
    r.points
      .filter((p) => p.metastability)
      .map((p) => `${r.buffer_manager}, ${r.engines} engines, ${fmt(p.users)} users: ${metastableText(p)}`),
  );
}

/** A sweep's probed (bimodal) points, one tight line each: the cell, the verdict, the modes, each start's collapses. */
export function sweepMetastabilityLines(sweep: NonNullable<ContentionResults['sweep']>): string[] {
  return sweep.cells.flatMap((c) =>
    c.entries.flatMap((r) =>
      r.points
        .filter((p) => p.metastability)
        .map((p) => {
          const m = p.metastability!;
          const cell = sweep.axes.map((a) => `${a.key} ${String(c.params[a.key])}`).join(', ');
          const verdict = m.metastable
            ? `metastable, the running state ${m.running_state === 'holds' ? 'holds' : 'tips given time'}${m.depends_on_start ? ', depends on the start' : ''}`
            : m.depends_on_start
              ? 'depends on the start, a collapse does not hold'
              : 'not metastable';
          const t = m.idle.time_to_collapse_ms;
          return `${cell} (${r.buffer_manager}, ${r.engines} engines, ${fmt(p.users)} users): **${verdict}**, modes ${n0(m.modes_tps.collapsed)} and ${n0(m.modes_tps.running)} tps; from the idle start ${m.idle.collapsed} of ${m.idle.replications} collapse${m.idle.collapsed === 1 ? 's' : ''}${t ? ` ${collapseTimes(t)} after the start` : ''}, from a backlog start ${m.backlog.collapsed} of ${m.backlog.replications}.`;
        }),
    ),
  );
}

type WriteChart = (name: string, png: Buffer) => void;

export function writeContentionCharts(results: ContentionResults, writeFile: (rel: string, data: Uint8Array) => void): string[] {
  const files: string[] = [];
  const write: WriteChart = (name, png) => {
    writeFile(`charts/${name}`, png);
    files.push(`charts/${name}`);
  };
  if (results.sweep) {
    writePhaseCharts(results, write);
    return files;
  }
  const entries = results.entries;
  if (entries.length === 0) return files;
  if (entries.some((r) => r.points.length >= 2)) writeUserCharts(results, write);
  const engineCounts = [...new Set(entries.map((r) => r.engines))].sort((a, b) => a - b);
  if (engineCounts.length >= 2) writeEngineScalingChart(entries, write);
  writeEngineTimeChart(results, engineCounts.length > 1, write);
  return files;
}

/** Throughput and response time against users, with intervals, the gap and the bimodal points. */
function writeUserCharts(results: ContentionResults, write: WriteChart): void {
  const entries = results.entries;
  const R = results.replications;
  const gaps = results.gaps;
  const gapSubtitle = gaps.length
    ? gaps.map((g) => `at ${fmt(g.users)} users${gaps.length > 1 ? ` (${g.engines} engines)` : ''}: ${gapText(g)}`).join('; ')
    : undefined;
  const intervalNote = R > 1 ? `bars: 95% interval of the mean over ${R} replications` : 'one replication: no interval';
  const engines = [...new Set(entries.map((r) => r.engines))].join(', ');
  const tput: Series[] = [];
  const resp: Series[] = [];
  const bimodalPts: Array<[number, number]> = [];
  for (const r of entries) {
    const color = colorOf(r, entries);
    const name = label(r, entries);
    tput.push({
      label: `${name} (mean)`,
      color,
      points: r.points.map((p) => [p.users, p.throughput_tps]),
      errorBars: r.points.map((p) => p.ci95.throughput_tps),
    });
    resp.push({
      label: `${name} mean`,
      color,
      points: r.points.map((p) => [p.users, p.response_time_ms]),
      errorBars: r.points.map((p) => p.ci95.response_time_ms),
    });
    resp.push({ label: `${name} p99`, color, dashed: true, points: r.points.map((p) => [p.users, p.response_time_ms_p99]) });
    for (const p of r.points) if (p.bimodal) bimodalPts.push([p.users, p.throughput_tps]);
  }
  if (bimodalPts.length)
    tput.push({
      label: 'bimodal point (some seeds collapse)',
      color: '#000000',
      showLine: false,
      pointStyle: 'rectRot',
      pointRadius: 8,
      points: bimodalPts,
    });
  write(
    'contention-throughput.png',
    renderLineChart({
      title: `Throughput against users (${engines} engines)`,
      subtitle: [gapSubtitle, intervalNote].filter(Boolean).join('. '),
      xLabel: 'users (concurrent sessions)',
      yLabel: 'throughput (transactions/s)',
      series: tput,
    }),
  );
  write(
    'contention-response-time.png',
    renderLineChart({
      title: `Response time against users (${engines} engines)`,
      subtitle: `mean (solid, ${intervalNote}) and 99th percentile (dashed), log scale`,
      xLabel: 'users (concurrent sessions)',
      yLabel: 'response time (ms)',
      yLog: true,
      series: resp,
    }),
  );
}

/** Throughput against engines with the USL fit, clipped at the operational bound and the data. */
function writeEngineScalingChart(entries: readonly ContentionEntry[], write: WriteChart): void {
  const series: Series[] = [];
  let subtitle = '';
  for (const bm of [...new Set(entries.map((r) => r.buffer_manager))]) {
    const list = entries.filter((r) => r.buffer_manager === bm).sort((a, b) => a.engines - b.engines);
    const fit = list[0]!.usl;
    if (!fit) continue;
    const color = BM_COLOR[bm] ?? PALETTE[2]!;
    const at = (r: ContentionEntry): ContentionPoint => r.points.find((p) => p.users === fit.users)!;
    series.push({
      label: `${bm} (simulated, ${fmt(fit.users)} users)`,
      color,
      points: list.map((r) => [r.engines, at(r).throughput_tps]),
      errorBars: list.map((r) => at(r).ci95.throughput_tps),
    });
    // the fitted curve, never above the operational bound, never past the data unless asked
    const lo = list[0]!.engines;
    const hi = fit.drawn_to;
    const bound = list.map((r) => [r.engines, at(r).bounds.throughput_tps] as const);
    const boundAt = (n: number): number => {
      // the engines bound grows linearly with N; interpolate the others between the measured counts
      const b = bound.find(([e]) => e >= n) ?? bound[bound.length - 1]!;
      const eng = list.find((r) => r.engines === b[0])!;
      const p = at(eng);
      const perEngine = p.bounds.engines_tps !== null ? p.bounds.engines_tps / eng.engines : Infinity;
      return Math.min(perEngine * n, p.bounds.lock_tps ?? Infinity, p.bounds.users_tps);
    };
    const curve: Array<[number, number]> = [];
    for (let i = 0; i <= 60; i++) {
      const n = lo + ((hi - lo) * i) / 60;
      curve.push([n, Math.min(uslThroughput(fit, n), boundAt(n))]);
    }
    series.push({
      label: `${bm} USL fit (σ=${fit.sigma.toPrecision(2)}, κ=${fit.kappa.toPrecision(2)}, rms error ${fit.rms_error_pct.toFixed(1)}%)`,
      color,
      dashed: true,
      showPoints: false,
      points: curve,
    });
    series.push({
      label: `${bm} linear (λ·N)`,
      color: PALETTE[8]!,
      dashed: true,
      showPoints: false,
      points: [
        [lo, fit.lambda * lo],
        [hi, Math.min(fit.lambda * hi, boundAt(hi))],
      ],
    });
    const top = list[list.length - 1]!;
    subtitle += `${bm}: ${top.engines} engines = ${(top.speedup ?? 0).toFixed(2)}× ${list[0]!.engines}; USL peak ${fit.peak_engines === null ? 'none (κ = 0)' : `at ${fmt(Math.round(fit.peak_engines))} engines`}${fit.peak_engines !== null && fit.peak_engines > Math.max(...fit.engines) ? ' (beyond the data)' : ''}. `;
  }
  write(
    'contention-engines.png',
    renderLineChart({
      title: 'Engine scaling',
      subtitle: `${subtitle}Curves are clipped at the operational bound and end at the largest engine count measured.`,
      xLabel: 'engines (count)',
      yLabel: 'throughput (transactions/s)',
      series,
    }),
  );
}

/** Where engine time goes: one stacked bar per point. */
function writeEngineTimeChart(results: ContentionResults, manyEngineCounts: boolean, write: WriteChart): void {
  const R = results.replications;
  const categories: string[] = [];
  const work: number[] = [];
  const spin: number[] = [];
  const cas: number[] = [];
  const restart: number[] = [];
  const idle: number[] = [];
  for (const r of results.entries) {
    for (const p of r.points) {
      categories.push(`${r.buffer_manager === 'latched' ? 'L' : 'LF'} ${manyEngineCounts ? `${r.engines}e ` : ''}${fmt(p.users)}`);
      work.push(p.work_pct);
      spin.push(p.spin_pct);
      cas.push(p.cas_retry_pct);
      restart.push(p.restart_pct);
      idle.push(p.idle_pct);
    }
  }
  write(
    'contention-engine-time.png',
    renderBarChart({
      title: 'Where engine time goes',
      subtitle: `L = latched, LF = lockless; each bar is one point (users), the mean of ${R} replication${R > 1 ? 's' : ''}; 100% = all engines for the whole window`,
      categories,
      series: [
        { label: 'useful work', values: work, color: PALETTE[2]! },
        { label: 'spinning', values: spin, color: PALETTE[1]! },
        { label: 'CAS conflicts', values: cas, color: PALETTE[4]! },
        { label: 'optimistic restarts', values: restart, color: PALETTE[3]! },
        { label: 'idle', values: idle, color: '#cccccc' },
      ],
      xLabel: `point (manager${manyEngineCounts ? ', engines' : ''}, users)`,
      yLabel: 'share of engine time (%)',
      stacked: true,
    }),
  );
}

function cellRatio(c: SweepCellResult): number {
  return c.gap ? c.gap.throughput_ratio : NaN;
}

const PHASE_NOTES = [
  'dashed outline: bimodal (some replications collapse, some do not); †: a point not stationary after its extensions',
  '‡: the lockless manager collapsed too (its hottest CAS line saturated) in at least half its replications',
  '◆ and the thick line: the closed-form boundary (drain criterion, docs/contention.md): collapse predicted in the ◆ cells',
];

/** The phase diagram: a line chart over one swept key, a heat map over two (one per value of a third). */
function writePhaseCharts(results: ContentionResults, write: (name: string, png: Buffer) => void): void {
  const sweep = results.sweep!;
  if (sweep.axes.length === 1) {
    write('contention-phase.png', phaseLineChart(results));
    return;
  }
  const az = sweep.axes[2];
  const slices = az ? az.values.map((_v, k) => k) : [-1];
  for (const k of slices) write(k < 0 ? 'contention-phase.png' : `contention-phase-${k + 1}.png`, phaseHeatMap(results, k));
}

/** The lockless ÷ latched ratio with its interval against the one swept key. */
function phaseLineChart(results: ContentionResults): Buffer {
  const sweep = results.sweep!;
  const a = sweep.axes[0]!;
  const pts: Array<[number, number]> = [];
  const errs: Array<[number, number] | null> = [];
  sweep.cells.forEach((c, i) => {
    pts.push([i, cellRatio(c)]);
    errs.push(c.gap ? c.gap.throughput_ratio_ci95 : null);
  });
  return renderLineChart({
    title: `Lockless ÷ latched throughput against ${a.key}`,
    subtitle: sweep.headline.text,
    xLabel: a.key,
    yLabel: 'lockless ÷ latched throughput (ratio)',
    yLog: true,
    xCategories: a.values.map(String),
    series: [
      {
        label: `ratio (mean, 95% interval over ${results.replications} replications)`,
        color: PALETTE[0]!,
        points: pts,
        errorBars: errs,
      },
    ],
  });
}

/** The cells of slice k of the third axis (all cells when k < 0), as rows (second axis) of columns (first axis). */
function sliceRows(sweep: NonNullable<ContentionResults['sweep']>, k: number): Array<Array<SweepCellResult | undefined>> {
  const [ax, ay] = sweep.axes as [(typeof sweep.axes)[0], (typeof sweep.axes)[0]];
  const cells = sweep.cells.filter((c) => k < 0 || c.index[2] === k);
  const at = (r: number, col: number): SweepCellResult | undefined => cells.find((c) => c.index[0] === col && c.index[1] === r);
  return ay.values.map((_v, r) => ax.values.map((_w, col) => at(r, col)));
}

/** The colour scale's span in decades: the largest |log10| of the ratios, rounded up to a tenth, between 0.3 and 1.5. */
function ratioLogSpan(values: number[][]): number {
  const maxLog = Math.max(
    0.3,
    ...values
      .flat()
      .filter((v) => Number.isFinite(v) && v > 0)
      .map((v) => Math.abs(Math.log10(v))),
  );
  return Math.min(1.5, Math.ceil(maxLog * 10) / 10);
}

const predicted = (c: SweepCellResult | undefined): boolean => (c ? (gapLatchedPoint(c)?.drain.collapse_predicted ?? false) : false);

const phaseCellText = (c: SweepCellResult | undefined): string =>
  c?.gap ? `${predicted(c) ? '◆ ' : ''}${ratioText(c.gap.throughput_ratio)}×${c.gap.lockless_collapsed_share >= 0.5 ? ' ‡' : ''}` : '';

/** The closed-form boundary beside the simulated one, as a sentence. */
export function boundaryText(b: NonNullable<ContentionResults['sweep']>['boundary']): string {
  const dis = b.disagree.map(
    (d) =>
      `${Object.entries(d.params)
        .map(([k, v]) => `${k} ${String(v)}`)
        .join(
          ', ',
        )} (${d.predicted ? 'predicted' : 'not predicted'}${d.w_star !== null ? `, w* = ${d.w_star}` : ''}; simulated ${Math.round(d.collapsed_share * 100)}% collapsed)`,
  );
  return `Closed-form boundary (drain criterion): collapse predicted in ${b.predicted_cells} of ${b.cells} cells, simulated in ${b.simulated_cells}; they agree in ${b.agree} of ${b.cells}${dis.length ? `; disagree at ${dis.join('; ')}` : ''}.`;
}

/** Where the latched manager collapses: the ratio over the first two swept keys, in slice k of the third. */
function phaseHeatMap(results: ContentionResults, k: number): Buffer {
  const sweep = results.sweep!;
  const [ax, ay, az] = sweep.axes as [(typeof sweep.axes)[0], (typeof sweep.axes)[0], (typeof sweep.axes)[0] | undefined];
  const rows = sliceRows(sweep, k);
  const values = rows.map((row) => row.map((c) => (c ? cellRatio(c) : NaN)));
  return renderHeatMap({
    title: `Where the latched buffer manager collapses${az && k >= 0 ? ` (${az.key} = ${String(az.values[k])})` : ''}`,
    subtitle: sweep.headline.text,
    xLabel: ax.key,
    yLabel: ay.key,
    xValues: ax.values.map(String),
    yValues: ay.values.map(String),
    values,
    cellText: rows.map((row) => row.map(phaseCellText)),
    dashed: rows.map((row) => row.map((c) => !!c?.gap?.bimodal)),
    dagger: rows.map((row) => row.map((c) => !!c && !c.stationary)),
    boundary: rows.map((row) => row.map(predicted)),
    center: 1,
    logSpan: ratioLogSpan(values),
    legendLabel: `lockless ÷ latched throughput (mean of ${results.replications} replications)`,
    notes: PHASE_NOTES,
  });
}

const n0 = (x: number): string => fmt(Math.round(x));
const n2 = (x: number): string => (Math.abs(x) >= 100 ? fmt(Math.round(x)) : fmt(Number(x.toPrecision(3))));

/** What a calibration file measured (with the repeats' spread), what it refused and why, what follows a measured cost. */
export function calibrationLines(cal: NonNullable<ContentionResults['calibration']>): string[] {
  const measured = Object.entries(cal.measured).filter(([k]) => cal.values[k] !== undefined);
  const followed = Object.keys(cal.values).filter((k) => cal.measured[k] === undefined);
  const refused = Object.entries(cal.refused);
  const bound = cal.max_repeat_spread_pct !== null ? ` (fitting runs' repeats within ${cal.max_repeat_spread_pct}%)` : '';
  const out = [
    `Calibration ${cal.file} (${cal.machine}): measured${bound}: ${
      measured.length
        ? measured
            .map(([k, m]) => {
              const range = m.repeats_ns ? `, repeats ${n2(m.repeats_ns[0])}–${n2(m.repeats_ns[1])}` : '';
              const spread = m.spread_pct !== null ? `, spread ${m.spread_pct}%` : '';
              return `${k} = ${n2(cal.values[k]!)} ns${range}${spread}`;
            })
            .join('; ')
        : 'none'
    }.`,
  ];
  if (followed.length) out.push(`Following a measured cost: ${followed.map((k) => `${k} = ${n2(cal.values[k]!)} ns`).join(', ')}.`);
  if (refused.length)
    out.push(
      `Refused by rowsim calibrate (the config's or the default value kept): ${refused.map(([k, why]) => `${k} — ${why}`).join('; ')}.`,
    );
  return out;
}

function inputsMarkdown(results: ContentionResults): string[] {
  const out = ['### Model inputs', '', 'Every input with its source: a measurement, a key of docs/sources.md, or "assumed".', ''];
  out.push(
    mdTable(
      ['input', 'value', 'origin', 'source'],
      results.inputs.map((i) => [`\`${i.key}\``, i.value, i.origin, i.source.replace(/\|/g, '/')]),
    ),
    '',
  );
  if (results.calibration) out.push(...calibrationLines(results.calibration).flatMap((l) => [l, '']));
  return out;
}

/** A column of a markdown table of points: its header and its cell for a point of an entry. */
interface PointColumn {
  header: string;
  cell: (p: ContentionPoint, r: ContentionEntry) => string;
}

const column = (header: string, cell: PointColumn['cell']): PointColumn => ({ header, cell });

function stationaryText(p: ContentionPoint): string {
  if (!p.stationary) return `**no** (${p.not_stationary} of ${p.replications})`;
  return p.extensions ? `yes (extended ×${p.extensions})` : 'yes';
}

/** The columns of a buffer manager's table of points (engines first when there are several engine counts; MVA last when any point has it). */
function pointColumns(multiEngines: boolean, mva: boolean): PointColumn[] {
  const columns = [
    column('users', (p) => fmt(p.users)),
    column('throughput (tps)', (p) => n0(p.throughput_tps) + (p.bimodal ? ' (bimodal)' : '')),
    column('95% CI', (p) => ci(p.ci95.throughput_tps, n0)),
    column('response (ms)', (p) => n2(p.response_time_ms)),
    column('95% CI', (p) => ci(p.ci95.response_time_ms, n2)),
    column('p99 (ms)', (p) => n2(p.response_time_ms_p99)),
    column('collapsed', (p) => `${p.collapsed} of ${p.replications}`),
    column('spin %', (p) => n2(p.spin_pct)),
    column('stationary', stationaryText),
    column('bound (tps)', (p) => `${n0(p.bounds.throughput_tps)} (${p.bounds.binding})`),
    column("Little's law error %", (p) => p.little_law_error_pct.toFixed(2)),
    column('drift %', (p) => p.drift_pct.toFixed(2)),
  ];
  if (multiEngines) columns.unshift(column('engines', (_p, r) => String(r.engines)));
  if (mva)
    columns.push(
      column('MVA tps', (p) => (p.mva ? n0(p.mva.throughput_tps) : '')),
      column('MVA response (ms)', (p) => (p.mva ? n2(p.mva.response_time_ms) : '')),
    );
  return columns;
}

/** The columns of the table of where engine time and response time go. */
function engineTimeColumns(): PointColumn[] {
  const share = (x: number): string => (x === 0 ? '0' : x.toPrecision(2));
  return [
    column('buffer manager', (_p, r) => r.buffer_manager),
    column('engines', (_p, r) => String(r.engines)),
    column('users', (p) => fmt(p.users)),
    column('work %', (p) => n2(p.work_pct)),
    column('spinning %', (p) => n2(p.spin_pct)),
    column('CAS conflicts %', (p) => n2(p.cas_retry_pct)),
    column('optimistic restarts %', (p) => n2(p.restart_pct)),
    column('idle %', (p) => n2(p.idle_pct)),
    column('run queue % of response', (p) => n2(p.run_queue_pct)),
    column('lock wait % of response', (p) => n2(p.spinlock_wait_pct)),
    column('CAS retries / look-up', (p) => share(p.cas_retries_per_lookup)),
    column('restarts / read', (p) => share(p.optimistic_restarts_per_read)),
  ];
}

/** A markdown table with a row per point of the entries. */
function pointsTable(columns: readonly PointColumn[], entries: readonly ContentionEntry[]): string {
  const rows = entries.flatMap((r) => r.points.map((p) => columns.map((c) => c.cell(p, r))));
  return mdTable(
    columns.map((c) => c.header),
    rows,
  );
}

/** A line for each bimodal point, with the mean of each mode (and a blank line after them). */
function bimodalLines(list: readonly ContentionEntry[]): string[] {
  const out: string[] = [];
  for (const r of list)
    for (const p of r.points)
      if (p.modes)
        out.push(
          `- ${r.engines} engines, ${fmt(p.users)} users is **bimodal**: ${p.collapsed} of ${p.replications} replications collapsed (mean ${n0(p.modes.collapsed.throughput_tps)} tps, ${n2(p.modes.collapsed.response_time_ms)} ms); the others ran at ${n0(p.modes.running.throughput_tps)} tps, ${n2(p.modes.running.response_time_ms)} ms.`,
        );
  if (out.length > 0) out.push('');
  return out;
}

/** The USL fit over engines of a buffer manager's entries, or why there is none. */
function uslParagraph(list: readonly ContentionEntry[]): string {
  const fit = list[0]!.usl;
  if (!fit) return `No USL fit: the USL is fitted over engines only (never over users with think time), and this run has one engine count.`;
  const top = list.reduce((a, b) => (b.engines > a.engines ? b : a));
  return `USL fit over engines at ${fmt(fit.users)} users (${fit.engines.join(', ')}): λ = ${n2(fit.lambda)} tps per engine, σ = ${fit.sigma.toPrecision(3)}, κ = ${fit.kappa.toPrecision(3)}, rms error ${fit.rms_error_pct.toFixed(1)}%; ${top.engines} engines deliver ${(top.speedup ?? 0).toFixed(2)}× ${Math.min(...fit.engines)}. The curve is drawn to ${fmt(fit.drawn_to)} engines and never above the operational bound.`;
}

function demandsLine(entry: ContentionEntry): string {
  const net = entry.network;
  return `Demands per transaction: engines ${n2(net.engine_demand_us)} µs, hottest lock or line ${n2(net.hottest_lock_demand_us)} µs${net.product_form ? ' (product-form network: exact MVA applies)' : ''}.`;
}

/** One buffer manager's section: its points, its bimodal points, the USL fit, the demands. */
function managerMarkdown(bm: string, list: readonly ContentionEntry[], multiEngines: boolean): string[] {
  const mva = list.some((r) => r.points.some((p) => p.mva));
  return [
    `### ${bm} buffer manager${multiEngines ? '' : `, ${list[0]!.engines} engines`}`,
    '',
    pointsTable(pointColumns(multiEngines, mva), list),
    '',
    ...bimodalLines(list),
    uslParagraph(list),
    '',
    demandsLine(list[0]!),
    '',
  ];
}

function entriesMarkdown(entries: readonly ContentionEntry[], R: number): string[] {
  const out: string[] = [];
  const multiEngines = new Set(entries.map((r) => r.engines)).size > 1;
  for (const bm of [...new Set(entries.map((r) => r.buffer_manager))]) {
    out.push(
      ...managerMarkdown(
        bm,
        entries.filter((r) => r.buffer_manager === bm),
        multiEngines,
      ),
    );
  }
  out.push(
    '#### Where engine time and response time go',
    '',
    pointsTable(engineTimeColumns(), entries),
    '',
    `Engine time is the mean over ${R} replication${R > 1 ? 's' : ''}; work + spinning + CAS conflicts + restarts + idle = 100%.`,
    '',
  );
  return out;
}

export function contentionMarkdown(results: ContentionResults): string {
  const out: string[] = ['## Buffer-manager contention', ''];
  const R = results.replications;
  out.push(
    `Every point ran ${R} replication${R > 1 ? 's' : ''} (seeds derived from the run seed); figures are means with 95% intervals.`,
    '',
  );
  if (!results.stationary) {
    out.push(
      `**Not stationary** after the bounded extensions (Little's law or the drift between the window's halves past the tolerance): ${results.not_stationary.join('; ')}. Read these points with care: lengthen warmup and duration.`,
      '',
    );
  }
  if (results.sweep) {
    const s = results.sweep;
    out.push('### Phase diagram', '', `**${s.headline.text}**`, '', boundaryText(s.boundary), '');
    for (const line of sweepMetastabilityLines(s)) out.push(`- ${line}`);
    if (sweepMetastabilityLines(s).length) out.push('');
    const header = [
      ...s.axes.map((a) => a.key),
      'lockless ÷ latched',
      '95% CI',
      'latched collapsed',
      'latched tps',
      'lockless tps',
      'stationary',
    ];
    const rows = s.cells.map((c) => {
      const lat = c.entries.find((e) => e.buffer_manager === 'latched');
      const ll = c.entries.find((e) => e.buffer_manager === 'lockless');
      const last = (e?: ContentionEntry) => e?.points[e.points.length - 1];
      return [
        ...s.axes.map((a) => String(c.params[a.key])),
        c.gap ? `${ratioText(c.gap.throughput_ratio)}×${c.gap.bimodal ? ' (bimodal)' : ''}` : '',
        c.gap ? ci(c.gap.throughput_ratio_ci95, ratioText) : '',
        c.gap ? `${Math.round(c.gap.latched_collapsed_share * 100)}%` : '',
        last(lat) ? n0(last(lat)!.throughput_tps) : '',
        last(ll) ? n0(last(ll)!.throughput_tps) : '',
        c.stationary ? 'yes' : '**no**',
      ];
    });
    out.push(mdTable(header, rows), '');
    if (s.factors) out.push(...factorsMarkdown(s.factors));
    out.push(...inputsMarkdown(results));
    return out.join('\n');
  }
  for (const g of results.gaps) out.push(`At ${fmt(g.users)} users on ${g.engines} engines: ${gapText(g)}.`, '');
  for (const line of metastabilityHeadlines(results.entries)) out.push(line, '');
  out.push(...inputsMarkdown(results));
  out.push(...entriesMarkdown(results.entries, R));
  return out.join('\n');
}

function factorsMarkdown(f: NonNullable<NonNullable<ContentionResults['sweep']>['factors']>): string[] {
  return [
    `### Features one at a time (${f.engines} engines, ${fmt(f.users)} users)`,
    '',
    `From the baseline (latched, every swept key at its first value: ${n0(f.baseline_tps)} tps), each feature alone, then all together. A share is the feature's log gain over that of all together.`,
    '',
    mdTable(
      ['feature', 'throughput (tps)', 'gain', 'share of the total'],
      [
        ...f.features.map((x) => [x.feature, n0(x.tps), `${x.gain.toFixed(2)}×`, `${x.share_pct.toFixed(0)}%`]),
        ['all together', n0(f.all.tps), `${f.all.gain.toFixed(2)}×`, '100%'],
        ['interaction (all together − the sum of the shares)', '', '', `${f.interaction_pct.toFixed(0)}%`],
      ],
    ),
    '',
  ];
}

export function contentionTerminal(results: ContentionResults): string {
  const lines: string[] = [];
  const R = results.replications;
  if (results.sweep) {
    const s = results.sweep;
    const header = [...s.axes.map((a) => a.key), 'lockless/latched', '95% CI', 'latched collapsed'];
    const rows = s.cells.map((c) => [
      ...s.axes.map((a) => String(c.params[a.key])),
      c.gap ? `${ratioText(c.gap.throughput_ratio)}×${c.gap.bimodal ? ' bimodal' : ''}${c.stationary ? '' : ' (not stationary)'}` : '',
      c.gap ? ci(c.gap.throughput_ratio_ci95, ratioText) : '',
      c.gap ? `${Math.round(c.gap.latched_collapsed_share * 100)}%` : '',
    ]);
    lines.push(textTable(header, rows), s.headline.text, boundaryText(s.boundary));
    for (const line of sweepMetastabilityLines(s)) lines.push(line.replace(/\*\*/g, ''));
    if (s.factors)
      lines.push(
        `features one at a time from latched (${n0(s.factors.baseline_tps)} tps): ${s.factors.features.map((f) => `${f.feature} ${f.gain.toFixed(2)}× (${f.share_pct.toFixed(0)}%)`).join('; ')}; all together ${s.factors.all.gain.toFixed(2)}×; interaction ${s.factors.interaction_pct.toFixed(0)}%`,
      );
  } else {
    const header = ['buffer manager', 'engines', 'users', 'tps', '95% CI', 'resp ms', 'p99 ms', 'busy %', 'spin %', 'collapsed'];
    const rows: string[][] = [];
    for (const r of results.entries)
      for (const p of r.points)
        rows.push([
          r.buffer_manager,
          String(r.engines),
          fmt(p.users),
          n0(p.throughput_tps) + flag(p),
          ci(p.ci95.throughput_tps, n0),
          n2(p.response_time_ms),
          n2(p.response_time_ms_p99),
          n2(p.engine_busy_pct),
          n2(p.spin_pct),
          `${p.collapsed}/${p.replications}`,
        ]);
    lines.push(textTable(header, rows));
    for (const g of results.gaps) lines.push(`at ${fmt(g.users)} users, ${g.engines} engines: ${gapText(g)}`);
    for (const line of metastabilityHeadlines(results.entries)) lines.push(line.replace(/\*\*/g, ''));
    for (const bm of [...new Set(results.entries.map((r) => r.buffer_manager))]) {
      const sc = results.entries.filter((r) => r.buffer_manager === bm && r.speedup !== undefined).sort((a, b) => a.engines - b.engines);
      if (sc.length >= 2)
        lines.push(
          `${bm}: ${sc[sc.length - 1]!.engines} engines = ${sc[sc.length - 1]!.speedup!.toFixed(2)}× ${sc[0]!.engines} engine(s); USL rms error ${sc[0]!.usl!.rms_error_pct.toFixed(1)}%`,
        );
    }
  }
  lines.push(`${R} replication${R > 1 ? 's' : ''} a point; intervals are 95% of the mean`);
  if (!results.stationary) lines.push(`WARNING: not stationary after the bounded extensions: ${results.not_stationary.join('; ')}`);
  if (results.calibration) {
    const cal = results.calibration;
    const measured = Object.keys(cal.measured).filter((k) => cal.values[k] !== undefined);
    const refused = Object.keys(cal.refused);
    lines.push(
      `calibration ${cal.file}: measured ${measured.length ? measured.join(', ') : 'none'}${refused.length ? `; refused (config values kept): ${refused.join(', ')}` : ''}`,
    );
  }
  return lines.join('\n');
}
