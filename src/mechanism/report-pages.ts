/**
 * The page drawings report.html carries: the first page of each cell of its page maps. A report map has
 * at most REPORT_MAP_CELLS cells (several pages a cell for larger tables), so a report holds at most that
 * many drawings a map, whatever the table's size; any other page is a `rowsim page` away.
 */
import type { StorageSpec } from '../config/spec.js';
import type { StorageEngine } from '../heap/engine.js';
import type { PageDrawing } from './drawing.js';
import { drawer } from './capture.js';

/** Cells of a page map in report.html, at most. */
export const REPORT_MAP_CELLS = 200;

/** Pages a report cell stands for: ceil(pages / REPORT_MAP_CELLS), at least 1. */
export function reportCellPages(pages: number): number {
  return Math.max(1, Math.ceil(pages / REPORT_MAP_CELLS));
}

/** Drawings of the first page of every report cell of the table (of `pages` pages) as the engine holds it now. */
export function reportDrawings(spec: StorageSpec, engine: StorageEngine, pages: number): PageDrawing[] {
  const step = reportCellPages(pages);
  const first: number[] = [];
  for (let p = 0; p < pages; p += step) first.push(p);
  const draw = drawer(spec, engine.inspect(first));
  return first.map(draw);
}
