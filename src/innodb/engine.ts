/**
 * An InnoDB table (README.md beside this file): the clustered index is the table, so a row lives in a
 * leaf of its B+tree where its key sorts; a row that grows is rewritten on its page or the page splits,
 * never forwarded. Secondary indexes are B+trees of their own whose records carry the primary key; a
 * change of their key is a delete-mark and an insert. Deleted records are delete-marked and purged at
 * the transaction's end (a quiet server's purge), with merges below MERGE_THRESHOLD. OPTIMIZE TABLE (a
 * rebuild) builds every index sorted at innodb_fill_factor.
 */
import type { IndexOrganizedMetrics, InnodbIndexFigures } from '../heap/metrics.js';
import { grown } from '../util/arrays.js';
import type { PageMapData, ReorgKind, RowSource, StorageEngine, UpdateInfo } from '../heap/engine.js';
import type { HeapEventSink } from '../heap/events.js';
import { frozenInspector, type PageInspector, type SlotDetail } from '../heap/inspect.js';
import type { PageReads } from '../heap/page-reads.js';
import { dirReserved, IndexTree } from './tree.js';
import { Space } from './space.js';
import type { IndexPages } from '../btree/geometry.js';

/** One index as the format sizes it. */
export interface InnodbIndexSpec {
  name: string;
  /** The leading key column's place in the table; −1: rows in row-id order (DB_ROW_ID). */
  keyColumn: number;
  /** Bytes of this index's record for the row lens[base …] (a secondary index's; the clustered record is the row). */
  entryBytes(lens: Uint16Array, base: number): number;
  /** Bytes of a node pointer whose key is this row's (the key fields, and a 4-byte child page number). */
  pointerBytes(lens: Uint16Array, base: number): number;
  /** The index's own MERGE_THRESHOLD (`COMMENT 'MERGE_THRESHOLD=N'` on the index), else the table's. */
  mergeThresholdPct?: number;
}

export interface InnodbEngineOptions {
  pageBytes: number;
  /** page_get_free_space_of_empty() for the row format. */
  freeSpaceOfEmpty: number;
  /** The longest record a page takes (half an empty page's free space; 16,383 bytes at 64K). */
  maxRecordBytes: number;
  mergeThresholdPct: number;
  fillFactorPct: number;
  extentPages: number;
  clustered: InnodbIndexSpec;
  secondaries: InnodbIndexSpec[];
  /** Off-page pages the row's values take (each long value on pages of its own). */
  offPagePages(lens: Uint16Array, base: number): number;
  rowCapacity: number;
}

interface Secondary {
  spec: InnodbIndexSpec;
  tree: IndexTree;
  /** Per row, its current entry's id (−1: none) and the key it was filed under. */
  entryOf: Int32Array;
  keyOf: Float64Array;
  /** Per entry, the row it belongs to. */
  rowOf: Int32Array;
  nextEntry: number;
}

/** A row's state: 0 none, 1 live, 2 delete-marked (waiting for purge). */
const LIVE = 1;
const MARKED = 2;

export class InnodbEngine implements StorageEngine {
  readonly keyColumns: readonly number[];
  private source: RowSource | null = null;
  private readonly clustered: IndexTree;
  private readonly secondaries: Secondary[];
  private secondariesBuilt = false;
  private state: Uint8Array;
  private bytes: Uint16Array;
  private offPages: Int32Array;
  /** Per row with off-page values: the places of their pages in the leaf segment. */
  private offPlaces = new Map<number, number[]>();
  private rowHigh = 0;
  private liveCount = 0;
  private purgeRows: number[] = [];
  private purgeEntries: { index: Secondary; entry: number }[] = [];
  private sink: HeapEventSink | null = null;
  /** The table's file. */
  private readonly space: Space;
  private counters = {
    inserts: 0,
    updates: 0,
    updates_in_place: 0,
    deletes: 0,
    rows_rejected: 0,
    updates_rejected: 0,
    purged_records: 0,
    offpage_pages: 0,
    exclusive_table_locks: 0,
  };

