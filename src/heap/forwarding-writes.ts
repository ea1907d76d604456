/**
 * The forwarding heap's inserts and updates: a row placed on the page the free-space search gives; a
 * growing row rewritten on its page (compacting it first when only the total free space takes it), else
 * forwarded with a stub at home (DOL, SQL Server, Oracle), moved with a new row id (APL), forwarded again
 * (never more than one hop) or brought home (SQL Server).
 */
import type { UpdateInfo } from './engine.js';
import type { HeapEventSink } from './events.js';
import { ForwardingFreeSpace } from './forwarding-free-space.js';
import { Page, Row } from './forwarding-pages.js';

export abstract class ForwardingWrites extends ForwardingFreeSpace {
  insert(row: number, phys: number, logical: number): boolean {
    if (phys > this.maxRowBytes) {
      if (this.chain === null) {
        this.counters.rows_rejected++;
        return false;
      }
      this.ensureRow(row);
      phys = this.chainRow(row, phys);
    }
    this.ensureRow(row);
    const rsv = this.reserveFor(phys, logical);
    const pagesBefore = this.pageCount;
    const last = this.lastPage;
    const p = this.targetPage(phys + rsv, -1);
    this.placeBody(p, phys, rsv);
    this.setRow(row, p, p, phys, rsv);
    if (this.sink !== null) {
      const newPage = this.pageCount > pagesBefore;
      const passed = newPage && last >= 0 ? this.passedOver(last, phys + rsv) : undefined;
      this.sink({ op: 'insert', row, page: p, bytes: phys, reserved: rsv, newPage, ...(passed ? { passed } : {}) });
    }
    if (row >= this.rowHigh) this.rowHigh = row + 1;
    this.liveCount++;
    this.counters.inserts++;
    return true;
  }

  /**
   * (Traced inserts only.) The last page, passed over for a new one although its free bytes took the row
   * and its slot: the room the engine gives a new row there and why it is less (a PFS band's promise,
   * the insert reserve of PCTFREE); undefined when the page was simply full.
   */
  protected passedOver(
    p: number,
    need: number,
  ): { page: number; free: number; room: number; need: number; why: 'pfs' | 'reserve' } | undefined {
    const i = p * Page.STRIDE;
    const free = this.usable - this.pageFields[i + Page.USED]! - this.pageFields[i + Page.SLOTS]! * this.slotBytes;
    if (need + this.slotBytes > free) return undefined;
    const plain = free - this.pageFields[i + Page.RESERVED]! - this.slotBytes - this.insertReserve;
    const room = this.insertRoom(p);
    const why = this.pfsRoomByUsed !== null && room < plain ? 'pfs' : this.insertReserve > 0 ? 'reserve' : undefined;
    return why ? { page: p, free, room: Math.max(0, room), need, why } : undefined;
  }

  update(row: number, phys: number, logical: number, info: UpdateInfo): boolean {
    if (this.sink !== null) return this.updateTraced(row, phys, logical, info, this.sink);
    return this.updateRow(row, phys, logical);
  }

