/**
 * The bad-input corpus (test/corpus/, see its README.md): every case runs through rowsim's command line
 * (main() of dist/, as bin/rowsim.js runs it), cwd a fresh temp folder, and must be refused the way the
 * README promises: exit status 2, a message on stderr with the file, line and
 * column where the case says so and the expected words, no stack trace, nothing written, and within
 * 30 s (a hang detector, not a timing assertion: generous, so a loaded machine does not trip it).
 *
 * Most cases run in-process, one after another in a few long-lived children (inProcessRunner in
 * test/helpers/corpus.ts: a process's start-up and module loading, paid once a child instead of once a
 * case). The cases REAL_PROCESS picks run as `node bin/rowsim.js …`, a process each: the bin script's own
 * paths (--version), what a process shows that an in-process run cannot (a stack trace on an uncaught
 * error, the FIFO and /dev/zero configs, which must not block the process), and the first case of every
 * category, so that each kind of refusal is also seen from a real process. At most two of either at a time.
 *
 * Some cases fail against today's code on purpose: the corpus is the regression suite for the fixes.
 * Set ROWSIM_CORPUS_REPORT=<file> to get one JSON line per case (command, exit status, first line of
 * stderr, problems); ROWSIM_CORPUS_KEEP=1 keeps the temp folder of every failing case.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  describeRun,
  finalArgv,
  inProcessRunner,
  FIXTURES,
  judge,
  limiter,
  loadArgsCases,
  loadCases,
  outsideListing,
  parseMessages,
  positionRe,
  runCli,
  snapshot,
  snapshotDiff,
  stage,
  tempDir,
  type Expectation,
  type RunResult,
} from './helpers/corpus.js';
import { baseText, mutants, shrunkBases } from './helpers/corpus-mutations.js';
import { ROOT } from './helpers/cli.js';
import { loadConfig } from '../src/loader/config.js';
import { loadEstimateConfig } from '../src/loader/config.js';

const pool = limiter(2);
const children = inProcessRunner(2);
afterAll(() => children.close());
const TEST_TIMEOUT = 120_000;
const REPORT = process.env.ROWSIM_CORPUS_REPORT;
const KEEP = process.env.ROWSIM_CORPUS_KEEP === '1';

interface Outcome {
  argv: string[];
  dir: string;
  result: RunResult;
  changes: string[];
}

/**
 * Run `argv` in `dir` (already staged), in-process or, with `real`, as a process of its own, and collect what
 * changed in the folder (and outside it for --out /…).
 */
async function execute(argv: string[], dir: string, addDefaults = true, real = false): Promise<Outcome> {
  const full = finalArgv(argv, dir, addDefaults);
  const before = snapshot(dir);
  const outside = outsideListing(full, dir);
  const result = await (real ? pool(() => runCli(full, dir)) : children.run(full, dir));
  const changes = snapshotDiff(before, snapshot(dir));
  changes.push(...snapshotDiff(outside, outsideListing(full, dir)));
  return { argv: full, dir, result, changes };
}

function report(id: string, o: Outcome, problems: string[]): string {
  const shown = o.argv.map((a) => a.split(o.dir).join('<tmp>'));
  const text = describeRun(shown, o.result);
  if (REPORT) {
    const first = o.result.stderr.split('\n').find((l) => l.trim() !== '') ?? '';
    appendFileSync(
      REPORT,
      `${JSON.stringify({ id, argv: shown, code: o.result.code, hung: o.result.hung, ms: o.result.ms, stderr: first.slice(0, 400), lines: o.result.stderr.split('\n').filter(Boolean).length, problems })}\n`,
    );
  }
  if (problems.length === 0 || !KEEP) rmSync(o.dir, { recursive: true, force: true });
  return `${id}\n${text}${problems.length && KEEP ? `\n  kept: ${o.dir}` : ''}\n  ${problems.join('\n  ')}`;
}