  constructor(private readonly options: InnodbEngineOptions) {
    const n = Math.max(16, options.rowCapacity);
    this.space = new Space(options.extentPages, options.pageBytes);
    this.state = new Uint8Array(n);
    this.bytes = new Uint16Array(n);
    this.offPages = new Int32Array(n);
    this.clustered = this.tree(options.clustered, true);
    this.clustered.leafPointerBytes = (row) => this.withLens(row, options.clustered.pointerBytes);
    this.clustered.onSplit = (page, newPage, moved) => this.sink?.({ op: 'split', page, newPage, rows: moved });
    this.clustered.onMerge = (moved, from, to) => {
      for (const row of moved) this.sink?.({ op: 'reorg-row', row, from, home: from, to, bytes: this.bytes[row]!, outcome: 'rewritten' });
    };
    this.secondaries = options.secondaries.map((spec) => {
      const index: Secondary = {
        spec,
        tree: this.tree(spec, false),
        entryOf: new Int32Array(n).fill(-1),
        keyOf: new Float64Array(n),
        rowOf: new Int32Array(n),
        nextEntry: 0,
      };
      index.tree.leafPointerBytes = (entry) => this.withLens(index.rowOf[entry]!, spec.pointerBytes);
      return index;
    });
    this.keyColumns = [options.clustered, ...options.secondaries].map((s) => s.keyColumn).filter((c) => c >= 0);
  }

  private tree(spec: InnodbIndexSpec, clustered: boolean): IndexTree {
    const o = this.options;
    return new IndexTree({
      name: spec.name,
      freeSpaceOfEmpty: o.freeSpaceOfEmpty,
      // dict_index_get_space_reserve(): page / 16, kept free on a clustered leaf that inserts converge on [btr0cur.cc].
      convergingReserve: clustered ? o.pageBytes / 16 : 0,
      mergeLimitBytes: Math.floor((o.pageBytes * (spec.mergeThresholdPct ?? o.mergeThresholdPct)) / 100),
      reorganizeLimitBytes: o.pageBytes / 32,
      // btr0bulk.cc PageBulk::init: fill factor 100 keeps page / 16 free in a clustered index, else (100 − ff) % of the page.
      buildReserveBytes:
        o.fillFactorPct === 100 && clustered ? o.pageBytes / 16 : Math.floor((o.pageBytes * (100 - o.fillFactorPct)) / 100),
      extentPages: o.extentPages,
      space: this.space,
    });
  }

  useRowSource(source: RowSource): void {
    this.source = source;
  }

  private withLens(row: number, f: (lens: Uint16Array, base: number) => number): number {
    const s = this.source;
    return s === null ? 0 : f(s.lens(), row * s.width);
  }

  private key(spec: InnodbIndexSpec, row: number): number {
    return spec.keyColumn < 0 || this.source === null ? row : this.source.key(spec.keyColumn, row);
  }

  private ensureRows(row: number): void {
    if (row < this.state.length) return;
    const n = row + 1;
    this.state = grown(this.state, n);
    this.bytes = grown(this.bytes, n);
    this.offPages = grown(this.offPages, n);
    for (const s of this.secondaries) {
      const old = s.entryOf.length;
      s.entryOf = grown(s.entryOf, n);
      s.entryOf.fill(-1, old);
      s.keyOf = grown(s.keyOf, n);
    }
  }

  // ---- operations --------------------------------------------------------------------------------

  insert(row: number, phys: number): boolean {
    if (phys > this.options.maxRecordBytes) {
      this.counters.rows_rejected++;
      return false;
    }
    this.ensureRows(row);
    this.bytes[row] = phys;
    this.state[row] = LIVE;
    this.clustered.insert(row, this.key(this.options.clustered, row), row, phys);
    this.setOffPages(row);
    if (this.secondariesBuilt) for (const s of this.secondaries) this.addEntry(s, row);
    if (row >= this.rowHigh) this.rowHigh = row + 1;
    this.liveCount++;
    this.counters.inserts++;
    if (this.sink !== null) this.sink({ op: 'insert', row, page: this.rowPage(row), bytes: phys, reserved: 0, newPage: false });
    return true;
  }

