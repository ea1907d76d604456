/**
 * Work to undo when the process is interrupted (SIGINT, SIGTERM): temporary folders to remove, locks
 * to release, a database schema to drop. Each piece of work registers itself while it holds something
 * and unregisters when it is done; a signal runs what is registered, newest first, then exits with the
 * shell's status for that signal (130 for SIGINT, 143 for SIGTERM).
 */
type Cleanup = () => void | Promise<void>;

const registered = new Set<Cleanup>();
let installed = false;
let exiting = false;

/** Bound on the time asynchronous clean-ups get after a signal before the process exits anyway. */
const CLEANUP_TIMEOUT_MS = 10_000;

export type StopSignal = 'SIGINT' | 'SIGTERM';
/** Exit statuses of a run stopped by a signal: 128 + the signal number, as a shell reports them. */
export const SIGNAL_EXIT: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

/** Register `fn` to run on SIGINT/SIGTERM; returns the function that unregisters it. */
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
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (exiting) return; // a second signal while cleaning up: let the first finish
      exiting = true;
      const timer = setTimeout(() => process.exit(SIGNAL_EXIT[signal]), CLEANUP_TIMEOUT_MS);
      timer.unref();
      void runCleanups().finally(() => process.exit(SIGNAL_EXIT[signal]));
    });
  }
}
