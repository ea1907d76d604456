#!/usr/bin/env node
// `rowsim run … | head` closes the pipe early: that is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err && err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // What commander prints for --version, without loading it or the commands.
  const { ROWSIM_VERSION } = await import('../dist/version.js');
  process.stdout.write(`${ROWSIM_VERSION}\n`);
} else {
  const { main, reportInternalError } = await import('../dist/cli/main.js');
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
