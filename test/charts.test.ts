import { describe, it, expect } from 'vitest';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import {
  renderLineChart,
  renderBarChart,
  formatCompact,
  formatNumber,
  wrapLabel,
  CHART_WIDTH,
  CHART_HEIGHT,
  FONT_PX,
  type LineChartSpec,
} from '../src/report/charts.js';
import { renderPageMap, pageMapLayout, pageMapLegend, type PageMapSpec } from '../src/report/page-map-png.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngSize(buf: Buffer): { width: number; height: number } {
  expect(buf.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  expect(buf.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

interface Pixels {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

async function decode(buf: Buffer): Promise<Pixels> {
  const img = await loadImage(buf);
  const canvas = createCanvas(img.width, img.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const { data } = ctx.getImageData(0, 0, img.width, img.height);
  return { width: img.width, height: img.height, data };
}

function countPixels(
  p: Pixels,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  pred: (r: number, g: number, b: number) => boolean,
): number {
  let n = 0;
  for (let y = Math.max(0, y0); y < Math.min(p.height, y1); y++) {
    for (let x = Math.max(0, x0); x < Math.min(p.width, x1); x++) {
      const i = (y * p.width + x) * 4;
      if (pred(p.data[i]!, p.data[i + 1]!, p.data[i + 2]!)) n++;
    }
  }
  return n;
}

const isDark = (r: number, g: number, b: number): boolean => r + g + b < 3 * 100;
const isNonWhite = (r: number, g: number, b: number): boolean => r < 250 || g < 250 || b < 250;
const isRedish = (r: number, g: number, b: number): boolean => r > 170 && g < 90 && b < 90;

function lineSpec(over: Partial<LineChartSpec> = {}): LineChartSpec {
  return {
    title: 'Throughput',
    subtitle: 'fillfactor sweep',
    xLabel: 'clients',
    yLabel: 'tx/s',
    series: [
      {
        label: 'ff=100',
        points: [
          [1, 1000],
          [2, 1900],
          [4, 3500],
          [8, 6000],
        ],
      },
      {
        label: 'ff=80',
        points: [
          [1, 900],
          [2, 1700],
          [4, 3300],
          [8, 5200],
        ],
        dashed: true,
      },
    ],
    ...over,
  };
}

describe('renderLineChart', () => {
  it('writes a PNG of the default and the requested size', () => {
    expect(pngSize(renderLineChart(lineSpec()))).toEqual({ width: CHART_WIDTH, height: CHART_HEIGHT });
    expect(pngSize(renderLineChart(lineSpec({ width: 640, height: 360 })))).toEqual({ width: 640, height: 360 });
  });

  it('has a white background and draws the title text in the top band', async () => {
    const titled = await decode(renderLineChart(lineSpec({ subtitle: undefined })));
    const untitled = await decode(renderLineChart(lineSpec({ title: '', subtitle: undefined })));
    // Corner is background: white, not transparent.
    expect(Array.from(titled.data.subarray(0, 4))).toEqual([255, 255, 255, 255]);
    const band = (p: Pixels, pred: (r: number, g: number, b: number) => boolean): number => countPixels(p, 0, 0, p.width, 40, pred);
    expect(band(titled, isNonWhite)).toBeGreaterThan(50);
    expect(band(titled, isDark)).toBeGreaterThan(20);
    // Without a title the legend moves up into the band, but the bold title has far more ink.
    expect(band(titled, isDark)).toBeGreaterThan(band(untitled, isDark) + 50);
    let differing = 0;
    for (let i = 0; i < titled.width * 40 * 4; i++) if (titled.data[i] !== untitled.data[i]) differing++;
    expect(differing).toBeGreaterThan(100);
  });

  it('renders log axes, categories and markers', async () => {
    const log = renderLineChart(
      lineSpec({
        xLog: true,
        yLog: true,
        series: [
          {
            label: 'p99',
            points: [
              [1, 10],
              [10, 1e3],
              [100, 2e5],
              [0, 5],
              [1000, -1],
            ],
          },
          {
            label: 'forwarded',
            points: [
              [1, 0.1],
              [100, 0.5],
            ],
          },
        ],
        markers: [
          { x: 10, label: 'knee' },
          { x: 0, label: 'ignored on a log axis' },
        ],
      }),
    );
    expect(pngSize(log)).toEqual({ width: CHART_WIDTH, height: CHART_HEIGHT });
    const cats = renderLineChart(
      lineSpec({
        xCategories: ['exp_row_size=0', 'exp_row_size=1', 'exp_row_size=max'],
        series: [
          {
            label: 'pages',
            points: [
              [0, 1200],
              [1, 1500],
              [2, 2100],
            ],
          },
        ],
        markers: [{ x: 1, label: 'default', color: '#d62728' }],
      }),
    );
    expect(pngSize(cats).width).toBe(CHART_WIDTH);
    // The marker is drawn in its colour somewhere in the plot.
    expect(countPixels(await decode(cats), 0, 60, CHART_WIDTH, CHART_HEIGHT - 60, isRedish)).toBeGreaterThan(50);
  });

  it('never throws on empty or non-finite data', async () => {
    const empty = renderLineChart(lineSpec({ series: [] }));
    expect(pngSize(empty)).toEqual({ width: CHART_WIDTH, height: CHART_HEIGHT });
    const emptySeries = renderLineChart(lineSpec({ series: [{ label: 'none', points: [] }], yLog: true, xLog: true }));
    expect(pngSize(emptySeries).height).toBe(CHART_HEIGHT);
    const junk = renderLineChart(
      lineSpec({
        series: [
          {
            label: 'junk',
            points: [
              [NaN, 1],
              [1, Infinity],
              [-Infinity, 3],
            ],
          },
        ],
        markers: [{ x: NaN, label: 'x' }],
      }),
    );
    expect(pngSize(junk).width).toBe(CHART_WIDTH);
    // The "no data" note is drawn in the middle of the plot area.
    const p = await decode(empty);
    expect(
      countPixels(p, CHART_WIDTH / 2 - 125, CHART_HEIGHT / 2 - 50, CHART_WIDTH / 2 + 125, CHART_HEIGHT / 2 + 50, isNonWhite),
    ).toBeGreaterThan(20);
  });
});

describe('renderBarChart', () => {
  it('renders grouped, stacked, horizontal and log bar charts of the requested size', async () => {
    const spec = {
      title: 'Forwarded rows',
      categories: ['APL', 'DOL', 'heap'],
      series: [
        { label: 'ff=100', values: [10, 2000, 30000] },
        { label: 'ff=90', values: [5, NaN, 15000] },
      ],
      yLabel: 'rows',
      xLabel: 'engine',
    };
    const grouped = renderBarChart(spec);
    expect(pngSize(grouped)).toEqual({ width: CHART_WIDTH, height: CHART_HEIGHT });
    const p = await decode(grouped);
    expect(countPixels(p, 0, 0, p.width, 40, isDark)).toBeGreaterThan(20);
    // Default palette: the first series is blue (#0072B2), drawn as bars.
    const blue = countPixels(p, 0, 60, p.width, p.height, (r, g, b) => r < 20 && g > 90 && g < 130 && b > 160);
    expect(blue).toBeGreaterThan(1000);
    expect(pngSize(renderBarChart({ ...spec, stacked: true, horizontal: true, width: 500, height: 300 }))).toEqual({
      width: 500,
      height: 300,
    });
    expect(pngSize(renderBarChart({ ...spec, yLog: true })).width).toBe(CHART_WIDTH);
  });

  it('never throws on empty input', () => {
    expect(pngSize(renderBarChart({ title: 'x', categories: [], series: [], yLabel: 'y' })).height).toBe(CHART_HEIGHT);
    expect(pngSize(renderBarChart({ title: 'x', categories: ['a'], series: [{ label: 's', values: [] }], yLabel: 'y' })).width).toBe(
      CHART_WIDTH,
    );
  });
});

function pageSpec(n: number, over: Partial<PageMapSpec> = {}): PageMapSpec {
  const fill = new Float64Array(n);
  for (let i = 0; i < n; i++) fill[i] = (i % 10) / 9;
  return { title: 'Page map', subtitle: 'test', fill, stubs: new Uint32Array(n), forwardedIn: new Uint32Array(n), ...over };
}

describe('renderPageMap', () => {
  it('has the default width and grows taller with more pages', () => {
    const small = pngSize(renderPageMap(pageSpec(100)));
    const large = pngSize(renderPageMap(pageSpec(5000)));
    const huge = pngSize(renderPageMap(pageSpec(300_000, { maxCells: 300_000 })));
    expect(small.width).toBe(CHART_WIDTH);
    expect(large.width).toBe(CHART_WIDTH);
    expect(large.height).toBeGreaterThan(small.height);
    expect(huge.height).toBeGreaterThan(large.height);
    expect(pngSize(renderPageMap(pageSpec(100, { width: 500 }))).width).toBe(500);
  });

  it('draws a table of more than 20,000 pages reduced, several pages a cell, and says so in the legend', async () => {
    const n = 30_000;
    const stubs = new Uint32Array(n);
    stubs[25_001] = 3; // page 25,001: in cell 12,500 of 2 pages each
    const spec = pageSpec(n, { stubs });
    const layout = pageMapLayout(spec);
    expect(layout.pagesPerCell).toBe(2);
    expect(layout.pages).toBe(15_000); // cells, every page in one
    expect(layout.totalPages).toBe(n);
    expect(layout.subtitle).not.toMatch(/showing the first/);
    const legend = pageMapLegend(spec);
    expect(legend[0]).toMatch(/^each cell: 2 pages; colour: their mean fill; a mark: any of its pages has one$/);
    expect(legend).toContain('forwarding stubs (1 pages, 3 stubs)');
    expect(pageMapLayout(pageSpec(n, { maxCells: 100 })).pagesPerCell).toBe(300);
    expect(pageMapLegend(pageSpec(n, { maxCells: 100 }))[0]).toMatch(/^each cell: 300 pages;/);
    // A map of 20,000 pages or fewer is a page a cell and says nothing about cells.
    expect(pageMapLayout(pageSpec(20_000)).pagesPerCell).toBe(1);
    expect(pageMapLegend(pageSpec(20_000))[0]).toMatch(/^page fill/);
    expect(layout.cell).toBeGreaterThanOrEqual(2);
    expect(layout.gridLeft + layout.cols * layout.cell).toBeLessThanOrEqual(layout.width);
    // The stub's cell carries the red mark.
    const p = await decode(renderPageMap(spec));
    const i = 12_500;
    const x = layout.gridLeft + (i % layout.cols) * layout.cell;
    const y = layout.gridTop + Math.floor(i / layout.cols) * layout.cell;
    expect(countPixels(p, x, y, x + layout.cell, y + layout.cell, isRedish)).toBeGreaterThan(0);
    expect(countPixels(p, x - layout.cell, y, x, y + layout.cell, isRedish)).toBe(0);
  });

  it('leaves the marks out for a format without forwarded rows', () => {
    expect(pageMapLegend(pageSpec(100, { marks: null }))).toEqual([expect.stringMatching(/^page fill/)]);
    expect(pageMapLegend(pageSpec(100, { marks: { stubs: 'stubs of migrated rows', movedIn: 'migrated rows living here' } }))).toContain(
      'migrated rows living here (0 pages, 0 rows)',
    );
  });

  it('marks pages with forwarding stubs in red, and only those', async () => {
    const n = 200;
    const stubs = new Uint32Array(n);
    const forwardedIn = new Uint32Array(n);
    stubs[7] = 2;
    forwardedIn[8] = 1;
    const spec = pageSpec(n, { stubs, forwardedIn });
    const L = pageMapLayout(spec);
    const p = await decode(renderPageMap(spec));
    expect(p.height).toBe(L.height);
    const cellRed = (i: number): number => {
      const x = L.gridLeft + (i % L.cols) * L.cell;
      const y = L.gridTop + Math.floor(i / L.cols) * L.cell;
      return countPixels(p, x, y, x + L.cell, y + L.cell, isRedish);
    };
    expect(cellRed(7)).toBeGreaterThan(0);
    expect(cellRed(6)).toBe(0);
    expect(cellRed(8)).toBe(0); // forwarded-in only: orange, not red
    const x8 = L.gridLeft + (8 % L.cols) * L.cell;
    const y8 = L.gridTop + Math.floor(8 / L.cols) * L.cell;
    expect(countPixels(p, x8, y8, x8 + L.cell, y8 + L.cell, (r, g, b) => r > 200 && g > 100 && g < 180 && b < 60)).toBeGreaterThan(0);
    // An empty page (fill 0) and a full page (fill 1) look clearly different.
    const centre = (i: number): number[] => {
      const x = L.gridLeft + (i % L.cols) * L.cell + Math.floor(L.cell / 2);
      const y = L.gridTop + Math.floor(i / L.cols) * L.cell + Math.floor(L.cell / 2);
      const k = (y * p.width + x) * 4;
      return [p.data[k]!, p.data[k + 1]!, p.data[k + 2]!];
    };
    const [r0, g0, b0] = centre(0); // fill 0
    const [r9, g9, b9] = centre(9); // fill 1
    expect(r0! + g0! + b0! - (r9! + g9! + b9!)).toBeGreaterThan(300);
    // Title text in the top band.
    expect(countPixels(p, 0, 0, 300, 40, isDark)).toBeGreaterThan(20);
  });

  it('draws a map the same whatever the thread drew before (one canvas and one cell buffer are kept from map to map)', () => {
    const stubs = new Uint32Array(300);
    stubs[11] = 1;
    const spec = pageSpec(300, { stubs, subtitle: 'the map drawn first and last' });
    const first = renderPageMap(spec);
    // A taller map, a narrower one, one at scale 2, one too large to keep a canvas for, an empty one.
    renderPageMap(pageSpec(5000));
    renderPageMap(pageSpec(100, { width: 500 }));
    renderPageMap({ ...pageSpec(2000), scale: 2 });
    renderPageMap(pageSpec(300_000, { maxCells: 300_000 }));
    renderPageMap({ title: 'none', fill: [], stubs: [], forwardedIn: [] });
    renderPageMap(pageSpec(5000));
    expect(renderPageMap(spec).equals(first)).toBe(true);
    expect(pngSize(first).height).toBe(pageMapLayout(spec).height);
    // At scale 2, maps of one width in turn on the one canvas: its transform does not build up.
    const double = renderPageMap({ ...spec, scale: 2 });
    renderPageMap({ ...pageSpec(900), scale: 2 });
    expect(renderPageMap({ ...spec, scale: 2 }).equals(double)).toBe(true);
  });

  it.each([1, 1.5, 2])(
    'paints the grid itself at scale %s: cell colours, marks in their corners with a blended slanted edge, separators, the row labels beside it',
    async (scale) => {
      const n = 400;
      const stubs = new Uint32Array(n);
      const forwardedIn = new Uint32Array(n);
      stubs[9] = 1; // fill 1 (navy)
      forwardedIn[19] = 2; // fill 1
      stubs[29] = 1;
      forwardedIn[29] = 1; // both marks in one cell
      const spec = { ...pageSpec(n, { stubs, forwardedIn }), scale };
      const L = pageMapLayout(spec);
      expect(L.cell).toBeGreaterThanOrEqual(8);
      const p = await decode(renderPageMap(spec));
      const at = (x: number, y: number): number[] => {
        const k = (y * p.width + x) * 4;
        return [p.data[k]!, p.data[k + 1]!, p.data[k + 2]!];
      };
      const inner = L.cell - 1;
      const box = (i: number) => {
        const x = (i % L.cols) * L.cell;
        const y = Math.floor(i / L.cols) * L.cell;
        const r = (v: number) => Math.round(v * scale);
        return { x0: r(L.gridLeft + x), y0: r(L.gridTop + y), x1: r(L.gridLeft + x + inner), y1: r(L.gridTop + y + inner) };
      };
      const NAVY = [8, 48, 107];
      const RED = [224, 0, 27];
      const ORANGE = [255, 140, 0];
      const T = Math.max(4, Math.round(inner * 0.55)) * scale; // a triangle's legs, device pixels
      const between = (c: number[], a: number[], b: number[]) =>
        c.every((v, k) => v >= Math.min(a[k]!, b[k]!) && v <= Math.max(a[k]!, b[k]!)) && c.some((v, k) => v !== a[k] && v !== b[k]);
      // A stub's triangle: its corner in the mark's colour, the cell's colour beyond its edge, a blend on it.
      const s = box(9);
      expect(at(s.x0, s.y0)).toEqual(RED);
      expect(at(s.x0 + Math.ceil(T) + 1, s.y0)).toEqual(NAVY);
      expect(at(s.x1 - 1, s.y1 - 1)).toEqual(NAVY);
      const edge = Array.from({ length: Math.ceil(T) + 1 }, (_, u) => at(s.x0 + u, s.y0)).filter((c) => between(c, RED, NAVY));
      expect(edge.length).toBeGreaterThan(0);
      // A forwarded-in row's triangle, in the opposite corner.
      const f = box(19);
      expect(at(f.x1 - 1, f.y1 - 1)).toEqual(ORANGE);
      expect(at(f.x0, f.y0)).toEqual(NAVY);
      const both = box(29);
      expect([at(both.x0, both.y0), at(both.x1 - 1, both.y1 - 1)]).toEqual([RED, ORANGE]);
      // A cell without marks is one colour, and the grey separator follows it.
      const plain = box(8);
      expect(at(plain.x0, plain.y0)).toEqual(at(plain.x1 - 1, plain.y1 - 1));
      expect(at(plain.x1, Math.floor((plain.y0 + plain.y1) / 2))).toEqual([200, 200, 200]);
      // The row labels (the canvas's, left of the grid) are in the image.
      const gx = Math.round(L.gridLeft * scale);
      const gy = Math.round(L.gridTop * scale);
      expect(countPixels(p, 0, gy, gx, gy + Math.round(L.rows * L.cell * scale), (r, g, b) => r + g + b < 3 * 160)).toBeGreaterThan(20);
    },
  );

  it('marks small cells (under 8 px) with a square in the corner', async () => {
    const n = 20_000;
    const stubs = new Uint32Array(n);
    stubs[0] = 1;
    const spec = pageSpec(n, { stubs });
    const L = pageMapLayout(spec);
    expect(L.cell - 1).toBeLessThan(8);
    const p = await decode(renderPageMap(spec));
    const t = Math.ceil((L.cell - 1) / 2);
    const k = (x: number, y: number) => ((L.gridTop + y) * p.width + L.gridLeft + x) * 4;
    const red = (x: number, y: number) => isRedish(p.data[k(x, y)]!, p.data[k(x, y) + 1]!, p.data[k(x, y) + 2]!);
    expect(red(0, 0) && red(t - 1, t - 1)).toBe(true);
    expect(red(t, 0) || red(0, t)).toBe(false);
  });

  it('renders an empty page map', () => {
    const { width, height } = pngSize(renderPageMap({ title: 'none', fill: [], stubs: [], forwardedIn: [] }));
    expect(width).toBe(CHART_WIDTH);
    expect(height).toBeGreaterThan(50);
  });
});

describe('number formatting', () => {
  it('is readable', () => {
    expect(formatNumber(1234567)).toBe('1,234,567');
    expect(formatNumber(0.1234)).toBe('0.123');
    expect(formatCompact(1200)).toBe('1.2k');
    expect(formatCompact(3_400_000)).toBe('3.4M');
    expect(formatCompact(950)).toBe('950');
    expect(formatCompact(0.30000000000000004)).toBe('0.3');
  });
});

describe('text for a projector', () => {
  it('is large at 1×: tick and legend labels of 16 px or more, titles of 22 px or more', () => {
    expect(FONT_PX.tick).toBeGreaterThanOrEqual(16);
    expect(FONT_PX.legend).toBeGreaterThanOrEqual(16);
    expect(FONT_PX.title).toBeGreaterThanOrEqual(22);
    expect(FONT_PX.axisTitle).toBeGreaterThanOrEqual(16);
  });

  it('wraps a label longer than the width onto several lines, each no wider, cutting nothing', async () => {
    const label = 'format=sqlserver-heap, encoding=latin1, pfs_bands=off, row_versioning=on';
    const lines = wrapLabel(label, 150, 16);
    expect(lines.length).toBeGreaterThan(2);
    const ctx = createCanvas(10, 10).getContext('2d');
    ctx.font = '16px "DejaVu Sans"';
    for (const l of lines) expect(ctx.measureText(l).width).toBeLessThanOrEqual(150);
    expect(lines.join('').replace(/ /g, '')).toBe(label.replace(/ /g, ''));
    // A single word longer than the width is broken too, after its punctuation where it can be.
    const word = wrapLabel('exp_row_size_basis=physical', 90, 16);
    expect(word.length).toBeGreaterThan(1);
    expect(word.join('')).toBe('exp_row_size_basis=physical');
    expect(wrapLabel('short', 150, 16)).toEqual(['short']);
  });

  it('draws long category labels on several lines below the axis instead of turning them', async () => {
    const cats = [
      'format=postgres-heap, encoding=latin1',
      'format=oracle-heap, encoding=utf8',
      'format=sqlserver-heap, encoding=latin1',
      'format=sqlserver-heap, encoding=utf8',
      'x',
      'y',
      'z',
      'w',
    ];
    const spec = lineSpec({
      xCategories: cats,
      series: [{ label: 'pages', points: cats.map((_c, i) => [i, 100 + i] as [number, number]) }],
    });
    const p = await decode(renderLineChart(spec));
    // Wrapped labels take three lines under the axis: ink well above the axis title's band at the bottom.
    const band = (y0: number, y1: number) => countPixels(p, 0, y0, p.width, y1, isDark);
    expect(band(p.height - 110, p.height - 40)).toBeGreaterThan(200);
  });

  it('--scale: a chart at scale 2 is twice the pixels each way, its layout the same', () => {
    const one = pngSize(renderLineChart(lineSpec()));
    const two = pngSize(renderLineChart(lineSpec({ scale: 2 })));
    expect(two).toEqual({ width: 2 * one.width, height: 2 * one.height });
    expect(
      pngSize(renderBarChart({ title: 'x', categories: ['a'], series: [{ label: 's', values: [1] }], yLabel: 'y', scale: 1.5 })),
    ).toEqual({ width: CHART_WIDTH * 1.5, height: CHART_HEIGHT * 1.5 });
    const map = pageSpec(500);
    const L = pageMapLayout(map);
    expect(pngSize(renderPageMap({ ...map, scale: 2 }))).toEqual({ width: 2 * L.width, height: 2 * L.height });
  });
});
