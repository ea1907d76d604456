/**
 * PostgreSQL's TOAST: how a row's varlena values are compressed and moved out of line, and the TOAST
 * relation (its heap of chunks and its index) they move to. Sources, PostgreSQL source code
 * (docs/sources.md): [heaptoast.h], [PG-TOAST] (heaptoast.c heap_toast_insert_or_update, toast_helper.c,
 * toast_internals.c toast_save_datum, toast_compress_datum), [nbtree.h] (nbtsplitloc.c for the index).
 *
 * A tuple over TOAST_TUPLE_THRESHOLD (or one whose old or new version has an out-of-line value) goes
 * through four passes, each taking the biggest value its storage allows (ties: the first column) until
 * the tuple's data fits toast_tuple_target (less the header):
 *   1. extended: compress it; external: stop trying to compress it; either, if it alone is still over
 *      the target, move it out of line at once;
 *   2. extended or external: move it out of line;
 *   3. main: compress it;
 *   4. main: move it out of line, now against TOAST_TUPLE_TARGET_MAIN (the largest tuple a page holds).
 * Only values bigger than a TOAST pointer's MAXALIGN (24 bytes) are taken; plain values never are. An
 * update keeps a value it does not change as it was stored (out of line: the same pointer, no new
 * chunks; compressed: compressed); a value it changes and that was out of line is deleted from the
 * TOAST relation. Out of line, a value is cut into chunks of TOAST_MAX_CHUNK_SIZE bytes (1,996 on 8k),
 * each a row (chunk_id oid, chunk_seq int4, chunk_data bytea with a 4-byte header: plain storage) of
 * the TOAST heap, 4 of them to a page, and an entry of the TOAST index on (chunk_id, chunk_seq).
 */
import type { ReorgKind } from '../heap/engine.js';
import { PostgresHeap } from '../heap/postgres-heap.js';
import { NULL_LEN, type PageGeometry } from '../layout/table-layout.js';
import type { OutOfLineStore } from './format.js';
import { compressedDatumBytes, type CompressedSizes } from './pg-compression.js';

/** attstorage: p, m, e, x [pg_type.h]. */
export const PG_STORAGE_PLAIN = 0;
export const PG_STORAGE_MAIN = 1;
export const PG_STORAGE_EXTERNAL = 2;
export const PG_STORAGE_EXTENDED = 3;
export const PG_STORAGE_NAMES = ['plain', 'main', 'external', 'extended'] as const;

/** How a column is stored: a fixed-length type, or a varlena. */
export const PG_KIND_FIXED = 0;
/** MAXIMUM_ALIGNOF on 64-bit platforms [c.h]. */
export const PG_MAXALIGN = 8;
/** SizeofHeapTupleHeader [htup_details.h]. */
export const PG_HEAP_TUPLE_HEADER_BYTES = 23;
/** VARATT_SHORT_MAX: a varlena of at most 127 bytes with its header takes a 1-byte header [varatt.h]. */
export const PG_VARLENA_SHORT_MAX = 127;
/** VARHDRSZ (4-byte header, aligned to typalign i) and VARHDRSZ_SHORT (1 byte, unaligned) [varatt.h]. */
export const PG_VARHDRSZ = 4;
export const PG_VARHDRSZ_SHORT = 1;
/** TOAST_POINTER_SIZE: an out-of-line value leaves an 18-byte pointer in the tuple [varatt.h]. */
export const PG_TOAST_POINTER_BYTES = 18;
/** The TOAST relation's columns before chunk_data: chunk_id oid, chunk_seq int4 [PG-TOAST]. */
const PG_TOAST_CHUNK_KEY_BYTES = 8;
/** TOAST_TUPLES_PER_PAGE (4) and TOAST_TUPLES_PER_PAGE_MAIN (1): MaximumBytesPerTuple's divisors [heaptoast.h]. */
const PG_TOAST_TUPLES_PER_PAGE = 4;
const PG_TOAST_TUPLES_PER_PAGE_MAIN = 1;
/** toast_tuple_target's least value [PG-STORAGE-PARAMS]. */
export const PG_TOAST_TUPLE_TARGET_MIN = 128;
const PG_PAGE_HEADER_BYTES = 24;
const PG_LINE_POINTER_BYTES = 4;

export const maxalign = (n: number): number => (n + PG_MAXALIGN - 1) & ~(PG_MAXALIGN - 1);
const alignTo = (n: number, a: number): number => (n + a - 1) & ~(a - 1);

