/**
 * npm run bench's pure parts: the harness's statistics, its text and JSON output, the argument parsing
 * (and its error for a bad --pg URL), the SimPy interpreter probe on fake interpreters, the child-process
 * reports of the memory and scale suites, and the runner's onPhase hook. No test here asserts a timing.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BenchUsageError, DEFAULT_PG_ROWS, maskLoosely, parseBenchArgs, SUITES } from '../bench/args.js';
import { CHILD_MARK, childOutcome, growthPerRow, type ChildEnd, type ChildReport } from '../bench/child-report.js';
import {
  benchJson,
  formatLine,
  machineInfo,
  machineLine,
  measure,
  measureEach,
  parallelCapacity,
  PhaseClock,
  rateLine,
  speedProbe,
  stat,
  summarize,
  type BenchReport,
} from '../bench/harness.js';
import { topSelfTime, type CpuProfile } from '../bench/cpuprofile.js';
import { findSimpy, noSimpyNote, probePython, pythonCandidates } from '../bench/simpy.js';
import { differingFiles, scaleSweepConfig } from '../bench/sweep-scale.js';
import { loadConfig } from '../src/loader/config.js';
import { measureFormat, STORAGE_NODE_ARGS, STORAGE_WARMUP, storageBenchSpec } from '../bench/storage.js';
import { runChild } from '../bench/run-child.js';
import { chase, limitNote, pointerCycle, probeLatency } from '../bench/latency.js';
import { speedupCeiling, timingPhases } from '../bench/sweep.js';
import { RunTimings } from '../src/cli/timings.js';
import { benchPageMap, FIRST_MAPS, PAGEMAP_MARK, type PageMapChildReport } from '../bench/pagemap-child.js';
import { renderPageMap } from '../src/report/page-map-png.js';
import { runStorage } from '../src/workload/runner.js';
import { ROOT } from './helpers/cli.js';
import { BENCH_DIST } from '../bench/paths.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'rowsim-bench-test-'));

describe('the harness', () => {
  it('median and minimum: the middle value, or the mean of the two middle ones', () => {
    expect(stat([3, 1, 2])).toEqual({ median: 2, min: 1 });
    expect(stat([4, 1, 3, 2])).toEqual({ median: 2.5, min: 1 });
    expect(stat([5])).toEqual({ median: 5, min: 5 });
    expect(() => stat([])).toThrow(/no values/);
  });

  it('summarizes CPU only when every run has it', () => {
    const opts = { runs: 2, warmup: 1 };
    expect(
      summarize(
        [
          { cpu: 2, wall: 3 },
          { cpu: 1, wall: 5 },
        ],
        opts,
      ),
    ).toMatchObject({ runs: 2, warmup: 1, cpu: { median: 1.5, min: 1 }, wall: { median: 4, min: 3 } });
    expect(summarize([{ cpu: 2, wall: 3 }, { wall: 5 }], opts).cpu).toBeUndefined();
  });

  it('warm-up runs are run and not counted; each name gets its own figures', async () => {
    const calls: number[] = [];
    const m = await measureEach(
      (run) => {
        calls.push(run);
        return { a: { cpu: run + 10, wall: run + 20 }, b: { cpu: 1, wall: 1 } };
      },
      { runs: 3, warmup: 2 },
    );
    expect(calls).toEqual([-1, -2, 0, 1, 2]);
    expect(m.a).toMatchObject({ runs: 3, warmup: 2, cpu: { median: 11, min: 10 }, wall: { median: 21, min: 20 } });
    expect(m.b.samples).toHaveLength(3);
    await expect(measureEach(() => ({}), { runs: 0, warmup: 0 })).rejects.toThrow(/at least 1 run/);
  });

  it('measure times a function in this process (CPU and wall, never negative)', async () => {
    const m = await measure(
      () => {
        let x = 0;
        for (let i = 0; i < 1e5; i++) x += i;
        return x;
      },
      { runs: 3, warmup: 1 },
    );
    expect(m.samples).toHaveLength(3);
    for (const s of m.samples) {
      expect(s.cpu).toBeGreaterThanOrEqual(0);
      expect(s.wall).toBeGreaterThanOrEqual(0);
    }
  });

  it('PhaseClock times each phase between its edges and refuses an end without a start', () => {
    const c = new PhaseClock();
    c.onPhase(0, 'start');
    c.onPhase(0, 'end');
    c.onPhase(1, 'start');
    c.onPhase(1, 'end');
    expect(c.phases()).toHaveLength(2);
    expect(c.phase(1).wall).toBeGreaterThanOrEqual(0);
    expect(() => c.phase(2)).toThrow(/not timed/);
    expect(() => c.onPhase(5, 'end')).toThrow(/without starting/);
  });

  it('prints one line per figure, and "not measured" rather than a made-up number', () => {
    expect(formatLine({ name: 'storage: x', value: 1234567, unit: 'rows/CPU-s', note: 'target ≥ 1' })).toBe(
      'storage: x: 1,234,567 rows/CPU-s  (target ≥ 1)',
    );
    expect(
      formatLine({ name: 'contention: SimPy', value: null, unit: 'transactions/wall-s', note: 'no python3 here can import simpy' }),
    ).toBe('contention: SimPy: not measured  (no python3 here can import simpy)');
  });

  it('a rate line is the count over the median CPU time, the best run over the minimum', () => {
    const m = summarize(
      [
        { cpu: 2, wall: 4 },
        { cpu: 1, wall: 2 },
        { cpu: 4, wall: 8 },
      ],
      { runs: 3, warmup: 1 },
    );
    const line = rateLine('storage: inserts', 1000, 'rows', m, 'target ≥ 5');
    expect(line).toMatchObject({ value: 500, unit: 'rows/CPU-s' });
    expect(line.note).toMatch(
      /^target ≥ 5; best run 1,000; 250 per wall-s; CPU 2.00 s median, 1.00 s min; wall 4.00 s median, 2.00 s min; 3 runs after 1 warm-up$/,
    );
    const wallOnly = rateLine('x', 1000, 'rows', summarize([{ wall: 2 }], { runs: 1, warmup: 0 }));
    expect(wallOnly).toMatchObject({ value: 500, unit: 'rows/wall-s' });
    expect(wallOnly.note).toMatch(/1 run, no warm-up$/);
  });

  it('the speed probe gives two CPU times (median and min) that the machine lines print; none when not probed', () => {
    const p = speedProbe();
    for (const v of [p.alu_ms, p.alu_min_ms, p.memory_ms, p.memory_min_ms, p.fresh_page_us, p.fresh_page_min_us])
      expect(Number.isFinite(v) && v > 0).toBe(true);
    expect(p.alu_min_ms).toBeLessThanOrEqual(p.alu_ms);
    expect(p.memory_min_ms).toBeLessThanOrEqual(p.memory_ms);
    expect(p.fresh_page_min_us).toBeLessThanOrEqual(p.fresh_page_us);
    const m = { ...machineInfo(), probe: p };
    for (const when of ['start', 'end'] as const) {
      expect(machineLine(m, when).note).toContain(`speed probe ${p.alu_ms} ms arithmetic, ${p.memory_ms} ms memory`);
      expect(machineLine(m, when).note).toContain(`${p.fresh_page_us} µs a 4 kB page of fresh memory first written`);
    }
    expect(machineLine(machineInfo(), 'start').note).not.toContain('speed probe');
  });

  it("the parallel capacity: threads, one figure a round, their median (a short loop; its value is the machine's)", async () => {
    const p = await parallelCapacity(2, 3, 1 << 16);
    expect(p.threads).toBe(2);
    expect(p.rounds).toHaveLength(3);
    for (const v of p.rounds) expect(Number.isFinite(v) && v > 0).toBe(true);
    expect(p.capacity).toBe([...p.rounds].sort((a, b) => a - b)[1]);
  });

  it('the bench takes the probe in a fresh process (the compiled harness in bench/dist/, as npm test builds it)', async () => {
    const dist = (await import(pathToFileURL(join(BENCH_DIST, 'harness.js')).href)) as typeof import('../bench/harness.js');
    const p = dist.speedProbeInChild();
    expect(p).toBeDefined();
    for (const v of [p!.alu_ms, p!.memory_ms]) expect(Number.isFinite(v) && v > 0).toBe(true);
  });

  it('--json: one document with the machine, the commit and every line with its suite and runs', () => {
    const machine = machineInfo();
    const m = summarize([{ cpu: 1, wall: 1 }], { runs: 1, warmup: 1 });
    const report: BenchReport = {
      started: '2026-01-01T00:00:00.000Z',
      commit: 'abc1234',
      argv: ['storage', '--json'],
      machine,
      machine_at_end: machine,
      lines: [
        { suite: 'storage', name: 'storage: a', value: 5, unit: 'rows/CPU-s', measurement: m },
        { suite: 'contention', name: 'contention: SimPy', value: null, unit: 'x', note: 'not found' },
      ],
    };
    const back = JSON.parse(benchJson(report)) as BenchReport;
    expect(back).toEqual(report);
    expect(back.machine.cores).toBeGreaterThanOrEqual(1);
    expect(back.machine.loadavg).toHaveLength(3);
    expect(back.lines[1]!.value).toBeNull();
  });
});

describe('the arguments', () => {
  const usage = (argv: string[]): string => {
    try {
      parseBenchArgs(argv);
    } catch (err) {
      if (err instanceof BenchUsageError) return err.message;
      throw err;
    }
    throw new Error('expected a BenchUsageError');
  };

  it('without a suite: every suite run by default (not scale, contention-runs or pg)', () => {
    const a = parseBenchArgs([]);
    expect(a.suites).toEqual(SUITES.filter((s) => s.byDefault).map((s) => s.name));
    expect(a.suites).not.toContain('scale');
    expect(a.suites).not.toContain('contention-runs');
    expect(a.suites).not.toContain('sweep-scale');
    expect(a.suites).not.toContain('pg');
    expect(a).toMatchObject({ json: false, runs: 3, runsGiven: false, timeoutS: 600, help: false });
    expect(a.pg).toBeUndefined();
  });

  it('named suites run in the bench order; --json, --runs, --timeout', () => {
    expect(parseBenchArgs(['memory', 'cli', '--json', '--runs', '5', '--timeout=60'])).toMatchObject({
      suites: ['cli', 'memory'],
      json: true,
      runs: 5,
      runsGiven: true,
      timeoutS: 60,
    });
    expect(parseBenchArgs(['scale']).suites).toEqual(['scale']);
  });

  it('--pg URL adds the pg suite to the suites asked for (all by default), with 100,000 rows unless --pg-rows says', () => {
    const url = 'postgres://bench@127.0.0.1:5432/postgres';
    expect(parseBenchArgs(['storage', '--pg', url])).toMatchObject({ suites: ['storage', 'pg'], pg: { url, rows: DEFAULT_PG_ROWS } });
    expect(parseBenchArgs([`--pg=${url}`]).suites).toEqual(SUITES.filter((s) => s.byDefault || s.name === 'pg').map((s) => s.name));
    expect(parseBenchArgs(['--pg', url, '--pg-rows', '20000']).pg).toEqual({ url, rows: 20000 });
  });

  it('a bad --pg URL is refused with what was expected and found, its password masked', () => {
    expect(usage(['--pg', 'localhost'])).toBe('--pg: expected a URL postgres://user[:password]@host:port/database, found localhost');
    const msg = usage(['--pg', 'mysql://root:hunter2@db/x']);
    expect(msg).toMatch(/^--pg: expected a URL postgres:\/\/user\[:password\]@host:port\/database, found mysql:\/\/root:\*\*\*@db\/x$/);
    expect(msg).not.toContain('hunter2');
    // Malformed beyond what redactUrl recognises: whatever may be a password is masked all the same.
    expect(usage(['--pg', 'postgres:/u:s3cret@h/db'])).toBe(
      '--pg: expected a URL postgres://user[:password]@host:port/database, found postgres:/u:***@h/db',
    );
    expect(usage(['--pg', 'u:s3cret@h/db'])).toBe('--pg: expected a URL postgres://user[:password]@host:port/database, found u:***@h/db');
    expect(maskLoosely('postgres://h/db')).toBe('postgres://h/db');
    expect(usage(['--pg'])).toMatch(/^--pg: expected a URL .*found nothing$/);
    expect(usage(['--pg', '--json'])).toMatch(/found nothing$/);
  });

  it('other bad arguments: what was expected, what was found', () => {
    expect(usage(['storag'])).toBe(
      'expected a suite (cli, storage, memory, scale, pg, contention, contention-runs, estimate, mechanism, report, sweep, sweep-scale), found "storag"',
    );
    expect(usage(['--fast'])).toMatch(/^expected a suite or an option .*found "--fast"$/);
    expect(usage(['pg'])).toBe('pg: expected --pg URL (the PostgreSQL to compare with), found none');
    expect(usage(['--pg-rows', '5000'])).toBe('--pg-rows: expected --pg URL with it, found none');
    expect(usage(['--runs', '0'])).toBe('--runs: expected a whole number from 1 to 100, found "0"');
    expect(usage(['--runs', 'x'])).toBe('--runs: expected a whole number from 1 to 100, found "x"');
    expect(usage(['--timeout'])).toMatch(/^--timeout: expected a whole number .*found nothing$/);
  });

  it('npm run bench exits 2 with the message: a bad URL (password masked), an unreachable server', () => {
    const bench = join(BENCH_DIST, 'index.js');
    const bad = spawnSync(process.execPath, [bench, 'storage', '--pg', 'postgres:/u:s3cret@h/db'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe(
      'npm run bench: --pg: expected a URL postgres://user[:password]@host:port/database, found postgres:/u:***@h/db\n(npm run bench -- --help for usage)\n',
    );
    expect(bad.stdout).toBe('');
    // Port 1 on the loopback: refused at once.
    const down = spawnSync(process.execPath, [bench, 'storage', '--pg', 'postgres://u:s3cret@127.0.0.1:1/db'], { encoding: 'utf8' });
    expect(down.status).toBe(2);
    expect(down.stderr).toBe('npm run bench: --pg: cannot connect to postgres://u:***@127.0.0.1:1/db: connect ECONNREFUSED 127.0.0.1:1\n');
    expect(down.stdout).toBe('');
  });
});

describe('the SimPy interpreter probe', () => {
  /** A fake interpreter: a shell script that answers the probe as a Python with (or without) SimPy would. */
  function fakePython(dir: string, withSimpy: boolean): string {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'python3');
    writeFileSync(
      file,
      withSimpy
        ? '#!/bin/sh\necho "3.0.11 3.11.2"\n'
        : `#!/bin/sh\necho "Traceback (most recent call last):" >&2\necho "ModuleNotFoundError: No module named 'simpy'" >&2\nexit 1\n`,
    );
    chmodSync(file, 0o755);
    return file;
  }

  it('the python3 first on PATH, then the system one; each once', () => {
    const root = tmp();
    const a = fakePython(join(root, 'a'), false);
    fakePython(join(root, 'b'), true);
    const sys = fakePython(join(root, 'sys'), true);
    expect(pythonCandidates([join(root, 'empty'), join(root, 'a'), join(root, 'b')].join(delimiter), sys)).toEqual([a, sys]);
    expect(pythonCandidates('', sys)).toEqual([sys]);
    expect(pythonCandidates(join(root, 'sys'), sys)).toEqual([sys]);
  });

  it('takes the one on PATH when it has SimPy', () => {
    const root = tmp();
    const onPath = fakePython(join(root, 'path'), true);
    const sys = fakePython(join(root, 'sys'), true);
    expect(findSimpy([onPath, sys])).toEqual({ found: { path: onPath, simpy: '3.0.11', python: '3.11.2' }, tried: [] });
  });

  it('falls back to /usr/bin/python3 (here: a fake) when the one on PATH has no SimPy, and says why it passed it over', () => {
    const root = tmp();
    const onPath = fakePython(join(root, 'path'), false);
    const sys = fakePython(join(root, 'sys'), true);
    const p = findSimpy(pythonCandidates(join(root, 'path'), sys));
    expect(p.found?.path).toBe(sys);
    expect(p.tried).toEqual([{ path: onPath, why: "ModuleNotFoundError: No module named 'simpy'" }]);
  });

  it('none can: no interpreter found, and the line says which were tried and why', () => {
    const root = tmp();
    const onPath = fakePython(join(root, 'path'), false);
    const missing = join(root, 'nowhere', 'python3');
    const p = findSimpy([onPath, missing]);
    expect(p.found).toBeUndefined();
    expect(noSimpyNote(p)).toBe(
      `no python3 here can import simpy (${onPath}: ModuleNotFoundError: No module named 'simpy'; ${missing}: not found); Debian: apt-get install python3-simpy3`,
    );
    expect(probePython(missing)).toBe('not found');
  });

  it('an interpreter that answers something else is not taken', () => {
    const root = tmp();
    const odd = join(root, 'python3');
    writeFileSync(odd, '#!/bin/sh\necho "hello"\n');
    chmodSync(odd, 0o755);
    expect(findSimpy([odd]).tried[0]!.why).toMatch(/^unexpected answer/);
  });
});

