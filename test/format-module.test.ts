/**
 * A format is one module (src/formats/README.md): the toy heap of test/formats, added by one line of the
 * test registry and by nothing in src, has its setting in the config, its clause in the DDL and its column
 * type in both, its reserve knob in a sweep and in the estimator, and runs end to end to the figures of
 * results.json.
 */
import { describe, expect, it } from 'vitest';
import './formats/registry.js';
import { InputError } from '../src/config/errors.js';
import { parseDdl } from '../src/table/ddl.js';
import { availableFormats } from '../src/formats/registry.js';
import { runStorage } from '../src/workload/runner.js';
import { storageEntry, storageTerminal, sweepAxis } from '../src/report/storage.js';
import { loadConfig, loadEstimateConfig } from '../src/loader/config.js';
import { runEstimate } from '../src/estimate/estimate.js';
import { spawnSync } from 'node:child_process';
import { ROOT } from './helpers/cli.js';

const config = (engine: string, table: string) => `
name: toy
table:
${table}
engine:
${engine}
workload:
  - insert: { rows: 2000, values: { note: { length: 20 } } }
  - update: { rows: 2000, set: { note: { length: 120 } } }
`;
const columns = `  name: t
  columns:
    - { name: id, type: toyint }
    - { name: note, type: varchar2(200) }`;
const ddl = (gap: number) => `  ddl: |
    CREATE TABLE t (id TOYINT NOT NULL, note VARCHAR2(200) NOT NULL) TOYGAP ${gap};`;

function run(text: string) {
  const cfg = loadConfig('toy.yaml', text);
  const point = cfg.storage[0]!;
  return { point, entry: storageEntry(point, runStorage(point.spec)) };
}

describe('a format added in the test tree alone', () => {
  it('is in the registry, after the built-in formats', () => {
    expect(availableFormats().at(-1)).toBe('toy-heap');
  });

  it('its DDL clause and column type are read, and the clause shows its DBMS', () => {
    const t = parseDdl('CREATE TABLE t (id toyint NOT NULL, note varchar2(200) NOT NULL) TOYGAP 30;');
    expect(t.columns[0]!.type).toMatchObject({ name: 'toyint', family: 'int' });
    expect((t.storage as Record<string, unknown>).toy_gap).toMatchObject({ value: 30, line: 1 });
    expect(t.storage.dialect).toMatchObject({ value: 'toy', sign: 'TOYGAP' });
    expect(() => parseDdl('CREATE TABLE t (id toyint) TOYGAP 95;')).toThrow(/expected toygap = a whole number from 0 to 90, found "95"/);
  });

  it('its setting is checked by the config loader, as its fragment declares', () => {
    expect(() => loadConfig('toy.yaml', config('  format: toy-heap\n  toy_gap: 99', columns))).toThrow(InputError);
    expect(() => loadConfig('toy.yaml', config('  format: toy-heap\n  toy_gap: 99', columns))).toThrow(
      /engine\.toy_gap: expected a number ≤ 90, found 99/,
    );
    // Another format ignores it with a note, as any setting it does not read.
    const other = loadConfig('toy.yaml', config('  format: oracle-heap\n  toy_gap: 20', columns));
    expect(other.storage[0]!.spec.engine.ignored).toEqual(['toy_gap']);
  });

  it('runs end to end: the setting, from the config or from the DDL, gives the figures', () => {
    const tight = run(config('  format: toy-heap\n  toy_gap: 0', columns));
    const roomy = run(config('  format: toy-heap\n  toy_gap: 40', columns));
    const fromDdl = run(config('  format: toy-heap', ddl(40)));
    expect(tight.point.spec.engine).toMatchObject({ format: 'toy-heap', toy_gap: 0 });
    expect(fromDdl.point.spec.engine).toMatchObject({ toy_gap: 40 });
    const pages = (e: typeof tight.entry) => e.phases[0]!.metrics.pages;
    const moved = (e: typeof tight.entry) => e.phases.at(-1)!.metrics.forwarded_rows;
    expect(pages(roomy.entry)).toBeGreaterThan(pages(tight.entry));
    expect(moved(roomy.entry)).toBeLessThan(moved(tight.entry));
    expect(pages(fromDdl.entry)).toBe(pages(roomy.entry));
    expect(moved(fromDdl.entry)).toBe(moved(roomy.entry));
  });

  it('its reserve knob: a sweep over it shows the knob in its unit, and the estimator tunes it', async () => {
    const swept = loadConfig('toy.yaml', config('  format: toy-heap', columns) + 'sweep:\n  engine.toy_gap: [0, 40]\n');
    const entries = swept.storage.map((p) => storageEntry(p, runStorage(p.spec)));
    expect(sweepAxis(entries)).toMatchObject({ xLabel: 'toy_gap (%)', categories: ['0', '40'] });
    expect(storageTerminal(entries)).toMatch(/toy_gap/);
    const est = loadEstimateConfig('toy.yaml', { sample_rows: 2000, seeds: 2 }, config('  format: toy-heap', columns));
    const toy = (await runEstimate(est)).formats[0]!;
    expect(toy).toMatchObject({ format: 'toy-heap', knob: 'toy_gap', commands: [expect.stringMatching(/^ALTER TABLE t TOYGAP \d+;$/)] });
    expect(toy.forwarding_target.value).toBeGreaterThan(0);
    // Another format's estimate takes it in too: estimate.formats holds the registry's ids when it is read.
    const both = config('  format: oracle-heap', columns) + 'estimate:\n  formats: [toy-heap]\n';
    expect(loadEstimateConfig('toy.yaml', {}, both).formats).toEqual(['oracle-heap', 'toy-heap']);
  });

  it('is named by no code outside the test tree: nothing but its module and the test registry was written for it', () => {
    const code = ['src/*.ts', 'bench/*.ts', 'scripts/*', 'bin/*', 'sim-configs/*'];
    const grep = spawnSync('git', ['grep', '-n', '-i', '-E', 'toy[-_]?(heap|gap|int)', '--', ...code], { cwd: ROOT, encoding: 'utf8' });
    expect(grep.status, grep.stdout).toBe(1); // git grep: 1 when nothing matched
  });
});
