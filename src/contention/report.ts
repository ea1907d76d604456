/**
 * Reporting of contention results: PNG charts (throughput and response time against users like the
 * seed's keynote slide, engine scaling with the fitted USL curve, engine-time breakdown), a markdown
 * section for summary.md and a short terminal table. The only module of src/contention with I/O.
 */
import { renderBarChart, renderLineChart, PALETTE, type Series } from '../report/charts.js';
import { fmt, mdTable, textTable } from '../report/tables.js';
import type { ContentionResult } from './run.js';
import { uslPeak, uslThroughput } from './usl.js';

const BM_COLOR: Record<string, string> = { latched: PALETTE[1]!, lockless: PALETTE[0]! };

function label(r: ContentionResult, results: readonly ContentionResult[]): string {
  const engineCounts = new Set(results.map((x) => x.engines));
  return engineCounts.size > 1 ? `${r.buffer_manager}, ${r.engines} engines` : r.buffer_manager;
}

function colorOf(r: ContentionResult, results: readonly ContentionResult[]): string {
  const same = results.filter((x) => x.buffer_manager === r.buffer_manager);
  if (same.length <= 1) return BM_COLOR[r.buffer_manager] ?? PALETTE[2]!;
  const i = same.indexOf(r);
  const base = r.buffer_manager === 'latched' ? [1, 3, 4, 7] : [0, 5, 2, 6];
  return PALETTE[base[i % base.length]!]!;
}

/** The users axis has several populations. */
function hasUserCurve(results: readonly ContentionResult[]): boolean {
  return results.some((r) => r.points.length >= 2);
}

function maxUsers(results: readonly ContentionResult[]): number {
  return Math.max(...results.flatMap((r) => r.points.map((p) => p.users)));
}

/** Lockless ÷ latched at the largest population, per engine count: [throughput ratio, response ratio]. */
export function gapAtMaxUsers(results: readonly ContentionResult[]): Array<{ engines: number; users: number; throughput_ratio: number; response_ratio: number }> {
  const out: Array<{ engines: number; users: number; throughput_ratio: number; response_ratio: number }> = [];
  const u = maxUsers(results);
  for (const e of [...new Set(results.map((r) => r.engines))]) {
    const lat = results.find((r) => r.engines === e && r.buffer_manager === 'latched')?.points.find((p) => p.users === u);
    const ll = results.find((r) => r.engines === e && r.buffer_manager === 'lockless')?.points.find((p) => p.users === u);
    if (lat && ll && lat.throughput_tps > 0 && ll.response_time_ms > 0)
      out.push({ engines: e, users: u, throughput_ratio: ll.throughput_tps / lat.throughput_tps, response_ratio: lat.response_time_ms / ll.response_time_ms });
  }
  return out;
}

