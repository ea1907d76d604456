/**
 * rowsim page: one page of a config's simulated table, drawn to scale (SVG and PNG), listed as text
 * (one line per slot, like pageinspect's heap_page_items) or as JSON, after any phase of the workload.
 */
import { join, relative } from 'node:path';
import { UserError } from '../config/errors.js';
import { loadConfig } from '../loader/config.js';
import { captureAfter, choosePoint, interestingPage, type PhaseChoice } from '../mechanism/capture.js';
import { StagedOutput, checkOutputFolder } from '../report/output.js';
import { slug } from '../util/units.js';

export interface PageOptions {
  point?: string;
  after?: PhaseChoice;
  page?: number;
  row?: number;
  format?: 'svg' | 'png' | 'text' | 'json' | 'files';
  out?: string;
  scale?: number;
}

export async function pageCommand(file: string, opts: PageOptions): Promise<number> {
  if (opts.page !== undefined && opts.row !== undefined) throw new UserError('--page and --row: expected one of them, found both');
  const cfg = loadConfig(file);
  const point = choosePoint(cfg.storage, opts.point, file);
  const kind = opts.format ?? 'files';
  const folder =
    kind === 'svg' || kind === 'png' || kind === 'files' ? checkOutputFolder(opts.out ?? join('out', cfg.name, 'pages'), 'page') : null;
  const cap = captureAfter(point.spec, opts.after ?? 'final');
  let page: number;
  if (opts.row !== undefined) {
    const at = cap.inspector.locate(opts.row);
    if (at === null)
      throw new UserError(
        `--row: expected a live row of the table after phase ${cap.phase} (${cap.phaseLabel}), found row ${opts.row}, which is not there (rows are numbered from 0 in insert order)`,
      );
    page = at.page;
  } else if (opts.page !== undefined) {
    if (opts.page >= cap.inspector.pages)
      throw new UserError(
        `--page: expected a page from 0 to ${cap.inspector.pages - 1} (the table has ${cap.inspector.pages} after phase ${cap.phase}), found ${opts.page}`,
      );
    page = opts.page;
  } else page = interestingPage(cap.inspector);
  const drawing = cap.draw(page);
  const { pageText } = await import('../mechanism/text.js');
  if (kind === 'json') {
    process.stdout.write(`${JSON.stringify({ point: point.label, after_phase: cap.phase, phase: cap.phaseLabel, drawing }, null, 2)}\n`);
    return 0;
  }
  const heading = `${cfg.name}, ${point.label}, after phase ${cap.phase} (${cap.phaseLabel})`;
  if (kind === 'text') {
    process.stdout.write(`${heading}\n${pageText(drawing)}`);
    return 0;
  }
  const { renderPageSvg } = await import('../mechanism/svg.js');
  // The drawing says which run it shows: a PNG passed around the classroom on its own still does.
  const svg = renderPageSvg(drawing, { caption: heading });
  const base = `page-${slug(point.label)}-after-${cap.phase}-p${page}`;
  const out = new StagedOutput(folder!);
  const written: string[] = [];
  try {
    if (kind !== 'png') {
      out.write(`${base}.svg`, svg);
      written.push(`${base}.svg`);
    }
    if (kind !== 'svg') {
      const { svgToPng } = await import('../mechanism/png.js');
      out.write(`${base}.png`, svgToPng(svg, opts.scale ?? 1));
      written.push(`${base}.png`);
    }
    await out.publish({ accumulate: true });
  } finally {
    out.discard();
  }
  if (kind === 'files') process.stdout.write(`${heading}\n${pageText(drawing)}${cap.note ? `note: ${cap.note}\n` : ''}`);
  const shown = relative(process.cwd(), folder!.dir) || folder!.dir;
  process.stdout.write(`page drawing: ${written.map((w) => join(shown, w)).join(', ')}\n`);
  return 0;
}
