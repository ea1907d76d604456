/**
 * Limits checked before a run starts: the memory its tables need against the memory this machine has.
 * The sweep's size and the contention model's event budget are checked by the config loader.
 */
import { readFileSync } from 'node:fs';
import { freemem } from 'node:os';
import { InputError } from '../config/errors.js';
import type { RunConfig } from '../loader/config.js';
import { defaultWorkers } from '../pool/pool.js';
import { parseSize } from '../util/units.js';
import { MAX_TABLE_ROWS, storageMemory } from '../workload/memory.js';
import { groupedNumber } from '../util/numbers.js';

/** Share of the available memory a run may plan to use. */
const MEMORY_SHARE = 0.9;
/** Node.js itself, and each worker thread. */
const PROCESS_BASE_BYTES = 80 * 1048576;
const WORKER_BASE_BYTES = 40 * 1048576;

function readNumber(path: string): number | undefined {
  try {
    const v = readFileSync(path, 'utf8').trim();
    return /^\d+$/.test(v) ? Number(v) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Memory this process may use: ROWSIM_MAX_MEMORY when set (a size such as 2g), else the least of the
 * kernel's MemAvailable and what the control group (container) limit leaves.
 */
function availableMemory(): { bytes: number; source: string } {
  const env = process.env.ROWSIM_MAX_MEMORY;
  if (env) {
    try {
      return { bytes: parseSize(env), source: 'ROWSIM_MAX_MEMORY' };
    } catch {
      throw new InputError([{ file: 'ROWSIM_MAX_MEMORY', message: `expected a size such as 2g or 512m, found ${JSON.stringify(env)}` }]);
    }
  }
  const found: { bytes: number; source: string }[] = [];
  try {
    const m = /^MemAvailable:\s+(\d+)\s+kB/m.exec(readFileSync('/proc/meminfo', 'utf8'));
    if (m) found.push({ bytes: Number(m[1]) * 1024, source: 'available memory' });
  } catch {
    found.push({ bytes: freemem(), source: 'free memory' });
  }
  const v2 = readNumber('/sys/fs/cgroup/memory.max');
  if (v2 !== undefined)
    found.push({ bytes: v2 - (readNumber('/sys/fs/cgroup/memory.current') ?? 0), source: 'the container memory limit' });
  const v1 = readNumber('/sys/fs/cgroup/memory/memory.limit_in_bytes');
  if (v1 !== undefined && v1 < 2 ** 60)
    found.push({ bytes: v1 - (readNumber('/sys/fs/cgroup/memory/memory.usage_in_bytes') ?? 0), source: 'the container memory limit' });
  if (found.length === 0) found.push({ bytes: freemem(), source: 'free memory' });
  return found.reduce((a, b) => (b.bytes < a.bytes ? b : a));
}

function gib(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GiB` : `${Math.ceil(bytes / 1048576)} MiB`;
}

/**
 * Refuse (InputError, exit 2) a run whose tables cannot fit in memory; `validate` calls it too. Returns
 * the memory the run's tables need in all (every sweep point's, each point's at its largest).
 */
export function checkRunLimits(cfg: RunConfig, opts: { workers?: number }): number {
  if (cfg.storage.length === 0) return 0;
  let largest = { index: 0, bytes: 0, rows: 0, bytesPerRow: 0 };
  let total = 0;
  for (const [index, point] of cfg.storage.entries()) {
    const m = storageMemory(point.spec);
    total += m.bytes;
    if (m.rows > MAX_TABLE_ROWS) {
      throw new InputError([
        at(
          cfg,
          `expected at most ${groupedNumber(MAX_TABLE_ROWS)} rows in a table (row ids are 32-bit), found ${groupedNumber(m.rows)}${cfg.storage.length > 1 ? ` at sweep point ${point.label}` : ''}`,
        ),
      ]);
    }
    if (m.bytes > largest.bytes) largest = { index, ...m };
  }
  const atOnce = Math.min(cfg.storage.length, opts.workers ?? defaultWorkers());
  const need = largest.bytes * atOnce + PROCESS_BASE_BYTES + WORKER_BASE_BYTES * atOnce;
  const avail = availableMemory();
  const limit = avail.bytes * MEMORY_SHARE;
  if (need <= limit) return total;
  const point = cfg.storage[largest.index]!;
  const what = `${groupedNumber(largest.rows)} rows × ${largest.bytesPerRow.toFixed(0)} bytes on ${point.spec.engine.format}${atOnce > 1 ? `, ${atOnce} sweep points at a time` : ''}`;
  throw new InputError([
    at(
      cfg,
      `expected a table that fits in memory: the run needs about ${gib(need)} (${what}), more than the ${gib(limit)} it may use (${Math.round(MEMORY_SHARE * 100)}% of ${gib(avail.bytes)}, ${avail.source}); use fewer rows (rowsim estimate samples a large table and extrapolates)${atOnce > 1 ? ' or fewer --workers' : ''}`,
    ),
  ]);
}

/** A problem positioned at the first insert phase's row count (the figure to change). */
function at(cfg: RunConfig, message: string) {
  const spec = cfg.storage[0]!.spec;
  const i = spec.workload.findIndex((p) => p.op === 'insert');
  return cfg.loc.problem(i >= 0 ? ['workload', i, 'insert', 'rows'] : ['workload'], message);
}
