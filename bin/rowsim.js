#!/usr/bin/env node
// `rowsim run … | head` closes the pipe early: that is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err && err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

/**
 * The bundle of dist/bundle/ (scripts/bundle.mjs: a few files to load instead of hundreds of modules),
 * unless it is missing or older than the compiled sources (a `tsc` run since the last `npm run build`), or
 * ROWSIM_BUNDLE=0 asks for the compiled sources (the start-up tests read which modules a command loads).
 */
async function entry() {
  if (process.env.ROWSIM_BUNDLE === '0') return '../dist/cli/main.js';
  const { statSync } = await import('node:fs');
  const at = (rel) => new URL(rel, import.meta.url);
  try {
    if (statSync(at('../dist/bundle/main.js')).mtimeMs >= statSync(at('../dist/cli/main.js')).mtimeMs) return '../dist/bundle/main.js';
  } catch {
    // No bundle: the compiled sources.
  }
  return '../dist/cli/main.js';
}

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // What commander prints for --version, without loading it or the commands.
  const { ROWSIM_VERSION } = await import('../dist/version.js');
  process.stdout.write(`${ROWSIM_VERSION}\n`);
} else {
  const { main, reportInternalError } = await import(await entry());
  main(process.argv).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      // main() reports every error itself; this is a last resort.
      reportInternalError(err);
      process.exitCode = 1;
    },
  );
}
