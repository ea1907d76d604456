/**
 * report.html: the run's results in one self-contained page. Everything is inside the file: the summary
 * (summary.md rendered: the point table, the per-phase tables, the notes, the contention section), every
 * chart as a data: URI, the page maps as grids of cells that open a page's drawing when clicked, the
 * glossary's terms as tooltips on headings and column names, a projector mode (large type: a button or
 * the `p` key) and a print style. The page makes no request: no script, style, font or image comes from
 * anywhere but the file (fonts are the system's own).
 */
import { readFileSync } from 'node:fs';
import { pageScriptSource } from '../mechanism/svg.js';
import { base64Of } from '../util/arrays.js';
import { slug } from '../util/units.js';
import { groupedNumber } from '../util/numbers.js';

// ---- text --------------------------------------------------------------------------------------

/** Text (or an attribute value) with HTML's special characters escaped. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** JSON that can sit inside a <script> element: no `<` (so no `</script>` or `<!--`), no line separators. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Code that can sit inside a <script> element. */
function scriptCode(code: string): string {
  return code.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

// ---- the glossary ------------------------------------------------------------------------------

export interface GlossaryTerm {
  /** The term as the glossary writes it in bold. */
  term: string;
  /** The definition, markdown links and code marks removed. */
  definition: string;
  /** What the term is matched by in headings and column names. */
  aliases: string[];
}

/** Abbreviations rowsim's column names use for a glossary term. */
const ABBREVIATIONS: Record<string, string[]> = {
  'forwarded row': ['fwd'],
};

function plain(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\*\*([^*]+)\*\*/g, '$1')
    .replace(/\*([^*]+)\*/g, '$1')
    .replace(/`([^`]+)`/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The names a term is known by: "PFS (Page Free Space)" → PFS, Page Free Space; "IAM, GAM, SGAM" → each. */
function termAliases(term: string, aside: string | undefined, definition: string): string[] {
  const names = new Set<string>();
  const add = (s: string) => {
    const t = s.trim();
    if (t.length >= 2) names.add(t);
  };
  const outer = term
    .replace(/\s*\([^)]*\)\s*/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  for (const part of outer.split(/\s*(?:,|\/)\s*/)) add(part);
  const inner = /\(([^)]*)\)/.exec(term)?.[1];
  if (inner && /^[A-Z][A-Za-z]*$/.test(term.split(' ')[0] ?? '')) {
    // "HOT (heap-only tuple) update": the acronym alone is a name too; the parenthesis spells it out.
    add(term.split(' ')[0]!);
    if (!/ /.test(outer)) add(inner);
  }
  if (aside) add(aside);
  // The keys the definition names (`forwarded_rows`, `hot_updates`): a column of that name is the term.
  for (const m of definition.matchAll(/`([a-z][a-z0-9_]*)`/g)) if (m[1]!.includes('_')) add(m[1]!);
  for (const a of ABBREVIATIONS[outer] ?? []) add(a);
  return [...names];
}

/** The terms of docs/glossary.md: each `**term**` (with an optional `(aside)`) followed by a colon. */
export function parseGlossary(markdown: string): GlossaryTerm[] {
  const terms: GlossaryTerm[] = [];
  for (const para of markdown.split(/\n\s*\n/)) {
    const text = para.replace(/\s*\n\s*/g, ' ');
    const heads = [...text.matchAll(/\*\*([^*]+)\*\*(?: \(([^)]*)\))?:/g)];
    heads.forEach((h, i) => {
      const start = h.index + h[0].length;
      const end = i + 1 < heads.length ? heads[i + 1]!.index : text.length;
      const raw = text.slice(start, end);
      const definition = plain(raw);
      if (!definition) return;
      terms.push({ term: h[1]!, definition, aliases: termAliases(h[1]!, h[2], raw) });
    });
  }
  return terms;
}

let glossaryCache: GlossaryTerm[] | undefined;

/** docs/glossary.md as the package ships it (beside dist/ and src/); no tooltips when it is missing. */
export function loadGlossary(): GlossaryTerm[] {
  if (!glossaryCache) {
    try {
      glossaryCache = parseGlossary(readFileSync(new URL('../../docs/glossary.md', import.meta.url), 'utf8'));
    } catch {
      glossaryCache = [];
    }
  }
  return glossaryCache;
}

interface Matcher {
  re: RegExp;
  term: GlossaryTerm;
}

/** Wraps the glossary's terms in a text (a heading, a column name) in <abbr title>; escapes the rest. */
export class TermMarker {
  private readonly matchers: Matcher[];
  /**
   * Every term at once, in any case: a text it does not match holds no term (each term's own expression
   * matches a part of what this one does), and is only escaped. Most texts, a table's figures, are such.
   */
  private readonly any: RegExp | null;

  constructor(terms: GlossaryTerm[]) {
    const bodies: string[] = [];
    this.matchers = terms.flatMap((term) =>
      term.aliases.map((a) => {
        const body = a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '[ _-]');
        bodies.push(body);
        // Names with capitals (HOT, PFS, VACUUM) match as written; lower-case ones in any case; a plural too.
        return { re: new RegExp(`(?<![A-Za-z0-9_])${body}(?:s|es)?(?![A-Za-z0-9_])`, /[A-Z]/.test(a) ? 'g' : 'gi'), term };
      }),
    );
    this.any = bodies.length ? new RegExp(`(?<![A-Za-z0-9_])(?:${bodies.join('|')})(?:s|es)?(?![A-Za-z0-9_])`, 'i') : null;
  }

  mark(text: string): string {
    return this.any === null || !this.any.test(text) ? esc(text) : this.markEach(text);
  }

  /** mark() without the quick test: every term's expression run over the text (the tests compare the two). */
  markEach(text: string): string {
    const found: { start: number; end: number; term: GlossaryTerm }[] = [];
    for (const { re, term } of this.matchers) {
      re.lastIndex = 0;
      for (let m = re.exec(text); m; m = re.exec(text)) found.push({ start: m.index, end: m.index + m[0].length, term });
    }
    found.sort((a, b) => a.start - b.start || b.end - a.end);
    let out = '';
    let at = 0;
    for (const f of found) {
      if (f.start < at) continue;
      out += esc(text.slice(at, f.start));
      out += `<abbr class="term" title="${esc(`${f.term.term}: ${f.term.definition}`)}">${esc(text.slice(f.start, f.end))}</abbr>`;
      at = f.end;
    }
    return out + esc(text.slice(at));
  }
}

// ---- page maps ---------------------------------------------------------------------------------

/** One page map as the report shows it: its cells (several pages a cell for large tables) and the drawings. */
export interface ReportPageMap {
  /** The page map's PNG (charts/pagemap-….png): the report shows the grid in its place. */
  chart: string;
  title: string;
  subtitle: string;
  /** Pages of the table. */
  pages: number;
  /** Pages a cell stands for. */
  cellPages: number;
  /** Per cell: mean fill in percent (-1 unknown), forwarding stubs, forwarded-in rows. */
  fill: number[];
  stubs: number[];
  forwardedIn: number[];
  /** The drawings of each cell's first page, as gzipped JSON in base64 ({ common, pages }), or none. */
  drawings?: string;
}

// ---- markdown ----------------------------------------------------------------------------------

/** What the page is made of besides the markdown: the charts' bytes, the page maps, the terms. */
interface RenderContext {
  chart(rel: string): string;
  pageMaps: Map<string, ReportPageMap>;
  terms: TermMarker;
  ids: Set<string>;
  toc: { level: number; id: string; text: string }[];
  mapCount: number;
  /** Column title → priority (1 shown first); a table too wide for the projector keeps its first columns and moves the rest into a details row. */
  columnPriority: Record<string, number>;
}

/** Inline markdown as summary.md writes it: `code`, **bold**, images, links (their text: no URL leaves the page). */
function inline(text: string, ctx: RenderContext, marked: boolean): string {
  const out: string[] = [];
  const re = /`([^`]+)`|\*\*([^*]+)\*\*|!\[([^\]]*)\]\(([^)]*)\)|\[([^\]]*)\]\(([^)]*)\)/g;
  let at = 0;
  const words = (s: string) => (marked ? ctx.terms.mark(s) : esc(s));
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push(words(text.slice(at, m.index)));
    if (m[1] !== undefined) out.push(`<code>${words(m[1])}</code>`);
    else if (m[2] !== undefined) out.push(`<strong>${inline(m[2], ctx, marked)}</strong>`);
    else if (m[4] !== undefined) out.push(ctx.chart(m[4]));
    else if (m[6] !== undefined) out.push(localLink(m[6]) ? `<a href="${esc(m[6])}">${words(m[5]!)}</a>` : words(m[5]!));
    at = m.index + m[0].length;
  }
  out.push(words(text.slice(at)));
  return out.join('');
}

