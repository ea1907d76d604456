/**
 * rowsim run --shard K/N and rowsim merge (docs/scale.md): a sweep run in three parts and merged writes
 * byte for byte the files of a single run (results.json, summary.md, report.html, every chart, the
 * manifest), whatever the worker count of each part; so does a contention grid. A missing, duplicated
 * or foreign part is exit 2 naming the folder, with nothing written.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rowsim } from './helpers/cli.js';
import { growingBodyConfig } from './helpers/growing-body.js';
import { exactParse, exactStringify } from '../src/util/exact-json.js';
import { shardSlice } from '../src/run/plan.js';
import { resultsDigest } from '../src/run/part.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'rowsim-shard-'));

const SWEEP = growingBodyConfig({
  name: 'sharded',
  seed: 5,
  rows: 2000,
  order: 'random',
  sweep: { 'engine.exp_row_size': '[1, 0, 120, 200, max]' },
});

const GRID = `name: grid
seed: 9
contention:
  engines: [1, 2]
  users: [5, 10]
  think_time: 1ms
  duration: 20ms
  warmup: 5ms
  replications: 2
`;

/** Every file under `dir` (hidden ones too), relative, sorted. */
function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk('');
  return out.sort();
}

function expectSameFolders(a: string, b: string): void {
  expect(files(b)).toEqual(files(a));
  for (const f of files(a)) expect(readFileSync(join(b, f)).equals(readFileSync(join(a, f))), f).toBe(true);
}

/** Run `config` whole and in `n` parts (part k with `workers(k)` threads), merge; both folders. */
function shardAndMerge(
  dir: string,
  config: string,
  n: number,
  workers: (k: number) => string,
): { single: string; merged: string; parts: string[] } {
  const single = join(dir, 'single');
  const r = rowsim(['run', config, '--out', single, '--quiet']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const parts: string[] = [];
  for (let k = 1; k <= n; k++) {
    const part = join(dir, 'parts', `part-${k}-of-${n}`);
    const p = rowsim(['run', config, '--shard', `${k}/${n}`, '--out', part, '--workers', workers(k)]);
    expect(p.stderr).toBe('');
    expect(p.code).toBe(0);
    expect(p.stdout).toContain(`part ${k} of ${n}`);
    parts.push(part);
  }
  const merged = join(dir, 'merged');
  const m = rowsim(['merge', ...parts, '--out', merged, '--quiet']);
  expect(m.stderr).toBe('');
  expect(m.code).toBe(0);
  return { single, merged, parts };
}

describe('rowsim run --shard and rowsim merge', () => {
  it('a sweep in 3 parts, merged, is byte for byte a single run (results.json, summary.md, report.html, every chart)', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'sweep.yaml'), SWEEP);
    const { single, merged, parts } = shardAndMerge(dir, join(dir, 'sweep.yaml'), 3, (k) => String(k === 2 ? 2 : 1));
    expectSameFolders(single, merged);
    const names = files(merged);
    expect(names).toEqual(expect.arrayContaining(['results.json', 'summary.md', 'report.html', 'charts/forwarding.png']));
    expect(names.filter((f) => f.startsWith('charts/pagemap-'))).toHaveLength(10);
    // Round robin: points 1 and 4 in part 1, 2 and 5 in part 2, 3 in part 3; each part keeps its page maps.
    const part = (k: number) =>
      exactParse(readFileSync(join(parts[k - 1]!, 'part.json'), 'utf8')) as {
        storage: { index: number; charts: string[] }[];
        header: { shard: unknown; units: unknown };
      };
    expect(part(1).storage.map((p) => p.index)).toEqual([0, 3]);
    expect(part(2).storage.map((p) => p.index)).toEqual([1, 4]);
    expect(part(3).storage.map((p) => p.index)).toEqual([2]);
    expect(part(2).header.shard).toEqual({ index: 2, count: 3, rule: 'round-robin' });
    for (const c of part(3).storage[0]!.charts) expect(existsSync(join(parts[2]!, c))).toBe(true);
  });

  it('a 16-point sweep in 8 parts, merged, is byte for byte a single run (npm run bench -- sweep-scale: 1,000 points)', () => {
    const dir = tmp();
    const config = growingBodyConfig({
      name: 'eight',
      seed: 2,
      rows: 200,
      sweep: { 'engine.exp_row_size': '[1, 0, 120, max]', seed: '[1, 2, 3, 4]' },
    });
    writeFileSync(join(dir, 'sweep.yaml'), config);
    const { single, merged } = shardAndMerge(dir, join(dir, 'sweep.yaml'), 8, () => '1');
    expectSameFolders(single, merged);
    expect(files(merged).filter((f) => f.startsWith('charts/pagemap-'))).toHaveLength(32);
  });

  it('merge writes to out/<name>/ by default, beside the part folders it reads', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'sweep.yaml'), SWEEP.replace('[1, 0, 120, 200, max]', '[1, max]'));
    for (const k of [1, 2]) expect(rowsim(['run', 'sweep.yaml', '--shard', `${k}/2`, '--quiet'], dir).code).toBe(0);
    expect(readdirSync(join(dir, 'out', 'sharded')).sort()).toEqual(['part-1-of-2', 'part-2-of-2']);
    const m = rowsim(['merge', join('out', 'sharded', 'part-1-of-2'), join('out', 'sharded', 'part-2-of-2')], dir);
    expect(m.stderr).toBe('');
    expect(m.code).toBe(0);
    expect(m.stdout).toMatch(/merged 2 parts of sharded/);
    expect(m.stdout).toMatch(/exp_row_size=max/);
    const res = JSON.parse(readFileSync(join(dir, 'out', 'sharded', 'results.json'), 'utf8')) as { storage: unknown[] };
    expect(res.storage).toHaveLength(2);
    // The same files as a single run into a new folder, its manifest included (the part folders aside).
    expect(rowsim(['run', 'sweep.yaml', '--out', 'single', '--quiet'], dir).code).toBe(0);
    const merged = files(join(dir, 'out', 'sharded')).filter((f) => !f.startsWith('part-'));
    expect(merged).toEqual(files(join(dir, 'single')));
    for (const f of merged) expect(readFileSync(join(dir, 'out', 'sharded', f)).equals(readFileSync(join(dir, 'single', f))), f).toBe(true);
    // The single run into the same folder keeps the parts (output folders of their own) and replaces the merge's files.
    expect(rowsim(['run', 'sweep.yaml', '--quiet'], dir).code).toBe(0);
    expect(readdirSync(join(dir, 'out', 'sharded')).sort()).toEqual([
      '.rowsim-output.json',
      'charts',
      'part-1-of-2',
      'part-2-of-2',
      'report.html',
      'results.json',
      'summary.md',
    ]);
  });

  it('a contention grid in 3 parts, merged, is byte for byte a single run', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'grid.yaml'), GRID);
    const { single, merged } = shardAndMerge(dir, join(dir, 'grid.yaml'), 3, () => '2');
    expectSameFolders(single, merged);
    expect(files(merged)).toEqual(expect.arrayContaining(['charts/contention-throughput.png', 'charts/contention-engines.png']));
  });

  it('more parts than units: the empty parts merge too', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'sweep.yaml'), SWEEP.replace('[1, 0, 120, 200, max]', '[1, max]'));
    const { single, merged, parts } = shardAndMerge(dir, join(dir, 'sweep.yaml'), 3, () => '1');
    expectSameFolders(single, merged);
    expect(readdirSync(parts[2]!).sort()).toEqual(['.rowsim-output.json', 'part.json']);
  });
});

describe('rowsim merge refuses parts that are not one run whole (exit 2, nothing written)', () => {
  /** The config and its three parts, run once for the file: each test gets a copy of the parts. */
  let made: { config: string; parts: string } | undefined;

  /** Three parts of SWEEP in dir/parts (copies of one run of them, their config outside dir), and the config. */
  function setup(): { dir: string; parts: string[]; config: string } {
    if (!made) {
      const base = tmp();
      const config = join(base, 'sweep.yaml');
      writeFileSync(config, SWEEP.replace('[1, 0, 120, 200, max]', '[1, 0, max]'));
      for (const k of [1, 2, 3])
        expect(rowsim(['run', config, '--shard', `${k}/3`, '--out', join(base, 'parts', `part-${k}-of-3`), '--quiet']).code).toBe(0);
      made = { config, parts: join(base, 'parts') };
    }
    const dir = tmp();
    cpSync(made.parts, join(dir, 'parts'), { recursive: true });
    return { dir, parts: [1, 2, 3].map((k) => join(dir, 'parts', `part-${k}-of-3`)), config: made.config };
  }

  function refused(dir: string, args: string[], ...messages: (string | RegExp)[]): void {
    const before = files(dir);
    const r = rowsim(['merge', ...args, '--out', join(dir, 'merged')]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    for (const m of messages) expect(r.stderr).toMatch(m);
    expect(files(dir)).toEqual(before);
    expect(existsSync(join(dir, 'merged'))).toBe(false);
  }

  it('a missing part, a part given twice, a part of another config or another N', () => {
    const { dir, parts, config } = setup();
    refused(dir, [parts[0]!, parts[2]!], /expected all 3 parts/, /found no part 2 of 3/, /--shard K\/3/);
    refused(
      dir,
      [parts[0]!, parts[1]!, parts[1]!, parts[2]!],
      new RegExp(`${relative('/', parts[1]!)}: expected each part once, found part 2 of 3 twice`),
    );
    const other = join(dir, 'other.yaml');
    writeFileSync(other, readFileSync(config, 'utf8').replace('seed: 5', 'seed: 6'));
    const foreign = join(dir, 'foreign', 'part-2-of-3');
    expect(rowsim(['run', other, '--shard', '2/3', '--out', foreign, '--quiet']).code).toBe(0);
    refused(
      dir,
      [parts[0]!, foreign, parts[2]!],
      new RegExp(`foreign/part-2-of-3: expected a part of the same run as .*part-1-of-3`),
      /another config/,
    );
    const twoParts = join(dir, 'n2', 'part-2-of-2');
    expect(rowsim(['run', config, '--shard', '2/2', '--out', twoParts, '--quiet']).code).toBe(0);
    refused(dir, [...parts, twoParts], /n2\/part-2-of-2: expected a part of the same run/, /3 parts/);
  });

  it('a folder that is not a part, a damaged part.json, a part of another rowsim, --out on a part', () => {
    const { dir, parts, config } = setup();
    refused(dir, [dir], /expected a part folder that rowsim run --shard K\/N wrote/);
    refused(dir, [config], /expected a part folder .*found a file/);
    const run = join(dir, 'run');
    expect(rowsim(['run', config, '--out', run, '--quiet']).code).toBe(0);
    refused(dir, [run], /found a run's results folder/);
    const file = join(parts[1]!, 'part.json');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.slice(0, 100));
    refused(dir, parts, /part-2-of-3: part\.json is damaged/);
    const part = exactParse(text) as { header: { rowsim_version: string } };
    part.header.rowsim_version = '0.0.1';
    writeFileSync(file, exactStringify(part));
    refused(dir, parts, /part-2-of-3: expected a part written by rowsim .* found one of rowsim 0\.0\.1/);
    writeFileSync(file, text);
    const r = rowsim(['merge', ...parts, '--out', parts[0]!]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/expected a folder other than the parts'/);
  });

  it('an edited part: refused by its digest; an inconsistent one (digest made again): by its figures; an old part without a digest: refused', () => {
    const { dir, parts } = setup();
    const file = join(parts[1]!, 'part.json');
    const text = readFileSync(file, 'utf8');
    type Part = {
      header: { rowsim_part: number };
      results_sha256?: string;
      storage: { entry: { final: { rows: number; forwarded_rows: number } } }[];
    };
    const part = exactParse(text) as Part;
    const edited = structuredClone(part);
    edited.storage[0]!.entry.final.forwarded_rows = 123_456_789;
    writeFileSync(file, exactStringify(edited));
    refused(dir, parts, /part-2-of-3: part\.json: expected results whose SHA-256 is the results_sha256/);
    // The tamperer makes the digest again: the figures themselves are checked.
    edited.results_sha256 = resultsDigest(edited as never);
    writeFileSync(file, exactStringify(edited));
    refused(
      dir,
      parts,
      /part-2-of-3: part\.json: storage point .* at the end: expected forwarded_rows at most the \d+ rows of the table, found 123456789: the part is inconsistent/,
    );
    const old = structuredClone(part);
    old.header.rowsim_part = 1;
    delete old.results_sha256;
    writeFileSync(file, exactStringify(old));
    refused(dir, parts, /part-2-of-3: part\.json has no digest of its results .* run that part again/);
    writeFileSync(file, text);
    expect(rowsim(['merge', ...parts, '--out', join(dir, 'merged'), '--quiet']).code).toBe(0);
  });
});

describe('the slicing rule and the part file', () => {
  it('round robin over the storage points, then the contention tasks: every unit in exactly one part', () => {
    const units = { storage: 7, contention: 5 };
    const slices = [1, 2, 3, 4].map((index) => shardSlice(units, { index, count: 4 }));
    expect(slices[0]).toEqual({ storage: [0, 4], contention: [1] });
    expect(slices[3]).toEqual({ storage: [3], contention: [0, 4] });
    expect(slices.flatMap((s) => s.storage).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(slices.flatMap((s) => s.contention).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
    expect(shardSlice(units, { index: 1, count: 1 })).toEqual({ storage: [0, 1, 2, 3, 4, 5, 6], contention: [0, 1, 2, 3, 4] });
  });

  it('exact JSON gives back NaN, ±Infinity, -0, undefined, typed arrays and "$rowsim" keys as they were', () => {
    const value = {
      a: NaN,
      b: [Infinity, -Infinity, -0, 0, 1.1, 2 ** 53],
      c: undefined,
      d: new Float32Array([0.1, NaN, 3]),
      e: new Uint32Array([1, 2 ** 32 - 1]),
      f: { $rowsim: 'NaN' },
      g: 'x',
      h: null,
      i: [undefined],
    };
    const back = exactParse(exactStringify(value)) as typeof value;
    expect(Object.is(back.a, NaN)).toBe(true);
    expect(back.b).toEqual([Infinity, -Infinity, -0, 0, 1.1, 2 ** 53]);
    expect(Object.is(back.b[2], -0)).toBe(true);
    expect('c' in back && back.c === undefined).toBe(true);
    expect(back.d).toBeInstanceOf(Float32Array);
    expect(Array.from(back.d)).toEqual(Array.from(value.d));
    expect(back.e).toEqual(value.e);
    expect(back.f).toEqual({ $rowsim: 'NaN' });
    expect([back.g, back.h, back.i]).toEqual(['x', null, [undefined]]);
    expect(() => exactStringify({ m: new Map() })).toThrow(/Map at \.m/);
  });
});