  /** The row's off-page values: their pages are taken from (or given back to) the clustered index's leaf segment. */
  private setOffPages(row: number): void {
    const now = this.withLens(row, this.options.offPagePages);
    const was = this.offPages[row]!;
    const places = this.offPlaces.get(row) ?? [];
    if (now > was) {
      // A record with off-page columns goes the pessimistic way (btr_cur_pessimistic_insert / _update), which
      // reserves ⌊height / 16⌋ + 3 extents (fsp_reserve_free_extents) first.
      this.space.reserve(Math.floor(this.clustered.levels / 16) + 3);
      places.push(...this.clustered.leafSegment.allocMany(now - was, this.clustered.filePage(this.rowPage(row))));
    } else if (now < was) this.clustered.leafSegment.freeMany(places.splice(now));
    if (now > 0) this.offPlaces.set(row, places);
    else this.offPlaces.delete(row);
    this.counters.offpage_pages += now - was;
    this.offPages[row] = now;
  }

  private addEntry(s: Secondary, row: number): void {
    const e = s.nextEntry++;
    if (e >= s.rowOf.length) s.rowOf = grown(s.rowOf, e + 1);
    s.rowOf[e] = row;
    s.entryOf[row] = e;
    s.keyOf[row] = this.key(s.spec, row);
    s.tree.insert(e, s.keyOf[row]!, this.key(this.options.clustered, row), this.withLens(row, s.spec.entryBytes));
  }

  update(row: number, phys: number, _logical: number, _info: UpdateInfo): boolean {
    if (phys > this.options.maxRecordBytes) {
      this.counters.updates_rejected++;
      return false;
    }
    this.counters.updates++;
    const page = this.rowPage(row);
    const fromBytes = this.bytes[row]!;
    const splits = this.clustered.counters.page_splits;
    const reorganizes = this.clustered.counters.page_reorganizes;
    const room = this.sink !== null ? this.clustered.updateRoom(row) : { free: 0, contiguous: 0 };
    if (this.clustered.resize(row, phys)) this.counters.updates_in_place++;
    this.bytes[row] = phys;
    this.setOffPages(row);
    // A secondary index whose key changed: the old entry is delete-marked, a new one inserted [btr0cur.cc].
    if (this.secondariesBuilt)
      for (const s of this.secondaries) {
        if (this.key(s.spec, row) === s.keyOf[row]) continue;
        this.purgeEntries.push({ index: s, entry: s.entryOf[row]! });
        this.addEntry(s, row);
      }
    if (this.sink !== null) {
      const split = this.clustered.counters.page_splits > splits;
      const reorganized = this.clustered.counters.page_reorganizes > reorganizes;
      this.sink({
        op: 'update',
        row,
        page,
        home: -1,
        fromBytes,
        toBytes: phys,
        // The page as the update found it: free after a reorganisation (PAGE_GARBAGE included), and above the record heap.
        totalFree: room.free,
        contiguousFree: room.contiguous,
        // A longer record written above the heap leaves its old version in PAGE_GARBAGE: "rewritten".
        outcome: split ? 'split' : phys < fromBytes ? 'shrank' : reorganized ? 'compacted' : phys > fromBytes ? 'rewritten' : 'in-place',
        toPage: this.rowPage(row),
        newPage: this.rowPage(row) !== page,
      });
    }
    return true;
  }

  /** DELETE marks the record (and its secondary entries); purge removes them at the transaction's end. */
  delete(row: number): void {
    if (this.sink !== null) this.sink({ op: 'delete', row, page: this.rowPage(row), home: -1, bytes: this.bytes[row]! });
    this.state[row] = MARKED;
    this.purgeRows.push(row);
    if (this.secondariesBuilt) for (const s of this.secondaries) this.purgeEntries.push({ index: s, entry: s.entryOf[row]! });
    this.liveCount--;
    this.counters.deletes++;
  }

