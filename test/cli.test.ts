import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, rowsim } from './helpers/cli.js';
import { growingBodyConfig } from './helpers/growing-body.js';
import { spawnSync } from 'node:child_process';

const tmp = () => mkdtempSync(join(tmpdir(), 'rowsim-cli-'));

const SMALL = growingBodyConfig({
  name: 'small',
  seed: 11,
  rows: 3000,
  order: 'zipf(0.8)',
  deletes: '10%',
  sweep: { 'engine.exp_row_size': '[1, 0, 120, max]', 'engine.exp_row_size_basis': '[physical, logical]' },
});

describe('rowsim run', () => {
  it('writes results.json with the contract keys, summary.md and charts', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'small.yaml'), SMALL);
    // A terminal wide enough for the longest label on one line (a narrower one wraps it).
    const r = rowsim(['run', join(dir, 'small.yaml'), '--out', join(dir, 'out')], ROOT, { COLUMNS: '140' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/exp_row_size=120, exp_row_size_basis=logical/);
    const res = JSON.parse(readFileSync(join(dir, 'out', 'results.json'), 'utf8'));
    expect(Object.keys(res)).toEqual(['rowsim_version', 'name', 'seed', 'storage', 'charts']);
    expect(res.storage).toHaveLength(8);
    const point = res.storage[0];
    expect(point).toMatchObject({
      label: 'exp_row_size=1, exp_row_size_basis=physical',
      params: { 'engine.exp_row_size': 1, 'engine.exp_row_size_basis': 'physical' },
    });
    expect(point.engine).toMatchObject({ format: 'ase-dol', page_size: 2048, exp_row_size: 0 });
    expect(Object.keys(point.row_bytes)).toEqual(expect.arrayContaining(['min', 'avg', 'max', 'logical_max']));
    expect(point.phases.map((p: { op: string }) => p.op)).toEqual(['insert', 'update', 'delete', 'reorg']);
    for (const key of [
      'rows',
      'pages',
      'forwarded_rows',
      'hot_updates',
      'updates',
      'table_scan_page_reads',
      'space_used_pct',
      'exclusive_table_locks',
    ]) {
      expect(point.final).toHaveProperty(key);
      expect(point.phases[1].metrics).toHaveProperty(key);
    }
    expect(point.final.rows).toBe(2700);
    for (const c of res.charts) expect(existsSync(join(dir, 'out', c))).toBe(true);
    expect(res.charts).toEqual(expect.arrayContaining(['charts/forwarding.png', 'charts/phases-forwarded.png', 'charts/phases-pages.png']));
    expect(res.charts.some((c: string) => c.startsWith('charts/pagemap-'))).toBe(true);
    const md = readFileSync(join(dir, 'out', 'summary.md'), 'utf8');
    expect(md).toMatch(/peak fwd/);
    expect(md).toMatch(/maximum data row length .* is 304/);
  });

  it('--scale 2 writes every chart twice as wide and as tall, with the same figures', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'small.yaml'), SMALL.replace('[1, 0, 120, max]', '[1, max]').replace('[physical, logical]', '[physical]'));
    expect(rowsim(['run', join(dir, 'small.yaml'), '--out', join(dir, 'one'), '--quiet']).code).toBe(0);
    const r = rowsim(['run', join(dir, 'small.yaml'), '--out', join(dir, 'two'), '--quiet', '--scale', '2']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The PNG's width and height from its IHDR chunk (bytes 16–23).
    const size = (file: string) => {
      const b = readFileSync(file);
      expect(b.subarray(12, 16).toString('latin1')).toBe('IHDR');
      return [b.readUInt32BE(16), b.readUInt32BE(20)];
    };
    const charts: string[] = JSON.parse(readFileSync(join(dir, 'one', 'results.json'), 'utf8')).charts;
    expect(charts.length).toBeGreaterThan(3);
    for (const c of charts) {
      const [w1, h1] = size(join(dir, 'one', c));
      expect(size(join(dir, 'two', c)), c).toEqual([2 * w1!, 2 * h1!]);
    }
    expect(readFileSync(join(dir, 'two', 'results.json'), 'utf8')).toBe(readFileSync(join(dir, 'one', 'results.json'), 'utf8'));
  });

  it('gives identical results.json, report.html and charts for 1 and 2 workers (determinism)', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'small.yaml'), SMALL);
    expect(rowsim(['run', join(dir, 'small.yaml'), '--out', join(dir, 'w1'), '--workers', '1', '--quiet']).code).toBe(0);
    expect(rowsim(['run', join(dir, 'small.yaml'), '--out', join(dir, 'w2'), '--workers', '2', '--quiet']).code).toBe(0);
    const a = readFileSync(join(dir, 'w1', 'results.json'), 'utf8');
    const b = readFileSync(join(dir, 'w2', 'results.json'), 'utf8');
    expect(a).toBe(b);
    // and every other file: summary.md, report.html, each chart and page map
    const list = (d: string): string[] =>
      readdirSync(d, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name).slice(d.length + 1))
        .sort();
    expect(list(join(dir, 'w2'))).toEqual(list(join(dir, 'w1')));
    for (const f of list(join(dir, 'w1'))) expect(readFileSync(join(dir, 'w2', f)).equals(readFileSync(join(dir, 'w1', f))), f).toBe(true);
    // and a different seed gives different numbers
    writeFileSync(join(dir, 'small2.yaml'), SMALL.replace('seed: 11', 'seed: 12'));
    expect(rowsim(['run', join(dir, 'small2.yaml'), '--out', join(dir, 's2'), '--quiet']).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 's2', 'results.json'), 'utf8')).storage).not.toEqual(JSON.parse(a).storage);
  });

  it('keeps the estimate files and the files it did not write in its folder', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'small.yaml'), SMALL);
    const out = join(dir, 'out');
    expect(rowsim(['run', join(dir, 'small.yaml'), '--out', out, '--quiet']).code).toBe(0);
    expect(rowsim(['estimate', join(dir, 'small.yaml'), '--out', out, '--quiet', '--seeds', '2', '--sample-rows', '1000']).code).toBe(0);
    const estimate = readFileSync(join(out, 'estimate.json'), 'utf8');
    writeFileSync(join(out, 'notes.txt'), 'mine');
    expect(rowsim(['run', join(dir, 'small.yaml'), '--out', out, '--quiet']).code).toBe(0);
    expect(readFileSync(join(out, 'estimate.json'), 'utf8')).toBe(estimate);
    expect(existsSync(join(out, 'charts', 'estimate.png'))).toBe(true);
    expect(readFileSync(join(out, 'notes.txt'), 'utf8')).toBe('mine');
    expect(readdirSync(dir).sort()).toEqual(['out', 'small.yaml']);
  });

  it('--timings prints where the wall time went on standard error: phases in order, end to end, and the CPU time', () => {
    const dir = tmp();
    const cfg = join(dir, 'tiny.yaml');
    writeFileSync(cfg, growingBodyConfig({ name: 'tiny', seed: 5, rows: 400, sweep: { 'engine.exp_row_size': '[1, max]' } }));
    const phases = (stderr: string) => {
      const lines = stderr.trimEnd().split('\n');
      expect(lines[0]).toBe('timings (seconds from the process start; wall, the main thread):');
      return lines.slice(1).map((line) => {
        const m = /^ {2}(\w+) +(?:(\d+\.\d{3})–(\d+\.\d{3}))? +(\d+\.\d{3}) {2}(.+)$/.exec(line);
        expect(m, line).not.toBeNull();
        return { name: m![1]!, from: Number(m![2]), to: Number(m![3]), seconds: Number(m![4]), what: m![5]! };
      });
    };
    const r = rowsim(['run', cfg, '--out', join(dir, 'a'), '--quiet', '--timings']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const p = phases(r.stderr);
    expect(p.map((x) => x.name)).toEqual(['load', 'simulate', 'charts', 'report', 'write', 'total']);
    // The sequence is contiguous from the process's start; report runs beside the drawing.
    const seq = p.filter((x) => x.name !== 'report' && x.name !== 'total');
    expect(seq[0]!.from).toBe(0);
    for (let i = 1; i < seq.length; i++) expect(seq[i]!.from).toBe(seq[i - 1]!.to);
    for (const x of p.slice(0, -1)) expect(x.seconds).toBeCloseTo(x.to - x.from, 2);
    const report = p.find((x) => x.name === 'report')!;
    expect(report.from).toBeGreaterThanOrEqual(seq[1]!.to);
    expect(report.to).toBeLessThanOrEqual(seq[3]!.to);
    expect(p.at(-1)!.seconds).toBe(seq.at(-1)!.to);
    expect(Number(/CPU (\d+\.\d+) s, every thread$/.exec(p.at(-1)!.what)?.[1])).toBeGreaterThan(0);
    // Nothing else changes: the same results, and the tables on standard output as without it.
    const plain = rowsim(['run', cfg, '--out', join(dir, 'b')]);
    const timed = rowsim(['run', cfg, '--out', join(dir, 'c'), '--timings']);
    // The folder is printed relative to the working directory: compare without its last two parts.
    const at = (d: string) => join(basename(dir), d);
    expect(timed.stdout.replaceAll(at('c'), '')).toBe(plain.stdout.replaceAll(at('b'), ''));
    expect(readFileSync(join(dir, 'c', 'results.json'), 'utf8')).toBe(readFileSync(join(dir, 'a', 'results.json'), 'utf8'));
    // A part: loaded, simulated, written.
    const part = rowsim(['run', cfg, '--out', join(dir, 'p'), '--shard', '1/2', '--quiet', '--timings']);
    expect(part.code).toBe(0);
    expect(phases(part.stderr).map((x) => x.name)).toEqual(['load', 'simulate', 'write', 'total']);
  });

  it('the quickstart shows forwarding and its cure', () => {
    const dir = tmp();
    const r = rowsim(['run', join(ROOT, 'sim-configs', 'quickstart.yaml'), '--out', join(dir, 'q')]);
    expect(r.code).toBe(0);
    const res = JSON.parse(readFileSync(join(dir, 'q', 'results.json'), 'utf8'));
    const peak = (p: { phases: { metrics: { forwarded_rows: number } }[] }) => Math.max(...p.phases.map((ph) => ph.metrics.forwarded_rows));
    const packed = res.storage.find((p: { label: string }) => p.label === 'exp_row_size=1');
    const max = res.storage.find((p: { label: string }) => p.label === 'exp_row_size=max');
    expect(peak(packed) / packed.final.rows).toBeGreaterThan(0.5);
    expect(peak(max)).toBe(0);
    expect(packed.final.forwarded_rows).toBe(0); // reorg forwarded_rows cured it
    expect(packed.final.exclusive_table_locks).toBeGreaterThan(0);
  });
});