/** A link that stays on this machine: a #fragment, or a path beside the report (trace/…, pages/…): no scheme, not absolute, no `..`. */
function localLink(href: string): boolean {
  return href.startsWith('#') || (/^[\w-][\w./-]*$/.test(href) && !href.split('/').includes('..'));
}

function tableCells(line: string): string[] {
  const body = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  const cells: string[] = [];
  let cur = '';
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '\\' && body[i + 1] === '|') {
      cur += '|';
      i++;
    } else if (body[i] === '|') {
      cells.push(cur.trim());
      cur = '';
    } else cur += body[i];
  }
  cells.push(cur.trim());
  return cells;
}

/**
 * The width a table's type may take, in em of that type: the page at 1280 px in projector mode (the
 * largest type, 1.6 × 16 px, a table at .9 of it: 1,203 px of column = 52 em), less a margin for the estimate.
 */
const TABLE_BUDGET_EM = 48;
/** Widths in em of the table's type: a character of a cell (tabular figures), of a bold heading; a cell's padding. */
const CELL_CHAR_EM = 0.62;
const HEAD_CHAR_EM = 0.68;
const CELL_PAD_EM = 1.2;

/** A column's width in em: its widest cell (cells do not wrap) or its heading's longest word (headings wrap at spaces). */
function columnEm(header: string, cells: string[]): number {
  const word = Math.max(
    ...plain(header)
      .split(/\s+/)
      .map((w) => w.length),
  );
  const cell = Math.max(0, ...cells.map((c) => plain(c).length));
  return Math.max(word * HEAD_CHAR_EM, cell * CELL_CHAR_EM) + CELL_PAD_EM;
}

