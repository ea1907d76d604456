/**
 * A reader sees a function whole: no function in src/ (or bench/) over MAX_FUNCTION_LINES lines, and no
 * source file over MAX_FILE_LINES lines, as Prettier lays them out. scripts/function-sizes.mjs prints the
 * same list (`node scripts/function-sizes.mjs src`).
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the repository's scripts, without type declarations
import { MAX_FUNCTION_LINES, functionsOf, longFunctions } from '../scripts/function-sizes.mjs';
import { ROOT } from './helpers/cli.js';

const MAX_FILE_LINES = 800;
const DIRS = ['src', 'bench'].filter((d) => existsSync(join(ROOT, d)));

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : name.endsWith('.ts') && !name.endsWith('.d.ts') ? [p] : [];
  });
}

describe('sizes a reader can hold', () => {
  it(`no function over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = (longFunctions(DIRS, MAX_FUNCTION_LINES, ROOT) as { file: string; line: number; name: string; lines: number }[]).map(
      (f) => `${f.file}:${f.line} ${f.name} ${f.lines} lines`,
    );
    expect(long, 'split these into functions that each do one thing').toEqual([]);
  });

  it(`no source file over ${MAX_FILE_LINES} lines`, () => {
    const big = DIRS.flatMap((d) => tsFiles(join(ROOT, d)))
      .map((f) => ({ f: relative(ROOT, f), n: readFileSync(f, 'utf8').split('\n').length }))
      .filter((x) => x.n > MAX_FILE_LINES)
      .map((x) => `${x.f} ${x.n} lines`);
    expect(big).toEqual([]);
  });

  it('the check sees a long function, a method and an arrow function, and counts their lines', () => {
    const body = Array.from({ length: 80 }, (_, i) => `  x += ${i};`).join('\n');
    const text = `function big(x: number) {\n${body}\n  return x;\n}\nclass C {\n  m() {\n    return 1;\n  }\n}\nconst f = (a: number) => a + 1;\n`;
    const found = functionsOf('t.ts', text) as { name: string; lines: number; line: number }[];
    expect(found.map((f) => [f.name, f.lines])).toEqual([
      ['big', 83],
      ['C.m', 3],
      ['f', 1],
    ]);
  });
});
