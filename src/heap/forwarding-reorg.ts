/**
 * The forwarding heap's deletes and reorganisations: reorg forwarded_rows (rows home or re-homed, in
 * transactions of 8 pages), reclaim_space, compact and rebuild.
 */
import type { ReorgKind } from './engine.js';
import { ForwardingWrites } from './forwarding-writes.js';
import { Page, PageState } from './forwarding-pages.js';
import { scratchInt32 } from './inspect.js';

/** Pages per reorg transaction [R2][R3]. */
const REORG_PAGES_PER_TRANSACTION = 8;

export abstract class ForwardingReorg extends ForwardingWrites {
  delete(row: number): void {
    const p = this.cur(row);
    if (this.sink !== null)
      this.sink({ op: 'delete', row, page: p, home: this.home(row) !== p ? this.home(row) : -1, bytes: this.len(row) });
    this.removeBody(p, this.len(row), this.rsv(row));
    const h = this.home(row);
    if (h !== p) {
      const hi = h * Page.STRIDE;
      this.pageFields[hi + Page.USED]! -= this.stubBytes;
      this.pageFields[hi + Page.SLOTS]!--;
      if (this.tree !== null) this.touch(h);
      if (this.deallocateEmpty) this.freeIfEmpty(h);
      this.forwardedCount--;
    }
    if (this.chainedRows > 0 && this.chain!.get(row) > 0) this.chainRow(row, 0);
    this.setRow(row, -1, -1, 0, 0);
    this.liveCount--;
    this.counters.deletes++;
  }

  commit(): void {
    // Forwarding heaps change rows in place: nothing becomes visible or dead at commit.
  }

  reorg(kind: ReorgKind): void {
    switch (kind) {
      case 'forwarded_rows':
        if (this.options.reorgForwardedRowsRebuilds) this.rebuild();
        else this.reorgForwardedRows();
        break;
      case 'vacuum':
        // No MVCC versions to vacuum in a forwarding heap.
        break;
      case 'rebuild':
        this.rebuild();
        break;
      case 'compact':
        this.reorgForwardedRows();
        this.reclaimSpace();
        break;
    }
  }

