/** Worker task: run one storage sweep point. */
import type { StorageSpec } from '../config/spec.js';
import { runStorage, type StorageRunResult } from './runner.js';

export interface StorageTask {
  spec: StorageSpec;
  pageMapMaxPages: number;
  /** Check the page engine's invariants after every phase. */
  checkInvariants: boolean;
}

export function runTask(payload: unknown): StorageRunResult {
  const task = payload as StorageTask;
  return runStorage(task.spec, { pageMapMaxPages: task.pageMapMaxPages, checkInvariants: task.checkInvariants });
}