/** MaximumBytesPerTuple(n) = MAXALIGN_DOWN((BLCKSZ − MAXALIGN(page header + n line pointers)) / n) [heaptoast.h]. */
function maximumBytesPerTuple(pageBytes: number, tuplesPerPage: number): number {
  const v = Math.floor((pageBytes - maxalign(PG_PAGE_HEADER_BYTES + tuplesPerPage * PG_LINE_POINTER_BYTES)) / tuplesPerPage);
  return v & ~(PG_MAXALIGN - 1);
}

/** TOAST_TUPLE_THRESHOLD = TOAST_TUPLE_TARGET = EXTERN_TUPLE_MAX_SIZE: 2032 on 8k [heaptoast.h]. */
export function pgToastThreshold(pageBytes: number): number {
  return maximumBytesPerTuple(pageBytes, PG_TOAST_TUPLES_PER_PAGE);
}

/** TOAST_TUPLE_TARGET_MAIN: 8160 on 8k, the target of the last pass and toast_tuple_target's largest value [heaptoast.h]. */
export function pgToastTargetMain(pageBytes: number): number {
  return maximumBytesPerTuple(pageBytes, PG_TOAST_TUPLES_PER_PAGE_MAIN);
}

/** TOAST_MAX_CHUNK_SIZE = EXTERN_TUPLE_MAX_SIZE − MAXALIGN(23) − sizeof(Oid) − sizeof(int32) − VARHDRSZ: 1996 on 8k [heaptoast.h]. */
export function pgToastMaxChunkBytes(pageBytes: number): number {
  return pgToastThreshold(pageBytes) - maxalign(PG_HEAP_TUPLE_HEADER_BYTES) - PG_TOAST_CHUNK_KEY_BYTES - PG_VARHDRSZ;
}

/** A chunk row's bytes on its page: MAXALIGN(24 + 8 + 4 + data) (chunk_data is plain: always a 4-byte header). */
function chunkTupleBytes(data: number): number {
  return maxalign(maxalign(PG_HEAP_TUPLE_HEADER_BYTES) + PG_TOAST_CHUNK_KEY_BYTES + PG_VARHDRSZ + data);
}

/** What the toaster reads of a table's PostgreSQL layout. */
export interface PgToastInfo {
  natts: number;
  kind: Uint8Array;
  bytes: Int32Array;
  align: Uint8Array;
  varIndex: Int32Array;
  /** attstorage per column (PG_STORAGE_*; plain for fixed-length types). */
  storage: Uint8Array;
  toastThreshold: number;
  /** toast_tuple_target: the first three passes' target. */
  toastTarget: number;
  toastTargetMain: number;
  /** The table has a TOAST relation (needs_toast_table): values can move out of line. */
  hasToastRelation: boolean;
  compression: CompressedSizes;
}

/** A value as stored: as it came (0), compressed (bit 0), out of line as an 18-byte pointer (bit 1). */
const FORM_RAW = 0;
const FORM_COMPRESSED = 1;
const FORM_EXTERNAL = 2;
/** TOASTCOL_IGNORE, TOASTCOL_INCOMPRESSIBLE [PG-TOAST]. */
const F_IGNORE = 1;
const F_INCOMPRESSIBLE = 2;

/**
 * heap_toast_insert_or_update for one tuple, on the values' sizes alone. load() the values (and, for an
 * update, what the row's values were stored as and which columns changed), run(), then read the forms.
 */
export class PgToaster {
  /** Data bytes of each value (−1: NULL). */
  readonly len: Int32Array;
  /** Repeat bytes a 64-byte block of each value (src/formats/pg-compression.ts). */
  readonly repeat: Uint8Array;
  readonly form: Uint8Array;
  /** tai_size: the value's varlena as it is now (header included). */
  readonly size: Int32Array;
  readonly flags: Uint8Array;
  /** Bytes a value moved out of line by this tuple stores in chunks (0: none moved). */
  readonly outBytes: Int32Array;
  /** The columns moved out of line by this tuple, in the order the passes moved them (their chunks are written in it). */
  readonly moved: Int32Array;
  movedCount = 0;
  hasNull = false;
  private keepsExternal = false;

  constructor(readonly info: PgToastInfo) {
    const n = info.natts;
    this.len = new Int32Array(n);
    this.repeat = new Uint8Array(n);
    this.form = new Uint8Array(n);
    this.size = new Int32Array(n);
    this.flags = new Uint8Array(n);
    this.outBytes = new Int32Array(n);
    this.moved = new Int32Array(n);
  }

