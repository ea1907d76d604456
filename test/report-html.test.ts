/**
 * report.html without a browser: text is escaped, nothing points off the page, every chart is inlined,
 * the glossary's terms become tooltips, the page maps' cells and drawings are packed as the page reads
 * them. test/report-browser.test.ts opens a real report in Chromium.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  esc,
  loadGlossary,
  parseGlossary,
  renderReportHtml,
  reportHtmlTemplate,
  TermMarker,
  type ReportPageMap,
} from '../src/report/html.js';
import { packDrawings, pageMapCells } from '../src/report/report-maps.js';
import type { PageDrawing } from '../src/mechanism/drawing.js';
import { REPORT_MAP_CELLS, reportCellPages } from '../src/mechanism/report-pages.js';
import { ROOT } from './helpers/cli.js';
import { formatOf, type StorageEntry } from '../src/report/storage.js';
import { engineMarkdown } from '../src/report/summary-parts.js';

/** A PNG's first bytes are enough for the page: the tests read the data: URIs back. */
const PNG = (n: number) => Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, n]);

const MARKDOWN = [
  '# rowsim: t<script>alert(1)</script>',
  '',
  'Config: `a&b.yaml`, seed 1 <img src=x onerror=alert(2)>.',
  '',
  '## Storage',
  '',
  '| point | peak fwd | forwarded_rows | HOT upd. | note |',
  '| --- | ---: | ---: | ---: | ---: |',
  '| p<1> | 1 | 2 | 3 | a \\| b "q" |',
  '',
  '- a note with <b>tags</b> & [a link](https://example.com/x)',
  '',
  '### Charts',
  '',
  '![charts/forwarding.png](charts/forwarding.png)',
  '',
  '![charts/pagemap-p-final.png](charts/pagemap-p-final.png)',
  '',
  '## Buffer-manager contention',
  '',
  'Throughput at 5000 users.',
  '',
].join('\n');

const CHARTS = ['charts/forwarding.png', 'charts/pagemap-p-final.png', 'charts/contention-throughput.png'];

function drawing(page: number): PageDrawing {
  return {
    format: 'ase-dol',
    title: 'SAP ASE data-only-locked data page',
    pageBytes: 2048,
    header: [{ label: 'page header', bytes: 44 }],
    slotArray: { name: 'row offset table', entryBytes: 2, at: 'end', firstSlot: 0 },
    words: { stub: 'forwarding stub', forwarded: 'forwarded row' },
    detail: {
      page,
      pages: 3,
      allocated: true,
      slots: [{ slot: 0, kind: 'row', row: page * 10, bytes: 100 }],
      storedBytes: 100,
      slotArrayBytes: 2,
      reservedBytes: 0,
      fragmentedBytes: 0,
      contiguousBytes: 1900,
      flags: [],
    },
    notes: ['</script><script>alert(3)</script>'],
  } as unknown as PageDrawing;
}

function pageMap(): ReportPageMap {
  const map = {
    pages: 3,
    pagesPerCell: 1,
    fill: Float32Array.from([0.5, 1, NaN]),
    stubs: Uint32Array.from([2, 0, 0]),
    forwardedIn: Uint32Array.from([0, 1, 0]),
    stubPages: 1,
    forwardedInPages: 1,
  };
  return {
    chart: 'charts/pagemap-p-final.png',
    title: 'p<1>: page map final',
    subtitle: 'after phase 1',
    ...pageMapCells(map),
    drawings: packDrawings([drawing(0), drawing(1), drawing(2)]),
  };
}

function report(): string {
  return renderReportHtml({
    name: 't<script>',
    markdown: MARKDOWN,
    charts: CHARTS,
    readChart: (rel) => PNG(CHARTS.indexOf(rel)),
    pageMaps: [pageMap()],
  });
}

/** The text of the page outside its <script> elements (what the HTML parser shows as markup). */
function markup(html: string): string {
  return html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '');
}

