/**
 * What a read phase costs, counted as the DBMS's own statistics count it: logical page reads of the
 * table and of its indexes, the extra reads of forwarded, migrated and chained rows, PostgreSQL's tuple
 * visits through HOT chains and dead versions, and, with a buffer cache, hits and physical reads.
 *
 * The page engines (src/heap) and the index tracker (src/btree) call these methods as they read; the
 * workload runner makes one PageReads per read phase and reports it (results.json `reads`).
 */
import type { BufferCache } from './buffer-cache.js';

/** Object numbers in the buffer cache: the heap, the LOB/TOAST store, then one per index. */
export const HEAP_OBJECT = 0;
export const LOB_OBJECT = 1;
export const INDEX_OBJECT_BASE = 2;

export class PageReads {
  /** Logical reads of the table's data pages (each forwarded-row hop and chained piece included). */
  dataPages = 0;
  /** Logical reads of index pages (root to leaf, each leaf visited). */
  indexPages = 0;
  /** Logical reads of LOB pages (TOAST, LOB, text/image or long-column pages). */
  lobPages = 0;
  /** Rows read through a forwarding stub or migration pointer: one extra page read each. */
  forwardedHops = 0;
  /** Extra pieces of chained rows read (Oracle: one page visit a piece). */
  chainedPieces = 0;
  /** PostgreSQL: heap tuples visited (live, dead and every member of a HOT chain). */
  tuplesVisited = 0;
  /** PostgreSQL: steps along HOT chains inside a page to the visible version. */
  hotChainHops = 0;
  /** PostgreSQL: dead versions an index scan visited through index entries not yet removed or killed. */
  deadVersions = 0;
  /** PostgreSQL: heap pages a read pruned on access (heap_page_prune_opt). */
  pagesPruned = 0;
  /** Rows the statements returned. */
  rows = 0;
  /** Statements run: one a row fetched, one a table scan. */
  statements = 0;
  /** With a cache: reads found in it, and reads that went to disk (in all, and of data and index pages). */
  hits = 0;
  misses = 0;
  dataMisses = 0;
  indexMisses = 0;

  constructor(readonly cache: BufferCache | null) {}

  /** A data page read. */
  dataPage(page: number): void {
    this.dataPages++;
    if (this.cache !== null && !this.count(this.cache.access(HEAP_OBJECT, page))) this.dataMisses++;
  }

  /** An index page read: index `index` (its position in the table's indexes), page `page` of it. */
  indexPage(index: number, page: number): void {
    this.indexPages++;
    if (this.cache !== null && !this.count(this.cache.access(INDEX_OBJECT_BASE + index, page))) this.indexMisses++;
  }

  /** A LOB page read. */
  lobPage(page: number): void {
    this.lobPages++;
    if (this.cache !== null) this.count(this.cache.access(LOB_OBJECT, page));
  }

  private count(hit: boolean): boolean {
    if (hit) this.hits++;
    else this.misses++;
    return hit;
  }

  get logical(): number {
    return this.dataPages + this.indexPages + this.lobPages;
  }
}