describe('the memory and scale suites read their child processes', () => {
  const report: ChildReport = {
    rows: 1e6,
    format: 'ase-dol',
    order: 'random',
    phases: [
      { cpu: 0.2, wall: 0.21 },
      { cpu: 0.7, wall: 0.72 },
    ],
    cpu_s: 1.4,
    rss_bytes: 80e6,
    max_rss_bytes: 95e6,
    engine_bytes: 18e6,
    outcome: '201,331 forwarded rows, 68,174 pages',
  };
  const end = (over: Partial<ChildEnd>): ChildEnd => ({
    status: 0,
    signal: null,
    stdout: '',
    stderr: '',
    timedOut: false,
    timeoutS: 600,
    ...over,
  });

  it('a report line among other output', () => {
    const o = childOutcome(end({ stdout: `something else\n${CHILD_MARK}${JSON.stringify(report)}\n` }));
    expect(o).toEqual({ kind: 'report', report });
  });

  it("a refusal by the memory limits is the line's result", () => {
    const refused = '(npm run bench):12:21: workload[0].insert.rows: expected a table that fits in memory: …';
    expect(childOutcome(end({ stdout: `${CHILD_MARK}${JSON.stringify({ refused })}\n` }))).toEqual({ kind: 'refused', message: refused });
  });

  it('killed at the time limit, killed by the kernel, out of memory, crashed, silent, garbled', () => {
    expect(childOutcome(end({ timedOut: true, signal: 'SIGKILL', status: null, timeoutS: 600 }))).toEqual({
      kind: 'failed',
      message: 'killed at the time limit of 600 s (--timeout)',
    });
    expect(childOutcome(end({ signal: 'SIGKILL', status: null }))).toEqual({
      kind: 'failed',
      message: 'killed by SIGKILL (not by the bench: most likely the kernel, out of memory)',
    });
    expect(
      childOutcome(end({ status: 1, stderr: 'file:1\nRangeError: Array buffer allocation failed\n    at new ArrayBuffer\n' })),
    ).toEqual({ kind: 'failed', message: 'out of memory: RangeError: Array buffer allocation failed' });
    expect(
      childOutcome(
        end({
          status: null,
          signal: 'SIGABRT',
          stderr: 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n',
        }),
      ).kind,
    ).toBe('failed');
    expect(childOutcome(end({ status: 1, stderr: 'Error: boom\n    at x (y.js:1:1)\n' }))).toEqual({
      kind: 'failed',
      message: 'exited with status 1: at x (y.js:1:1)',
    });
    expect(childOutcome(end({ stdout: 'nothing\n' }))).toEqual({ kind: 'failed', message: 'printed no report: no message' });
    expect(childOutcome(end({ stdout: `${CHILD_MARK}{not json\n` })).kind).toBe('failed');
    expect(childOutcome(end({ stdout: `${CHILD_MARK}${JSON.stringify({ rows: 1 })}\n` }))).toMatchObject({
      kind: 'failed',
      message: expect.stringMatching(/^printed a report without its figures/),
    });
  });

  it('growth per row: the difference of the two runs over the difference of their rows', () => {
    expect(growthPerRow({ rows: 1e6, bytes: 100e6 }, { rows: 1e7, bytes: 244e6 })).toBe(16);
    expect(() => growthPerRow({ rows: 1e7, bytes: 1 }, { rows: 1e6, bytes: 2 })).toThrow();
  });
});

describe("the storage suite's memory-latency probe", () => {
  it('walks one cycle through every cache line of its array, each step a line of its own', () => {
    const n = 16 * 1000;
    const a = pointerCycle(n);
    const seen = new Set<number>();
    let p = 0;
    for (let i = 0; i < n / 16; i++) {
      expect(p % 16).toBe(0);
      seen.add(p);
      p = a[p]!;
    }
    // Back at the start after every line, having seen each once: one cycle, not several.
    expect(p).toBe(0);
    expect(seen.size).toBe(n / 16);
    expect(chase(a, 0, n / 16)).toBe(0);
    expect(pointerCycle(n)).toEqual(a);
  });

  it('times dependent loads and sets a rate against them', () => {
    const r = probeLatency(1 << 20, 2, 10_000);
    expect(r.ns).toHaveLength(2);
    expect(r.median).toBeGreaterThan(0);
    // 1M ops a second against 100 ns a miss (10M misses a second): a tenth; an op takes ten misses' time.
    expect(limitNote(1e6, 100)).toBe("0.1× the probe's 10M dependent misses a second (an op ≈ 10 misses' time)");
  });
});

describe('the storage suite runs each workload in a child of its own', () => {
  it("a child asked to repeat runs the workload that many times: every run's phases, the same outcome as one run", () => {
    const child = join(BENCH_DIST, 'child.js');
    const ask = (repeat?: number) => {
      const r = spawnSync(
        process.execPath,
        [child, JSON.stringify({ rows: 3000, format: 'ase-dol', order: 'random', checkLimits: false, ...(repeat ? { repeat } : {}) })],
        { encoding: 'utf8' },
      );
      expect(r.status).toBe(0);
      const o = childOutcome({ status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, timedOut: false, timeoutS: 60 });
      if (o.kind !== 'report') throw new Error(`child: ${o.kind}`);
      return o.report;
    };
    const once = ask();
    const thrice = ask(3);
    expect(once.runs).toBeUndefined();
    expect(thrice.runs).toHaveLength(3);
    for (const phases of thrice.runs!) {
      expect(phases).toHaveLength(2);
      for (const p of phases) expect(p.cpu! >= 0 && p.wall >= 0).toBe(true);
    }
    expect(thrice.phases).toEqual(thrice.runs![0]);
    expect(thrice.outcome).toBe(once.outcome);
  });

  it("a format's figures: the last `runs` of each child counted after STORAGE_WARMUP, the first run kept beside them", () => {
    const f = measureFormat('sqlserver-heap', 2, 60, 3000);
    if (typeof f === 'string') throw new Error(f);
    for (const kind of ['insert', 'random', 'sequential'] as const) {
      expect(f[kind].runs).toBe(2);
      expect(f[kind].warmup).toBe(STORAGE_WARMUP);
      expect(f[kind].samples).toHaveLength(2);
      expect(f.first[kind].wall).toBeGreaterThan(0);
    }
    expect(f.outcome.random).toMatch(/forwarded rows, [\d,]+ pages$/);
    expect(f.outcome.sequential).toMatch(/forwarded rows, [\d,]+ pages$/);
  });

  it('a child that fails gives the reason instead of figures', () => {
    expect(measureFormat('sqlserver-heap', 1, 60, -5)).toMatch(/^the random child failed: /);
  });

  it("the children get the suite's Node.js options (an unknown one stops the child before it starts)", () => {
    expect(STORAGE_NODE_ARGS).toContain('--single-threaded-gc');
    const req = { rows: 1000, format: 'ase-dol' as const, order: 'random' as const, checkLimits: false };
    expect(runChild(req, 60, STORAGE_NODE_ARGS).outcome.kind).toBe('report');
    const bad = runChild(req, 60, ['--no-such-node-option']).outcome;
    expect(bad.kind).toBe('failed');
    expect(bad.kind === 'failed' && bad.message).toMatch(/no-such-node-option/);
  });
});

