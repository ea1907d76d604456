/**
 * Work to undo when the process is stopped by a signal (SIGINT: Ctrl-C; SIGTERM: a service manager or
 * `kill`; SIGHUP: the terminal closed, an ssh session dropped): temporary folders to remove, locks to
 * release. Each piece of work registers itself while it holds something and unregisters when it is done;
 * a signal runs what is registered, newest first, then ends the process by that same signal.
 *
 * A handler runs on the main thread when its event loop is free, never in the middle of synchronous
 * code: a long simulation runs on worker threads (src/cli/run.ts, src/run/estimate-pool.ts) while the
 * main thread waits, so a stop is seen at once. Ending by the signal itself (the handler taken away, the
 * signal sent again: the GNU C Library manual's advice for a handler that cleans up) stops the worker
 * threads where they stand, even inside a long native call such as a typed array's fill, which
 * process.exit would wait for; they write no files, the main thread does. The shell then reports
 * 128 + the signal's number (SIGNAL_EXIT), and a service manager sees a stop by its own signal.
 */
type Cleanup = () => void | Promise<void>;

const registered = new Set<Cleanup>();
let installed = false;
let exiting = false;

/** Bound on the time asynchronous clean-ups get after a signal before the process exits anyway. */
const CLEANUP_TIMEOUT_MS = 10_000;

/** The signals that stop a command with its clean-ups run. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];
/** Exit statuses of a run stopped by a signal: 128 + the signal number, as a shell reports them. */
export const SIGNAL_EXIT: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/** Register `fn` to run on SIGINT, SIGTERM or SIGHUP; returns the function that unregisters it. */
export function onInterrupt(fn: Cleanup): () => void {
  install();
  registered.add(fn);
  return () => {
    registered.delete(fn);
  };
}

/** Run every registered clean-up (newest first); errors are reported, not thrown. */
async function runCleanups(): Promise<void> {
  const fns = [...registered].reverse();
  registered.clear();
  for (const fn of fns) {
    try {
      await fn();
    } catch (err) {
      process.stderr.write(`rowsim: clean-up after the interrupt failed: ${(err as Error).message}\n`);
    }
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      if (exiting) return; // a second signal while cleaning up: let the first finish
      exiting = true;
      const timer = setTimeout(() => exitBySignal(signal), CLEANUP_TIMEOUT_MS);
      timer.unref();
      void runCleanups().finally(() => exitBySignal(signal));
    });
  }
}

/** How long a process that sent itself its stop signal waits before it exits with SIGNAL_EXIT instead. */
const RAISE_WAIT_MS = 1000;

/**
 * End the process by `signal`: every listener of it removed (Node.js then gives it its default action,
 * termination), the signal sent to this process. Should a listener be added back, exit with the
 * signal's status after RAISE_WAIT_MS.
 */
export function exitBySignal(signal: StopSignal): void {
  process.removeAllListeners(signal);
  setTimeout(() => process.exit(SIGNAL_EXIT[signal]), RAISE_WAIT_MS);
  process.kill(process.pid, signal);
}