/** The columns shown in the table (in their order): the first always, then by priority (a title's, else left to right) while they fit. */
export function shownColumns(header: string[], rows: string[][], priority: Record<string, number>): number[] {
  const widths = header.map((h, i) =>
    columnEm(
      h,
      rows.map((r) => r[i] ?? ''),
    ),
  );
  if (widths.reduce((a, b) => a + b, 0) <= TABLE_BUDGET_EM) return header.map((_h, i) => i);
  const rank = (i: number): number => (i === 0 ? 0 : (priority[plain(header[i]!)] ?? 2));
  const order = header.map((_h, i) => i).sort((a, b) => rank(a) - rank(b) || a - b);
  const shown = new Set<number>();
  let used = 0;
  for (const i of order) {
    if (i !== 0 && used + widths[i]! > TABLE_BUDGET_EM) continue;
    shown.add(i);
    used += widths[i]!;
  }
  return [...shown].sort((a, b) => a - b);
}

function renderTable(lines: string[], ctx: RenderContext): string {
  const header = tableCells(lines[0]!);
  const aligns = tableCells(lines[1] ?? '').map((c) => (/^:?-+:$/.test(c) ? (c.startsWith(':') ? 'center' : 'right') : 'left'));
  const cls = (i: number) => (aligns[i] === 'right' ? ' class="num"' : aligns[i] === 'center' ? ' class="mid"' : '');
  const rows = lines.slice(2).map(tableCells);
  const shown = shownColumns(header, rows, ctx.columnPriority);
  const rest = header.map((_h, i) => i).filter((i) => !shown.includes(i));
  const head = shown.map((i) => `<th scope="col"${cls(i)}>${inline(header[i]!, ctx, true)}</th>`).join('');
  const body = rows.map((cells) => {
    const row = shown.map((i) => `<td${cls(i)}>${inline(cells[i] ?? '', ctx, false)}</td>`).join('');
    // The columns that did not fit: under the row, each with its name.
    const more = rest
      .filter((i) => (cells[i] ?? '') !== '')
      .map((i) => `<span class="kv"><span class="k">${inline(header[i]!, ctx, true)}</span> ${inline(cells[i]!, ctx, false)}</span>`);
    if (!more.length) return `<tr>${row}</tr>`;
    return `<tr class="has-more">${row}</tr><tr class="more"><td colspan="${shown.length}">${more.join(' · ')}</td></tr>`;
  });
  return `<div class="table"><table><thead><tr>${head}</tr></thead><tbody>${body.join('')}</tbody></table></div>`;
}

