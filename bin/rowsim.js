#!/usr/bin/env node
import { main, reportInternalError } from '../dist/cli/main.js';

// `rowsim run … | head` closes the pipe early: that is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err && err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

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