describe('profiles', () => {
  it('self time by function: each sample charged to its node, summed by function and place, largest first', () => {
    const frame = (functionName: string, url: string, lineNumber: number) => ({ functionName, url, lineNumber });
    const p: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', '', -1) },
        { id: 2, callFrame: frame('insert', 'file:///x/dist/workload/runner.js', 9) },
        { id: 3, callFrame: frame('insert', 'file:///x/dist/workload/runner.js', 9) },
        { id: 4, callFrame: frame('', 'file:///x/dist/heap/forwarding-heap.js', 0) },
      ],
      samples: [2, 3, 4, 2, 1],
      timeDeltas: [1000, 2000, 3000, 4000, 0],
    };
    expect(topSelfTime(p, 2)).toEqual([
      { name: 'insert workload/runner.js:10', ms: 7, share: 0.7 },
      { name: '(anonymous) heap/forwarding-heap.js:1', ms: 3, share: 0.3 },
    ]);
  });
});

describe('the runner tells the bench where each phase starts and ends', () => {
  it('onPhase: start and end of every phase in order, around its row operations only', () => {
    const calls: string[] = [];
    runStorage(storageBenchSpec(2000), {
      onPhase: (index, edge) => calls.push(`${index} ${edge}`),
      afterPhase: (_engine, index) => calls.push(`${index} after`),
    });
    expect(calls).toEqual(['0 start', '0 end', '0 after', '1 start', '1 end', '1 after']);
  });

  it('the bench table: 3 columns, one varchar growing, in random or sequential order', () => {
    const spec = storageBenchSpec(1000, 'postgres-heap', 'sequential');
    expect(spec.table.columns.map((c) => c.name)).toEqual(['id', 'status', 'body']);
    expect(spec.engine.format).toBe('postgres-heap');
    expect(spec.workload.map((p) => p.op)).toEqual(['insert', 'update']);
    expect((spec.workload[1] as { order: { kind: string } }).order.kind).toBe('sequential');
    expect(runStorage(spec).final.rows).toBe(1000);
  });
});