  /**
   * The tuple's values: lens[base …] by varIndex, compressibility levels[levelBase + column] (null: 0);
   * for an update, the forms the row's values had (prevForm[prevBase + toast slot], slotOf mapping
   * columns to slots) and the columns it changed.
   */
  load(
    lens: Uint16Array,
    base: number,
    levels: Uint8Array | null,
    levelBase: number,
    prev: { form: Uint8Array; base: number; slotOf: Int32Array; changed: Uint8Array } | null,
  ): void {
    const info = this.info;
    this.hasNull = false;
    this.keepsExternal = false;
    this.movedCount = 0;
    for (let i = 0; i < info.natts; i++) {
      const v = info.varIndex[i]!;
      const raw = v >= 0 ? lens[base + v]! : info.bytes[i]!;
      this.outBytes[i] = 0;
      this.form[i] = FORM_RAW;
      this.flags[i] = 0;
      this.repeat[i] = levels === null ? 0 : levels[levelBase + i]!;
      if (raw === NULL_LEN) {
        this.hasNull = true;
        this.len[i] = -1;
        this.flags[i] = F_IGNORE;
        continue;
      }
      this.len[i] = raw;
      if (info.kind[i] === PG_KIND_FIXED) {
        this.flags[i] = F_IGNORE;
        continue;
      }
      this.size[i] = raw + PG_VARHDRSZ_SHORT <= PG_VARLENA_SHORT_MAX ? raw + PG_VARHDRSZ_SHORT : raw + PG_VARHDRSZ;
      if (prev !== null && !prev.changed[i]) {
        const slot = prev.slotOf[i]!;
        const was = slot >= 0 ? prev.form[prev.base + slot]! : FORM_RAW;
        if ((was & FORM_EXTERNAL) !== 0) {
          // toast_tuple_init: an unchanged out-of-line value keeps its pointer.
          this.form[i] = was;
          this.size[i] = PG_TOAST_POINTER_BYTES;
          this.flags[i] = F_IGNORE;
          this.keepsExternal = true;
          continue;
        }
        if (was === FORM_COMPRESSED) {
          this.form[i] = FORM_COMPRESSED;
          this.size[i] = info.compression.bytes(raw, this.repeat[i]!);
        }
      }
      if (info.storage[i] === PG_STORAGE_PLAIN) this.flags[i] = this.flags[i]! | F_IGNORE;
    }
  }

  /** heap_compute_data_size over the values as they are now. */
  dataSize(): number {
    const info = this.info;
    let off = 0;
    for (let i = 0; i < info.natts; i++) {
      const len = this.len[i]!;
      if (len < 0) continue;
      if (info.kind[i] === PG_KIND_FIXED) off = alignTo(off, info.align[i]!) + len;
      else if ((this.form[i]! & FORM_EXTERNAL) !== 0) off += PG_TOAST_POINTER_BYTES;
      else if (this.form[i] === FORM_COMPRESSED) off = alignTo(off, 4) + this.size[i]!;
      else if (len + PG_VARHDRSZ_SHORT <= PG_VARLENA_SHORT_MAX) off += len + PG_VARHDRSZ_SHORT;
      else off = alignTo(off, 4) + len + PG_VARHDRSZ;
    }
    return off;
  }

  /** The tuple's header bytes: MAXALIGN(23 + the null bitmap when it has a NULL). */
  hoff(): number {
    return maxalign(PG_HEAP_TUPLE_HEADER_BYTES + (this.hasNull ? (this.info.natts + 7) >> 3 : 0));
  }

  /**
   * Run the passes when the toaster would be called (the tuple over TOAST_TUPLE_THRESHOLD, or an
   * out-of-line value in it or, `oldHadExternal`, in the row's old version); returns t_len.
   */
  run(oldHadExternal = false): number {
    const info = this.info;
    const hoff = this.hoff();
    let data = this.dataSize();
    if (!(oldHadExternal || this.keepsExternal || hoff + data > info.toastThreshold)) return hoff + data;
    const external = info.hasToastRelation;
    let maxData = info.toastTarget - hoff;
    // 1: compress extended values, biggest first; one still over the target alone goes out of line at once.
    while (data > maxData) {
      const b = this.biggest(true, false);
      if (b < 0) break;
      if (info.storage[b] === PG_STORAGE_EXTENDED) this.compress(b);
      else this.flags[b] = this.flags[b]! | F_INCOMPRESSIBLE;
      if (this.size[b]! > maxData && external) this.externalize(b);
      data = this.dataSize();
    }
    // 2: extended and external values out of line.
    while (data > maxData && external) {
      const b = this.biggest(false, false);
      if (b < 0) break;
      this.externalize(b);
      data = this.dataSize();
    }
    // 3: compress main values.
    while (data > maxData) {
      const b = this.biggest(true, true);
      if (b < 0) break;
      this.compress(b);
      data = this.dataSize();
    }
    // 4: main values out of line, against the largest tuple a page holds.
    maxData = info.toastTargetMain - hoff;
    while (data > maxData && external) {
      const b = this.biggest(false, true);
      if (b < 0) break;
      this.externalize(b);
      data = this.dataSize();
    }
    return hoff + data;
  }

  /** toast_tuple_find_biggest_attribute: the first of the biggest values over MAXALIGN(TOAST_POINTER_SIZE) the pass may take. */
  private biggest(forCompression: boolean, main: boolean): number {
    const info = this.info;
    let best = -1;
    let bestSize = maxalign(PG_TOAST_POINTER_BYTES);
    for (let i = 0; i < info.natts; i++) {
      const f = this.flags[i]!;
      if ((f & F_IGNORE) !== 0 || (forCompression && (f & F_INCOMPRESSIBLE) !== 0)) continue;
      if (forCompression && this.form[i] === FORM_COMPRESSED) continue;
      const st = info.storage[i]!;
      if (main ? st !== PG_STORAGE_MAIN : st !== PG_STORAGE_EXTENDED && st !== PG_STORAGE_EXTERNAL) continue;
      if (this.size[i]! > bestSize) {
        best = i;
        bestSize = this.size[i]!;
      }
    }
    return best;
  }

  /** toast_tuple_try_compression: compressed if toast_compress_datum keeps it, else never tried again. */
  private compress(i: number): void {
    const c = this.info.compression.bytes(this.len[i]!, this.repeat[i]!);
    if (c > 0) {
      this.form[i] = FORM_COMPRESSED;
      this.size[i] = c;
    } else this.flags[i] = this.flags[i]! | F_INCOMPRESSIBLE;
  }

  /** toast_tuple_externalize: toast_save_datum stores the value's data (compressed: with its 4-byte raw size) in chunks. */
  private externalize(i: number): void {
    this.outBytes[i] = this.form[i] === FORM_COMPRESSED ? this.size[i]! - PG_VARHDRSZ : this.len[i]!;
    this.moved[this.movedCount++] = i;
    this.form[i] = this.form[i]! | FORM_EXTERNAL;
    this.size[i] = PG_TOAST_POINTER_BYTES;
    this.flags[i] = this.flags[i]! | F_IGNORE;
  }
}

// ---- the TOAST index ---------------------------------------------------------------------------

/** A TOAST index entry: IndexTupleData (8) + oid + int4 = 16 bytes, MAXALIGNed, and its line pointer [nbtree.h]. */
const TOAST_INDEX_TUPLE_BYTES = 16;
const INDEX_TUPLE_HEADER_BYTES = 8;
/** BTPageOpaqueData special space; BTREE_DEFAULT_FILLFACTOR 90 (rightmost leaf splits), BTREE_NONLEAF_FILLFACTOR 70 [nbtree.h]. */
const BTREE_SPECIAL_BYTES = 16;
const BTREE_LEAF_FILLFACTOR = 90;
const BTREE_NONLEAF_FILLFACTOR = 70;
/** MAX_LEAF_INTERVAL: the splits nbtsplitloc.c weighs by how much of the key the new high key keeps [nbtree.h]. */
const MAX_LEAF_INTERVAL = 9;
/** The heap TID nbtsplitloc.c assumes a leaf's new high key may need: MAXALIGN(sizeof(ItemPointerData)). */
const LEAF_HIGHKEY_TID_BYTES = 8;

/** An entry's key: the value's id × 2^21 + chunk_seq (a value of up to 2^31 bytes has at most 2^21 chunks of 1,996 bytes). */
const SEQ_SPAN = 2 ** 21;
const valueOf = (key: number): number => Math.floor(key / SEQ_SPAN);

/**
 * The levels above the leaves, filled by their downlinks (one a leaf split) at the right edge, the
 * rightmost page splitting at BTREE_NONLEAF_FILLFACTOR; the first item of a page is a bare "minus
 * infinity" tuple. (Downlinks of splits in the middle of the index are counted here too.)
 */
class UpperLevel {
  pages = 1;
  items = 0;
  constructor(private readonly room: number) {}

  /** Add a downlink; true when the page split (a downlink goes to the level above). */
  append(): boolean {
    const slot = TOAST_INDEX_TUPLE_BYTES + PG_LINE_POINTER_BYTES;
    const first = INDEX_TUPLE_HEADER_BYTES + PG_LINE_POINTER_BYTES;
    const used = this.items === 0 ? 0 : (this.items - 1) * slot + first;
    this.items++;
    if (used + slot <= this.room) return false;
    // _bt_findsplitloc on the rightmost page: delta = f × leftfree − (1 − f) × rightfree, the smallest wins.
    const n = this.items;
    const f = BTREE_NONLEAF_FILLFACTOR / 100;
    let best = 1;
    let bestDelta = Infinity;
    for (let k = 1; k < n; k++) {
      const leftfree = this.room - ((k - 1) * slot + first) - slot;
      const rightfree = this.room - (n - k) * slot + slot - first;
      if (leftfree < 0 || rightfree < 0) continue;
      const delta = Math.abs(f * leftfree - (1 - f) * rightfree);
      if (delta < bestDelta) {
        bestDelta = delta;
        best = k;
      }
    }
    this.items -= best;
    this.pages++;
    return true;
  }
}

