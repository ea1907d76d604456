// After tsc: the command line's entry and the worker entries bundled into dist/bundle/ (rolldown), so
// that a start-up loads a few dozen files instead of hundreds of modules of dist/, zod, yaml and commander.
// Packages with native code or worker files of their own (the canvas, piscina, pg) and those loaded only
// where a chart or a table is drawn (chart.js, cli-table3) stay outside. bin/rowsim.js falls back to
// dist/cli/main.js when the bundle is missing or older than it (docs/development.md, "The bundle").
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const out = join(dist, 'bundle');
const EXTERNAL = ['@napi-rs/canvas', 'piscina', 'pg', 'chart.js', 'cli-table3', 'dejavu-fonts-ttf'];

/**
 * commander goes into the bundle. src/cli/commander.ts require()s it (outside a bundle that is cheaper
 * than importing CommonJS); here it is imported, so that the bundler takes it in. And commander's
 * require of node:child_process, which only its executable subcommands use (rowsim has none), is made
 * lazy: loading that built-in module took about 15 ms of `rowsim --help`'s CPU in a profile.
 */
const commanderInBundle = {
  name: 'rowsim-commander',
  load(id) {
    if (id === join(dist, 'cli/commander.js')) return "export { Command, CommanderError, InvalidArgumentError } from 'commander';\n";
    return null;
  },
  transform(code, id) {
    if (!id.includes('/node_modules/commander/lib/command.js')) return null;
    const eager = "const childProcess = require('node:child_process');";
    if (!code.includes(eager)) throw new Error(`scripts/bundle.mjs: commander's ${id} no longer has ${eager}`);
    return code.replace(eager, "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };");
  },
};

// The page-drawing functions report.html and the trace deck carry as script: as tsc compiled them.
const { pageScriptSource } = await import(pathToFileURL(join(dist, 'mechanism/svg.js')).href);

await rm(out, { recursive: true, force: true });
await build({
  input: {
    main: join(dist, 'cli/main.js'),
    // Named as the pool and the calibration bench look for them beside the bundle (src/run/tasks.ts, src/calibrate/bench.ts).
    worker: join(dist, 'run/task-worker.js'),
    'calibrate-worker': join(dist, 'calibrate/worker.js'),
  },
  platform: 'node',
  plugins: [commanderInBundle],
  external: (id) => id.startsWith('node:') || EXTERNAL.some((p) => id === p || id.startsWith(`${p}/`)),
  logLevel: 'warn',
  transform: { define: { ROWSIM_PAGE_SCRIPT: JSON.stringify(pageScriptSource()) } },
  output: { dir: out, format: 'esm', entryFileNames: '[name].js', chunkFileNames: 'chunk-[hash].js', sourcemap: false },
});