/** A paragraph `Name: item · item · item` (engine settings): the items as a list. */
function settingsList(text: string, ctx: RenderContext): string | undefined {
  const m = /^([A-Z][\w ]{0,30}): (.+)$/.exec(text);
  const items = m?.[2]!.replace(/\.$/, '').split(' · ');
  if (!m || !items || items.length < 3) return undefined;
  return `<div class="settings"><span class="label">${inline(m[1]!, ctx, false)}:</span> <ul class="inline">${items.map((t) => `<li>${inline(t, ctx, false)}</li>`).join('')}</ul></div>`;
}

function heading(level: number, text: string, ctx: RenderContext): string {
  let id = slug(plain(text), 'section');
  for (let n = 2; ctx.ids.has(id); n++) id = `${slug(plain(text), 'section')}-${n}`;
  ctx.ids.add(id);
  if (level >= 2 && level <= 3) ctx.toc.push({ level, id, text: plain(text) });
  return `<h${level} id="${id}">${inline(text, ctx, true)}</h${level}>`;
}

/** summary.md's markdown (headings, paragraphs, lists, tables, fenced code, images) as HTML. */
export function markdownHtml(md: string, ctx: RenderContext): string {
  const lines = md.split('\n');
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (!line.trim()) {
      i++;
    } else if (/^```/.test(line)) {
      const body: string[] = [];
      for (i++; i < lines.length && !/^```/.test(lines[i]!); i++) body.push(lines[i]!);
      i++;
      out.push(`<pre>${esc(body.join('\n'))}</pre>`);
    } else if (/^#{1,6} /.test(line)) {
      const level = /^#+/.exec(line)![0].length;
      out.push(heading(level, line.slice(level + 1).trim(), ctx));
      i++;
    } else if (/^\s*\|/.test(line)) {
      const block: string[] = [];
      for (; i < lines.length && /^\s*\|/.test(lines[i]!); i++) block.push(lines[i]!);
      out.push(renderTable(block, ctx));
    } else if (/^\s*[-*] /.test(line)) {
      const items: string[] = [];
      for (; i < lines.length && /^\s*([-*] |\s+\S)/.test(lines[i]!) && lines[i]!.trim(); i++) {
        if (/^\s*[-*] /.test(lines[i]!)) items.push(lines[i]!.replace(/^\s*[-*] /, ''));
        else items[items.length - 1] += ` ${lines[i]!.trim()}`;
      }
      out.push(`<ul>${items.map((t) => `<li>${inline(t, ctx, false)}</li>`).join('')}</ul>`);
    } else {
      const para: string[] = [];
      for (; i < lines.length && lines[i]!.trim() && !/^(#{1,6} |```|\s*\||\s*[-*] )/.test(lines[i]!); i++) para.push(lines[i]!.trim());
      const text = para.join(' ');
      out.push(
        /^!\[[^\]]*\]\([^)]*\)$/.test(text) ? inline(text, ctx, false) : (settingsList(text, ctx) ?? `<p>${inline(text, ctx, false)}</p>`),
      );
    }
  }
  return out.join('\n');
}

// ---- the page ----------------------------------------------------------------------------------

export interface ReportInput {
  name: string;
  /** summary.md, whole. */
  markdown: string;
  /** Every chart of the run (results.json's `charts`), in order. */
  charts: string[];
  /** The bytes of a chart the run wrote. */
  readChart(rel: string): Uint8Array;
  /** A chart's bytes in base64 when the caller has them already (a run encodes each page map as it comes), else undefined. */
  chartBase64?(rel: string): string | undefined;
  pageMaps: ReportPageMap[];
  /** The glossary's terms (default: docs/glossary.md). */
  glossary?: GlossaryTerm[];
  /** Column title → priority (1 first) for tables too wide for a projector (storageColumnPriority). */
  columnPriority?: Record<string, number>;
}

function mimeOf(rel: string): string {
  return rel.endsWith('.svg') ? 'image/svg+xml' : 'image/png';
}

function figure(rel: string, src: string): string {
  return `<figure class="chart"><img data-chart="${esc(rel)}" src="${src}" alt="${esc(rel)}"><figcaption>${esc(rel)}</figcaption></figure>`;
}