function check(id: string, o: Outcome, exp: Expectation): void {
  const problems = judge(o.result, exp, o.changes);
  const text = report(id, o, problems);
  expect(problems, text).toEqual([]);
}

// ---- the hand-written corpus ----------------------------------------------------------------------

const cases = loadCases();
const argsCases = loadArgsCases();

/** The hand-written and args.yaml cases that run as processes of their own (see the header). */
const REAL_PROCESS = new Set<string>([
  ...cases.filter((c, i) => i === 0 || cases[i - 1]!.category !== c.category).map((c) => c.id),
  ...argsCases.flatMap((c, i) => (c.argv.includes('--version') || c.argv.includes('-V') || i === 0 ? [`args[${i}]`] : [])),
]);

describe('bad-input corpus', () => {
  it('has at least 220 hand-written cases', () => {
    expect(cases.length + argsCases.length).toBeGreaterThanOrEqual(220);
  });

  it('runs about twenty cases as processes of their own', () => {
    expect(REAL_PROCESS.size).toBeGreaterThanOrEqual(12);
    expect(REAL_PROCESS.size).toBeLessThanOrEqual(24);
  });

  for (const c of cases) {
    it.concurrent(
      `${c.id}: ${c.description}`,
      async () => {
        const dir = tempDir();
        stage(c, dir);
        const o = await execute(c.argv, dir, true, REAL_PROCESS.has(c.id));
        check(c.id, o, { position: c.position, messages: c.messages, maxLines: c.maxLines, ignore: [c.id.split('/')[1]!] });
      },
      TEST_TIMEOUT,
    );
  }
});

/**
 * What `rowsim run` refuses, `rowsim validate` refuses too (the same loading and limits): every `run`
 * case of the corpus with no other argument, again as `validate`. A refusal only a simulation finds (the
 * server's refusal of an index entry while the rows load) is the one kind validate cannot see.
 */
const FOUND_BY_SIMULATING = new Set(['workload/index-entry-over-btmaxitemsize']);

describe('validate refuses what run refuses', () => {
  for (const c of cases.filter((c) => c.argv[0] === 'run' && c.argv.length === 2 && !FOUND_BY_SIMULATING.has(c.id))) {
    it.concurrent(
      `${c.id}`,
      async () => {
        const dir = tempDir();
        stage(c, dir);
        const o = await execute(['validate', c.argv[1]!], dir);
        check(`validate ${c.id}`, o, { messages: [], ignore: [c.id.split('/')[1]!] });
      },
      TEST_TIMEOUT,
    );
  }
});

describe('bad arguments (test/corpus/args.yaml)', () => {
  for (const [i, c] of argsCases.entries()) {
    it.concurrent(
      `args[${i}]: ${c.case}`,
      async () => {
        const dir = tempDir();
        cpSync(FIXTURES, dir, { recursive: true });
        const o = await execute(c.argv, dir, false, REAL_PROCESS.has(`args[${i}]`));
        check(`args[${i}]`, o, { messages: parseMessages(c.message ? [c.message] : []) });
      },
      TEST_TIMEOUT,
    );
  }
});

// ---- cases built by the test (too big or too odd to keep as files) ------------------------------

