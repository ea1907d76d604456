// After tsc: the command line's entry and the worker entries bundled into dist/bundle/ (rolldown), so
// that a start-up loads a few dozen files instead of hundreds of modules of dist/, zod, yaml and commander.
// Packages with native code or worker files of their own (the canvas, piscina, pg) and those loaded only
// where a chart or a table is drawn (chart.js, cli-table3) stay outside. bin/rowsim.js falls back to
// dist/cli/main.js when the bundle is missing or older than it (docs/development.md, "Build and benchmarks").
// Then the playground's two browser scripts (`rowsim playground`, docs/playground.md): its engine (the
// same page engines, loader and drawing, for the browser) and its page, from src/playground/page/.
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const out = join(dist, 'bundle');
const EXTERNAL = ['@napi-rs/canvas', 'piscina', 'pg', 'mysql2', 'chart.js', 'cli-table3', 'dejavu-fonts-ttf'];

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

/**
 * The few Node built-ins the loader's modules import, for the browser: paths as plain strings (a config in
 * the page has a name, not a file), and no files, so that a config that names another file says so.
 */
const BROWSER_BUILTINS = {
  'node:path': `
export const isAbsolute = (p) => p.startsWith('/');
export const dirname = (p) => { const i = p.replace(/\\/+$/, '').lastIndexOf('/'); return i < 0 ? '.' : i === 0 ? '/' : p.slice(0, i); };
export const resolve = (...ps) => { const out = []; for (const p of ps) { if (p.startsWith('/')) out.length = 0; for (const part of p.split('/')) { if (part === '..') out.pop(); else if (part && part !== '.') out.push(part); } } return '/' + out.join('/'); };`,
  'node:fs': `
const noFiles = () => { throw Object.assign(new Error('the playground reads no files: put the data in the config'), { code: 'ENOENT' }); };
export const constants = { O_RDONLY: 0, O_NONBLOCK: 0 };
export const openSync = noFiles, closeSync = noFiles, fstatSync = noFiles, readFileSync = noFiles, realpathSync = noFiles;`,
  'node:module': `
export const createRequire = () => () => { throw new Error('not in the browser'); };`,
};
const browserBuiltins = {
  name: 'rowsim-browser-builtins',
  resolveId(id) {
    if (id in BROWSER_BUILTINS) return { id: `\0${id}` };
    if (id.startsWith('node:'))
      throw new Error(`scripts/bundle.mjs: the playground's engine imports ${id}: give it a browser stand-in in BROWSER_BUILTINS`);
    return null;
  },
  load: (id) => (id.startsWith('\0node:') ? BROWSER_BUILTINS[id.slice(1)] : null),
};

await build({
  input: join(dist, 'playground/engine.js'),
  platform: 'browser',
  plugins: [browserBuiltins],
  logLevel: 'warn',
  output: { file: join(out, 'playground-engine.js'), format: 'iife', name: 'RowsimEngine', minify: true },
});
await build({
  input: join(root, 'src/playground/page/main.ts'),
  platform: 'browser',
  logLevel: 'warn',
  output: { file: join(out, 'playground-page.js'), format: 'iife', minify: true },
});