  /**
   * The forwarded rows by home page, then row id: a counting sort of the rows found in id order. A sort
   * comparing rows took most of a reorg of many (n log n calls of a comparator: 0.13–0.25 s for 800,000).
   * bucketRows (inspect.ts) gives the same order, but calls its page callback twice for every row: at
   * 1,000,000 rows the reorg phase took 119–148 ms against 76–107 here with 841,077 rows forwarded, and
   * 25 against 5–9 ms with 31,070 (warm, 3 processes each).
   */
  protected forwardedByHome(): Int32Array {
    // The rows found and the pages' counts on scratch arrays (slots 0 and 1, free during a reorg): a list
    // growing to 800,000 rows cost more than the sort, fresh arrays their page faults.
    const found = scratchInt32(0, this.rowHigh);
    let n = 0;
    for (let r = 0; r < this.rowHigh; r++) {
      if (this.isLive(r) && this.cur(r) !== this.home(r)) found[n++] = r;
    }
    const start = scratchInt32(1, this.pageCount + 1).fill(0);
    for (let i = 0; i < n; i++) start[this.home(found[i]!) + 1]!++;
    for (let p = 0; p < this.pageCount; p++) start[p + 1]! += start[p]!;
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) out[start[this.home(found[i]!)]!++] = found[i]!;
    return out;
  }

  /**
   * reorg forwarded_rows [R2][R3][R4]: short transactions of at most 8 pages; each forwarded row goes
   * home if it fits there, else it is deleted and re-inserted with a new home. A transaction that meets
   * a forwarded row takes an exclusive table lock [S-ASE-BET].
   */
  protected reorgForwardedRows(): void {
    const forwarded = this.forwardedByHome();
    this.counters.reorg_transactions += Math.ceil(this.allocatedPages / REORG_PAGES_PER_TRANSACTION);
    const g = this.geometry;
    let lastGroup = -1;
    for (const r of forwarded) {
      const h = this.home(r);
      const group = Math.floor(h / REORG_PAGES_PER_TRANSACTION);
      if (group !== lastGroup) {
        this.counters.exclusive_table_locks++;
        lastGroup = group;
      }
      const c = this.cur(r);
      const L0 = this.len(r);
      const L = L0 - this.backPointerBytes;
      const rsv = this.rsv(r);
      const hi = h * Page.STRIDE;
      const freeAtHome = g.usableBytes - this.pageFields[hi + Page.USED]! - this.pageFields[hi + Page.SLOTS]! * g.slotBytes;
      this.removeBody(c, L0, rsv);
      // this.pageFields, never a local copy: targetPage() may allocate a page and grow the array.
      if (L - this.stubBytes <= freeAtHome) {
        this.bodyHome(r, h, L, rsv);
        this.counters.rows_moved_home++;
        if (this.sink !== null)
          this.sink({ op: 'reorg-row', row: r, from: c, home: h, to: h, bytes: L, outcome: 'moved-home', reserved: rsv });
      } else {
        this.pageFields[hi + Page.USED]! -= this.stubBytes;
        this.pageFields[hi + Page.SLOTS]!--;
        if (this.tree !== null) this.touch(h);
        if (this.deallocateEmpty) this.freeIfEmpty(h);
        const q = this.targetPage(L + rsv, -1);
        this.placeBody(q, L, rsv);
        this.setRow(r, q, q, L, rsv);
        this.forwardedCount--;
        this.counters.rows_rehomed++;
        if (this.sink !== null)
          this.sink({ op: 'reorg-row', row: r, from: c, home: h, to: q, bytes: L, outcome: 'rehomed', reserved: rsv });
      }
    }
  }

  /** reorg reclaim_space: compact every page and deallocate empty ones (not the last page). */
  protected reclaimSpace(): void {
    for (let p = 0; p < this.pageCount; p++) {
      if (this.state[p] !== PageState.ALLOCATED) continue;
      this.compact(p);
      if (this.pageFields[p * Page.STRIDE + Page.SLOTS] === 0 && p !== this.lastPage) {
        this.state[p] = PageState.FREE;
        this.allocatedPages--;
        this.counters.pages_deallocated++;
        if (this.tree !== null) this.touch(p);
      }
    }
  }

  /** reorg rebuild [R3][R5]: one exclusive table lock; rows repacked honouring exp_row_size. */
  protected rebuild(): void {
    const order = this.scanOrder();
    this.counters.pages_deallocated += this.allocatedPages;
    // Only the pages made so far: the arrays' room beyond them is still unwritten, and zero.
    this.pageFields.fill(0, 0, this.pageCount * Page.STRIDE);
    this.state.fill(PageState.FREE, 0, this.pageCount);
    this.tree?.clear();
    this.lastStale = false;
    this.stalePage = -1;
    this.pageCount = 0;
    this.allocatedPages = 0;
    this.lastPage = -1;
    for (let i = 0; i < order.length; i++) {
      const r = order[i]!;
      const from = this.cur(r);
      const home = this.home(r);
      const L = from !== home ? this.len(r) - this.backPointerBytes : this.len(r);
      const rsv = this.rsv(r);
      const p = this.targetPage(L + rsv, -1);
      this.placeBody(p, L, rsv);
      this.setRow(r, p, p, L, rsv);
      if (this.sink !== null) this.sink({ op: 'reorg-row', row: r, from, home, to: p, bytes: L, outcome: 'rewritten', reserved: rsv });
    }
    this.forwardedCount = 0;
    this.counters.exclusive_table_locks++;
    this.counters.reorg_transactions++;
    if (this.sink !== null) this.sink({ op: 'rewrite', kind: 'rebuild', pages: this.allocatedPages });
  }

  /** Live rows in table-scan order: by home page, then row id (a stable counting sort). */
  protected scanOrder(): Int32Array {
    const counts = new Int32Array(this.pageCount + 1);
    for (let r = 0; r < this.rowHigh; r++) if (this.isLive(r)) counts[this.home(r) + 1]!++;
    for (let p = 0; p < this.pageCount; p++) counts[p + 1]! += counts[p]!;
    const order = new Int32Array(this.liveCount);
    for (let r = 0; r < this.rowHigh; r++) if (this.isLive(r)) order[counts[this.home(r)]!++] = r;
    return order;
  }
}