describe('bad-input corpus: built by the test', () => {
  it.concurrent(
    '20,000 unknown top-level keys: refused (no hang) with a limited number of problems',
    async () => {
      const dir = tempDir();
      const lines = ['name: many-keys', 'contention: { engines: 1, users: 1, duration: 10ms, warmup: 1ms }'];
      for (let i = 0; i < 20_000; i++) lines.push(`unknown_key_${String(i).padStart(5, '0')}: ${i}`);
      writeFileSync(join(dir, 'many-keys.yaml'), `${lines.join('\n')}\n`);
      const o = await execute(['validate', 'many-keys.yaml'], dir, true, true);
      check('built/20000-unknown-keys', o, {
        position: { spec: 'yes', re: positionRe('yes', 'many-keys.yaml')! },
        messages: [['unknown_key_00000']],
        maxLines: 100,
      });
    },
    TEST_TIMEOUT,
  );

  it.concurrent(
    '20,000 unknown keys under engine: refused (no hang) with a limited number of problems',
    async () => {
      const dir = tempDir();
      const lines = [
        'name: many-engine-keys',
        'table: { name: t, columns: [{ name: id, type: int }] }',
        'workload: [{ insert: { rows: 10 } }]',
        'engine:',
        '  format: ase-dol',
      ];
      for (let i = 0; i < 20_000; i++) lines.push(`  page_size_${i}: 2k`);
      writeFileSync(join(dir, 'many-engine-keys.yaml'), `${lines.join('\n')}\n`);
      const o = await execute(['run', 'many-engine-keys.yaml'], dir, true, true);
      check('built/20000-unknown-engine-keys', o, {
        position: { spec: 'yes', re: positionRe('yes', 'many-engine-keys.yaml')! },
        messages: [['engine.page_size_0']],
        maxLines: 100,
      });
    },
    TEST_TIMEOUT,
  );

  it.concurrent(
    'a 6 MB one-line flow list under workload: refused by its size before the YAML is parsed',
    async () => {
      const dir = tempDir();
      const items = Array.from({ length: 250_000 }, () => '{ insert: { rows: 1 } }').join(', ');
      writeFileSync(
        join(dir, 'flow.yaml'),
        `name: flow\ntable: { name: t, columns: [{ name: id, type: int }] }\nengine: { format: ase-dol }\nworkload: [${items}]\n`,
      );
      const o = await execute(['validate', 'flow.yaml'], dir, true, true);
      check('built/flow-list-6mb', o, { messages: [['1 MiB']] });
    },
    TEST_TIMEOUT,
  );

  it.concurrent(
    'a 20 MB run name: refused by the file size (validate, as run)',
    async () => {
      const dir = tempDir();
      writeFileSync(
        join(dir, 'big-name.yaml'),
        `name: ${'a'.repeat(20_000_000)}\ncontention: { engines: 1, users: 1, duration: 10ms, warmup: 1ms }\n`,
      );
      const o = await execute(['validate', 'big-name.yaml'], dir, true, true);
      check('built/name-20mb', o, { messages: [['1 MiB']] });
    },
    TEST_TIMEOUT,
  );

  it.concurrent(
    'a 5,000-character --out: refused (PATH_MAX), not an internal error, and the message stays short',
    async () => {
      const dir = tempDir();
      cpSync(FIXTURES, dir, { recursive: true });
      const o = await execute(['run', 'valid.yaml', '--out', 'd/'.repeat(2500)], dir, false, true);
      check('built/out-5000-chars', o, { messages: [['--out'], ['3,798 bytes']], maxLines: 1 });
      expect(o.result.stderr.length).toBeLessThan(400);
    },
    TEST_TIMEOUT,
  );

  it.concurrent(
    'rowsize of a .sql table of 1,601 columns: refused at the 1,601st column (100,000 columns took 21 s before any answer)',
    async () => {
      const dir = tempDir();
      const cols = Array.from({ length: 1601 }, (_, i) => `  c${i} int NOT NULL`);
      writeFileSync(join(dir, 'wide.sql'), `CREATE TABLE wide (\n${cols.join(',\n')}\n);\n`);
      const o = await execute(['rowsize', 'wide.sql'], dir, true, true);
      check('built/rowsize-1601-columns', o, {
        position: { spec: 'wide.sql:1602', re: positionRe('wide.sql:1602', 'wide.sql')! },
        messages: [['1,600 columns']],
      });
    },
    TEST_TIMEOUT,
  );

  it.concurrent(
    'rowsize of a config of 1,001 phases: refused at workload (50,000 phases took 20 s before any answer)',
    async () => {
      const dir = tempDir();
      const phases = Array.from({ length: 1000 }, () => '  - update: { rows: 1, set: { id: same } }');
      writeFileSync(
        join(dir, 'phases.yaml'),
        `name: phases\ntable: { name: t, columns: [{ name: id, type: int }] }\nengine: { format: ase-dol }\nworkload:\n  - insert: { rows: 10 }\n${phases.join('\n')}\n`,
      );
      const o = await execute(['rowsize', 'phases.yaml'], dir, true, true);
      check('built/rowsize-1001-phases', o, {
        position: { spec: 'phases.yaml:5', re: positionRe('phases.yaml:5', 'phases.yaml')! },
        messages: [['workload'], ['1,000 phases']],
      });
    },
    TEST_TIMEOUT,
  );

  it.concurrent(
    'merge of a part whose part.json was edited (123,456,789 forwarded rows of a few hundred): refused naming the part',
    async () => {
      const dir = tempDir();
      cpSync(FIXTURES, dir, { recursive: true });
      const part = join(dir, 'part');
      expect((await execute(['run', 'valid.yaml', '--shard', '1/1', '--out', part, '--quiet'], dir, false, true)).result.code).toBe(0);
      const file = join(part, 'part.json');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/"forwarded_rows":\d+/g, '"forwarded_rows":123456789'));
      const o = await execute(['merge', 'part', '--out', join(dir, 'merged')], dir, false, true);
      check('built/merge-edited-part', o, { messages: [['part: part.json'], ['sha-256']] });
    },
    TEST_TIMEOUT,
  );

  it.concurrent(
    'a FIFO as the config: refused at once (reading it would block forever)',
    async () => {
      const dir = tempDir();
      execFileSync('mkfifo', [join(dir, 'pipe.yaml')]);
      const o = await execute(['run', 'pipe.yaml'], dir, true, true);
      check('built/fifo-config', o, { messages: [['regular']] });
    },
    TEST_TIMEOUT,
  );

  it.concurrent(
    'a symlink to /dev/zero as the config: refused at once',
    async () => {
      const dir = tempDir();
      symlinkSync('/dev/zero', join(dir, 'zero.yaml'));
      const o = await execute(['validate', 'zero.yaml'], dir, true, true);
      check('built/symlink-dev-zero', o, { messages: [['regular']] });
    },
    TEST_TIMEOUT,
  );

  it.concurrent(
    'a FIFO as a histogram CSV: refused at once',
    async () => {
      const dir = tempDir();
      execFileSync('mkfifo', [join(dir, 'lengths.csv')]);
      writeFileSync(
        join(dir, 'fifo-histogram.yaml'),
        'name: fifo-histogram\ntable: { name: t, columns: [{ name: id, type: int }, { name: body, type: varchar(100) }] }\nengine: { format: ase-dol }\nworkload:\n  - insert: { rows: 10, values: { body: { length: { histogram: lengths.csv } } } }\n',
      );
      const o = await execute(['run', 'fifo-histogram.yaml'], dir, true, true);
      check('built/fifo-histogram', o, {
        position: { spec: 'yes', re: positionRe('yes', 'fifo-histogram.yaml')! },
        messages: [['regular']],
      });
    },
    TEST_TIMEOUT,
  );
});

