/**
 * The input limits (src/config/limits.ts): a family of configs around each limit, at the limit and one
 * past it, fed to `rowsim validate` and `rowsim run` alike. Both must give the same verdict: exit 0 at
 * the limit (both run), exit 2 one past it with the limit named and the key's file:line:column, and
 * nothing written. validate and run can never disagree.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  MAX_COLUMNS,
  MAX_CONFIG_BYTES,
  MAX_IDENTIFIER_BYTES,
  MAX_INDEX_COLUMNS,
  MAX_KEY_BYTES,
  MAX_NAME_BYTES,
  MAX_OUT_PATH_BYTES,
  MAX_PHASES,
  MAX_POINT_LABEL,
  MAX_SWEEP_KEYS,
} from '../src/config/limits.js';
import { rowsim } from './helpers/cli.js';
import { inProcessRunner } from './helpers/corpus.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'rowsim-limits-'));
  dirs.push(d);
  return d;
}

interface Shape {
  name?: string;
  table?: string;
  columns?: string[];
  indexColumns?: number;
  phases?: number;
  sweep?: string[];
  pad?: number;
}

/** A small valid config of the given shape (postgres-heap, 8k pages, a few rows). */
function config(s: Shape): string {
  const columns = s.columns ?? ['id'];
  const lines = [
    `name: ${s.name ?? 'limits'}`,
    'table:',
    `  name: ${s.table ?? 't'}`,
    '  columns:',
    ...columns.map((c) => `    - { name: ${c}, type: int }`),
  ];
  if (s.indexColumns) lines.push(`  indexes: [{ name: i, columns: [${columns.slice(0, s.indexColumns).join(', ')}] }]`);
  lines.push('engine: { format: postgres-heap }', 'workload:', '  - insert: { rows: 3 }');
  for (let i = 1; i < (s.phases ?? 1); i++) lines.push('  - update: { rows: 1, set: { id: same } }');
  if (s.sweep) lines.push('sweep:', ...s.sweep.map((k) => `  ${k}: [postgres-heap]`));
  const text = `${lines.join('\n')}\n`;
  return s.pad ? `${text}#${'x'.repeat(s.pad - text.length - 2)}\n` : text;
}

const names = (n: number, width = 1) => Array.from({ length: n }, (_, i) => `c${String(i).padStart(width, '0')}`);
/** A sweep of one value for each of the first columns' types: keys and label grow with it. */
function sweepShape(types: string[]): string {
  const text = config({ columns: names(types.length) });
  return `${text}sweep:\n${types.map((t, i) => `  table.columns[${i}].type: [${t}]`).join('\n')}\n`;
}
const repeat = (t: string, n: number) => Array.from({ length: n }, () => t);

interface Family {
  what: string;
  at: string;
  past: string;
  /** Words the refusal names. */
  words: string[];
}

const FAMILIES: Family[] = [
  {
    what: 'run name',
    at: config({ name: 'n'.repeat(MAX_NAME_BYTES) }),
    past: config({ name: 'n'.repeat(MAX_NAME_BYTES + 1) }),
    words: ['name', `${MAX_NAME_BYTES} bytes`],
  },
  {
    what: 'table name',
    at: config({ table: 't'.repeat(MAX_IDENTIFIER_BYTES) }),
    past: config({ table: 't'.repeat(MAX_IDENTIFIER_BYTES + 1) }),
    words: ['table.name', `${MAX_IDENTIFIER_BYTES} bytes`],
  },
  {
    what: 'column name (and key)',
    at: config({ columns: ['c'.repeat(MAX_KEY_BYTES)] }),
    past: config({ columns: ['c'.repeat(MAX_KEY_BYTES + 1)] }),
    words: ['table.columns[0].name', `${MAX_IDENTIFIER_BYTES} bytes`],
  },
  {
    what: 'columns',
    at: config({ columns: names(MAX_COLUMNS, 4) }),
    past: config({ columns: names(MAX_COLUMNS + 1, 4) }),
    words: ['table.columns', '1,600 columns'],
  },
  {
    what: 'index key columns',
    at: config({ columns: names(MAX_INDEX_COLUMNS + 1), indexColumns: MAX_INDEX_COLUMNS }),
    past: config({ columns: names(MAX_INDEX_COLUMNS + 1), indexColumns: MAX_INDEX_COLUMNS + 1 }),
    words: ['table.indexes[0].columns', `${MAX_INDEX_COLUMNS} index key columns`],
  },
  { what: 'phases', at: config({ phases: MAX_PHASES }), past: config({ phases: MAX_PHASES + 1 }), words: ['workload', '1,000 phases'] },
  {
    what: 'swept keys',
    at: sweepShape(repeat('int', MAX_SWEEP_KEYS)),
    past: sweepShape(repeat('int', MAX_SWEEP_KEYS + 1)),
    words: ['sweep', `${MAX_SWEEP_KEYS} swept keys`],
  },
  {
    what: 'sweep point label',
    // "type=int" is 8 characters, "type=date" 9, "type=bigint" 11, joined by ", ": 16 keys make 158 + the longer ones.
    at: sweepShape([...repeat('int', MAX_SWEEP_KEYS - 2), 'date', 'date']),
    past: sweepShape([...repeat('int', MAX_SWEEP_KEYS - 1), 'bigint']),
    words: ['sweep', `${MAX_POINT_LABEL} characters`],
  },
  { what: 'config file size', at: config({ pad: MAX_CONFIG_BYTES }), past: config({ pad: MAX_CONFIG_BYTES + 1 }), words: ['1 MiB'] },
];