  /** An update with its event: the page's free space when it came, and what the engine's own counters say it did. */
  protected updateTraced(row: number, phys: number, logical: number, _info: UpdateInfo, sink: HeapEventSink): boolean {
    const g = this.geometry;
    const h = this.home(row);
    const p = this.cur(row);
    const pi = p * Page.STRIDE;
    const slotArea = this.pageFields[pi + Page.SLOTS]! * g.slotBytes;
    const totalFree = g.usableBytes - this.pageFields[pi + Page.USED]! - slotArea;
    const contiguousFree = g.usableBytes - this.pageFields[pi + Page.TOP]! - slotArea;
    const fromBytes = this.len(row);
    // The branch growOnPage takes: the new body in the contiguous free space, or a compaction first.
    const newBody = p !== h ? phys + this.backPointerBytes : phys;
    const inOnePiece = newBody <= contiguousFree;
    const c = this.counters;
    const before = [c.forwarded_updates, c.reforwarded_updates, c.moved_home_on_update, c.row_moves];
    const pagesBefore = this.pageCount;
    const ok = this.updateRow(row, phys, logical);
    if (!ok) return false;
    const q = this.cur(row);
    const outcome =
      c.forwarded_updates > before[0]!
        ? 'forwarded'
        : c.reforwarded_updates > before[1]!
          ? 'reforwarded'
          : c.moved_home_on_update > before[2]!
            ? 'moved-home'
            : c.row_moves > before[3]!
              ? 'moved'
              : this.len(row) <= fromBytes
                ? 'shrank'
                : inOnePiece
                  ? 'rewritten'
                  : 'compacted';
    sink({
      op: 'update',
      row,
      page: p,
      home: p !== h ? h : outcome === 'forwarded' ? p : -1,
      fromBytes,
      toBytes: this.len(row),
      totalFree,
      contiguousFree,
      outcome,
      toPage: q,
      newPage: this.pageCount > pagesBefore,
      ...(outcome === 'forwarded' ? { stubBytes: this.stubBytes } : {}),
      reserved: this.rsv(row),
    });
    return true;
  }

  protected updateRow(row: number, phys: number, logical: number): boolean {
    if (this.chain !== null) {
      // The row's bit is read only while some row is chained: a random update would miss the cache on it.
      if (phys > this.maxRowBytes || (this.chainedRows > 0 && this.chain.get(row) > 0)) phys = this.chainRow(row, phys);
    } else if (phys > this.maxRowBytes) {
      this.counters.updates_rejected++;
      return false;
    }
    this.counters.updates++;
    const ri = row * Row.STRIDE;
    const h = this.rows[ri + Row.HOME]!;
    const p = this.rows[ri + Row.CUR]!;
    const size = this.rows[ri + Row.SIZE]!;
    const old = size & 0xffff;
    const oldRsv = size >>> 16;
    const newRsv = this.reserveFor(phys, logical);
    // A forwarded record carries the back-pointer (SQL Server) wherever it lives away from home.
    const body = p !== h ? phys + this.backPointerBytes : phys;
    const delta = body - old;
    if (delta <= 0) {
      if (p !== h && this.moveBackHome && this.moveHome(row, h, p, old, oldRsv, phys, newRsv)) return true;
      // Shrinks in place; the freed bytes become a hole until the page is compacted.
      this.resizeInPlace(row, p, body, delta, oldRsv, newRsv);
      return true;
    }
    if (this.growOnPage(p, body, delta)) {
      this.resizeInPlace(row, p, body, delta, oldRsv, newRsv);
      return true;
    }
    return this.relocate(row, h, p, old, oldRsv, phys, newRsv);
  }

  /**
   * Make room on page p for a body growing by `delta` to `body` bytes: rewritten into the contiguous free
   * space (the old body becomes a hole), or after compacting the page when only the total free space
   * takes it. False when the page cannot take it (or may not be compacted).
   */
  protected growOnPage(p: number, body: number, delta: number): boolean {
    const pg = this.pageFields;
    const pi = p * Page.STRIDE;
    const slotArea = pg[pi + Page.SLOTS]! * this.slotBytes;
    const totalFree = this.usable - pg[pi + Page.USED]! - slotArea;
    if (delta > totalFree) return false;
    const contiguous = this.usable - pg[pi + Page.TOP]! - slotArea;
    if (body <= contiguous) {
      pg[pi + Page.TOP]! += body;
      return true;
    }
    if (!this.compaction) return false;
    this.compact(p);
    pg[pi + Page.TOP]! += delta;
    return true;
  }

