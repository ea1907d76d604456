/** Worker task: run one storage sweep point. */
import type { StorageSpec } from '../config/spec.js';
import { runStorage, type StorageRunResult } from './runner.js';

export interface StorageTask {
  spec: StorageSpec;
  /** Page maps of at most this many cells (RUN_DEFAULTS.pageMapMaxCells). */
  pageMapMaxCells: number;
  /** Check the page engine's invariants after every phase. */
  checkInvariants: boolean;
}

export function runTask(payload: unknown): StorageRunResult {
  const task = payload as StorageTask;
  return runStorage(task.spec, { pageMapMaxCells: task.pageMapMaxCells, checkInvariants: task.checkInvariants });
}
