// After tsc: the command line's entry and the worker entries bundled into dist/bundle/ (rolldown), so
// that a start-up loads a few files instead of the ~400 modules of dist/ and zod, yaml and the other
// pure-JavaScript packages. Packages with native code or their own worker files (the canvas, piscina,
// pg) stay outside. bin/rowsim.js falls back to dist/cli/main.js when the bundle is missing.
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const out = join(dist, 'bundle');
const EXTERNAL = ['@napi-rs/canvas', 'piscina', 'pg', 'chart.js', 'cli-table3', 'commander', 'dejavu-fonts-ttf'];

// The page-drawing functions report.html and the trace deck carry as script: as tsc compiled them.
const { pageScriptSource } = await import(join(dist, 'mechanism/svg.js'));

await rm(out, { recursive: true, force: true });
await build({
  input: {
    main: join(dist, 'cli/main.js'),
    // Named as the pool and the calibration bench look for them beside the bundle (src/pool/pool.ts, src/calibrate/bench.ts).
    worker: join(dist, 'pool/worker.js'),
    'calibrate-worker': join(dist, 'calibrate/worker.js'),
  },
  platform: 'node',
  external: (id) => id.startsWith('node:') || EXTERNAL.some((p) => id === p || id.startsWith(`${p}/`)),
  logLevel: 'warn',
  transform: { define: { ROWSIM_PAGE_SCRIPT: JSON.stringify(pageScriptSource()) } },
  output: { dir: out, format: 'esm', entryFileNames: '[name].js', chunkFileNames: 'chunk-[hash].js', sourcemap: false },
});