  /** The row (home h, now on page p) no longer fits where it is: move it (APL), forward it, or forward it again. */
  protected relocate(row: number, h: number, p: number, old: number, oldRsv: number, phys: number, newRsv: number): boolean {
    let newHome = h;
    let q: number;
    let placed = phys;
    if (!this.forwarding) {
      // APL: the row moves (new row id); every index entry for it is updated.
      this.removeBody(p, old, oldRsv);
      q = this.targetPage(phys + newRsv, p);
      newHome = q;
      this.counters.row_moves++;
      this.counters.index_row_updates += this.options.indexCount;
    } else if (p === h) {
      // First move: a stub stays at home in the row's slot; the body goes elsewhere.
      const pi = p * Page.STRIDE;
      this.pageFields[pi + Page.USED]! += this.stubBytes - old;
      this.pageFields[pi + Page.RESERVED]! -= oldRsv;
      if (this.tree !== null) this.touch(p);
      placed = phys + this.backPointerBytes;
      q = this.targetPage(placed + newRsv, p);
      this.forwardedCount++;
      this.counters.forwarded_updates++;
    } else {
      // Already forwarded: move again and update the home stub; never more than one hop.
      if (this.moveBackHome && this.moveHome(row, h, p, old, oldRsv, phys, newRsv)) return true;
      this.removeBody(p, old, oldRsv);
      placed = phys + this.backPointerBytes;
      q = this.targetPage(placed + newRsv, p);
      if (q === h) {
        // The free-space search chose the home page: the row is home again, the stub becomes the row.
        this.bodyHome(row, h, phys, newRsv);
        this.counters.moved_home_on_update++;
        return true;
      }
      this.counters.reforwarded_updates++;
    }
    this.placeBody(q, placed, newRsv);
    this.setRow(row, newHome, q, placed, newRsv);
    return true;
  }

  /** The row stays on page p with a body of `body` bytes (`delta` more than before) and reservation `newRsv`. */
  protected resizeInPlace(row: number, p: number, body: number, delta: number, oldRsv: number, newRsv: number): void {
    const pi = p * Page.STRIDE;
    this.pageFields[pi + Page.USED]! += delta;
    this.pageFields[pi + Page.RESERVED]! += newRsv - oldRsv;
    this.rows[row * Row.STRIDE + Row.SIZE] = body | (newRsv << 16);
    // A row that grows and keeps or grows its reservation only takes room (see touch).
    if (this.tree !== null && (delta < 0 || newRsv < oldRsv)) this.touch(p);
    this.counters.updates_in_place++;
  }

  /**
   * A forwarded row's body comes home in place of its stub (the page is compacted first when its
   * contiguous free space is too short); the row is no longer forwarded.
   */
  protected bodyHome(row: number, h: number, phys: number, rsv: number): void {
    const g = this.geometry;
    const pg = this.pageFields;
    const hi = h * Page.STRIDE;
    // The stub goes first: its bytes become a hole, which a compaction squeezes out with the others.
    pg[hi + Page.USED]! -= this.stubBytes;
    const contiguous = g.usableBytes - pg[hi + Page.TOP]! - pg[hi + Page.SLOTS]! * g.slotBytes;
    if (phys > contiguous) this.compact(h);
    pg[hi + Page.USED]! += phys;
    pg[hi + Page.TOP]! += phys;
    pg[hi + Page.RESERVED]! += rsv;
    if (this.tree !== null) this.touch(h);
    this.setRow(row, h, h, phys, rsv);
    this.forwardedCount--;
  }

  /**
   * SQL Server: a forwarded row that shrinks (or must move again) goes back to its home page when it
   * fits there in place of its stub [sqlskills, third-party]. Returns false when it does not fit.
   */
  protected moveHome(row: number, h: number, p: number, old: number, oldRsv: number, phys: number, newRsv: number): boolean {
    const g = this.geometry;
    const pg = this.pageFields;
    const hi = h * Page.STRIDE;
    const freeAtHome = g.usableBytes - pg[hi + Page.USED]! - pg[hi + Page.SLOTS]! * g.slotBytes;
    if (phys + newRsv - this.stubBytes > freeAtHome) return false;
    this.removeBody(p, old, oldRsv);
    this.bodyHome(row, h, phys, newRsv);
    this.counters.updates_in_place++;
    this.counters.moved_home_on_update++;
    return true;
  }
}
