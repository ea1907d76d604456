/** The golden files of the contention sim-configs (test/helpers/golden.ts; test/golden.test.ts checks that every config has its kind). */
import { goldenTests } from './helpers/golden.js';

goldenTests('contention');