describe('report.html', () => {
  it('escapes every text it takes from the run', () => {
    expect(esc(`<a href="x">&'`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&#39;');
    const html = report();
    const outside = markup(html);
    expect(outside).not.toMatch(/<script>alert|<img src=x|<b>tags/);
    expect(outside).toContain('t&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(outside).toContain('<code>a&amp;b.yaml</code>');
    expect(outside).toContain('<td>p&lt;1&gt;</td>');
    expect(outside).toContain('a | b &quot;q&quot;');
    // Inside the scripts: no `</script` but the elements' own ends, so a drawing's text cannot close one.
    const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(1);
    for (const s of scripts) expect(s).not.toMatch(/<\/script|<!--/i);
  });

  it('points nowhere off the page: no http: or https: URL, links keep their text only', () => {
    const html = report();
    // The SVG namespace in the drawing code is a name, not a request.
    const urls = html.replace(/http:\/\/www\.w3\.org\/2000\/svg/g, '').match(/\bhttps?:[^\s"'<>)]*/gi) ?? [];
    expect(urls).toEqual([]);
    expect(html).toContain('a link');
    expect(html).toMatch(/Content-Security-Policy" content="default-src 'none'; img-src data:/);
    expect(html).not.toMatch(/<(link|iframe|object|embed)\b/i);
    expect(html).not.toMatch(/\bsrc="(?!data:)/);
    expect(html).not.toMatch(/\bhref="(?!#)/);
  });

  it("inlines every chart once, in the markdown's place or under More charts", () => {
    const html = report();
    for (const [i, c] of CHARTS.entries()) {
      const imgs = [...html.matchAll(new RegExp(`<img data-chart="${c}" src="data:image/png;base64,([^"]+)"`, 'g'))];
      expect(imgs, c).toHaveLength(1);
      expect(Buffer.from(imgs[0]![1]!, 'base64')).toEqual(Buffer.from(PNG(i)));
    }
    expect(html.indexOf('charts/forwarding.png')).toBeLessThan(html.indexOf('id="buffer-manager-contention"'));
    expect(html.indexOf('id="more-charts"')).toBeLessThan(html.indexOf('data-chart="charts/contention-throughput.png"'));
    // The page map's PNG sits in its clickable map, with the map's cells and drawings.
    expect(html).toMatch(/<section class="pagemap" id="pagemap-0" data-map="0" data-chart="charts\/pagemap-p-final.png">/);
    expect(html).toContain(
      '<script type="application/json" id="pagemap-0-cells">{"pages":3,"cellPages":1,"fill":[50,100,-1],"stubs":[2,0,0],"forwardedIn":[0,1,0]}</script>',
    );
    expect(html).toMatch(
      /<script type="application\/octet-stream" id="pagemap-0-drawings" data-encoding="gzip\+base64\+json">[A-Za-z0-9+/=]+<\/script>/,
    );
    expect(html).toContain('function renderPageSvg(');
  });

  it("shows the glossary's terms as tooltips on headings and column names", () => {
    const html = report();
    expect(html).toMatch(
      /<th scope="col" class="num"><abbr class="term" title="forwarded row: a row that lives away from its home page[^"]*">forwarded_rows<\/abbr><\/th>/,
    );
    expect(html).toMatch(/peak <abbr class="term" title="forwarded row: [^"]*">fwd<\/abbr>/);
    expect(html).toMatch(/<abbr class="term" title="HOT \(heap-only tuple\) update: [^"]*">HOT<\/abbr> upd\./);
    // Not in the body text: a tooltip on every word would be noise.
    expect(html).toMatch(/<p>Throughput at 5000 users\.<\/p>/);
  });

  it('reads docs/glossary.md: every bold term before a colon, with the names it goes by', () => {
    const terms = loadGlossary();
    const doc = readFileSync(join(ROOT, 'docs', 'glossary.md'), 'utf8');
    expect(terms.length).toBe([...doc.matchAll(/\*\*[^*]+\*\*(?: \([^)]*\))?:/g)].length);
    const by = (t: string) => terms.find((x) => x.term === t)!;
    expect(by('forwarded row').aliases).toEqual(expect.arrayContaining(['forwarded row', 'forwarded_rows', 'fwd']));
    expect(by('HOT (heap-only tuple) update').aliases).toEqual(expect.arrayContaining(['HOT update', 'HOT', 'hot_updates']));
    expect(by('PFS (Page Free Space)').aliases).toEqual(expect.arrayContaining(['PFS', 'Page Free Space']));
    expect(by('IAM, GAM, SGAM').aliases).toEqual(expect.arrayContaining(['IAM', 'GAM', 'SGAM']));
    expect(by('stub').aliases).toContain('forwarding stub');
    expect(by('exp_row_size').definition).not.toMatch(/\]\(|`/);
    expect(parseGlossary('**a b**: one. **c**: two `x_y`.\n\nplain')).toEqual([
      { term: 'a b', definition: 'one.', aliases: ['a b'] },
      { term: 'c', definition: 'two x_y.', aliases: ['x_y'] },
    ]);
  });

  it('marks terms whole, acronyms as written, a plural too', () => {
    const m = new TermMarker(parseGlossary('**HOT (heap-only tuple) update**: h.\n\n**compaction**: c.'));
    expect(m.mark('compactions & hot')).toBe('<abbr class="term" title="compaction: c.">compactions</abbr> &amp; hot');
    expect(m.mark('HOT upd.')).toBe('<abbr class="term" title="HOT (heap-only tuple) update: h.">HOT</abbr> upd.');
    expect(m.mark('shot')).toBe('shot');
  });

  it("marks a text as every term's own expression does: the quick test skips only texts without a term (fast-check, fixed seed)", () => {
    const m = new TermMarker(loadGlossary());
    const words = loadGlossary().flatMap((t) => t.aliases);
    expect(words.length).toBeGreaterThan(50);
    // Terms in any case, cut short, run together, with plurals, separators and figures between them.
    const word = fc.oneof(
      fc.constantFrom(...words),
      fc.constantFrom(...words).map((w) => w.toUpperCase()),
      fc.constantFrom(...words).map((w) => w.slice(0, Math.max(1, w.length - 2))),
      fc.constantFrom('s', 'es', '_', '-', ' ', '|', '<b>', '&', '12,345', '1.5×', 'x', 'page', '…'),
    );
    fc.assert(
      fc.property(fc.array(word, { maxLength: 8 }), fc.constantFrom('', ' ', '_'), (parts, sep) => {
        const text = parts.join(sep);
        expect(m.mark(text)).toBe(m.markEach(text));
      }),
      { seed: 20261203, numRuns: 3000 },
    );
    // The test is not idle: many of those texts hold terms.
    expect(m.mark('forwarded rows and HOT updates')).not.toBe(esc('forwarded rows and HOT updates'));
    expect(m.mark('12,345 | 1.5×')).toBe(esc('12,345 | 1.5×'));
  });

  it("lays the page out before its charts: filled, the same bytes; a text holding the hole's character is rendered whole instead", () => {
    const input = { name: 't<script>', markdown: MARKDOWN, charts: CHARTS, pageMaps: [pageMap()] };
    const b64 = (rel: string) => Buffer.from(PNG(CHARTS.indexOf(rel))).toString('base64');
    const pieces = [...reportHtmlTemplate(input)(b64)];
    expect(pieces.length).toBe(2 * CHARTS.length + 1);
    expect(pieces.join('')).toBe(report());
    // Each chart's base64 is made as its piece is taken, none before (a sweep of thousands of maps holds one at a time).
    const asked: string[] = [];
    const lazy = reportHtmlTemplate(input)((rel) => (asked.push(rel), b64(rel)))[Symbol.iterator]();
    lazy.next();
    expect(asked).toEqual([]);
    lazy.next();
    expect(asked).toEqual([CHARTS[0]]);
    // A fake hole in the run's own text (a NUL in a name): kept as text, and each chart still goes in once.
    const fake = 'x\u00000\u0000y';
    const page = [...reportHtmlTemplate({ ...input, name: fake, markdown: `${MARKDOWN}\n${fake}\n` })(b64)].join('');
    expect(page.split(fake).length).toBe(4); // the title, the header and the text
    for (const rel of CHARTS) expect(page.split(`base64,${b64(rel)}"`).length).toBe(2);
    expect(page).toBe(
      renderReportHtml({ ...input, name: fake, markdown: `${MARKDOWN}\n${fake}\n`, readChart: (rel) => PNG(CHARTS.indexOf(rel)) }),
    );
  });

  it("packs a map's drawings: what all share once, each page its own fields", () => {
    const packed = JSON.parse(gunzipSync(Buffer.from(packDrawings([drawing(0), null, drawing(2)]), 'base64')).toString('utf8')) as {
      common: Record<string, unknown>;
      pages: (Record<string, unknown> | null)[];
    };
    expect(Object.keys(packed.common).sort()).toEqual(['format', 'header', 'notes', 'pageBytes', 'slotArray', 'title', 'words']);
    expect(packed.pages[1]).toBeNull();
    expect({ ...packed.common, ...packed.pages[2] }).toEqual(drawing(2));
  });

  it('puts several pages in a cell for a large table (at most REPORT_MAP_CELLS cells)', () => {
    const pages = REPORT_MAP_CELLS * 3 - 2;
    const map = {
      pages,
      pagesPerCell: 1,
      fill: new Float32Array(pages).fill(0.5),
      stubs: new Uint32Array(pages).fill(1),
      forwardedIn: new Uint32Array(pages),
      stubPages: pages,
      forwardedInPages: 0,
    };
    const cells = pageMapCells(map);
    expect(cells.cellPages).toBe(reportCellPages(pages));
    expect(cells.cellPages).toBe(3);
    expect(cells.fill).toHaveLength(REPORT_MAP_CELLS);
    expect(cells.stubs[0]).toBe(3);
    expect(cells.stubs[REPORT_MAP_CELLS - 1]).toBe(1); // the last cell holds the last page alone
    expect(cells.fill.every((f) => f === 50)).toBe(true);
    // A map the run already reduced (2 pages a cell) counts each of its cells where its first page falls.
    const reduced = {
      pages: REPORT_MAP_CELLS * 4,
      pagesPerCell: 2,
      fill: new Float32Array(REPORT_MAP_CELLS * 2).fill(1),
      stubs: new Uint32Array(REPORT_MAP_CELLS * 2).fill(1),
      forwardedIn: new Uint32Array(REPORT_MAP_CELLS * 2),
      stubPages: 0,
      forwardedInPages: 0,
    };
    const r = pageMapCells(reduced);
    expect(r.cellPages).toBe(4);
    expect(r.stubs).toHaveLength(REPORT_MAP_CELLS);
    expect(r.stubs.every((s) => s === 2)).toBe(true);
  });
});

describe('report.html on a 1280 px projector', () => {
  const page = (markdown: string, columnPriority?: Record<string, number>) =>
    markup(renderReportHtml({ name: 'w', markdown, charts: [], readChart: () => PNG(0), pageMaps: [], columnPriority }));
  const wide = (n: number) =>
    [
      `| ${Array.from({ length: n }, (_c, i) => `column ${i}`).join(' | ')} |`,
      `| ${Array.from({ length: n }, () => '---:').join(' | ')} |`,
      `| ${Array.from({ length: n }, (_c, i) => `${1000 + i}.25%`).join(' | ')} |`,
    ].join('\n');

  it('keeps a table that fits whole, and moves the columns of a wider one under each row, by priority', () => {
    expect(page(wide(4))).not.toContain('class="more"');
    const html = page(wide(14), { 'column 13': 1, 'column 1': 4 });
    const heads = [...html.matchAll(/<th scope="col"[^>]*>([^<]*)<\/th>/g)].map((m) => m[1]);
    expect(heads[0]).toBe('column 0');
    expect(heads).toContain('column 13');
    expect(heads).not.toContain('column 1');
    expect(heads.length).toBeLessThan(14);
    const more = /<tr class="more"><td colspan="(\d+)">(.*?)<\/td><\/tr>/.exec(html)!;
    expect(Number(more[1])).toBe(heads.length);
    expect(more[2]).toContain('<span class="k">column 1</span> 1001.25%');
    // Every column is somewhere: in the table or under the row.
    for (let i = 0; i < 14; i++) expect(html).toContain(`${1000 + i}.25%`);
  });

  it('shows a line "Name: a · b · c" as a list, and links files beside the report only', () => {
    const html = page(
      [
        'Engine: ase-dol · page 2 KiB · exp_row_size 100 bytes.',
        '',
        '- [trace/t.html](trace/t.html) [up](../x.html) [root](/etc/x) [file](file:///x) [frag](#a)',
      ].join('\n'),
    );
    expect(html).toContain(
      '<div class="settings"><span class="label">Engine:</span> <ul class="inline"><li>ase-dol</li><li>page 2 KiB</li><li>exp_row_size 100 bytes</li></ul></div>',
    );
    expect([...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1])).toEqual(['trace/t.html', '#a']);
  });

  it("writes an engine's settings and what the page works out as short lists, in the format's words", () => {
    const entry = (file: string) =>
      (JSON.parse(readFileSync(join(ROOT, 'test', 'golden', file), 'utf8')) as { storage: StorageEntry[] }).storage[0]!;
    const lines = (file: string) => engineMarkdown(entry(file), formatOf(entry(file))).filter(Boolean);
    expect(lines('quickstart.results.json')).toEqual([
      'Engine: ase-dol · page 2 KiB · exp_row_size 0 bytes (given 1) · exp_row_size_basis physical · compaction on · enable_housekeeper_gc 1.',
      'Worked out: usable page 2,002 bytes · max rows per page 166 · max row 1,964 bytes · exp_row_size min 20 · exp_row_size max 220 · fixed length only no.',
    ]);
    expect(lines('oracle-pctfree.results.json')[0]).toBe(
      'Engine: oracle-heap · page 8 KiB · pctfree 0% · pctused 40 · initrans 1 · encoding latin1.',
    );
    expect(lines('oracle-pctfree.results.json')[1]).toMatch(/^Worked out: pctfree 0 bytes · itl slots 2 · /);
  });
});
