/**
 * A page drawing from an engine's page detail and the format's anatomy: slot numbers in the format's own
 * numbering, the format's header parts, fill line and words. The one place the two meet.
 */
import type { EngineSpec } from '../config/spec.js';
import type { StorageFormat } from '../formats/format.js';
import type { PageDetail, SlotRef } from '../heap/inspect.js';
import type { TableLayout } from '../layout/table-layout.js';
import type { PageDrawing } from './drawing.js';

export function pageDrawing(format: StorageFormat, layout: TableLayout, engine: EngineSpec, detail: PageDetail): PageDrawing {
  const anatomy = format.pages.pageAnatomy(layout, engine);
  const first = anatomy.slotArray.firstSlot;
  const ref = (r: SlotRef | undefined) => (r === undefined ? undefined : { page: r.page, slot: r.slot + first });
  const numbered: PageDetail = {
    ...detail,
    slots: detail.slots.map((s) => {
      const out = { ...s, slot: s.slot + first };
      if (s.to) out.to = ref(s.to)!;
      if (s.from) out.from = ref(s.from)!;
      return out;
    }),
  };
  const drawing: PageDrawing = {
    format: format.id,
    title: `${anatomy.title} ${detail.page}`,
    pageBytes: layout.geometry.pageBytes,
    header: anatomy.header,
    slotArray: anatomy.slotArray,
    words: anatomy.words,
    detail: numbered,
    notes: anatomy.notes,
  };
  if (anatomy.trailer) drawing.trailer = anatomy.trailer;
  if (anatomy.fillLine) drawing.fillLine = anatomy.fillLine;
  if (anatomy.band) drawing.band = anatomy.band(detail);
  return drawing;
}