export function writeContentionCharts(results: ContentionResult[], writeFile: (rel: string, data: Uint8Array) => void): string[] {
  const files: string[] = [];
  const write = (name: string, png: Buffer): void => {
    writeFile(`charts/${name}`, png);
    files.push(`charts/${name}`);
  };
  if (results.length === 0) return files;
  const gaps = gapAtMaxUsers(results);
  const gapText = gaps.length
    ? gaps.map((g) => `at ${fmt(g.users)} users${gaps.length > 1 ? ` (${g.engines} engines)` : ''}: lockless ${g.throughput_ratio.toFixed(1)}× the throughput, ${g.response_ratio.toFixed(0)}× lower response time`).join('; ')
    : undefined;

  if (hasUserCurve(results)) {
    const tput: Series[] = [];
    const resp: Series[] = [];
    for (const r of results) {
      const color = colorOf(r, results);
      const name = label(r, results);
      tput.push({ label: `${name} (simulated)`, color, points: r.points.map((p) => [p.users, p.throughput_tps]) });
      if (r.usl.over === 'users' && r.points.length >= 3) {
        const lo = Math.min(...r.points.map((p) => p.users));
        const hi = Math.max(...r.points.map((p) => p.users));
        const curve: Array<[number, number]> = [];
        for (let i = 0; i <= 60; i++) {
          const n = lo + ((hi - lo) * i) / 60;
          curve.push([n, uslThroughput(r.usl, n)]);
        }
        tput.push({
          label: `${name} USL fit (σ=${r.usl.sigma.toPrecision(2)}, κ=${r.usl.kappa.toPrecision(2)})`,
          color,
          dashed: true,
          showPoints: false,
          points: curve,
        });
      }
      resp.push({ label: `${name} mean`, color, points: r.points.map((p) => [p.users, p.response_time_ms]) });
      resp.push({ label: `${name} p99`, color, dashed: true, points: r.points.map((p) => [p.users, p.response_time_ms_p99]) });
    }
    const engines = [...new Set(results.map((r) => r.engines))].join(', ');
    write(
      'contention-throughput.png',
      renderLineChart({
        title: `Throughput against users (${engines} engines)`,
        ...(gapText ? { subtitle: gapText } : {}),
        xLabel: 'users',
        yLabel: 'throughput (transactions/s)',
        series: tput,
      }),
    );
    write(
      'contention-response-time.png',
      renderLineChart({
        title: `Response time against users (${engines} engines)`,
        subtitle: 'mean (solid) and 99th percentile (dashed), log scale',
        xLabel: 'users',
        yLabel: 'response time (ms)',
        yLog: true,
        series: resp,
      }),
    );
  }

  const engineCounts = [...new Set(results.map((r) => r.engines))].sort((a, b) => a - b);
  if (engineCounts.length >= 2) {
    const series: Series[] = [];
    const users = results[0]!.points[results[0]!.points.length - 1]!.users;
    let subtitle = '';
    for (const bm of [...new Set(results.map((r) => r.buffer_manager))]) {
      const entries = results.filter((r) => r.buffer_manager === bm).sort((a, b) => a.engines - b.engines);
      const color = BM_COLOR[bm] ?? PALETTE[2]!;
      const pts: Array<[number, number]> = entries.map((r) => [r.engines, r.points[r.points.length - 1]!.throughput_tps]);
      series.push({ label: `${bm} (simulated, ${fmt(users)} users)`, color, points: pts });
      const fit = entries[0]!.usl;
      if (fit.over === 'engines') {
        const hi = engineCounts[engineCounts.length - 1]!;
        const curve: Array<[number, number]> = [];
        for (let i = 0; i <= 60; i++) {
          const n = 1 + ((hi - 1) * i) / 60;
          curve.push([n, uslThroughput(fit, n)]);
        }
        series.push({ label: `${bm} USL fit (σ=${fit.sigma.toPrecision(2)}, κ=${fit.kappa.toPrecision(2)})`, color, dashed: true, showPoints: false, points: curve });
        series.push({ label: `${bm} linear (λ·N)`, color: PALETTE[8]!, dashed: true, showPoints: false, points: [[1, fit.lambda], [hi, fit.lambda * hi]] });
        const top = entries[entries.length - 1]!;
        const peak = uslPeak(fit);
        subtitle += `${bm}: ${top.engines} engines = ${(top.speedup ?? 0).toFixed(2)}× ${entries[0]!.engines}; USL peak at ${Number.isFinite(peak) ? fmt(Math.round(peak)) : '∞'} engines. `;
      }
    }
    write(
      'contention-engines.png',
      renderLineChart({
        title: 'Engine scaling',
        ...(subtitle ? { subtitle: subtitle.trim() } : {}),
        xLabel: 'engines',
        yLabel: 'throughput (transactions/s)',
        series,
      }),
    );
  }

  const categories: string[] = [];
  const work: number[] = [];
  const spin: number[] = [];
  const cas: number[] = [];
  const idle: number[] = [];
  for (const r of results) {
    for (const p of r.points) {
      categories.push(`${r.buffer_manager === 'latched' ? 'L' : 'LF'} ${engineCounts.length > 1 ? `${r.engines}e ` : ''}${fmt(p.users)}`);
      work.push(p.work_pct);
      spin.push(p.spin_pct);
      cas.push(p.cas_retry_pct);
      idle.push(p.idle_pct);
    }
  }
  write(
    'contention-engine-time.png',
    renderBarChart({
      title: 'Where engine time goes',
      subtitle: 'L = latched, LF = lockless; each bar is one point (users), 100% = all engines for the whole window',
      categories,
      series: [
        { label: 'useful work', values: work, color: PALETTE[2]! },
        { label: 'spinning', values: spin, color: PALETTE[1]! },
        { label: 'CAS retries', values: cas, color: PALETTE[4]! },
        { label: 'idle', values: idle, color: '#cccccc' },
      ],
      yLabel: 'share of engine time (%)',
      stacked: true,
    }),
  );
  return files;
}

const n0 = (x: number): string => fmt(Math.round(x));
const n2 = (x: number): string => (Math.abs(x) >= 100 ? fmt(Math.round(x)) : fmt(Number(x.toPrecision(3))));