function pageMapHtml(pm: ReportPageMap, index: number, src: string): string {
  const cells = pm.fill.length;
  const last = groupedNumber(pm.pages - 1);
  const unit =
    pm.cellPages === 1
      ? `Each cell is one page (pages 0–${last})`
      : `Each cell is ${groupedNumber(pm.cellPages)} consecutive pages (pages 0–${last} in ${groupedNumber(cells)} cells); its shade is their mean fill, a corner mark says some of them hold stubs or forwarded rows, and a click shows the drawing of its first page`;
  const data = { pages: pm.pages, cellPages: pm.cellPages, fill: pm.fill, stubs: pm.stubs, forwardedIn: pm.forwardedIn };
  return [
    `<section class="pagemap" id="pagemap-${index}" data-map="${index}" data-chart="${esc(pm.chart)}">`,
    `<h4>${esc(pm.title)}</h4>`,
    `<p class="sub">${esc(pm.subtitle)}</p>`,
    `<p class="legend">${esc(unit)}. Shade: how full the page is (<span class="swatch" style="background:#ebf2fa"></span> empty to <span class="swatch" style="background:#08306b"></span> full; <span class="swatch" style="background:#bdbdbd"></span> not allocated); <span class="swatch stub"></span> forwarding stubs (rows whose home is here and that live elsewhere); <span class="swatch fwd"></span> forwarded rows living here away from home.${pm.cellPages === 1 ? ' Click a page (or use the arrow keys) to see it drawn.' : ''}</p>`,
    `<div class="pm-body"><div class="pm-grid" role="group" aria-label="${esc(pm.title)}"></div><div class="pm-panel" aria-live="polite"><p class="hint">Click a cell of the map to see its page drawn.</p></div></div>`,
    `<button type="button" class="pm-toggle">the chart as an image</button>`,
    `<figure class="chart pm-png"><img data-chart="${esc(pm.chart)}" src="${src}" alt="${esc(pm.title)}"><figcaption>${esc(pm.chart)}</figcaption></figure>`,
    `<script type="application/json" id="pagemap-${index}-cells">${scriptJson(data)}</script>`,
    pm.drawings
      ? `<script type="application/octet-stream" id="pagemap-${index}-drawings" data-encoding="gzip+base64+json">${pm.drawings}</script>`
      : '',
    `</section>`,
  ].join('\n');
}