  /** The transaction ends; purge (with nothing older reading) removes what it delete-marked. */
  commit(): void {
    for (const row of this.purgeRows) {
      this.clustered.purge(row);
      this.clustered.leafSegment.freeMany(this.offPlaces.get(row) ?? []);
      this.offPlaces.delete(row);
      this.counters.offpage_pages -= this.offPages[row]!;
      this.offPages[row] = 0;
      this.state[row] = 0;
      this.counters.purged_records++;
      for (const s of this.secondaries) s.entryOf[row] = -1;
    }
    for (const { index, entry } of this.purgeEntries) {
      index.tree.purge(entry);
      this.counters.purged_records++;
    }
    this.purgeRows = [];
    this.purgeEntries = [];
  }

  /** The secondary indexes are created (CREATE INDEX: a sorted build of the rows there are). */
  indexesBuilt(): void {
    this.secondariesBuilt = true;
    for (const s of this.secondaries) {
      const entries: number[] = [];
      for (const row of this.clustered.leafEntries()) {
        if (this.state[row] !== LIVE) continue;
        const e = s.nextEntry++;
        if (e >= s.rowOf.length) s.rowOf = grown(s.rowOf, e + 1);
        s.rowOf[e] = row;
        s.entryOf[row] = e;
        s.keyOf[row] = this.key(s.spec, row);
        s.tree.leaf.ensure(e + 1);
        s.tree.leaf.key[e] = s.keyOf[row]!;
        s.tree.leaf.tie[e] = this.key(this.options.clustered, row);
        s.tree.leaf.bytes[e] = this.withLens(row, s.spec.entryBytes);
        entries.push(e);
      }
      entries.sort((a, b) => s.tree.leaf.key[a]! - s.tree.leaf.key[b]! || s.tree.leaf.tie[a]! - s.tree.leaf.tie[b]! || a - b);
      s.tree.build(entries);
    }
  }

  /** OPTIMIZE TABLE (rebuild, compact, forwarded_rows): every index rebuilt sorted at innodb_fill_factor; vacuum: purge has run. */
  reorg(kind: ReorgKind): void {
    if (kind === 'vacuum') return;
    this.commit();
    // ALTER TABLE … FORCE writes a new file.
    this.space.reset(true);
    const rows = this.clustered.leafEntries();
    const from = this.sink === null ? [] : rows.map((row) => this.rowPage(row));
    // BtrBulk::insert stores a record's off-page columns as it puts the record on its leaf: the pages
    // follow the leaf's (btr_store_big_rec_extern_fields hints the page after it).
    this.clustered.onBulkLeafRecord = (row, page) => {
      if (this.offPages[row]! > 0)
        this.offPlaces.set(row, this.clustered.leafSegment.allocMany(this.offPages[row]!, this.clustered.filePage(page)));
    };
    this.clustered.build(rows);
    this.clustered.onBulkLeafRecord = null;
    if (this.sink !== null)
      rows.forEach((row, i) =>
        this.sink!({
          op: 'reorg-row',
          row,
          from: from[i]!,
          home: from[i]!,
          to: this.rowPage(row),
          bytes: this.bytes[row]!,
          outcome: 'rewritten',
        }),
      );
    for (const s of this.secondaries) s.tree.build(s.tree.leafEntries());
    this.space.loosen();
    this.counters.exclusive_table_locks++;
    if (this.sink !== null) this.sink({ op: 'rewrite', kind: 'rebuild', pages: this.clustered.leafPageList().length });
  }

  // ---- observation ------------------------------------------------------------------------------

  fetchRow(row: number, reads: PageReads): void {
    reads.dataPage(this.rowPage(row));
  }

  /** A scan reads the clustered index's leaves in key order. */
  scanTable(reads: PageReads): void {
    const leaves = this.clustered.leafPageList();
    if (reads.cache === null) reads.dataPages += leaves.length;
    else for (const p of leaves) reads.dataPage(p);
    if (this.sink !== null) this.sink({ op: 'scan', pages: leaves.length, hops: 0, pieces: 0, tuples: this.liveCount });
  }