/**
 * The TOAST index's leaves, entry by entry: each leaf's keys in order, and the low bound of its key
 * range. A full leaf splits as nbtsplitloc.c splits it [nbtree.h]: the rightmost leaf to leaf fillfactor
 * 90% (f × leftfree − (1 − f) × rightfree), another in the middle (leftfree − rightfree), or right after
 * the new entry when it follows the entry before it in the same value (_bt_afternewitemoff: the next
 * chunk of a value; leaf fillfactor when the new entry is past 90% of the page); among the
 * MAX_LEAF_INTERVAL best splits the first that falls between two values (a high key of one column).
 */
class ToastLeaves {
  private keys: number[][] = [[]];
  /** The smallest key each leaf may hold (the high key of the leaf before it). */
  private low: number[] = [-Infinity];
  private readonly slot = TOAST_INDEX_TUPLE_BYTES + PG_LINE_POINTER_BYTES;
  private readonly capacity: number;

  constructor(private readonly room: number) {
    this.capacity = Math.floor(room / this.slot);
  }

  get pages(): number {
    return this.keys.length;
  }

  /** Insert a key; true when a leaf split. */
  insert(key: number): boolean {
    let lo = 0;
    let hi = this.low.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.low[mid]! <= key) lo = mid;
      else hi = mid - 1;
    }
    const leaf = this.keys[lo]!;
    let pos = leaf.length;
    if (pos > 0 && leaf[pos - 1]! > key) {
      let a = 0;
      let b = leaf.length;
      while (a < b) {
        const m = (a + b) >> 1;
        if (leaf[m]! < key) a = m + 1;
        else b = m;
      }
      pos = a;
    }
    leaf.splice(pos, 0, key);
    if (leaf.length <= this.capacity) return false;
    const k = this.splitPoint(leaf, pos, lo === this.keys.length - 1);
    this.keys.splice(lo + 1, 0, leaf.splice(k));
    this.low.splice(lo + 1, 0, this.keys[lo + 1]![0]!);
    return true;
  }

  /** Remove the entries of dead values (VACUUM); the pages stay. */
  remove(dead: ReadonlySet<number>): void {
    if (dead.size === 0) return;
    for (let i = 0; i < this.keys.length; i++) this.keys[i] = this.keys[i]!.filter((key) => !dead.has(valueOf(key)));
  }

  /** How many of the n = capacity + 1 entries (the new one at `pos`) stay on the left. */
  private splitPoint(keys: readonly number[], pos: number, rightmost: boolean): number {
    const n = keys.length;
    const slot = this.slot;
    let usemult = rightmost;
    let f = BTREE_LEAF_FILLFACTOR / 100;
    if (!rightmost) {
      // _bt_afternewitemoff: the new entry follows the one before it in the same value.
      const after = pos > 0 && valueOf(keys[pos - 1]!) === valueOf(keys[pos]!) && (pos === n - 1 || keys[pos - 1] === keys[pos]! - 1);
      if (!after) {
        f = 0.5;
        usemult = false;
      } else if (pos === n - 1 || (pos + 1) / n > f) usemult = true;
      else if (this.room - (pos + 1) * slot - (slot + LEAF_HIGHKEY_TID_BYTES) >= 0) return pos + 1;
    }
    const candidates: { k: number; delta: number }[] = [];
    for (let k = 1; k < n; k++) {
      const leftfree = this.room - k * slot - (slot + LEAF_HIGHKEY_TID_BYTES);
      const rightfree = this.room - (n - k) * slot;
      if (leftfree < 0 || rightfree < 0) continue;
      candidates.push({ k, delta: Math.abs(usemult ? f * leftfree - (1 - f) * rightfree : leftfree - rightfree) });
    }
    candidates.sort((a, b) => a.delta - b.delta || a.k - b.k);
    const interval = Math.min(MAX_LEAF_INTERVAL, Math.max(1, Math.floor(candidates.length * 0.05)), candidates.length);
    const between = (k: number) => valueOf(keys[k - 1]!) !== valueOf(keys[k]!);
    let lowK = Infinity;
    let highK = -Infinity;
    for (let c = 0; c < interval; c++) {
      lowK = Math.min(lowK, candidates[c]!.k);
      highK = Math.max(highK, candidates[c]!.k);
    }
    // The split interval can end between two values: take the best split that does.
    if (interval > 0 && valueOf(keys[lowK - 1]!) !== valueOf(keys[highK]!)) {
      for (let c = 0; c < interval; c++) if (between(candidates[c]!.k)) return candidates[c]!.k;
    }
    return candidates[0]?.k ?? Math.floor(n / 2);
  }
}

