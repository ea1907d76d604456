/** The calibration report: a terminal table and calibration.md (measurement beside the model's prediction). */
import { fmt, mdTable, textTable } from '../report/tables.js';
import type { CalibrationReport } from './bench.js';

const n = (x: number | null | undefined): string =>
  x === null || x === undefined ? '—' : Math.abs(x) >= 100 ? fmt(Math.round(x)) : fmt(Number(x.toPrecision(3)));

function rows(r: CalibrationReport): string[][] {
  return r.runs.map((run) => {
    const p = r.predictions.find((x) => x.mode === run.mode && x.threads === run.threads);
    return [
      run.mode,
      String(run.threads),
      n(run.ops_per_sec),
      p?.predicted_ops_per_sec ? n(p.predicted_ops_per_sec) : 'not predicted',
      p?.error_pct !== null && p?.error_pct !== undefined ? `${p.error_pct > 0 ? '+' : ''}${p.error_pct.toFixed(1)}%` : '—',
      run.latency_ns ? `${n(run.latency_ns.p50)} / ${n(run.latency_ns.p99)}` : '—',
      run.cas_failure_pct ? `${run.cas_failure_pct.toFixed(2)}%` : '0',
      run.restarts_per_read ? run.restarts_per_read.toPrecision(2) : '0',
      `${Math.round(run.cpu_share * 100)}%`,
      run.time_sliced ? 'TIME-SLICED' : 'ok',
    ];
  });
}

const HEADER = [
  'mode',
  'threads',
  'measured ops/s',
  'model ops/s',
  'model error',
  'latency p50 / p99 (ns)',
  'CAS failures',
  'restarts / read',
  'CPU / thread',
  'run',
];

function fitLines(r: CalibrationReport): string[] {
  return Object.entries(r.fits).map(([k, f]) => {
    if (f.value === null) return `${k}: REFUSED — ${f.refused} (${f.from}); a config using this file keeps its own value`;
    const range = f.repeats_ns?.length ? `, repeats ${n(Math.min(...f.repeats_ns))}–${n(Math.max(...f.repeats_ns))} ns` : '';
    return `${k}: ${n(f.value)} ns${range}, runs' repeat spread ${f.spread_pct ?? '—'}% (${f.from})`;
  });
}

function ruleLine(r: CalibrationReport): string {
  return `A cost is fitted only from runs that were not time-sliced, at least ${r.fit_rule.min_unsliced_repeats} repeats each, whose repeats differ by at most ${r.fit_rule.max_repeat_spread_pct}% of their median; otherwise it is refused.`;
}

export function calibrationTerminal(r: CalibrationReport): string {
  const lines = [textTable(HEADER, rows(r)), '', 'fitted costs:', ...fitLines(r).map((l) => `  ${l}`), ruleLine(r)];
  for (const u of r.usl)
    lines.push(
      `USL over threads, ${u.mode} (${u.threads.join(', ')}): σ = ${u.sigma}, κ = ${u.kappa}, rms error ${u.rms_error_pct.toFixed(1)}%`,
    );
  const sliced = r.runs.filter((x) => x.time_sliced);
  if (sliced.length)
    lines.push(
      `time-sliced runs (no cost fitted, no prediction): ${sliced.map((x) => `${x.mode}@${x.threads} (${x.time_sliced_reason})`).join('; ')}`,
    );
  const notes = [...new Set(r.predictions.map((p) => p.note).filter((x): x is string => !!x && x.startsWith('with the assumed')))];
  for (const n of notes) lines.push(`model column ${n}`);
  lines.push(
    r.checks_passed
      ? 'correctness: mutual exclusion held, no lost updates, no torn reads in every run'
      : 'CORRECTNESS FAILURE: see checks in calibration.json',
  );
  return lines.join('\n');
}

export function calibrationMarkdown(r: CalibrationReport): string {
  const out = [
    '# rowsim calibrate',
    '',
    `Machine: ${r.machine.model}, ${r.machine.cpus} cores, Node.js ${r.machine.node}. Workload: a hash table of ${fmt(r.workload.headers)} buffer headers accessed with Zipf skew ${r.workload.skew}, ${r.workload.partitions} partitions; one thread's outside work ${n(r.single_thread_ns.outside)} ns and critical section ${n(r.single_thread_ns.critical_section)} ns per access (— where refused); optimistic writers ${r.workload.writeShare * 100}% of accesses.`,
    '',
    '## Measured against the model',
    '',
    'The model column is the contention model (src/contention) run with the fitted costs, one engine and one user per thread, no think time, one look-up per access. Its costs are fitted on separate single-lock and single-word runs, so the table runs are an out-of-sample check.',
    '',
    mdTable(HEADER, rows(r)),
    '',
    '## Fitted costs',
    '',
    ruleLine(r),
    '',
    ...fitLines(r).map((l) => `- ${l}`),
    '',
  ];
  if (r.usl.length)
    out.push(
      '## USL over threads',
      '',
      ...r.usl.map(
        (u) => `- ${u.mode} (${u.threads.join(', ')} threads): σ = ${u.sigma}, κ = ${u.kappa}, rms error ${u.rms_error_pct.toFixed(1)}%`,
      ),
      '',
    );
  out.push(
    '## Correctness',
    '',
    r.checks_passed
      ? 'In every run the counters each lock protects equal the accesses (no two threads were ever inside one critical section), the CAS-incremented words equal the accesses (no lost update), and no validated optimistic read saw a torn header.'
      : '**A correctness check failed**: see `checks` of each run in calibration.json.',
    '',
  );
  return out.join('\n');
}
