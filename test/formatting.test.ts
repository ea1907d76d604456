/**
 * One layout for every source file: Prettier's check over what git tracks (.prettierrc.json: 140 columns,
 * single quotes). A file that differs is named; `npx prettier --write <file>` fixes it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';

const FORMATTED = /^(src|test|scripts|bench|bin)\/.*\.(ts|mjs|js)$|^vitest\.config\.ts$/;

function tracked(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => FORMATTED.test(f) && !f.startsWith('test/golden/') && !f.startsWith('test/corpus/') && !f.startsWith('test/fixtures/'));
}

describe('formatting', () => {
  it('every tracked source file is as Prettier writes it', async () => {
    const files = tracked();
    expect(files.length).toBeGreaterThan(100);
    const options = JSON.parse(readFileSync(join(ROOT, '.prettierrc.json'), 'utf8'));
    const differ: string[] = [];
    for (const f of files) {
      const text = readFileSync(join(ROOT, f), 'utf8');
      if (!(await prettier.check(text, { ...options, filepath: f }))) differ.push(f);
    }
    expect(differ, 'run npx prettier --write on these').toEqual([]);
  }, 120_000);
});