/**
 * The TOAST index on (chunk_id, chunk_seq): its leaves entry by entry (ToastLeaves), the levels above
 * them by downlink count; VACUUM removes the entries of dead chunks and leaves the pages. One metapage.
 */
class ToastIndex {
  private readonly leaves: ToastLeaves;
  private readonly upper: UpperLevel[] = [];
  entries = 0;
  /** An index nothing was ever inserted into is its metapage alone. */
  private empty = true;

  constructor(pageBytes: number) {
    this.room = pageBytes - PG_PAGE_HEADER_BYTES - BTREE_SPECIAL_BYTES;
    this.leaves = new ToastLeaves(this.room);
  }
  private readonly room: number;

  insert(value: number, seq: number): void {
    this.entries++;
    this.empty = false;
    if (!this.leaves.insert(value * SEQ_SPAN + seq)) return;
    for (let l = 0; ; l++) {
      if (l === this.upper.length) {
        // The root split: a new root above with the two downlinks.
        const root = new UpperLevel(this.room);
        root.append();
        root.append();
        this.upper.push(root);
        return;
      }
      if (!this.upper[l]!.append()) return;
    }
  }

  /** The entries of dead values removed (VACUUM): the pages stay. */
  remove(dead: ReadonlySet<number>, count: number): void {
    this.leaves.remove(dead);
    this.entries -= count;
  }

  /** Pages of the index file: the metapage, and the pages of every level once an entry was inserted. */
  pages(): number {
    if (this.empty) return 1;
    return 1 + this.leaves.pages + this.upper.reduce((s, l) => s + l.pages, 0);
  }
}

// ---- the TOAST relation ------------------------------------------------------------------------

/**
 * A table's TOAST relation as the runner drives it (StorageFormat.outOfLine): each row's values as
 * stored (form, and for out-of-line values their chunks), the heap of chunk rows (a PostgreSQL heap of
 * its own, fillfactor 100) and the index.
 */
export class PgToastRelation implements OutOfLineStore {
  private readonly toaster: PgToaster;
  private heap: PostgresHeap;
  private index: ToastIndex;
  private readonly geometry: PageGeometry;
  /** The columns whose values can be compressed or moved (varlena, not plain), and each column's slot among them (−1). */
  private readonly slotOf: Int32Array;
  private readonly slots: number[];
  /** Per row and slot: the value's form; out of line, its first chunk row, its id (chunk_id), its bytes in chunks. */
  private forms: Uint8Array;
  private firstChunk: Int32Array;
  private valueId: Int32Array;
  private outLen: Int32Array;
  private nextChunk = 0;
  private nextValue = 0;
  private readonly chunkMax: number;
  /** The row last sized, and whether by an update (with its changed columns). */
  private pendingRow = -1;
  private pendingChanged: Uint8Array | null = null;
  /** Out-of-line values deleted (their index entries stay until VACUUM), and their chunks. */
  private deadValues = new Set<number>();
  private deadEntries = 0;
  private readonly oldSlots: Int32Array;
  private liveValues = 0;
  private compressedValues = 0;

  constructor(
    private readonly info: PgToastInfo,
    geometry: PageGeometry,
    rowCapacity: number,
  ) {
    this.toaster = new PgToaster(info);
    this.slotOf = new Int32Array(info.natts).fill(-1);
    this.slots = [];
    for (let i = 0; i < info.natts; i++) {
      if (info.kind[i] !== PG_KIND_FIXED && info.storage[i] !== PG_STORAGE_PLAIN) {
        this.slotOf[i] = this.slots.length;
        this.slots.push(i);
      }
    }
    const n = Math.max(16, rowCapacity) * Math.max(1, this.slots.length);
    this.forms = new Uint8Array(n);
    this.firstChunk = new Int32Array(n);
    this.valueId = new Int32Array(n);
    this.outLen = new Int32Array(n);
    this.chunkMax = pgToastMaxChunkBytes(geometry.pageBytes);
    this.oldSlots = new Int32Array(Math.max(1, this.slots.length));
    this.geometry = geometry;
    this.heap = this.newHeap();
    this.index = new ToastIndex(geometry.pageBytes);
  }

  private newHeap(): PostgresHeap {
    return new PostgresHeap({ geometry: this.geometry, fillfactor: 100, indexCount: 1, rowCapacity: 16 });
  }

