/**
 * vitest's first global setup: many tests run the built command line (dist/, bin/rowsim.js) and the
 * built bench (bench/dist/), so build them when they are missing or older than what they are built
 * from. After `npm ci` (whose prepare script builds dist/) or a build of one's own, this costs a walk over
 * the sources' modification times and nothing else, so CI builds once; after a fresh clone, or an edit
 * since the last build, `npm test` builds first, as it always did.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers/cli.js';

/** The newest modification time of `paths` (files, or folders walked for .ts, .mjs and .json files); 0 when none exists. */
function newest(paths: string[]): number {
  let t = 0;
  const walk = (path: string): void => {
    let st;
    try {
      st = statSync(path);
    } catch {
      return;
    }
    if (!st.isDirectory()) t = Math.max(t, st.mtimeMs);
    else for (const e of readdirSync(path)) if (e !== 'dist' && (/\.(ts|mjs|json)$/.test(e) || !e.includes('.'))) walk(join(path, e));
  };
  for (const p of paths) walk(join(ROOT, p));
  return t;
}

/** When `output` (written last by the build) is missing or older than any of `inputs`, run `npm run <script>`. */
function buildIfStale(script: string, output: string, inputs: string[]): void {
  let built = 0;
  try {
    built = statSync(join(ROOT, output)).mtimeMs;
  } catch {
    // Never built.
  }
  if (built > 0 && built >= newest(inputs)) return;
  process.stderr.write(`npm test: ${output} is ${built ? 'older than its sources' : 'missing'}: npm run ${script}\n`);
  execFileSync('npm', ['run', '--silent', script], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
}

export default function setup(): void {
  if (process.env.ROWSIM_TEST_BUILD === '0') return;
  // scripts/bundle.mjs writes dist/bundle/main.js last of `npm run build`.
  buildIfStale('build', 'dist/bundle/main.js', ['src', 'scripts/bundle.mjs', 'tsconfig.json', 'package.json']);
  buildIfStale('build:bench', 'bench/dist/bench/index.js', ['bench', 'src', 'tsconfig.json']);
}
