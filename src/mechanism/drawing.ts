/**
 * One page as rowsim draws it: what the engine holds on the page (its slots, the bytes of each row, stub
 * and reservation, the free space) with what the format says the page is made of (its header, the name and
 * place of its slot array, the fillfactor or PCTFREE line). Plain data, so it crosses worker threads and is
 * embedded in report.html as JSON; renderPageSvg (svg.ts) and pageText (text.ts) draw it.
 */

import type { PageDetail } from '../heap/inspect.js';
import type { HeaderPart, PageAnatomy } from '../formats/format.js';

export type { HeaderPart, PageAnatomy } from '../formats/format.js';

export type { PageDetail, SlotDetail, SlotKind, SlotRef } from '../heap/inspect.js';

/** One page drawn: what the engine holds and what the format says the page is made of. */
export interface PageDrawing {
  format: string;
  title: string;
  pageBytes: number;
  header: HeaderPart[];
  slotArray: PageAnatomy['slotArray'];
  trailer?: HeaderPart;
  fillLine?: PageAnatomy['fillLine'];
  words: PageAnatomy['words'];
  band?: string;
  detail: PageDetail;
  notes: string[];
}