  private ensureRow(row: number): void {
    const need = (row + 1) * this.slots.length;
    if (need <= this.forms.length) return;
    const size = Math.max(need, Math.ceil(this.forms.length * 1.5));
    const grow = <T extends Uint8Array | Int32Array>(a: T, make: (n: number) => T): T => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.forms = grow(this.forms, (k) => new Uint8Array(k));
    this.firstChunk = grow(this.firstChunk, (k) => new Int32Array(k));
    this.valueId = grow(this.valueId, (k) => new Int32Array(k));
    this.outLen = grow(this.outLen, (k) => new Int32Array(k));
  }

  sizeInsert(row: number, lens: Uint16Array, base: number, levels: Uint8Array | null, levelBase: number): number {
    this.toaster.load(lens, base, levels, levelBase, null);
    this.pendingRow = row;
    this.pendingChanged = null;
    return maxalign(this.toaster.run());
  }

  sizeUpdate(row: number, lens: Uint16Array, base: number, levels: Uint8Array | null, levelBase: number, changed: Uint8Array): number {
    this.ensureRow(row);
    const at = row * this.slots.length;
    this.toaster.load(lens, base, levels, levelBase, { form: this.forms, base: at, slotOf: this.slotOf, changed });
    let hadExternal = false;
    for (let s = 0; s < this.slots.length; s++) if ((this.forms[at + s]! & FORM_EXTERNAL) !== 0) hadExternal = true;
    this.pendingRow = row;
    this.pendingChanged = changed;
    return maxalign(this.toaster.run(hadExternal));
  }

  apply(): void {
    const row = this.pendingRow;
    if (row < 0) return;
    this.ensureRow(row);
    const at = row * this.slots.length;
    const t = this.toaster;
    // The out-of-line values the update replaces: deleted by toast_tuple_cleanup once the new ones are saved.
    let old = 0;
    if (this.pendingChanged !== null) {
      for (let s = 0; s < this.slots.length; s++) {
        if (this.pendingChanged[this.slots[s]!] && (this.forms[at + s]! & FORM_EXTERNAL) !== 0) this.oldSlots[old++] = at + s;
      }
    }
    const oldFirst = Array.from(this.oldSlots.subarray(0, old), (i) => [this.firstChunk[i]!, this.valueId[i]!, this.outLen[i]!] as const);
    // toast_save_datum runs as the passes move values, in their order.
    for (let k = 0; k < t.movedCount; k++) {
      const col = t.moved[k]!;
      this.saveChunks(at + this.slotOf[col]!, this.storedBytes(row, col), this.nextValue++, false);
    }
    for (const [first, value, bytes] of oldFirst) this.deleteValue(first, value, bytes);
    this.takeForms(at);
    this.pendingRow = -1;
  }

  /** The row's values (its slots from `at`) as the toaster just left them: their forms, and the counts of out-of-line and compressed values. */
  private takeForms(at: number): void {
    const t = this.toaster;
    for (let s = 0; s < this.slots.length; s++) {
      const col = this.slots[s]!;
      const was = this.forms[at + s]!;
      if (was !== FORM_RAW) this.countValue(was, -1);
      const now = t.len[col]! < 0 ? FORM_RAW : t.form[col]!;
      this.forms[at + s] = now;
      if ((now & FORM_EXTERNAL) === 0) this.outLen[at + s] = 0;
      if (now !== FORM_RAW) this.countValue(now, 1);
    }
  }

  useWholeLengths(lobs: ReadonlyMap<number, Uint32Array>): void {
    this.lobs = lobs;
  }
  private lobs: ReadonlyMap<number, Uint32Array> | null = null;

  /** Bytes column `col` of the row just sized stores out of line: the toaster's, or of its whole value where the row store holds only the first 65,534 bytes. */
  private storedBytes(row: number, col: number): number {
    const t = this.toaster;
    const whole = this.lobs?.get(this.info.varIndex[col]!)?.[row];
    if (whole === undefined || whole <= t.len[col]!) return t.outBytes[col]!;
    if ((t.form[col]! & FORM_COMPRESSED) === 0) return whole;
    const c = compressedDatumBytes(this.info.compression.method, whole, t.repeat[col]!);
    return c > 0 ? c - PG_VARHDRSZ : whole;
  }

  /** Live values out of line, and compressed (in line or out of it): figures for the results. */
  private countValue(form: number, by: number): void {
    if ((form & FORM_EXTERNAL) !== 0) this.liveValues += by;
    if ((form & FORM_COMPRESSED) !== 0) this.compressedValues += by;
  }