/**
 * validate and run of the families run in two long-lived children of the corpus's (test/helpers/corpus.ts:
 * rowsim's command line loaded once, its exit status, stdout and stderr captured as a process's): forty
 * commands of a few milliseconds each spent most of their time loading rowsim. The --out tests below run
 * rowsim as processes of their own.
 */
const runner = inProcessRunner(2);
afterAll(() => runner.close());

async function verdict(
  command: 'validate' | 'run',
  file: string,
  dir: string,
): Promise<{ code: number | null; stderr: string; written: string[] }> {
  const args =
    command === 'run' ? ['run', file, '--out', join(dir, 'out'), '--quiet', '--workers', '1'] : ['validate', file, '--workers', '1'];
  const r = await runner.run(args, dir);
  expect(r.hung, `${command} ${file} hung`).toBe(false);
  const written = readdirSync(dir).filter((f) => !f.endsWith('.yaml'));
  rmSync(join(dir, 'out'), { recursive: true, force: true });
  return { code: r.code, stderr: r.stderr, written };
}

describe('validate and run apply the same limits (src/config/limits.ts)', () => {
  for (const f of FAMILIES) {
    it.concurrent(
      `${f.what}: at the limit both accept, one past both refuse with the limit named`,
      async () => {
        const dir = tempDir();
        writeFileSync(join(dir, 'at.yaml'), f.at);
        writeFileSync(join(dir, 'past.yaml'), f.past);
        const at = { validate: await verdict('validate', 'at.yaml', dir), run: await verdict('run', 'at.yaml', dir) };
        const past = { validate: await verdict('validate', 'past.yaml', dir), run: await verdict('run', 'past.yaml', dir) };
        expect(at.validate.code, at.validate.stderr).toBe(0);
        expect(at.run.code, at.run.stderr).toBe(0);
        for (const v of [past.validate, past.run]) {
          expect(v.code, v.stderr).toBe(2);
          for (const w of f.words) expect(v.stderr).toContain(w);
          expect(v.written).toEqual([]);
        }
        // The same message from both: one check, one place.
        expect(past.run.stderr).toBe(past.validate.stderr);
      },
      240_000,
    );
  }

  it('an estimate section rowsim estimate would refuse: both refuse it (run checks the section it carries)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'e.yaml'), `${config({})}estimate:\n  target_pct: 150\n`);
    const v = await verdict('validate', 'e.yaml', dir);
    const r = await verdict('run', 'e.yaml', dir);
    expect(v.code).toBe(2);
    expect(v.stderr).toMatch(/e\.yaml:\d+:\d+: estimate\.target_pct: /);
    expect(r.stderr).toBe(v.stderr);
    expect(r.written).toEqual([]);
  });

  it('a file of two YAML documents: both refuse at the second', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'two.yaml'), `${config({})}---\n${config({})}`);
    const v = await verdict('validate', 'two.yaml', dir);
    const r = await verdict('run', 'two.yaml', dir);
    expect(v.code).toBe(2);
    expect(r.code).toBe(2);
    expect(v.stderr).toMatch(/two\.yaml:\d+:1: .*one YAML document/);
    expect(r.stderr).toBe(v.stderr);
  });
});

describe('--out: PATH_MAX and NAME_MAX', () => {
  /** A folder path below `base` of exactly `bytes` bytes when resolved, of components of at most 200 bytes. */
  function pathOf(base: string, bytes: number): string {
    let p = resolve(base);
    while (p.length < bytes) {
      const room = bytes - p.length - 1;
      p = join(p, 'd'.repeat(Math.min(200, room > 200 && room < 202 ? 150 : room)));
    }
    return p;
  }

  it.concurrent(
    `a folder of ${MAX_OUT_PATH_BYTES} bytes is written; one more byte is refused before any work`,
    () => {
      const dir = tempDir();
      writeFileSync(join(dir, 'c.yaml'), config({}));
      const at = pathOf(dir, MAX_OUT_PATH_BYTES);
      expect(at.length).toBe(MAX_OUT_PATH_BYTES);
      const ok = rowsim(['run', 'c.yaml', '--out', at, '--quiet', '--workers', '1'], dir);
      expect(ok.code, ok.stderr).toBe(0);
      const past = `${at}e`;
      const r = rowsim(['run', 'c.yaml', '--out', past, '--quiet', '--workers', '1'], dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`at most ${MAX_OUT_PATH_BYTES.toLocaleString('en-US')} bytes`);
      expect(r.stderr.length).toBeLessThan(400);
    },
    240_000,
  );

  it.concurrent(
    `a last folder name of ${MAX_NAME_BYTES} bytes is written; ${MAX_NAME_BYTES + 1} is refused`,
    () => {
      const dir = tempDir();
      mkdirSync(join(dir, 'x'));
      writeFileSync(join(dir, 'c.yaml'), config({}));
      const ok = rowsim(['run', 'c.yaml', '--out', join('x', 'o'.repeat(MAX_NAME_BYTES)), '--quiet', '--workers', '1'], dir);
      expect(ok.code, ok.stderr).toBe(0);
      const r = rowsim(['run', 'c.yaml', '--out', join('x', 'o'.repeat(MAX_NAME_BYTES + 1)), '--quiet', '--workers', '1'], dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`at most ${MAX_NAME_BYTES} bytes`);
      expect(readdirSync(join(dir, 'x'))).toEqual(['o'.repeat(MAX_NAME_BYTES)]);
    },
    240_000,
  );
});