export function contentionMarkdown(results: ContentionResult[]): string {
  const out: string[] = ['## Buffer-manager contention', ''];
  const gaps = gapAtMaxUsers(results);
  for (const g of gaps)
    out.push(
      `At ${fmt(g.users)} users on ${g.engines} engines the lockless buffer manager delivers **${g.throughput_ratio.toFixed(1)}×** the latched throughput with a **${g.response_ratio.toFixed(0)}×** lower mean response time.`,
      '',
    );
  const multiEngines = new Set(results.map((r) => r.engines)).size > 1;
  for (const bm of [...new Set(results.map((r) => r.buffer_manager))]) {
    const entries = results.filter((r) => r.buffer_manager === bm);
    out.push(`### ${bm} buffer manager${multiEngines ? '' : `, ${entries[0]!.engines} engines`}`, '');
    const mva = entries.some((r) => r.points.some((p) => p.mva));
    const header = ['users', 'throughput (tps)', 'response (ms)', 'p95 (ms)', 'p99 (ms)', 'engine busy %', 'spin %', 'spinlock wait % of response', 'CAS retries / look-up', 'bound (tps)', "Little's law error %"];
    if (multiEngines) header.unshift('engines');
    if (mva) header.push('MVA tps', 'MVA response (ms)');
    const rows: string[][] = [];
    for (const r of entries) {
      for (const p of r.points) {
        const row = [
          fmt(p.users),
          n0(p.throughput_tps),
          n2(p.response_time_ms),
          n2(p.response_time_ms_p95),
          n2(p.response_time_ms_p99),
          n2(p.engine_busy_pct),
          n2(p.spin_pct),
          n2(p.spinlock_wait_pct),
          p.cas_retries_per_lookup === 0 ? '0' : p.cas_retries_per_lookup.toPrecision(2),
          `${n0(p.bounds.throughput_tps)} (${p.bounds.binding})`,
          p.little_law_error_pct.toFixed(2),
        ];
        if (multiEngines) row.unshift(String(r.engines));
        if (mva) row.push(p.mva ? n0(p.mva.throughput_tps) : '', p.mva ? n2(p.mva.response_time_ms) : '');
        rows.push(row);
      }
    }
    out.push(mdTable(header, rows), '');
    const fits = entries[0]!.usl.over === 'engines' ? [entries[entries.length - 1]!] : entries;
    for (const r of fits) {
      const u = r.usl;
      out.push(
        `USL fit over ${u.over}${u.over === 'users' && multiEngines ? ` (${r.engines} engines)` : ''}: λ = ${n2(u.lambda)} tps per ${u.over === 'users' ? 'user' : 'engine'}, σ = ${u.sigma.toPrecision(3)}, κ = ${u.kappa.toPrecision(3)} (rms error ${u.rms_error_pct.toFixed(1)}%)` +
          (r.speedup !== undefined ? `; ${r.engines} engines deliver ${r.speedup.toFixed(2)}× ${entries[0]!.engines}` : '') +
          `. Demands per transaction: engines ${n2(r.network.engine_demand_us)} µs, hottest lock ${n2(r.network.hottest_lock_demand_us)} µs${r.network.product_form ? ' (product-form network: exact MVA applies)' : ''}.`,
        '',
      );
    }
  }
  return out.join('\n');
}

export function contentionTerminal(results: ContentionResult[]): string {
  const header = ['buffer manager', 'engines', 'users', 'tps', 'resp ms', 'p99 ms', 'busy %', 'spin %'];
  const rows: string[][] = [];
  for (const r of results)
    for (const p of r.points)
      rows.push([r.buffer_manager, String(r.engines), fmt(p.users), n0(p.throughput_tps), n2(p.response_time_ms), n2(p.response_time_ms_p99), n2(p.engine_busy_pct), n2(p.spin_pct)]);
  const lines = [textTable(header, rows)];
  for (const g of gapAtMaxUsers(results))
    lines.push(`lockless vs latched at ${fmt(g.users)} users, ${g.engines} engines: ${g.throughput_ratio.toFixed(1)}× throughput, ${g.response_ratio.toFixed(0)}× lower response time`);
  for (const bm of [...new Set(results.map((r) => r.buffer_manager))]) {
    const sc = results.filter((r) => r.buffer_manager === bm && r.speedup !== undefined).sort((a, b) => a.engines - b.engines);
    if (sc.length >= 2) lines.push(`${bm}: ${sc[sc.length - 1]!.engines} engines = ${sc[sc.length - 1]!.speedup!.toFixed(2)}× ${sc[0]!.engines} engine(s)`);
  }
  return lines.join('\n');
}