const STYLE = `
:root{--fg:#1d1d1f;--muted:#5b5b66;--line:#d9d9e0;--bg:#fff;--accent:#0b57d0;--stub:#e0001b;--fwd:#ff8c00}
*{box-sizing:border-box}
html{font-size:16px}
body{margin:0;color:var(--fg);background:var(--bg);font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans","Liberation Sans",Arial,sans-serif}
body.projector{font-size:1.6rem}
header.top{position:sticky;top:0;z-index:2;display:flex;gap:1em;align-items:center;justify-content:space-between;padding:.5em 1.5em;background:#f6f6f9;border-bottom:1px solid var(--line)}
header.top .name{font-weight:600}
main{max-width:88em;margin:0 auto;padding:0 1.5em 3em}
h1{font-size:1.8em;margin:.8em 0 .3em}h2{font-size:1.45em;margin:1.6em 0 .4em;border-bottom:1px solid var(--line)}h3{font-size:1.2em;margin:1.3em 0 .3em}h4{font-size:1.05em;margin:1em 0 .2em}
code{font-family:ui-monospace,"DejaVu Sans Mono","Liberation Mono",Menlo,Consolas,monospace;font-size:.92em;background:#f2f2f5;padding:0 .2em;border-radius:3px}
pre{background:#f2f2f5;padding:.6em;overflow:auto}
.table{overflow-x:auto;margin:.6em 0 1em}
table{border-collapse:collapse;font-size:.9em;font-variant-numeric:tabular-nums}
th,td{padding:.25em .6em;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}
th{background:#f6f6f9;vertical-align:bottom;white-space:normal}
tr.has-more td{border-bottom:none}
tr.more td{white-space:normal;color:var(--muted);font-size:.88em;padding-top:0}
.kv{white-space:nowrap}.kv .k{font-style:italic}
.settings{margin:.5em 0}.settings .label{font-weight:600}
ul.inline{display:inline;margin:0;padding:0;list-style:none}ul.inline li{display:inline-block}ul.inline li+li{margin-left:.4em}ul.inline li+li::before{content:"·";margin-right:.4em;color:var(--muted)}
ul.links{columns:2 22em}
.num{text-align:right}.mid{text-align:center}
tbody tr:hover{background:#f3f7ff}
abbr.term{text-decoration:underline dotted;text-underline-offset:.15em;cursor:help}
figure.chart{margin:1em 0}figure.chart img{max-width:100%;height:auto;border:1px solid var(--line)}
figcaption{color:var(--muted);font-size:.8em}
nav.toc{font-size:.9em;columns:2 18em;margin:.5em 0 1em}nav.toc a{color:var(--accent);text-decoration:none}nav.toc .l3{padding-left:1.2em}
button{font:inherit;font-size:.9em;padding:.2em .7em;border:1px solid var(--line);border-radius:4px;background:#fff;cursor:pointer}
button[aria-pressed=true]{background:var(--accent);color:#fff}
.pagemap{border-top:1px solid var(--line);padding-top:.4em;margin:1.5em 0}
.pagemap .sub,.pagemap .legend{color:var(--muted);font-size:.9em;margin:.2em 0}
.swatch{display:inline-block;width:.9em;height:.9em;vertical-align:-.1em;border:1px solid #999}.swatch.stub{background:var(--stub)}.swatch.fwd{background:var(--fwd)}
.pm-body{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start;margin:.5em 0}
.pm-grid{flex:1 1 22em;max-width:40em}.pm-grid svg{width:100%;height:auto;display:block}
.pm-grid rect.cell{cursor:pointer}.pm-grid rect.cell:hover{stroke:#000;stroke-width:1}.pm-grid rect.sel{stroke:#000;stroke-width:2}
.pm-panel{flex:2 1 36em;min-height:6em;border:1px solid var(--line);padding:.5em .8em;background:#fbfbfd}
.pm-panel svg{max-width:100%;height:auto}
.pm-panel .hint,.pm-panel .na{color:var(--muted)}
.pm-png{display:none}.pagemap.show-png .pm-png{display:block}
@media print{
 header.top,nav.toc,.pm-body,.pm-toggle{display:none}
 body,body.projector{font-size:10pt}
 main{max-width:none;padding:0}
 .pm-png{display:block}
 h2,h3,h4{break-after:avoid}
 figure.chart,tr{break-inside:avoid}
 .table{overflow:visible}
 th,td{white-space:normal}
 abbr.term{text-decoration:none}
}
`;