describe("the report suite's page map child", () => {
  it("draws the quickstart-shaped map in a fresh process and reports each first map, the warm mean and the PNG's size", () => {
    const spec = benchPageMap();
    expect(spec.fill.length).toBe(1849);
    expect(Array.from(spec.stubs).filter((v) => v > 0).length).toBe(1053);
    expect(Array.from(spec.forwardedIn).filter((v) => v > 0).length).toBe(848);
    const r = spawnSync(process.execPath, [join(BENCH_DIST, 'pagemap-child.js')], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.startsWith(PAGEMAP_MARK));
    expect(line).toBeDefined();
    const report = JSON.parse(line!.slice(PAGEMAP_MARK.length)) as PageMapChildReport;
    expect(report.first).toHaveLength(FIRST_MAPS);
    for (const v of [...report.first, report.warm]) expect(v).toBeGreaterThan(0);
    expect(report.bytes).toBe(renderPageMap(spec).length);
  });
});

describe("the sweep suite's reading of rowsim run --timings", () => {
  it("takes each phase's seconds, the report beside the others and the total", async () => {
    const clock = [120, 480, 790, 500, 560, 801.6];
    const t = new RunTimings(() => clock.shift()!);
    t.end('load');
    t.end('simulate');
    t.end('charts');
    await t.beside('report', () => undefined);
    t.end('write');
    expect(timingPhases(t.lines(1.25).join('\n'))).toEqual({
      load: 0.12,
      simulate: 0.36,
      charts: 0.31,
      report: 0.06,
      write: 0.012,
      total: 0.802,
    });
  });
});

