/**
 * Where the bench finds the checkout and its own compiled files: from its sources (bench/*.ts, which the
 * tests import) or from their build (bench/bench/dist/bench/*.js, bench/tsconfig.json, which npm run bench runs).
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The checkout. */
export const ROOT = import.meta.url.endsWith('.ts') ? resolve(here, '..') : resolve(here, '..', '..', '..');

/** The compiled bench: the scripts of its child processes. */
export const BENCH_DIST = join(ROOT, 'bench', 'dist', 'bench');

/** A shipped sim-config. */
export const simConfig = (...name: string[]): string => join(ROOT, 'sim-configs', ...name);