/** The page's script (plain ES2017, no modules). The drawing functions of src/mechanism/svg.ts come before it. */
const SCRIPT = `
(function () {
  'use strict';
  var body = document.body;
  var button = document.getElementById('projector');
  function projector() {
    var on = body.classList.toggle('projector');
    button.setAttribute('aria-pressed', on ? 'true' : 'false');
  }
  button.addEventListener('click', projector);
  document.addEventListener('keydown', function (e) {
    var t = e.target && e.target.tagName;
    if ((e.key === 'p' || e.key === 'P') && !e.ctrlKey && !e.metaKey && !e.altKey && t !== 'INPUT' && t !== 'TEXTAREA' && t !== 'SELECT') projector();
  });

  var STOPS = [[0, [235, 242, 250]], [0.25, [189, 215, 238]], [0.5, [107, 174, 214]], [0.75, [33, 113, 181]], [1, [8, 48, 107]]];
  function shade(pct) {
    if (pct < 0) return '#bdbdbd';
    var t = Math.min(1, Math.max(0, pct / 100));
    for (var i = 1; i < STOPS.length; i++) {
      if (t <= STOPS[i][0]) {
        var a = STOPS[i - 1], b = STOPS[i], u = (t - a[0]) / (b[0] - a[0]);
        return 'rgb(' + [0, 1, 2].map(function (k) { return Math.round(a[1][k] + u * (b[1][k] - a[1][k])); }).join(',') + ')';
      }
    }
    return 'rgb(8,48,107)';
  }
  function text(s) { return String(s).replace(/[&<>"']/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]; }); }
  function num(n) { return Number(n).toLocaleString('en-US'); }

  function drawings(section, id) {
    if (section._drawings) return section._drawings;
    var el = document.getElementById(id);
    if (!el) return (section._drawings = Promise.resolve(null));
    var bin = atob(el.textContent.trim());
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    section._drawings = new Response(stream).text().then(function (json) {
      var d = JSON.parse(json);
      return d.pages.map(function (p) { return p && Object.assign({}, d.common, p); });
    });
    return section._drawings;
  }

  function initMap(section) {
    var n = section.getAttribute('data-map');
    var data = JSON.parse(document.getElementById('pagemap-' + n + '-cells').textContent);
    var cells = data.fill.length;
    var cols = Math.min(cells, Math.max(10, Math.ceil(Math.sqrt(cells * 1.6))));
    var rows = Math.ceil(cells / cols);
    var S = 10, G = 1;
    var parts = ['<svg viewBox="0 0 ' + cols * S + ' ' + rows * S + '" aria-label="' + text(section.querySelector('h4').textContent) + '">'];
    var stubMarks = '', fwdMarks = '';
    for (var c = 0; c < cells; c++) {
      var x = (c % cols) * S, y = Math.floor(c / cols) * S;
      parts.push('<rect class="cell" data-cell="' + c + '" x="' + x + '" y="' + y + '" width="' + (S - G) + '" height="' + (S - G) + '" fill="' + shade(data.fill[c]) + '"/>');
      if (data.stubs[c] > 0) stubMarks += 'M' + x + ' ' + y + 'h4v4h-4z';
      if (data.forwardedIn[c] > 0) fwdMarks += 'M' + (x + S - G - 4) + ' ' + (y + S - G - 4) + 'h4v4h-4z';
    }
    // The corner marks: one path a colour, which lets clicks through to the cells.
    parts.push('<path d="' + stubMarks + '" fill="#e0001b" pointer-events="none"/><path d="' + fwdMarks + '" fill="#ff8c00" pointer-events="none"/>');
    var grid = section.querySelector('.pm-grid');
    grid.innerHTML = parts.join('') + '</svg>';
    var svg = grid.firstChild;
    var panel = section.querySelector('.pm-panel');
    var selected = null;
    function select(t) {
      if (selected) selected.classList.remove('sel');
      selected = t; t.classList.add('sel');
      show(Number(t.getAttribute('data-cell')));
    }
    svg.addEventListener('click', function (e) {
      var t = e.target.closest ? e.target.closest('[data-cell]') : null;
      if (t) select(t);
    });
    // The keyboard: Tab to the map, the arrow keys move from cell to cell.
    svg.setAttribute('tabindex', '0');
    svg.addEventListener('keydown', function (e) {
      var step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -cols, ArrowDown: cols }[e.key];
      if (!step) return;
      e.preventDefault();
      var at = selected ? Number(selected.getAttribute('data-cell')) + step : 0;
      var t = svg.querySelector('[data-cell="' + Math.min(cells - 1, Math.max(0, at)) + '"]');
      if (t) select(t);
    });
    section.querySelector('.pm-toggle').addEventListener('click', function () { section.classList.toggle('show-png'); });

    function show(c) {
      var first = c * data.cellPages, last = Math.min(data.pages, first + data.cellPages) - 1;
      var head = data.cellPages === 1 ? 'Page ' + num(first) : 'Pages ' + num(first) + '–' + num(last) + ' (the drawing is of page ' + num(first) + ')';
      var facts = (data.fill[c] < 0 ? 'not allocated' : (data.cellPages === 1 ? '' : 'mean ') + 'fill ' + data.fill[c] + '%') + ', ' + num(data.stubs[c]) + ' forwarding stubs, ' + num(data.forwardedIn[c]) + ' forwarded rows';
      panel.innerHTML = '<p class="cellinfo" data-page="' + first + '"><strong>' + text(head) + '</strong>: ' + text(facts) + '.</p><div class="drawing">drawing…</div>';
      var area = panel.querySelector('.drawing');
      drawings(section, 'pagemap-' + n + '-drawings').then(function (list) {
        var d = list && list[c];
        if (d && typeof renderPageSvg === 'function') area.innerHTML = renderPageSvg(d);
        else area.innerHTML = '<p class="na">The drawing of this page is not available in this report.</p>';
      }).catch(function (err) {
        area.innerHTML = '<p class="na">The drawing could not be read: ' + text(err && err.message || err) + '</p>';
      });
    }
  }
  var maps = document.querySelectorAll('section.pagemap');
  for (var i = 0; i < maps.length; i++) initMap(maps[i]);
})();
`;

/** What report.html is made of but the charts' bytes. */
export type ReportLayout = Omit<ReportInput, 'readChart' | 'chartBase64'>;