// ---- generated: mutations of the sim-configs ----------------------------------------------------

describe('generated bad inputs: mutated sim-configs (fast-check, fixed seed)', () => {
  const data = join(ROOT, 'sim-configs', 'data');
  const stageGenerated = (text: string): string => {
    const dir = tempDir('rowsim-corpus-gen-');
    cpSync(data, join(dir, 'data'), { recursive: true });
    writeFileSync(join(dir, 'gen.yaml'), text);
    return dir;
  };
  /** exit 0: the output folder must be complete; exit 2: nothing may have been written. */
  const checkGenerated = (id: string, command: 'run' | 'estimate', o: Outcome) => {
    const exp: Expectation = { messages: [], codes: [0, 2] };
    let changes = o.changes;
    const extra: string[] = [];
    if (o.result.code === 0 && !o.result.hung) {
      const want = command === 'run' ? 'out/results.json' : 'out/estimate.json';
      try {
        JSON.parse(readFileSync(join(o.dir, want), 'utf8'));
      } catch (err) {
        extra.push(`[output] exit 0 but ${want} does not parse: ${(err as Error).message}`);
      }
      const stray = readdirSync(o.dir).filter((f) => /\.tmp-|\.old-|^\.estimate-tmp-/.test(f));
      if (stray.length) extra.push(`[output] temporary folders left behind: ${stray.join(', ')}`);
      changes = []; // a complete output folder is what exit 0 should leave
    }
    const problems = [...judge(o.result, exp, changes), ...extra];
    const text = report(id, o, problems);
    expect(problems, `${text}\n  config: ${join(o.dir, 'gen.yaml')}`).toEqual([]);
  };

  it('the shrunk sim-configs the mutations start from are valid (checked in-process)', () => {
    for (const b of shrunkBases()) {
      // Resolved beside the real file, so data/titles-lengths.csv is found.
      const file = join(ROOT, 'sim-configs', b.file);
      if (b.command === 'estimate') expect(() => loadEstimateConfig(file, {}, baseText(b)), b.file).not.toThrow();
      else expect(() => loadConfig(file, baseText(b)), b.file).not.toThrow();
    }
  });

  for (const m of mutants()) {
    it.concurrent(
      `${m.id} ${m.base}: ${m.what}`,
      async () => {
        const dir = stageGenerated(m.text);
        // --workers 1: less start-up work per case; the input checks are the same for any --workers.
        const o = await execute([m.command, 'gen.yaml', '--quiet', '--workers', '1'], dir);
        checkGenerated(`${m.id} ${m.base}: ${m.what}`, m.command, o);
      },
      TEST_TIMEOUT,
    );
  }
});

