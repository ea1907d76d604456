/**
 * A long-lived child process of the bad-input corpus (test/helpers/corpus.ts, inProcessRunner): loads
 * rowsim's command line once, as bin/rowsim.js does, then runs one case after another in this process:
 * each a message `{ id, argv, cwd }` on the IPC channel, answered with `{ id, code, stdout, stderr, ms }`
 * once main() has returned. stdout and stderr are captured by replacing their write(); the exit status
 * is what main() returns (bin/rowsim.js sets it as the process's). A case that ends this process (an
 * uncaught exception, process.exit) is run again by the parent as a process of its own.
 */
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const at = (rel) => new URL(rel, import.meta.url);

/** bin/rowsim.js's choice: the bundle unless it is missing or older than the compiled sources. */
function entry() {
  try {
    if (statSync(at('../../dist/bundle/main.js')).mtimeMs >= statSync(at('../../dist/cli/main.js')).mtimeMs)
      return at('../../dist/bundle/main.js').href;
  } catch {
    // No bundle: the compiled sources.
  }
  return at('../../dist/cli/main.js').href;
}

const BIN = fileURLToPath(at('../../bin/rowsim.js'));
const { main, reportInternalError } = await import(entry());

let stdout = '';
let stderr = '';
const capture = (append) =>
  function write(chunk, encoding, callback) {
    append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const done = typeof encoding === 'function' ? encoding : callback;
    if (done) process.nextTick(done);
    return true;
  };
process.stdout.write = capture((s) => (stdout += s));
process.stderr.write = capture((s) => (stderr += s));

process.on('message', async (req) => {
  stdout = '';
  stderr = '';
  process.exitCode = undefined;
  const started = Date.now();
  process.chdir(req.cwd);
  let code;
  try {
    code = await main([process.execPath, BIN, ...req.argv]);
  } catch (err) {
    reportInternalError(err);
    code = 1;
  }
  // What main() left to run (a pool's threads closing, a stream's last write) before the answer.
  await new Promise((resolve) => setImmediate(resolve));
  process.send({ id: req.id, code, stdout, stderr, ms: Date.now() - started });
});
// The test's process has gone: so has this one's work.
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });
