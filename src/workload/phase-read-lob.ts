/**
 * A read_lob phase: each chosen row's value of the column read in chunks (lobReadCost: keep reads on,
 * restart reads from the first byte each time), through the LOB store of the format (or Derby's). With a
 * buffer cache, every LOB page read goes through it, the values laid out in row order.
 */
import type { PhaseSpec } from '../config/spec.js';
import { derbyLobStore, lobReadCost, type LobStore } from '../formats/lob.js';
import { PageReads } from '../heap/page-reads.js';
import { groupedNumber } from '../util/numbers.js';
import { Prng } from '../util/prng.js';
import { resolveCount } from '../util/units.js';
import { readResult } from './reads.js';
import { BATCH } from './row-values.js';
import type { RunState } from './run-state.js';
import type { PhaseOutcome } from './run-types.js';

type ReadLobSpec = Extract<PhaseSpec, { op: 'read_lob' }>;

/** What a read_lob phase read: values, chunk reads, bytes processed, lookup pages. */
interface LobTally {
  valuesRead: number;
  chunkReads: number;
  bytes: number;
  valueBytes: number;
  lookups: number;
}

export function readLobPhase(run: RunState, phase: ReadLobSpec, index: number): PhaseOutcome {
  const col = run.layout.columns.find((c) => c.name === phase.column)!;
  const store = phase.store === 'derby' ? derbyLobStore() : run.format.reads.lobStore!(run.layout, run.spec.engine);
  const whole = run.lobs!.get(col.varIndex)!;
  const reads = new PageReads(run.cache());
  const values = run.engine.liveRows();
  const firstPage = reads.cache !== null ? lobFirstPages(run, whole, store) : null;
  const picker = run.picker(phase.rows, phase.order, Prng.derive(run.spec.seed, 'phase', index, phase.op));
  const rows = new Int32Array(BATCH);
  const tally: LobTally = { valuesRead: 0, chunkReads: 0, bytes: 0, valueBytes: 0, lookups: 0 };
  for (;;) {
    const count = picker.next(rows);
    if (count === 0) break;
    for (let i = 0; i < count; i++) readValue(phase, store, values, whole[rows[i]!]!, firstPage?.[rows[i]!] ?? -1, reads, tally);
  }
  const n = resolveCount(phase.rows, values);
  return lobOutcome(run, phase, store, n, reads, tally);
}

/** With a cache: each value's first LOB page, the values laid out one after the other in row order. */
function lobFirstPages(run: RunState, whole: Uint32Array, store: LobStore): Float64Array {
  const firstPage = new Float64Array(run.nextRow + 1);
  for (let r = 0; r < run.nextRow; r++)
    firstPage[r + 1] = firstPage[r]! + (run.engine.isLive(r) ? Math.ceil(whole[r]! / store.bytesPerPage) : 0);
  return firstPage;
}

/** One value of `s` bytes read in chunks; `base` its first LOB page (−1: no cache, the pages only counted). */
function readValue(phase: ReadLobSpec, store: LobStore, values: number, s: number, base: number, reads: PageReads, tally: LobTally): void {
  const cost = lobReadCost(s, phase.chunk, phase.reposition, store, values);
  reads.statements++;
  reads.rows++;
  if (cost.reads === 0) return;
  tally.valuesRead++;
  tally.chunkReads += cost.reads;
  tally.bytes += cost.bytes;
  tally.valueBytes += s;
  tally.lookups += cost.lookups;
  if (base < 0) {
    reads.lobPages += cost.pages;
    return;
  }
  // Page by page through the cache: the lookup pages, then the prefix (restart) or the next chunk's pages (keep).
  const per = store.bytesPerPage;
  const lookupEach = cost.lookups / cost.reads;
  let done = 0;
  for (let k = 0; k < cost.reads; k++) {
    for (let l = 0; l < lookupEach; l++) reads.lobPage(-1 - l);
    const end = Math.min((k + 1) * phase.chunk, s);
    const from = phase.reposition === 'restart' ? 0 : done;
    const lastPage = Math.ceil(end / per);
    for (let pg = from; pg < lastPage; pg++) reads.lobPage(Math.min(0x7fffffff, base + pg));
    done = lastPage;
  }
}

/** The phase's label and reads, with what the LOB store did. */
function lobOutcome(run: RunState, phase: ReadLobSpec, store: LobStore, n: number, reads: PageReads, tally: LobTally): PhaseOutcome {
  const plan = {
    path: 'rowid' as const,
    short: `${groupedNumber(phase.chunk)}-byte chunks, ${phase.reposition}`,
    text: `each value of ${phase.column} read in chunks of ${groupedNumber(phase.chunk)} bytes from ${store.title}, ${phase.reposition === 'restart' ? 'every chunk read from the first byte again (the stream restarts)' : 'each chunk where the last ended'}`,
  };
  const result = readResult(run.format, plan, reads, run.spec.costs);
  result.lob = {
    column: phase.column,
    store: store.title,
    chunk: phase.chunk,
    reposition: phase.reposition,
    values_read: tally.valuesRead,
    value_bytes: tally.valueBytes,
    chunk_reads: tally.chunkReads,
    bytes_processed: tally.bytes,
    pages_processed: reads.lobPages,
    lookup_pages: tally.lookups,
    assumed: store.assumed,
    source: store.source,
  };
  return {
    affected: tally.valuesRead,
    label: `read_lob ${n} ${n === 1 ? 'value' : 'values'} of ${phase.column} (${plan.short})`,
    reads: result,
  };
}