  /** toast_save_datum: the value's bytes in chunks of TOAST_MAX_CHUNK_SIZE, each a heap row and an index entry (chunk_id = the value's id). */
  private saveChunks(at: number, bytes: number, value: number, skipFsm: boolean): void {
    const count = this.chunks(bytes);
    this.firstChunk[at] = this.nextChunk;
    this.valueId[at] = value;
    this.outLen[at] = bytes;
    for (let k = 0; k < count; k++) {
      const data = k < count - 1 ? this.chunkMax : bytes - (count - 1) * this.chunkMax;
      const size = chunkTupleBytes(data);
      this.heap.insert(this.nextChunk++, size, size, skipFsm);
      this.index.insert(value, k);
    }
  }

  private chunks(bytes: number): number {
    return Math.ceil(bytes / this.chunkMax);
  }

  /** toast_delete_datum: the value's chunks deleted (dead when the transaction commits; the index keeps their entries until VACUUM). */
  private deleteValue(first: number, value: number, bytes: number): void {
    const count = this.chunks(bytes);
    for (let k = 0; k < count; k++) this.heap.delete(first + k);
    this.deadValues.add(value);
    this.deadEntries += count;
  }

  delete(row: number): void {
    if ((row + 1) * this.slots.length > this.forms.length) return;
    const at = row * this.slots.length;
    for (let s = 0; s < this.slots.length; s++) {
      const was = this.forms[at + s]!;
      if ((was & FORM_EXTERNAL) !== 0) this.deleteValue(this.firstChunk[at + s]!, this.valueId[at + s]!, this.outLen[at + s]!);
      if (was !== FORM_RAW) this.countValue(was, -1);
      this.forms[at + s] = FORM_RAW;
      this.outLen[at + s] = 0;
    }
  }

  commit(): void {
    this.heap.commit();
  }

  reorg(kind: ReorgKind, _liveRows: () => Int32Array): void {
    this.commit();
    if (kind === 'vacuum' || kind === 'compact') {
      // VACUUM of the table vacuums its TOAST relation too: the heap's dead chunks and their index entries.
      this.heap.reorg('vacuum');
      this.index.remove(this.deadValues, this.deadEntries);
      this.deadValues = new Set();
      this.deadEntries = 0;
    }
    // 'rebuild': rebuild() did the rewrite's work before the heap was rewritten.
  }

  /**
   * VACUUM FULL, before the heap is rewritten: each row in the order the rewrite reads it (page, line
   * pointer) goes through the toaster again, as raw_heap_insert → heap_toast_insert_or_update does with
   * no old tuple: an out-of-line value is fetched back as it was stored (compressed or not,
   * detoast_external_attr) and the passes run afresh, so it stays inline if the row now fits under the
   * target. The values the passes move are saved, in their order, into a new TOAST heap
   * (HEAP_INSERT_SKIP_FSM) and index (filled by these inserts: cluster.c reindexes the table, not its
   * TOAST relation), keeping their chunk_ids (rd_toastoid); a value newly moved gets a new one.
   */
  rebuild(
    rows: Int32Array,
    lens: Uint16Array,
    width: number,
    levels: Uint8Array | null,
    ncols: number,
    resize: (row: number, bytes: number) => void,
  ): void {
    this.heap = this.newHeap();
    this.index = new ToastIndex(this.geometry.pageBytes);
    this.deadValues = new Set();
    this.deadEntries = 0;
    const n = this.slots.length;
    const was = new Uint8Array(Math.max(1, n));
    const none = new Uint8Array(this.info.natts);
    const t = this.toaster;
    for (const row of rows) {
      this.ensureRow(row);
      const at = row * n;
      let hadExternal = false;
      for (let s = 0; s < n; s++) {
        was[s] = this.forms[at + s]! & ~FORM_EXTERNAL;
        if ((this.forms[at + s]! & FORM_EXTERNAL) !== 0) hadExternal = true;
      }
      t.load(lens, row * width, levels, row * ncols, { form: was, base: 0, slotOf: this.slotOf, changed: none });
      resize(row, maxalign(t.run(hadExternal)));
      for (let k = 0; k < t.movedCount; k++) {
        const col = t.moved[k]!;
        const slot = at + this.slotOf[col]!;
        const id = (this.forms[slot]! & FORM_EXTERNAL) !== 0 ? this.valueId[slot]! : this.nextValue++;
        this.saveChunks(slot, this.storedBytes(row, col), id, true);
      }
      this.takeForms(at);
    }
  }

  metrics(): Record<string, number> {
    return {
      toast_pages: this.heap.metrics().pages,
      toast_index_pages: this.index.pages(),
      toast_values: this.liveValues,
      compressed_values: this.compressedValues,
    };
  }

  memoryBytes(): number {
    return this.forms.byteLength + this.firstChunk.byteLength + this.valueId.byteLength + this.outLen.byteLength + this.heap.memoryBytes();
  }
}
