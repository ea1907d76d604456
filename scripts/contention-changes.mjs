#!/usr/bin/env node
/**
 * The table "What drives the latched/lockless gap" of docs/contention.md: sim-configs/xoltp-80-engines.yaml
 * at `users: 5000`, as shipped and with one change at a time, each run by `rowsim run` (5 replications).
 *
 *   npm run build && node scripts/contention-changes.mjs [--jobs N]
 *
 * Each variant's config is written to a temporary directory (removed at the end) and run with --quiet;
 * its results.json gives the latched and lockless throughput (the latched 95% interval where the row
 * shows one), their ratio and the latched collapsed share. Prints the table's rows in markdown.
 * --jobs: runs at a time (default 2; each run is CPU-bound).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import YAML from 'yaml';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BASE = join(ROOT, 'sim-configs', 'xoltp-80-engines.yaml');
const jobsAt = process.argv.indexOf('--jobs');
const JOBS = jobsAt >= 0 ? Math.max(1, Number(process.argv[jobsAt + 1]) || 1) : 2;

/** One variant: its label in the row and the keys (under `contention`) it changes. */
const v = (label, changes = {}) => ({ label, changes });
/**
 * The table's rows: a row's variants share it, figures joined by " / ". ci: 'full' writes
 * "(95% CI a–b)", 'short' "(a–b)". ratio: 'each' joins the ratios, 'range' gives min–max, 'approx' "≈ x"
 * when every ratio rounds to x (else each).
 */
const ROWS = [
  { label: 'as shipped', ci: 'full', variants: [v('as shipped')] },
  {
    label: '`spinlocks: 16` / `1024`',
    variants: [v('16', { 'latched.spinlocks': 16 }), v('1024', { 'latched.spinlocks': 1024 })],
  },
  { label: '`handoff_per_waiter: 25ns`', variants: [v('25ns', { 'latched.handoff_per_waiter': '25ns' })] },
  { label: '`handoff_per_waiter: 35ns`', ci: 'short', variants: [v('35ns', { 'latched.handoff_per_waiter': '35ns' })] },
  { label: '`handoff_per_waiter: 100ns`', variants: [v('100ns', { 'latched.handoff_per_waiter': '100ns' })] },
  {
    label: '`hold: 150ns` / `skew: 0.5` / `engines: 40`',
    ratio: 'approx',
    variants: [v('hold', { 'latched.hold': '150ns' }), v('skew', { 'pages.skew': 0.5 }), v('engines', { engines: 40 })],
  },
  {
    label: '`lock: mcs` / `ttas_backoff` / `spin_yield`',
    ratio: 'range',
    variants: ['mcs', 'ttas_backoff', 'spin_yield'].map((lock) => v(lock, { 'latched.lock': lock })),
  },
  { label: '`lock: ticket`', variants: [v('ticket', { 'latched.lock': 'ticket' })] },
  { label: 'lockless `read: optimistic`', variants: [v('optimistic', { 'lockless.read': 'optimistic' })] },
  { label: '`xoltp: { snap_cpu_factor: 0.5 }`', variants: [v('snap', { 'xoltp.snap_cpu_factor': 0.5 })] },
];

/** Writes the variant's config into dir and runs it; resolves to its figures from results.json. */
async function runVariant(dir, name, changes) {
  const doc = YAML.parseDocument(readFileSync(BASE, 'utf8'));
  doc.setIn(['contention', 'users'], 5000);
  for (const [key, value] of Object.entries(changes)) doc.setIn(['contention', ...key.split('.')], value);
  const config = join(dir, `${name}.yaml`);
  const out = join(dir, `${name}-out`);
  writeFileSync(config, String(doc));
  await promisify(execFile)(process.execPath, [join(ROOT, 'bin', 'rowsim.js'), 'run', config, '--out', out, '--quiet'], {
    maxBuffer: 1 << 24,
  });
  const { contention } = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
  const point = (bm) => contention.entries.find((e) => e.buffer_manager === bm).points[0];
  const latched = point('latched');
  const lockless = point('lockless');
  return {
    latched: latched.throughput_tps,
    ci: latched.ci95.throughput_tps,
    lockless: lockless.throughput_tps,
    ratio: contention.gaps[0].throughput_ratio,
    collapsed: latched.collapsed,
    replications: latched.replications,
    bimodal: latched.bimodal,
  };
}

/** Runs every task, at most JOBS at a time; resolves to their results in order. */
async function pool(tasks) {
  const results = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(JOBS, tasks.length) }, worker));
  return results;
}

const tps = (x) => Math.round(x).toLocaleString('en-US');
/** 1.00 near parity, else two significant figures (5.1, 11). */
const times = (r) => (Math.abs(r - 1) < 0.05 ? r.toFixed(2) : r < 10 ? r.toFixed(1) : String(Math.round(r)));
/** One figure when every variant gives it, else each variant's. */
const joinUnique = (xs) => (new Set(xs).size === 1 ? xs[0] : xs.join(' / '));

function ratioCell(row, figures) {
  const ratios = figures.map((f) => f.ratio);
  const approx = [...new Set(ratios.map((r) => r.toFixed(1)))];
  if (row.ratio === 'approx' && approx.length === 1) return `≈ ${approx[0]}`;
  if (row.ratio === 'range') {
    const [lo, hi] = [Math.min(...ratios), Math.max(...ratios)].map((r) => r.toFixed(2));
    return lo === hi ? lo : `${lo}–${hi}`;
  }
  return ratios.map(times).join(' / ');
}

function rowLine(row, figures) {
  const ciText = (f) => `${tps(f.ci[0])}–${tps(f.ci[1])}`;
  const latched = figures
    .map((f) => tps(f.latched) + (row.ci === 'full' ? ` (95% CI ${ciText(f)})` : row.ci === 'short' ? ` (${ciText(f)})` : ''))
    .join(' / ');
  const lockless = joinUnique(figures.map((f) => tps(f.lockless)));
  const collapsed = joinUnique(figures.map((f) => `${f.collapsed} of ${f.replications}${f.bimodal ? ' (bimodal)' : ''}`));
  return `| ${row.label} | ${latched} | ${lockless} | ${ratioCell(row, figures)} | ${collapsed} |`;
}

const dir = mkdtempSync(join(tmpdir(), 'rowsim-contention-changes-'));
try {
  const tasks = ROWS.flatMap((row, r) => row.variants.map((variant, i) => () => runVariant(dir, `row${r}-${i}`, variant.changes)));
  const results = await pool(tasks);
  process.stdout.write('| change | latched tps | lockless tps | × | latched collapsed |\n| --- | ---: | ---: | ---: | ---: |\n');
  let k = 0;
  for (const row of ROWS) {
    const figures = row.variants.map(() => results[k++]);
    process.stdout.write(`${rowLine(row, figures)}\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
