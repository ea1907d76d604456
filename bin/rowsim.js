#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

main(process.argv).then(
  (code) => { process.exitCode = code; },
  (err) => { console.error(err && err.stack ? err.stack : String(err)); process.exitCode = 1; },
);
