/**
 * The golden files (test/golden/): the figures of every shipped sim-config, byte for byte. A file of
 * tests a kind of config (test/golden-*.test.ts), so that the kinds run side by side: the storage runs,
 * the contention runs (replications and sweeps: minutes on two shared cores), the estimates and rowsize.
 * When a change is meant to move figures (a model fixed or refined), regenerate the files with
 * ROWSIM_UPDATE_GOLDEN=1 npm test and say why in the commit.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, rowsim } from './cli.js';

const GOLDEN = join(ROOT, 'test', 'golden');
const update = process.env.ROWSIM_UPDATE_GOLDEN === '1';

export type GoldenKind = 'storage' | 'contention' | 'estimate';

function check(file: string, actual: string): void {
  const path = join(GOLDEN, file);
  if (update) writeFileSync(path, actual);
  expect(actual, `${file} differs from test/golden (ROWSIM_UPDATE_GOLDEN=1 rewrites it)`).toBe(readFileSync(path, 'utf8'));
}

/** The kind of a sim-config: an estimate (estimate-*.yaml), a contention run (a top-level contention:), else storage (rowsize's too). */
function kindOf(config: string): GoldenKind {
  if (config.startsWith('estimate-')) return 'estimate';
  return /^contention:/m.test(readFileSync(join(ROOT, 'sim-configs', config), 'utf8')) ? 'contention' : 'storage';
}

/** Every shipped sim-config, each of one kind. */
export function goldenConfigs(): { config: string; kind: GoldenKind }[] {
  return readdirSync(join(ROOT, 'sim-configs'))
    .filter((f) => f.endsWith('.yaml'))
    .map((config) => ({ config, kind: kindOf(config) }));
}

/** The contention configs run replications and sweeps: minutes on two shared cores, not seconds. */
const TIMEOUT_MS = 400_000;

/** An estimate sim-config's run: `rowsim estimate <config> --out <temp> --quiet`. */
export interface EstimateRun {
  code: number;
  stderr: string;
  /** estimate.json as written. */
  text: string;
}

const estimateRuns = new Map<string, EstimateRun>();

/**
 * The run of estimate sim-config `config`, once per test file: the golden test compares its estimate.json
 * byte for byte, and test/golden-estimate.test.ts checks what the shipped examples show on the same file
 * (an estimate of the examples takes tens of CPU-seconds; running it once more for each check doubled that).
 */
export function estimateRun(config: string): EstimateRun {
  let run = estimateRuns.get(config);
  if (!run) {
    const out = join(mkdtempSync(join(tmpdir(), 'rowsim-golden-')), config.replace(/\.yaml$/, ''));
    const r = rowsim(['estimate', join(ROOT, 'sim-configs', config), '--out', out, '--quiet']);
    run = { code: r.code, stderr: r.stderr, text: r.code === 0 || r.code === 3 ? readFileSync(join(out, 'estimate.json'), 'utf8') : '' };
    estimateRuns.set(config, run);
  }
  return run;
}

/** The tests of one kind's configs. */
export function goldenTests(kind: GoldenKind): void {
  const configs = goldenConfigs()
    .filter((c) => c.kind === kind)
    .map((c) => c.config);
  describe(`sim-configs (${kind}) give the same figures as test/golden`, () => {
    it.each(configs)('%s', { timeout: TIMEOUT_MS }, (config) => {
      const name = config.replace(/\.yaml$/, '');
      const path = join(ROOT, 'sim-configs', config);
      const out = join(mkdtempSync(join(tmpdir(), 'rowsim-golden-')), name);
      if (kind === 'estimate') {
        const r = estimateRun(config);
        // Exit status 3 (nothing to apply) is an estimate too: --quiet then prints only its reason.
        expect([0, 3], r.stderr).toContain(r.code);
        if (r.code === 0) expect(r.stderr).toBe('');
        else expect(r.stderr).toMatch(/^rowsim estimate: (the evidence cannot be reproduced|no (setting|\S+) meets)/);
        check(`${name}.estimate.json`, r.text);
      } else if (name === 'uuid-vs-char35') {
        const r = rowsim(['rowsize', path, '--json']);
        expect(r.stderr).toBe('');
        check(`${name}.rowsize.json`, r.stdout);
      } else {
        const r = rowsim(['run', path, '--out', out, '--quiet', '--check']);
        expect(r.stderr).toBe('');
        check(`${name}.results.json`, readFileSync(join(out, 'results.json'), 'utf8'));
      }
    });
  });
}
