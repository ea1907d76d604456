/**
 * Page maps as the reports draw them: one cell per page for a small table, several pages a cell for a
 * large one. Pure: no I/O.
 *
 * The bound: a map has at most `maxCells` cells (RUN_DEFAULTS.pageMapMaxCells, 20,000). A table of up
 * to that many pages keeps one page a cell; a larger one puts ceil(pages / maxCells) consecutive pages in
 * each cell. A cell is 12 bytes (a Float32 and two Uint32), so a kept map is at most 240 KB whatever the
 * table's size. The engine's own page map (8 bytes a page) exists only while it is reduced, in the
 * worker, and is less than the engine's own state per page.
 */

/** What a page engine reports per page (src/heap/engine.ts PageMapData has this shape). */
export interface PerPageMap {
  fill: ArrayLike<number>;
  stubs: ArrayLike<number>;
  forwardedIn: ArrayLike<number>;
}

export interface PageMapCells {
  /** Pages of the table. */
  pages: number;
  /** Pages each cell stands for (1: a page a cell); the last cell may hold fewer. */
  pagesPerCell: number;
  /** Per cell: the mean fill (0..1) of its pages. */
  fill: Float32Array;
  /** Per cell: forwarding stubs (rows whose home is there and that live elsewhere) on its pages. */
  stubs: Uint32Array;
  /** Per cell: forwarded rows living on its pages away from home. */
  forwardedIn: Uint32Array;
  /** Over the whole table, counted before the reduction: pages holding stubs, holding forwarded-in rows. */
  stubPages: number;
  forwardedInPages: number;
}

function finite(v: number | undefined): number {
  return v !== undefined && Number.isFinite(v) ? v : 0;
}

/** `map` in at most `maxCells` cells (at least 1): consecutive pages share a cell when there are more pages. */
export function reducePageMap(map: PerPageMap, maxCells: number): PageMapCells {
  const pages = map.fill.length;
  const limit = Math.max(1, Math.floor(maxCells));
  const pagesPerCell = Math.max(1, Math.ceil(pages / limit));
  const cells = Math.ceil(pages / pagesPerCell);
  const fill = new Float32Array(cells);
  const stubs = new Uint32Array(cells);
  const forwardedIn = new Uint32Array(cells);
  let stubPages = 0;
  let forwardedInPages = 0;
  for (let c = 0; c < cells; c++) {
    const first = c * pagesPerCell;
    const end = Math.min(pages, first + pagesPerCell);
    let sum = 0;
    let n = 0;
    for (let p = first; p < end; p++) {
      const f = map.fill[p]!;
      if (Number.isFinite(f)) {
        sum += Math.min(1, Math.max(0, f));
        n++;
      }
      const s = finite(map.stubs[p]);
      const i = finite(map.forwardedIn[p]);
      stubs[c] = stubs[c]! + s;
      forwardedIn[c] = forwardedIn[c]! + i;
      if (s > 0) stubPages++;
      if (i > 0) forwardedInPages++;
    }
    fill[c] = n > 0 ? sum / n : NaN;
  }
  return { pages, pagesPerCell, fill, stubs, forwardedIn, stubPages, forwardedInPages };
}