// ---- positive: sweeping the seed ----------------------------------------------------------------

describe('sweep over the seed', () => {
  // EXPECTED TO FAIL until the sweep-seed fix lands: today every point runs with the config's own
  // seed (loadConfig resolves the storage spec with top.seed, not the swept value), so both points
  // give identical results.
  it(
    'sweep: { seed: [1, 2] } runs two points whose results differ',
    async () => {
      const dir = tempDir();
      writeFileSync(
        join(dir, 'seeds.yaml'),
        [
          'name: seeds',
          'seed: 7',
          'table:',
          '  name: t',
          '  columns:',
          '    - { name: id, type: int }',
          '    - { name: body, type: varchar(300), null: true }',
          'engine: { format: ase-dol, page_size: 2k }',
          'workload:',
          '  - insert: { rows: 2000, values: { body: { length: { uniform: [0, 40] } } } }',
          '  - update: { rows: 50%, order: random, set: { body: { grow: { uniform: [10, 200] } } } }',
          'sweep:',
          '  seed: [1, 2]',
          '',
        ].join('\n'),
      );
      try {
        const o = await execute(['run', 'seeds.yaml', '--quiet'], dir, true, true);
        expect(o.result.code, describeRun(o.argv, o.result)).toBe(0);
        const results = JSON.parse(readFileSync(join(dir, 'out', 'results.json'), 'utf8')) as {
          storage: { params: Record<string, unknown>; phases: unknown; final: unknown }[];
        };
        expect(results.storage.map((p) => p.params)).toEqual([{ seed: 1 }, { seed: 2 }]);
        expect(results.storage[0]!.phases, 'the two seeds gave identical per-phase metrics: the swept seed is not used').not.toEqual(
          results.storage[1]!.phases,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    TEST_TIMEOUT,
  );
});