describe('rowsim run with a contention section', () => {
  it('writes the contention results in the contract shape, with charts', () => {
    const dir = tmp();
    const r = rowsim(['run', join(ROOT, 'sim-configs', 'postgres-8-cores.yaml'), '--out', join(dir, 'c')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/8 engines = 7\.\d+× 1 engine/);
    const res = JSON.parse(readFileSync(join(dir, 'c', 'results.json'), 'utf8'));
    expect(res.storage).toBeUndefined();
    const entry = res.contention.entries[0];
    expect(entry).toMatchObject({ buffer_manager: 'latched' });
    expect(Object.keys(entry.usl)).toEqual(expect.arrayContaining(['lambda', 'sigma', 'kappa', 'rms_error_pct']));
    expect(entry.usl.over).toBe('engines');
    for (const key of [
      'users',
      'throughput_tps',
      'ci95',
      'collapsed',
      'stationary',
      'response_time_ms',
      'response_time_ms_p99',
      'engine_busy_pct',
      'spin_pct',
    ]) {
      expect(entry.points[0]).toHaveProperty(key);
    }
    expect(res.contention.replications).toBe(5);
    expect(res.contention.inputs.find((i: { key: string }) => i.key === 'latched.spinlocks').source).toContain('[PG-BUFMAP]');
    expect(res.charts.length).toBeGreaterThan(0);
    for (const c of res.charts) expect(existsSync(join(dir, 'c', c))).toBe(true);
    expect(readFileSync(join(dir, 'c', 'summary.md'), 'utf8')).toMatch(/contention/i);
  });
  it('refuses a bad duration with its position', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'c.yaml'), 'name: c\ncontention:\n  engines: 4\n  users: [10]\n  think_time: 1 minute\n');
    const r = rowsim(['validate', join(dir, 'c.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/c\.yaml:5:15: contention\.think_time: expected a duration such as 250ns/);
  });
});

describe('bad input', () => {
  function expectRefused(config: string, pattern: RegExp) {
    const dir = tmp();
    writeFileSync(join(dir, 'bad.yaml'), config);
    const r = rowsim(['run', join(dir, 'bad.yaml'), '--out', join(dir, 'out')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(pattern);
    expect(r.stdout).toBe('');
    expect(existsSync(join(dir, 'out'))).toBe(false);
    expect(readdirSync(dir)).toEqual(['bad.yaml']);
  }
  it('an unknown key: file:line:column, key, suggestion, exit 2, nothing written', () => {
    expectRefused(SMALL.replace('seed: 11', 'sed: 11'), /bad\.yaml:2:1: sed: unknown key "sed"; did you mean "seed"\?/);
  });
  it('exp_row_size out of range names the allowed range', () => {
    expectRefused(
      SMALL.replace('[1, 0, 120, max]', '[1, 9999]'),
      /bad\.yaml:15:28: sweep\.engine\.exp_row_size\[1\]: expected a value from 4 to 304/,
    );
  });
  it('a missing file', () => {
    const r = rowsim(['run', '/nonexistent/x.yaml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/\/nonexistent\/x\.yaml: expected a readable file, found no such file or folder$/m);
  });
  it('bad arguments', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'small.yaml'), SMALL);
    const r = rowsim(['run', join(dir, 'small.yaml'), '--workers', 'many']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/expected a whole number of worker threads from 1 to 256, found "many"/);
    expect(rowsim(['frobnicate']).code).toBe(2);
  });
  it('validate checks without running', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'small.yaml'), SMALL);
    const ok = rowsim(['validate', join(dir, 'small.yaml')]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/ok: small, 8 storage points/);
    writeFileSync(join(dir, 'bad.yaml'), SMALL.replace('varchar(300)', 'varchar(x)'));
    const bad = rowsim(['validate', join(dir, 'bad.yaml')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad\.yaml:7:\d+: table\.columns\[1\]\.type: expected/);
    expect(readdirSync(dir).sort()).toEqual(['bad.yaml', 'small.yaml']);
  });
  it('a table that cannot fit in memory is refused up front by run and validate, naming the figure and the limit', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'big.yaml'), SMALL.replace('rows: 3000', 'rows: 400000000'));
    for (const cmd of ['run', 'validate']) {
      const r = spawnSync(
        process.execPath,
        [join(ROOT, 'bin', 'rowsim.js'), cmd, join(dir, 'big.yaml'), '--out', join(dir, 'out'), '--workers', '2'].slice(
          0,
          cmd === 'run' ? 7 : 3,
        ),
        {
          encoding: 'utf8',
          env: { ...process.env, ROWSIM_MAX_MEMORY: '2g' },
        },
      );
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(
        /big\.yaml:\d+:\d+: workload\[0\]\.insert\.rows: expected a table that fits in memory: the run needs about [\d.]+ GiB \(400,000,000 rows × \d+ bytes on ase-dol/,
      );
      expect(r.stderr).toMatch(/more than the 1\.8 GiB it may use \(90% of 2\.0 GiB, ROWSIM_MAX_MEMORY\)/);
    }
    writeFileSync(join(dir, 'huge.yaml'), SMALL.replace('rows: 3000', 'rows: 3000000000'));
    expect(rowsim(['validate', join(dir, 'huge.yaml')]).stderr).toMatch(
      /expected at most 2,147,483,647 rows in a table \(row ids are 32-bit\), found 3,000,000,000/,
    );
    expect(readdirSync(dir).sort()).toEqual(['big.yaml', 'huge.yaml']);
  });
  it('rowsize says which formats a table cannot be stored in, and fails when none can', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'wide.sql'), 'create table wide (a char(1000) not null, b char(1000) not null, c int not null)\n');
    const some = rowsim(['rowsize', join(dir, 'wide.sql'), '--formats', 'ase-dol,postgres-heap', '--rows', '1000']);
    expect(some.code).toBe(0);
    expect(some.stdout).toMatch(/^postgres-heap /m);
    expect(some.stdout).toMatch(
      /ase-dol: not shown: no row of table wide fits a 2048-byte page: the shortest row takes 2010 bytes, a page at most 1964/,
    );
    const none = rowsim(['rowsize', join(dir, 'wide.sql'), '--formats', 'ase-dol']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error: wide: ase-dol: no row of table wide fits/);
  });
  it('rowsim without a command prints help and exits 2 (1 is for internal errors only); --help exits 0', () => {
    const none = rowsim([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/Usage: rowsim/);
    expect(rowsim(['--help']).code).toBe(0);
  });
  it('a swept seed changes the rows: the points differ', () => {
    const dir = tmp();
    writeFileSync(join(dir, 's.yaml'), SMALL.replace(/sweep:[\s\S]*$/, 'sweep:\n  seed: [1, 2]\n'));
    expect(rowsim(['run', join(dir, 's.yaml'), '--out', join(dir, 'o'), '--quiet']).code).toBe(0);
    const res = JSON.parse(readFileSync(join(dir, 'o', 'results.json'), 'utf8'));
    expect(res.storage.map((p: { label: string }) => p.label)).toEqual(['seed=1', 'seed=2']);
    expect(res.storage[0].phases[1].metrics).not.toEqual(res.storage[1].phases[1].metrics);
  });
});
