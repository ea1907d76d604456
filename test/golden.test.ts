/**
 * The figures of every shipped sim-config, byte for byte: a change to the code that moves a simulated
 * figure shows here. When a change is meant to move figures (a model fixed or refined), regenerate the
 * files with ROWSIM_UPDATE_GOLDEN=1 npm test and say why in the commit.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, rowsim } from './helpers/cli.js';

const GOLDEN = join(ROOT, 'test', 'golden');
const update = process.env.ROWSIM_UPDATE_GOLDEN === '1';

function check(file: string, actual: string): void {
  const path = join(GOLDEN, file);
  if (update) writeFileSync(path, actual);
  expect(actual, `${file} differs from test/golden (ROWSIM_UPDATE_GOLDEN=1 rewrites it)`).toBe(readFileSync(path, 'utf8'));
}

const configs = readdirSync(join(ROOT, 'sim-configs')).filter((f) => f.endsWith('.yaml'));

/** The contention configs run replications and sweeps: minutes on two shared cores, not seconds. */
const TIMEOUT_MS = 400_000;

describe('sim-configs give the same figures as test/golden', () => {
  it.each(configs)('%s', { timeout: TIMEOUT_MS }, (config) => {
    const name = config.replace(/\.yaml$/, '');
    const path = join(ROOT, 'sim-configs', config);
    const out = join(mkdtempSync(join(tmpdir(), 'rowsim-golden-')), name);
    if (name.startsWith('estimate-')) {
      const r = rowsim(['estimate', path, '--out', out, '--quiet']);
      // Exit status 3 (nothing to apply) is an estimate too: --quiet then prints only its reason.
      expect([0, 3]).toContain(r.code);
      if (r.code === 0) expect(r.stderr).toBe('');
      else expect(r.stderr).toMatch(/^rowsim estimate: (the evidence cannot be reproduced|no (setting|\S+) meets)/);
      check(`${name}.estimate.json`, readFileSync(join(out, 'estimate.json'), 'utf8'));
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
