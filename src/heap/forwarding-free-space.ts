/**
 * The forwarding heap's free-space search: the page a new or moving row goes to (the last page, else
 * with a search the first page with room, else a new page) and the upkeep of the search's entries as
 * pages gain room. ASE has no search (the last page only); SQL Server's PFS bands and Oracle's ASSM free
 * space are the FreeTree of free-tree.ts.
 */
import { ForwardingPages, Page, PageState } from './forwarding-pages.js';

export abstract class ForwardingFreeSpace extends ForwardingPages {
  /** Bytes a new row (with its reservation) may take on page p: −1 when the page takes no rows. */
  protected insertRoom(p: number): number {
    const i = p * Page.STRIDE;
    const slotsNow = this.pageFields[i + Page.SLOTS]!;
    if (this.state[p] !== PageState.ALLOCATED || slotsNow >= this.maxRows) return -1;
    const usedNow = this.pageFields[i + Page.USED]! + slotsNow * this.slotBytes;
    let room = this.usable - usedNow - this.pageFields[i + Page.RESERVED]! - this.slotBytes - this.insertReserve;
    const byUsed = this.pfsRoomByUsed;
    if (byUsed !== null) {
      // A page is chosen only when its PFS band guarantees room (pfsRoomByUsed): the band's free share is for the record itself, the slot comes on top [DBA-15026].
      const guaranteed = byUsed[usedNow < byUsed.length ? usedNow : byUsed.length - 1]!;
      if (guaranteed < room) room = guaranteed;
    }
    return room;
  }

  /**
   * Keep the free-space search up to date after page p may have gained room. Its entries may say a page
   * has more room than it has, never less: an entry is raised when its page gains room, and lowered only
   * when a search lands on the page and finds it short (targetPage), so a change that only takes room (a
   * row placed on the page, a row grown in place that keeps or grows its reservation) does not call this
   * at all. The first page a search returns that has the room is then
   * the first page with the room, as with every entry exact. The raises are put off too: the last page
   * changes with every insert and is tried before any search, and its entry is looked at only when a
   * search is about to run or another page becomes the last (flushLast); one other page, the one changed
   * last (stalePage), is looked at when another page changes or a search is about to run (updates in row
   * order change one page many times running).
   */
  protected override touch(p: number): void {
    if (p === this.lastPage) {
      this.lastStale = true;
      return;
    }
    if (p === this.stalePage) return;
    const q = this.stalePage;
    this.stalePage = p;
    if (q >= 0) this.raise(q);
  }

  /** Raise page p's entry in the free-space search to the room the page has, if that is more. */
  protected raise(p: number): void {
    const room = this.insertRoom(p);
    if (room > this.tree!.get(p)) this.tree!.set(p, room);
  }

  /** Raise the free-space search's entries of the last page and of the page changed last to their pages' room. */
  protected override flushLast(): void {
    const q = this.stalePage;
    if (q >= 0) {
      this.stalePage = -1;
      this.raise(q);
    }
    if (!this.lastStale) return;
    this.lastStale = false;
    if (this.lastPage >= 0) this.raise(this.lastPage);
  }

  /** May a new row charged `charge` bytes (row + reservation) go on page p? */
  protected fitsInsert(p: number, charge: number): boolean {
    if (p < 0 || this.state[p] !== PageState.ALLOCATED) return false;
    if (this.tree !== null || this.insertReserve > 0) return this.insertRoom(p) >= charge;
    const i = p * Page.STRIDE;
    const slotsNow = this.pageFields[i + Page.SLOTS]!;
    if (slotsNow >= this.maxRows) return false;
    const free = this.usable - this.pageFields[i + Page.USED]! - slotsNow * this.slotBytes - this.pageFields[i + Page.RESERVED]!;
    return free >= charge + this.slotBytes;
  }

  /**
   * The page a new or moving row goes to: the last page if it fits there; with a free-space search,
   * the first page with room; else a new page.
   */
  protected targetPage(charge: number, notPage: number): number {
    const q = this.lastPage;
    // A row that can never leave the reserve free (PCTFREE near 100) still gets a page of its own.
    const need = Math.max(0, Math.min(charge, this.usable - this.slotBytes - this.insertReserve));
    if (q !== notPage && this.fitsInsert(q, need)) return q;
    if (this.tree !== null) {
      this.flushLast();
      const tree = this.tree;
      // An entry may promise more than its page has (touch): a page found short is lowered, and the search goes on past it.
      for (let f = tree.findFrom(need, 0); f >= 0;) {
        if (f === notPage) {
          f = tree.findFrom(need, f + 1);
          continue;
        }
        const room = this.insertRoom(f);
        if (room >= need) return f;
        tree.set(f, room);
        f = tree.findFrom(need, f + 1);
      }
    }
    return this.newPage();
  }
}
