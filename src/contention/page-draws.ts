/**
 * The page stream's draws, made a batch ahead. Every look-up takes the next 32-bit draw of the page
 * stream: a data page through the Zipf alias table (`AliasTable.sample` of Prng.float32's value), an
 * index page as Prng.index's multiply-and-floor. One stream, taken in event order, so the draws are
 * the same numbers whichever way they are made; made a batch at a time they are the same numbers in the
 * same order (tested against the Prng), but the alias-table reads of a batch are independent of each
 * other and of the event loop, so the processor overlaps their cache misses instead of stalling the
 * loop on each. A data page is sampled for every draw (the stream does not know which look-up takes
 * it); an index look-up uses the draw's uniform instead.
 *
 * `ahead`, when given, is an array indexed by page (the lockless page lines): each batch reads the
 * slot of every page drawn, so that the look-ups find it in cache.
 */
import type { AliasTable } from './alias-table.js';
import type { Prng } from '../util/prng.js';

/** Draws made at a time. */
export const DRAW_BATCH = 256;

export class PageDraws {
  private readonly rng: Prng;
  private readonly table: AliasTable | null;
  private readonly ahead: Float64Array | null;
  private readonly uniforms = new Float64Array(DRAW_BATCH);
  private readonly pages = new Int32Array(DRAW_BATCH);
  private next = DRAW_BATCH;
  /** The sum of the slots read ahead (kept so that the reads are not optimised away). */
  touched = 0;

  constructor(rng: Prng, table: AliasTable | null, ahead: Float64Array | null = null) {
    this.rng = rng;
    this.table = table;
    this.ahead = ahead;
  }

  /** The next draw as a data page: Prng.float32's value sampled from the alias table. */
  dataPage(): number {
    if (this.next === DRAW_BATCH) this.refill();
    return this.pages[this.next++]!;
  }

  /** The next draw as a whole number in [0, n): Prng.index's value (its float32 times n, floored). */
  index(n: number): number {
    if (this.next === DRAW_BATCH) this.refill();
    return Math.floor(this.uniforms[this.next++]! * n);
  }

  private refill(): void {
    const u = this.uniforms;
    this.rng.fillFloat32(u, DRAW_BATCH);
    const table = this.table;
    if (table) {
      const pages = this.pages;
      table.sampleBatch(u, pages, DRAW_BATCH);
      const ahead = this.ahead;
      if (ahead) {
        let sum = 0;
        for (let i = 0; i < DRAW_BATCH; i++) sum += ahead[pages[i]!]!;
        this.touched = sum;
      }
    }
    this.next = 0;
  }
}