describe("the sweep suite's ceiling on the speed-up", () => {
  it('is the capacity over the cores the one-worker run kept busy (CPU ÷ wall, median of its runs)', () => {
    // Busy 1.5, 1.4 and 1.6 cores: the median 1.5; a capacity of 1.8 allows at most 1.2×.
    const b = speedupCeiling(
      [
        { cpu: 1.5, wall: 1 },
        { cpu: 2.8, wall: 2 },
        { cpu: 1.6, wall: 1 },
      ],
      1.8,
    )!;
    expect(b.busy).toBeCloseTo(1.5, 12);
    expect(b.ceiling).toBeCloseTo(1.2, 12);
    // A run that kept one core busy leaves the whole capacity.
    expect(speedupCeiling([{ cpu: 2, wall: 2 }], 1.9)!.ceiling).toBeCloseTo(1.9, 12);
  });

  it('says nothing when a run has no CPU time, no runs were made, or the capacity is unknown', () => {
    expect(speedupCeiling([{ wall: 1 }], 1.8)).toBeUndefined();
    expect(speedupCeiling([], 1.8)).toBeUndefined();
    expect(speedupCeiling([{ cpu: 1, wall: 1 }], Number.NaN)).toBeUndefined();
    expect(speedupCeiling([{ cpu: 1, wall: 0 }], 1.8)).toBeUndefined();
  });
});

describe('the sweep-scale suite', () => {
  it('sweeps 10 points a seed, a config rowsim loads', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-bench-scale-'));
    writeFileSync(join(dir, 's.yaml'), scaleSweepConfig('s', 3));
    const cfg = loadConfig(join(dir, 's.yaml'));
    expect(cfg.storage).toHaveLength(30);
    expect(cfg.storage[29]!.label).toBe('exp_row_size=max, seed=3');
  });

  it('names the files of two folders that differ, are missing or are extra', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-bench-scale-'));
    for (const [folder, texts] of [
      ['a', { 'x.json': '1', 'charts/p.png': 'P', 'gone.md': 'g' }],
      ['b', { 'x.json': '1', 'charts/p.png': 'Q', 'new.md': 'n' }],
    ] as const) {
      mkdirSync(join(dir, folder, 'charts'), { recursive: true });
      for (const [f, t] of Object.entries(texts)) writeFileSync(join(dir, folder, f), t);
    }
    expect(differingFiles(join(dir, 'a'), join(dir, 'a'))).toEqual([]);
    expect(differingFiles(join(dir, 'a'), join(dir, 'b')).sort()).toEqual(['charts/p.png', 'gone.md', 'new.md']);
  });
});