  rowPage(row: number): number {
    return this.clustered.leaf.page[row]!;
  }

  rowSlot(row: number): number {
    return this.clustered.pageRecords(this.rowPage(row)).indexOf(row);
  }

  isLive(row: number): boolean {
    return row < this.rowHigh && this.state[row] === LIVE;
  }

  liveRows(): number {
    return this.liveCount;
  }

  rowBytes(row: number): number {
    return this.bytes[row]!;
  }

  metrics(): IndexOrganizedMetrics {
    const c = this.counters;
    const leaves = this.clustered.leafPageList();
    let data = 0;
    for (const p of leaves) data += this.clustered.pageData(p);
    const stats: Record<string, InnodbIndexFigures> = { [this.options.clustered.name]: indexFigures(this.clustered, true) };
    for (const s of this.secondaries) if (this.secondariesBuilt) stats[s.spec.name] = indexFigures(s.tree, false);
    const clusteredSize = stats[this.options.clustered.name]!.size_pages;
    const secondarySize = this.secondaries.reduce((sum, s) => sum + (stats[s.spec.name]?.size_pages ?? 0), 0);
    const pages = this.clustered.leafSegment.used + this.clustered.topSegment.used;
    const trees = [this.clustered, ...this.secondaries.map((s) => s.tree)];
    const merges = trees.reduce((sum, t) => sum + t.counters.page_merges, 0);
    return {
      rows: this.liveCount,
      pages,
      forwarded_rows: 0,
      hot_updates: 0,
      updates: c.updates,
      table_scan_page_reads: leaves.length,
      space_used_pct: round2((100 * data) / (leaves.length * this.options.freeSpaceOfEmpty)),
      exclusive_table_locks: c.exclusive_table_locks,
      avg_rows_per_page: round2(this.liveCount / leaves.length),
      avg_row_bytes: this.liveCount > 0 ? round2(data / Math.max(1, this.clustered.records())) : 0,
      inserts: c.inserts,
      deletes: c.deletes,
      rows_rejected: c.rows_rejected,
      updates_rejected: c.updates_rejected,
      updates_in_place: c.updates_in_place,
      page_splits: trees.reduce((sum, t) => sum + t.counters.page_splits, 0),
      page_merges: merges,
      page_reorganizes: trees.reduce((sum, t) => sum + t.counters.page_reorganizes, 0),
      delete_marked: this.purgeRows.length + this.purgeEntries.length,
      purged_records: c.purged_records,
      offpage_pages: c.offpage_pages,
      leaf_fill_pct: round2((100 * data) / (leaves.length * this.options.freeSpaceOfEmpty)),
      data_length: clusteredSize * this.options.pageBytes,
      index_length: secondarySize * this.options.pageBytes,
      data_free: this.space.freePages() * this.options.pageBytes,
      innodb: {
        indexes: stats,
        data_length: clusteredSize * this.options.pageBytes,
        index_length: secondarySize * this.options.pageBytes,
        data_free: this.space.freePages() * this.options.pageBytes,
      },
    };
  }

  /** The indexes' pages in use: above the leaves for the clustered index (its leaves are the table's pages), leaves and above for the others. */
  indexPages(): IndexPages {
    const by_index: Record<string, number> = {};
    const levels: Record<string, number> = {};
    const nonleaf_by_index: Record<string, number> = {};
    const c = this.clustered;
    by_index[this.options.clustered.name] = nonleaf_by_index[this.options.clustered.name] = c.levels > 1 ? c.pagesAbove() : 0;
    levels[this.options.clustered.name] = c.levels - 1;
    for (const s of this.secondaries) {
      if (!this.secondariesBuilt) continue;
      nonleaf_by_index[s.spec.name] = s.tree.levels > 1 ? s.tree.pagesAbove() : 0;
      by_index[s.spec.name] = s.tree.leafPageList().length + nonleaf_by_index[s.spec.name]!;
      levels[s.spec.name] = s.tree.levels;
    }
    return { total: Object.values(by_index).reduce((a, b) => a + b, 0), by_index, levels, nonleaf_by_index };
  }

