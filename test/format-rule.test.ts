/**
 * The design rule of src/formats/format.ts: everything format-specific is answered by the format's
 * StorageFormat routine, so no file outside src/formats asks which format it holds — no comparison with a
 * format id (`=== 'ase-dol'`), no `case 'oracle-heap':`, no `switch (…format…)`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FORMAT_IDS, formatForEvidence, getFormat, isFormatId } from '../src/formats/registry.js';
import { INDEX_OPTION_KEYS } from '../src/config/index-settings.js';
import { ROOT } from './helpers/cli.js';

const ids = FORMAT_IDS.map((f) => f.replace(/[-]/g, '\\-')).join('|');
/** A test of which format a value is: a comparison with a format id, a case label, a switch on a format. */
export const FORMAT_TEST = new RegExp(
  `(?:[!=]==?\\s*['"\`](?:${ids})['"\`])|(?:['"\`](?:${ids})['"\`]\\s*[!=]==?)|(?:case\\s+['"\`](?:${ids})['"\`])|(?:switch\\s*\\([^)]*format[^)]*\\))`,
);

function sourcesOutsideFormats(): string[] {
  return execFileSync('git', ['ls-files', '-z', 'src/*.ts', 'bench/*.ts'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && !f.startsWith('src/formats/'));
}

/** A format's id as a string literal in code (comments aside): only src/formats names them (and the benchmarks, which pick the formats they time). */
export const FORMAT_NAMED = new RegExp(`['"\`](?:${ids})['"\`]`);

describe('format-specific code lives in src/formats', () => {
  it('no file outside src/formats tests which format it holds', () => {
    const found: string[] = [];
    for (const file of sourcesOutsideFormats()) {
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (FORMAT_TEST.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found, `ask the format's StorageFormat routine instead:\n${found.join('\n')}`).toEqual([]);
  });

  it('no file outside src/formats names a format: the ids live in the format modules and the registry only', () => {
    const found: string[] = [];
    for (const file of sourcesOutsideFormats().filter((f) => !f.startsWith('bench/'))) {
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (!/^\s*(\*|\/\/|\/\*)/.test(line) && FORMAT_NAMED.test(line.replace(/\/\/.*$/, '')))
            found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found, `ask the registry or the format's routine instead:\n${found.join('\n')}`).toEqual([]);
  });

  it('no file outside src/formats, the page engines and the PostgreSQL oracle names a setting or DDL option a format declares', () => {
    const owned = new Set<string>();
    for (const id of FORMAT_IDS) {
      const f = getFormat(id);
      for (const key of Object.keys(f.settingsShape?.(z) ?? {})) owned.add(key);
      for (const rules of [f.ddl?.with, f.ddl?.withParens, f.ddl?.words, f.ddl?.indexWords])
        for (const [name, rule] of Object.entries(rules ?? {})) if (rule.kind === 'setting') owned.add(name.toLowerCase()).add(rule.key);
    }
    for (const key of INDEX_OPTION_KEYS) owned.delete(key); // the index settings every dialect shares
    expect(owned.has('exp_row_size') && owned.has('pctused') && owned.has('toast_tuple_target')).toBe(true);
    const named = new RegExp(`(?:['"\`](?:${[...owned].join('|')})['"\`])|(?:\\b(?:${[...owned].join('|')})\\??\\s*:)`);
    const found: string[] = [];
    // The page engines (src/heap, src/btree, src/innodb) and the server oracles (src/pgcheck, src/mysqlcheck) are one DBMS's mechanics by design.
    for (const file of sourcesOutsideFormats().filter(
      (f) => !/^(bench|src\/heap|src\/btree|src\/innodb|src\/pgcheck|src\/mysqlcheck)\//.test(f),
    )) {
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (!/^\s*(\*|\/\/|\/\*)/.test(line) && named.test(line.replace(/\/\/.*$/, ''))) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found, `declare it in the format module (settingsShape, ddl) and ask the registry:\n${found.join('\n')}`).toEqual([]);
  });

  it("no file outside src/formats, the page engines and the PostgreSQL oracle compares a knob's key with a format's setting", () => {
    const settings = new Set<string>();
    for (const id of FORMAT_IDS) for (const key of Object.keys(getFormat(id).settingsShape?.(z) ?? {})) settings.add(key);
    expect(settings.has('fillfactor')).toBe(true);
    const compared = new RegExp(`\\.key\\s*[!=]==?\\s*['"\`](?:${[...settings].join('|')})['"\`]`);
    expect(compared.test("knob.key === 'fillfactor' && c.value === 100")).toBe(true);
    const found: string[] = [];
    for (const file of sourcesOutsideFormats().filter(
      (f) => !/^(bench|src\/heap|src\/btree|src\/innodb|src\/pgcheck|src\/mysqlcheck)\//.test(f),
    )) {
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (compared.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found, `declare it on the format's ReserveKnob instead:\n${found.join('\n')}`).toEqual([]);
  });

  it('sees the forms it forbids', () => {
    expect(FORMAT_NAMED.test("opts.format ?? 'ase-dol'")).toBe(true);
    expect(FORMAT_NAMED.test('const f = format.id;')).toBe(false);
    for (const bad of [
      "if (engine.format === 'ase-dol')",
      "x !== 'oracle-heap'",
      "case 'postgres-heap':",
      'switch (spec.engine.format) {',
      "'sqlserver-heap' == f",
    ]) {
      expect(FORMAT_TEST.test(bad), bad).toBe(true);
    }
    expect(FORMAT_TEST.test("format: StorageSpec['engine']['format'] = 'ase-dol'")).toBe(false);
  });
});

describe('the registry', () => {
  it('takes a table to be in the format whose DBMS produced the tool outputs given (estimate --ddl without --format)', () => {
    expect(formatForEvidence(['optdiag'])).toBe('ase-dol');
    expect(formatForEvidence(['sp_spaceused', 'optdiag'])).toBe('ase-dol');
    expect(formatForEvidence(['index_physical_stats'])).toBe('sqlserver-heap');
    expect(formatForEvidence(['pgstattuple'])).toBe('postgres-heap');
    expect(formatForEvidence(['pg_stat_user_tables'])).toBe('postgres-heap');
    expect(formatForEvidence([])).toBe('ase-dol');
  });

  it('knows its own ids and no others', () => {
    for (const id of FORMAT_IDS) expect(isFormatId(id)).toBe(true);
    for (const name of ['ase-dolx', 'oracle', '', 'toString', '__proto__']) expect(isFormatId(name)).toBe(false);
  });
});
