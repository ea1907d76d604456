/**
 * The golden files are checked by kind (test/golden-storage.test.ts, test/golden-contention.test.ts,
 * test/golden-estimate.test.ts, with test/helpers/golden.ts), side by side. Here: every shipped
 * sim-config is of a kind whose file checks it, and every golden file belongs to a shipped config.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';
import { goldenConfigs } from './helpers/golden.js';

describe('the golden files', () => {
  it('every shipped sim-config is checked by the file of its kind', () => {
    const configs = goldenConfigs();
    expect(configs.length).toBe(readdirSync(join(ROOT, 'sim-configs')).filter((f) => f.endsWith('.yaml')).length);
    for (const kind of ['storage', 'contention', 'estimate']) {
      expect(configs.filter((c) => c.kind === kind).length, kind).toBeGreaterThan(0);
      expect(readdirSync(join(ROOT, 'test')), kind).toContain(`golden-${kind}.test.ts`);
    }
  });

  it('every golden file belongs to a shipped sim-config', () => {
    const names = new Set(goldenConfigs().map((c) => c.config.replace(/\.yaml$/, '')));
    const orphans = readdirSync(join(ROOT, 'test', 'golden')).filter(
      (f) => !names.has(f.replace(/\.(results|estimate|rowsize)\.json$/, '')),
    );
    expect(orphans).toEqual([]);
  });
});