  pageMap(): PageMapData {
    const n = this.clustered.numbered;
    const fill = new Float32Array(n);
    for (const p of this.clustered.leafPageList()) fill[p] = this.clustered.pageData(p) / this.options.freeSpaceOfEmpty;
    return { fill, stubs: new Uint16Array(n), forwardedIn: new Uint16Array(n) };
  }

  setEvents(sink: HeapEventSink | null): void {
    this.sink = sink;
  }

  inspect(only?: readonly number[]): PageInspector {
    const t = this.clustered;
    const n = t.numbered;
    const leaves = t.leafPageList();
    const at = new Map<number, number>(leaves.map((p, i) => [p, i]));
    return frozenInspector(
      n,
      (p) => {
        const i = at.get(p);
        const records = i === undefined ? [] : t.pageRecords(p);
        const slots: SlotDetail[] = records.map((row, slot) => ({ slot, kind: 'row', row, bytes: this.bytes[row]! }));
        const stored = i === undefined ? 0 : t.pageData(p);
        // page_dir_calc_reserved_space(): the directory bytes the page's records reserve, ⌈2n / 4⌉.
        const dir = dirReserved(records.length);
        const garbage = i === undefined ? 0 : t.pageGarbage(p);
        return {
          page: p,
          // The index's pages, its non-leaf ones included (page numbers count them).
          pages: leaves.length + (t.levels > 1 ? t.pagesAbove() : 0),
          allocated: i !== undefined,
          slots,
          storedBytes: stored,
          slotArrayBytes: dir,
          reservedBytes: 0,
          fragmentedBytes: garbage,
          contiguousBytes: this.options.freeSpaceOfEmpty - stored - dir - garbage,
          ...(i !== undefined && records.length > 0
            ? { keyRange: { first: records[0]!, last: records[records.length - 1]!, prev: leaves[i - 1] ?? -1, next: leaves[i + 1] ?? -1 } }
            : {}),
          flags: i === leaves.length - 1 ? ['last leaf in key order'] : [],
        };
      },
      only,
    );
  }

  memoryBytes(): number {
    return this.state.byteLength + this.bytes.byteLength + this.offPages.byteLength + 40 * this.clustered.numbered;
  }

  checkInvariants(): string[] {
    const trees = [this.clustered, ...this.secondaries.map((s) => s.tree)];
    const bad = trees.flatMap((t) => t.check());
    bad.push(...this.space.check());
    for (const t of trees)
      bad.push(...t.leafSegment.check(`${t.options.name} leaf segment`), ...t.topSegment.check(`${t.options.name} non-leaf segment`));
    let live = 0;
    for (let r = 0; r < this.rowHigh; r++) if (this.state[r] === LIVE) live++;
    if (live !== this.liveCount) bad.push(`live rows ${this.liveCount} counted, ${live} found`);
    const records = this.clustered.records();
    if (records !== live + this.purgeRows.length)
      bad.push(`clustered index holds ${records} records for ${live} live and ${this.purgeRows.length} delete-marked rows`);
    return bad;
  }
}

/**
 * An index's figures as the server reports them: n_leaf_pages is the leaf segment's pages in use, at
 * least 1; for a secondary index whose leaf segment has no extent yet (all fragment pages) a live MariaDB
 * 10.11 reports 1 (measured; the clustered index's is right at every size).
 */
function indexFigures(tree: IndexTree, clustered: boolean): InnodbIndexFigures {
  const leaves = tree.leafPageList().length;
  const used = tree.leafSegment.used;
  const allFragments = used <= tree.leafSegment.fragLimit;
  return {
    leaf_pages: used === 0 || (!clustered && allFragments) ? 1 : used,
    size_pages: tree.leafSegment.reserved + tree.topSegment.reserved,
    nonleaf_pages: tree.levels > 1 ? tree.pagesAbove() : 0,
    records: tree.allRecords(),
    leaf_records: tree.records(),
    levels: tree.levels,
    leaves,
  };
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