/** The whole report.html. */
export function renderReportHtml(input: ReportInput): string {
  return [...reportHtmlTemplate(input)((rel) => input.chartBase64?.(rel) ?? base64Of(input.readChart(rel)))].join('');
}

/** Where a chart's base64 goes in a template: a character the page's own text does not hold (when it does, see reportHtmlTemplate). */
const HOLE = '\u0000';

/**
 * report.html laid out before its charts are drawn: a run renders the page while the worker threads still
 * draw, and only the charts' bytes go in at the end. Filled, it is the page in pieces (the text between
 * the charts and each chart's base64 or page map section, several megabytes together, hundreds for a
 * sweep of thousands of points: each is made as its piece is written, and none is kept), the page
 * renderReportHtml writes byte for byte. Should the run's own text hold the hole's
 * character (a config name with a NUL), the page is rendered again with the bytes instead.
 */
export function reportHtmlTemplate(input: ReportLayout): (base64: (rel: string) => string) => Iterable<string> {
  const holes: (string | { pm: ReportPageMap; index: number })[] = [];
  const hole = (what: (typeof holes)[number]) => `${HOLE}${holes.push(what) - 1}${HOLE}`;
  const page = renderPage(input, hole, (pm, index) => hole({ pm, index }));
  const pieces = page.split(HOLE);
  const whole = pieces.length === 2 * holes.length + 1 && pieces.every((p, i) => i % 2 === 0 || p === String((i - 1) / 2));
  return function* (base64) {
    if (!whole) {
      yield renderPage(input, base64);
      return;
    }
    for (let i = 0; i < pieces.length; i++) {
      const h = i % 2 === 0 ? undefined : holes[(i - 1) / 2]!;
      if (h === undefined) yield pieces[i]!;
      else yield typeof h === 'string' ? base64(h) : pageMapHtml(h.pm, h.index, `data:${mimeOf(h.pm.chart)};base64,${base64(h.pm.chart)}`);
    }
  };
}

/** The page; `mapSection`, when given, stands in for each page map's section (reportHtmlTemplate's holes). */
function renderPage(
  input: ReportLayout,
  base64: (rel: string) => string,
  mapSection?: (pm: ReportPageMap, index: number) => string,
): string {
  const byChart = new Map(input.pageMaps.map((pm) => [pm.chart, pm]));
  const shown = new Set<string>();
  const listed = new Set(input.charts);
  const dataUri = (rel: string) => `data:${mimeOf(rel)};base64,${base64(rel)}`;
  const ctx: RenderContext = {
    pageMaps: byChart,
    terms: new TermMarker(input.glossary ?? loadGlossary()),
    ids: new Set(['projector']),
    toc: [],
    mapCount: 0,
    columnPriority: input.columnPriority ?? {},
    chart(rel) {
      if (!listed.has(rel) || shown.has(rel)) return '';
      shown.add(rel);
      const pm = byChart.get(rel);
      if (!pm) return figure(rel, dataUri(rel));
      return mapSection ? mapSection(pm, ctx.mapCount++) : pageMapHtml(pm, ctx.mapCount++, dataUri(rel));
    },
  };
  let main = markdownHtml(input.markdown, ctx);
  // Charts the markdown does not show (the contention section's): at the end, under their own heading.
  const rest = input.charts.filter((c) => !shown.has(c));
  if (rest.length) main += `\n${heading(2, 'More charts', ctx)}\n${rest.map((c) => ctx.chart(c)).join('\n')}`;
  const toc = ctx.toc.map((t) => `<div class="l${t.level}"><a href="#${t.id}">${esc(t.text)}</a></div>`).join('');
  // The contents go after the title and the config line, before the first section.
  const nav = toc ? `<nav class="toc" aria-label="contents">${toc}</nav>\n` : '';
  const at = main.indexOf('<h2');
  main = at >= 0 ? `${main.slice(0, at)}${nav}${main.slice(at)}` : `${nav}${main}`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">`,
    `<title>rowsim: ${esc(input.name)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<header class="top"><span class="name">rowsim: ${esc(input.name)}</span><button type="button" id="projector" aria-pressed="false" title="large type for a projector (key: p)">projector mode</button></header>`,
    '<main>',
    main,
    '</main>',
    `<script>${scriptCode(`${pageScriptSource()}\n${SCRIPT}`)}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
