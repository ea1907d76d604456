/**
 * PNG charts: line, bar (chart.js drawn on @napi-rs/canvas) and a page map (plain canvas 2D).
 *
 * Everything is synchronous and returns a PNG Buffer. The machine may have no system fonts, so
 * DejaVu Sans is registered from the bundled `dejavu-fonts-ttf` package on first use and chart.js
 * is told to use it. Non-finite values (and values <= 0 on a log axis) are skipped; an empty chart
 * still draws its axes with a "no data" note.
 *
 * Sizes are for a projector: at 1× a chart is 1200 × 720 px with tick labels and legends of 16 px and
 * titles of 24 px (FONT_PX); long category labels are wrapped onto several lines (wrapLabel). `scale`
 * (`rowsim run --scale`, setChartScale) multiplies the pixel size and leaves the layout as it is.
 */
import { createCanvas, ImageData, type Canvas } from '@napi-rs/canvas';
import { encodePng, encodeRowsPng, encodeStripsPng, LITTLE_ENDIAN } from './png.js';
import { FONT_FAMILY, ensureFonts } from '../util/fonts.js';
import { createRequire } from 'node:module';
import type { ChartConfiguration, Plugin } from 'chart.js';
import { RUN_DEFAULTS } from '../config/defaults.js';
import { reducePageMap } from '../workload/page-map.js';
import { groupedNumber } from '../util/numbers.js';

// ---------------------------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------------------------

export interface Series {
  label: string;
  points: Array<[number, number]>; // x, y
  color?: string; // default: a fixed, colour-blind-friendly palette by series index
  dashed?: boolean;
  yAxis?: 'left' | 'right'; // right = secondary y axis (uses y2Label)
  showPoints?: boolean; // default true
  showLine?: boolean; // default true; false draws the points only
  pointStyle?: 'circle' | 'triangle' | 'rectRot' | 'crossRot' | 'rect';
  pointRadius?: number;
  /** Per point (aligned with `points`): a vertical interval [low, high] drawn as an error bar, or null. */
  errorBars?: Array<[number, number] | null>;
}

/** A vertical dashed line at data coordinate x (an index when xCategories is set) with a label at the top. */
export interface Marker {
  x: number;
  label: string;
  color?: string;
}

export interface LineChartSpec {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  y2Label?: string;
  xLog?: boolean;
  yLog?: boolean;
  /** Log scale for the right axis; defaults to yLog. */
  y2Log?: boolean;
  xCategories?: string[]; // when set, x values are indexes 0..n-1 into these category labels
  series: Series[];
  markers?: Marker[];
  width?: number;
  height?: number; // default CHART_WIDTH x CHART_HEIGHT
  /** Pixels per layout pixel (default: setChartScale's, 1). */
  scale?: number;
}

interface BarChartSpec {
  title: string;
  subtitle?: string;
  categories: string[]; // x axis groups
  series: Array<{ label: string; values: number[]; color?: string }>;
  xLabel?: string;
  yLabel: string;
  stacked?: boolean;
  horizontal?: boolean;
  yLog?: boolean;
  /** Print each bar's value above it (stacked bars: the stack's total above the top one). */
  valueLabels?: boolean;
  width?: number;
  height?: number;
  scale?: number;
}

export interface PageMapSpec {
  title: string;
  subtitle?: string;
  fill: ArrayLike<number>; // per cell, 0..1: fraction of the usable page bytes in use (a cell's pages: their mean)
  stubs: ArrayLike<number>; // per cell: forwarding stubs
  forwardedIn: ArrayLike<number>; // per cell: forwarded rows living on its pages away from their home
  /** Pages a cell stands for (default 1); the last cell may hold fewer. */
  pagesPerCell?: number;
  /** Pages of the table (default: cells × pagesPerCell). */
  totalPages?: number;
  /** Pages that hold stubs and forwarded-in rows, counted page by page (default: the cells that do). */
  stubPages?: number;
  forwardedInPages?: number;
  /** What the two corner marks stand for, in the format's words; null: the format has no such rows (no marks). */
  marks?: { stubs: string; movedIn: string } | null;
  /** Cells drawn at most (default RUN_DEFAULTS.pageMapMaxCells): more pages are drawn several a cell. */
  maxCells?: number;
  width?: number; // default CHART_WIDTH; height follows from the number of cells
  scale?: number;
}

// ---------------------------------------------------------------------------------------------
// Setup: fonts, chart.js defaults
// ---------------------------------------------------------------------------------------------


/** Okabe–Ito based palette (colour-blind friendly), yellow dropped for contrast on white. */
export const PALETTE: readonly string[] = [
  '#0072B2', // blue
  '#D55E00', // vermillion
  '#009E73', // bluish green
  '#E69F00', // orange
  '#CC79A7', // reddish purple
  '#56B4E9', // sky blue
  '#000000', // black
  '#8C6D31', // brown
  '#999999', // grey
];

const TEXT_COLOR = '#222222';
const GRID_COLOR = '#e3e3e3';

/** The default chart size at 1×, in pixels. */
export const CHART_WIDTH = 1200;
export const CHART_HEIGHT = 720;

/** Text sizes at 1×, in pixels: legible on a projector. */
export const FONT_PX = Object.freeze({ title: 24, subtitle: 17, axisTitle: 18, tick: 16, legend: 16, marker: 15, note: 16, cell: 18 });

let chartScale = 1;

/** The pixel scale of the charts drawn from now on that give none (`rowsim run --scale`); returns the previous one. */
export function setChartScale(scale: number): number {
  const before = chartScale;
  chartScale = Number.isFinite(scale) && scale > 0 ? scale : 1;
  return before;
}

function scaleOf(spec: { scale?: number }): number {
  const s = spec.scale ?? chartScale;
  return Number.isFinite(s) && s > 0 ? s : 1;
}

/**
 * chart.js, required (its CommonJS build) and set up when the first chart is drawn: a thread that
 * draws only page maps and heat maps, which are drawn on the canvas directly, never loads it.
 */
let chartJs: typeof import('chart.js') | undefined;

function charts(): typeof import('chart.js') {
  if (chartJs) return chartJs;
  const cj = createRequire(import.meta.url)('chart.js') as typeof import('chart.js');
  const { Chart, registerables } = cj;
  Chart.register(...registerables);
  Chart.defaults.font.family = FONT_FAMILY;
  Chart.defaults.font.size = FONT_PX.tick;
  Chart.defaults.color = TEXT_COLOR;
  Chart.defaults.borderColor = GRID_COLOR;
  Chart.defaults.animation = false;
  Chart.defaults.responsive = false;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.devicePixelRatio = 1;
  Chart.defaults.events = [];
  Chart.defaults.plugins.tooltip.enabled = false;
  return (chartJs = cj);
}

/** Load and set up chart.js now (a command that will draw charts, while it waits for something else). */
export function loadChartJs(): void {
  charts();
}

/** The fonts, before any text is measured or drawn. */
function ensureSetup(): void {
  ensureFonts();
}

// ---------------------------------------------------------------------------------------------
// Number formatting
// ---------------------------------------------------------------------------------------------

function trimZeros(s: string): string {
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/** Full-precision-ish readable number: thousands separators, a few decimals for small values. */
export function formatNumber(v: number): string {
  if (Number.isNaN(v)) return 'n/a';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '-∞';
  const a = Math.abs(v);
  if (a === 0) return '0';
  if (a >= 100) return groupedNumber(Math.round(v));
  if (a >= 1) return groupedNumber(v, 2);
  if (a >= 1e-3) return trimZeros(v.toPrecision(3));
  return v.toExponential(1);
}

const COMPACT_UNITS: Array<[number, string]> = [
  [1e12, 'T'],
  [1e9, 'G'],
  [1e6, 'M'],
  [1e3, 'k'],
];

/** Compact axis number: 950, 1.2k, 3.4M, 5G; small values as formatNumber. */
export function formatCompact(v: number): string {
  if (!Number.isFinite(v)) return formatNumber(v);
  const a = Math.abs(v);
  for (const [unit, suffix] of COMPACT_UNITS) {
    if (a >= unit) {
      const s = v / unit;
      const sa = Math.abs(s);
      const digits = sa >= 100 ? 0 : sa >= 10 ? 1 : 2;
      return trimZeros(s.toFixed(digits)) + suffix;
    }
  }
  // Clean up floating noise on ticks such as 0.30000000000000004.
  return formatNumber(Number(v.toPrecision(12)));
}

interface TickLike {
  value: number;
}

/** Compact labels for all ticks, unless that makes two of them equal; then full numbers. */
function linearTickLabel(value: number, index: number, ticks: TickLike[]): string {
  const compact = ticks.map((t) => formatCompact(t.value));
  if (new Set(compact).size === compact.length) return compact[index] ?? formatCompact(value);
  return formatNumber(value);
}

/** Log axis labels: only 1, 2, 5 × 10^n (only 1 × 10^n when the range is wide). */
function logTickLabel(value: number, _index: number, ticks: TickLike[]): string {
  if (!(value > 0)) return '';
  const pos = ticks.map((t) => t.value).filter((x) => x > 0);
  const decades = pos.length > 1 ? Math.log10(Math.max(...pos) / Math.min(...pos)) : 0;
  const sig = value / Math.pow(10, Math.floor(Math.log10(value) + 1e-9));
  const near = (x: number): boolean => Math.abs(sig - x) < 1e-6 * x;
  const keep = decades > 4 ? [1] : decades > 2 ? [1, 3] : [1, 2, 5];
  if (keep.some(near) || near(10)) return formatCompact(value);
  return '';
}

// ---------------------------------------------------------------------------------------------
// chart.js plumbing
// ---------------------------------------------------------------------------------------------

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyChart = any;

const backgroundPlugin: Plugin = {
  id: 'rowsimWhiteBackground',
  beforeDraw(chart: AnyChart) {
    const ctx = chart.ctx;
    ctx.save();
    ctx.globalCompositeOperation = 'destination-over';
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, chart.width, chart.height);
    ctx.restore();
  },
};

function noDataPlugin(isEmpty: boolean): Plugin {
  return {
    id: 'rowsimNoData',
    afterDraw(chart: AnyChart) {
      if (!isEmpty) return;
      const { ctx, chartArea } = chart;
      ctx.save();
      ctx.font = `${FONT_PX.axisTitle}px "${FONT_FAMILY}"`;
      ctx.fillStyle = '#666666';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillText('no data', (chartArea.left + chartArea.right) / 2, (chartArea.top + chartArea.bottom) / 2);
      ctx.restore();
    },
  };
}

function markerPlugin(markers: Marker[]): Plugin {
  return {
    id: 'rowsimMarkers',
    afterDatasetsDraw(chart: AnyChart) {
      if (markers.length === 0) return;
      const { ctx, chartArea } = chart;
      const xScale = chart.scales.x;
      const fontPx = FONT_PX.marker;
      const lineH = fontPx + 8;
      const placed: Array<Array<[number, number]>> = []; // per label row: occupied [x0, x1] spans
      const items = markers
        .map((m, i) => ({ m, px: xScale.getPixelForValue(m.x) as number, color: m.color ?? '#444444', i }))
        .filter((it) => Number.isFinite(it.px) && it.px >= chartArea.left - 0.5 && it.px <= chartArea.right + 0.5)
        .sort((a, b) => a.px - b.px);
      ctx.save();
      ctx.font = `${fontPx}px "${FONT_FAMILY}"`;
      for (const it of items) {
        ctx.strokeStyle = it.color;
        ctx.lineWidth = 1.5;
        ctx.setLineDash([6, 4]);
        ctx.beginPath();
        ctx.moveTo(it.px, chartArea.top);
        ctx.lineTo(it.px, chartArea.bottom);
        ctx.stroke();
      }
      ctx.setLineDash([]);
      // Labels after all lines, so no line crosses a label; stacked in rows when they would overlap.
      for (const it of items) {
        if (!it.m.label) continue;
        const w = ctx.measureText(it.m.label).width + 8;
        // Label to the right of the line, unless that runs off the chart area.
        let x0 = it.px + 3;
        if (x0 + w > chartArea.right) x0 = Math.max(chartArea.left, it.px - 3 - w);
        const x1 = x0 + w;
        let row = 0;
        while (placed[row]?.some(([a, b]) => x0 < b + 4 && x1 > a - 4)) row++;
        (placed[row] ??= []).push([x0, x1]);
        const y0 = chartArea.top + 2 + row * lineH;
        ctx.fillStyle = 'rgba(255,255,255,0.85)';
        ctx.fillRect(x0, y0, w, lineH - 2);
        ctx.fillStyle = it.color;
        ctx.textAlign = 'left';
        ctx.textBaseline = 'middle';
        ctx.fillText(it.m.label, x0 + 4, y0 + (lineH - 2) / 2);
      }
      ctx.restore();
    },
  };
}

/** The title and subtitle, each wrapped onto as many lines as the width needs. */
function titlePlugins(title: string, subtitle: string | undefined, width: number): Record<string, unknown> {
  return {
    title: {
      display: title !== '',
      text: wrapLabel(title, width - 40, FONT_PX.title, true),
      font: { size: FONT_PX.title, weight: 'bold' },
      color: '#111111',
      padding: { top: 10, bottom: subtitle ? 4 : 10 },
    },
    subtitle: {
      display: !!subtitle,
      text: subtitle ? wrapLabel(subtitle, width - 40, FONT_PX.subtitle) : '',
      font: { size: FONT_PX.subtitle },
      color: '#555555',
      padding: { bottom: 10 },
    },
  };
}

function axisTitle(text: string | undefined): Record<string, unknown> {
  return { display: !!text, text: text ?? '', font: { size: FONT_PX.axisTitle }, color: TEXT_COLOR };
}

let measureCtx: Ctx2D | undefined;

/**
 * `text` broken into lines no wider than `maxWidth` px in the chart font of `fontPx`: at spaces first,
 * then after a comma, `=`, `-`, `_`, `/` or `.` inside a word too long for a line, and as a last resort
 * between characters. Never cut: every character of `text` is on some line.
 */
export function wrapLabel(text: string, maxWidth: number, fontPx: number, bold = false): string[] {
  ensureSetup();
  measureCtx ??= createCanvas(10, 10).getContext('2d');
  const ctx = measureCtx;
  ctx.font = pmFont(fontPx, bold);
  const fits = (t: string): boolean => ctx.measureText(t).width <= maxWidth;
  if (fits(text)) return [text];
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ').filter((w) => w !== '')) {
    const next = line ? `${line} ${word}` : word;
    if (fits(next)) {
      line = next;
      continue;
    }
    if (line) lines.push(line);
    line = '';
    // A word too long for a line: break it after punctuation, else between characters.
    let rest = word;
    while (!fits(rest)) {
      let cut = 0;
      for (let k = 1; k < rest.length; k++) {
        if (!fits(rest.slice(0, k))) break;
        if (/[,=\-_\/.]/.test(rest[k - 1]!)) cut = k;
      }
      if (cut === 0) {
        cut = 1;
        while (cut < rest.length && fits(rest.slice(0, cut + 1))) cut++;
      }
      lines.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    line = rest;
  }
  if (line) lines.push(line);
  return lines;
}

/** Category tick labels: each wrapped to its share of the plot's width (and the two axes' labels left out). */
function categoryTicks(cats: string[], width: number): Array<string | string[]> {
  const share = Math.max(60, (width - 180) / Math.max(1, cats.length) - 10);
  return cats.map((c) => {
    const lines = wrapLabel(c, share, FONT_PX.tick);
    return lines.length === 1 ? lines[0]! : lines;
  });
}

function renderChart(config: ChartConfiguration, width: number, height: number, scale: number): Buffer {
  ensureSetup();
  const w = Math.max(50, Math.round(width));
  const h = Math.max(50, Math.round(height));
  const canvas = createCanvas(w, h);
  const ctx = canvas.getContext('2d');
  // chart.js draws at the layout size and makes the canvas `scale` times as many pixels.
  (config.options as Record<string, unknown>).devicePixelRatio = scale;
  const chart = new (charts().Chart)(ctx as AnyChart, config);
  try {
    chart.draw();
    return encodePng(canvas);
  } finally {
    chart.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// Line chart
// ---------------------------------------------------------------------------------------------

export function renderLineChart(spec: LineChartSpec): Buffer {
  const width = spec.width ?? CHART_WIDTH;
  const height = spec.height ?? CHART_HEIGHT;
  const cats = spec.xCategories && spec.xCategories.length > 0 ? spec.xCategories : undefined;
  const xLog = !!spec.xLog && !cats;
  const yLog = !!spec.yLog;
  const y2Log = spec.y2Log ?? yLog;
  const hasRight = spec.series.some((s) => s.yAxis === 'right');
  const { datasets, anyPoint, anyLeft, anyRight } = lineDatasets(spec, xLog, yLog, y2Log);
  const markers = (spec.markers ?? []).filter((m) => m && Number.isFinite(m.x) && (!xLog || m.x > 0));

  const scales: Record<string, unknown> = {
    x: lineXScale(spec.xLabel, cats, xLog, anyPoint, markers.map((m) => m.x), width),
    y: lineYScale(yLog, spec.yLabel, false, !anyLeft),
  };
  if (hasRight || spec.y2Label) scales.y2 = lineYScale(y2Log, spec.y2Label, true, !anyRight);

  const config = {
    type: 'line',
    data: { datasets },
    options: {
      parsing: false,
      normalized: false,
      layout: { padding: { left: 8, right: 16, top: 4, bottom: 8 } },
      scales,
      plugins: {
        ...titlePlugins(spec.title, spec.subtitle, width),
        legend: lineLegend(datasets),
        tooltip: { enabled: false },
      },
    },
    plugins: [backgroundPlugin, errorBarPlugin, markerPlugin(markers), noDataPlugin(!anyPoint)],
  } as unknown as ChartConfiguration;
  return renderChart(config, width, height, scaleOf(spec));
}

interface LineDataset {
  label: string;
  data: Array<{ x: number; y: number }>;
  borderColor: string;
  borderDash: number[];
  [option: string]: unknown;
}

/** One chart.js dataset per series: the points a log axis can show, their error bars, the series' style. */
function lineDatasets(spec: LineChartSpec, xLog: boolean, yLog: boolean, y2Log: boolean): { datasets: LineDataset[]; anyPoint: boolean; anyLeft: boolean; anyRight: boolean } {
  const hasLeft = spec.series.some((s) => s.yAxis !== 'right');
  let anyPoint = false;
  let anyLeft = false;
  let anyRight = false;
  const datasets = spec.series.map((s, i): LineDataset => {
    const right = s.yAxis === 'right';
    const logY = right ? y2Log : yLog;
    const data: Array<{ x: number; y: number }> = [];
    const errors: Array<[number, number] | null> = [];
    (s.points ?? []).forEach((p, k) => {
      if (!p) return;
      const [x, y] = p;
      if (!Number.isFinite(x) || !Number.isFinite(y)) return;
      if (xLog && x <= 0) return;
      if (logY && y <= 0) return;
      data.push({ x, y });
      const e = s.errorBars?.[k];
      errors.push(e && Number.isFinite(e[0]) && Number.isFinite(e[1]) && (!logY || e[0] > 0) ? e : null);
    });
    if (data.length > 0) {
      anyPoint = true;
      if (right) anyRight = true;
      else anyLeft = true;
    }
    const color = s.color ?? PALETTE[i % PALETTE.length]!;
    const showPoints = s.showPoints ?? true;
    let label = s.label;
    if (right && hasLeft) label += ' (right axis)';
    if (data.length === 0) label += ' (no data)';
    return {
      label,
      data,
      borderColor: color,
      backgroundColor: color,
      borderWidth: 2,
      borderDash: s.dashed ? [8, 5] : [],
      pointRadius: showPoints ? (s.pointRadius ?? (data.length > 150 ? 1.5 : 3)) : 0,
      pointStyle: s.pointStyle ?? 'circle',
      showLine: s.showLine ?? true,
      rowsimErrors: errors,
      pointHoverRadius: 0,
      pointBackgroundColor: color,
      pointBorderColor: color,
      tension: 0,
      fill: false,
      spanGaps: true,
      yAxisID: right ? 'y2' : 'y',
    };
  });
  return { datasets, anyPoint, anyLeft, anyRight };
}

/** The x axis: categories, a log or linear scale, a default range when there is nothing to show, room for the markers. */
function lineXScale(label: string | undefined, cats: string[] | undefined, xLog: boolean, anyPoint: boolean, markerXs: number[], width: number): Record<string, unknown> {
  const xScale: Record<string, unknown> = {
    type: xLog ? 'logarithmic' : 'linear',
    title: axisTitle(label),
    grid: { color: GRID_COLOR },
    ticks: { callback: xLog ? logTickLabel : linearTickLabel, font: { size: FONT_PX.tick }, maxRotation: 45 },
  };
  if (cats) {
    const n = cats.length;
    xScale.min = -0.5;
    xScale.max = n - 0.5;
    xScale.afterBuildTicks = (scale: AnyChart) => {
      scale.ticks = cats.map((_c, i) => ({ value: i }));
    };
    // Up to a dozen categories: every label, wrapped onto lines, never turned; more: some, turned.
    const few = n <= 12;
    const labels = few ? categoryTicks(cats, width) : cats;
    xScale.ticks = {
      autoSkip: !few,
      maxRotation: few ? 0 : 45,
      font: { size: FONT_PX.tick },
      callback: (v: number) => (Number.isInteger(v) && v >= 0 && v < n ? labels[v] : ''),
    };
  } else if (!anyPoint && markerXs.length === 0) {
    Object.assign(xScale, xLog ? { min: 1, max: 10 } : { min: 0, max: 1 });
  } else if (markerXs.length > 0) {
    xScale.suggestedMin = Math.min(...markerXs);
    xScale.suggestedMax = Math.max(...markerXs);
  }
  return xScale;
}

function lineYScale(log: boolean, label: string | undefined, right: boolean, empty: boolean): Record<string, unknown> {
  return {
    type: log ? 'logarithmic' : 'linear',
    position: right ? 'right' : 'left',
    title: axisTitle(label),
    grid: right ? { drawOnChartArea: false, color: GRID_COLOR } : { color: GRID_COLOR },
    ticks: { callback: log ? logTickLabel : linearTickLabel, font: { size: FONT_PX.tick } },
    ...(empty ? (log ? { min: 1, max: 10 } : { min: 0, max: 1 }) : {}),
  };
}

/** The legend: line samples drawn with each dataset's dash and colour. */
function lineLegend(datasets: LineDataset[]): Record<string, unknown> {
  return {
    display: datasets.length > 0,
    position: 'top',
    labels: {
      usePointStyle: true,
      pointStyle: 'line',
      pointStyleWidth: 40,
      font: { size: FONT_PX.legend },
      padding: 16,
      // With usePointStyle chart.js styles the legend from the point element: take dash and width from the line.
      generateLabels: (chart: AnyChart) =>
        charts().Chart.defaults.plugins.legend.labels.generateLabels(chart).map((item: AnyChart) => {
          const ds = datasets[item.datasetIndex as number];
          return ds ? { ...item, lineDash: ds.borderDash, lineWidth: 2.5, strokeStyle: ds.borderColor } : item;
        }),
    },
  };
}

/** Vertical error bars with caps, from each dataset's `rowsimErrors` (aligned with its data). */
const errorBarPlugin: Plugin = {
  id: 'rowsimErrorBars',
  afterDatasetsDraw(chart: AnyChart) {
    const { ctx } = chart;
    chart.data.datasets.forEach((ds: AnyChart, di: number) => {
      const errors = ds.rowsimErrors as Array<[number, number] | null> | undefined;
      if (!errors || !errors.some((e) => e)) return;
      const meta = chart.getDatasetMeta(di);
      const yScale = chart.scales[ds.yAxisID ?? 'y'];
      const xScale = chart.scales.x;
      ctx.save();
      ctx.strokeStyle = ds.borderColor;
      ctx.lineWidth = 1.5;
      ctx.setLineDash([]);
      errors.forEach((e, i) => {
        if (!e || !meta.data[i]) return;
        const px = xScale.getPixelForValue(ds.data[i].x);
        const lo = yScale.getPixelForValue(e[0]);
        const hi = yScale.getPixelForValue(e[1]);
        if (![px, lo, hi].every(Number.isFinite)) return;
        ctx.beginPath();
        ctx.moveTo(px, lo);
        ctx.lineTo(px, hi);
        ctx.moveTo(px - 4, lo);
        ctx.lineTo(px + 4, lo);
        ctx.moveTo(px - 4, hi);
        ctx.lineTo(px + 4, hi);
        ctx.stroke();
      });
      ctx.restore();
    });
  },
};

// ---------------------------------------------------------------------------------------------
// Heat map
// ---------------------------------------------------------------------------------------------

interface HeatMapSpec {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  /** Column labels (left to right) and row labels (bottom to top). */
  xValues: string[];
  yValues: string[];
  /** values[row][col]; NaN = no data (grey). */
  values: number[][];
  /** Text in each cell; default the value. */
  cellText?: string[][];
  /** Cells drawn with a dashed outline (e.g. bimodal) and cells marked with a dagger (e.g. not stationary). */
  dashed?: boolean[][];
  dagger?: boolean[][];
  /** Colour scale: log10 of value/center, diverging (blue below, red above), saturating at ±logSpan. */
  center?: number;
  logSpan?: number;
  legendLabel: string;
  /** Notes under the map (legend of the marks). */
  notes?: string[];
  width?: number;
  height?: number;
  scale?: number;
}

/** Diverging colour for t in [-1, 1]: blue (−1), near-white (0), red (+1). */
function divergingColor(t: number): string {
  if (!Number.isFinite(t)) return UNKNOWN_COLOR;
  const u = Math.max(-1, Math.min(1, t));
  const white: [number, number, number] = [247, 247, 247];
  const red: [number, number, number] = [178, 24, 43];
  const blue: [number, number, number] = [33, 102, 172];
  const to = u >= 0 ? red : blue;
  const a = Math.abs(u);
  const c = white.map((w, k) => Math.round(w + (to[k]! - w) * a));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

export function renderHeatMap(spec: HeatMapSpec): Buffer {
  ensureSetup();
  const width = spec.width ?? CHART_WIDTH;
  const height = spec.height ?? Math.round(CHART_HEIGHT * 1.15);
  const scale = scaleOf(spec);
  const canvas = createCanvas(Math.round(width * scale), Math.round(height * scale));
  const ctx = canvas.getContext('2d');
  ctx.scale(scale, scale);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  const top = heatMapTitle(ctx, spec, width) + 8;
  const legendH = 64 + (spec.notes ?? []).length * (FONT_PX.note + 6);
  const nx = spec.xValues.length;
  const ny = spec.yValues.length;
  const grid: HeatGrid = { left: 130, right: width - 30, top, bottom: height - 70 - legendH, cellW: 0, cellH: 0 };
  if (nx === 0 || ny === 0 || grid.bottom - grid.top < 20) {
    ctx.fillStyle = '#666666';
    ctx.font = pmFont(16);
    ctx.fillText('no data', width / 2, (top + height) / 2);
    return encodePng(canvas);
  }
  grid.cellW = (grid.right - grid.left) / nx;
  grid.cellH = (grid.bottom - grid.top) / ny;
  heatMapCells(ctx, spec, grid);
  heatMapAxes(ctx, spec, grid);
  heatMapLegend(ctx, spec, grid, width);
  return encodePng(canvas);
}

/** Where the heat map's cells go: the grid's edges and one cell's size, in pixels. */
interface HeatGrid {
  left: number;
  right: number;
  top: number;
  bottom: number;
  cellW: number;
  cellH: number;
}

/** The title and the wrapped subtitle; returns the y below them. */
function heatMapTitle(ctx: Ctx2D, spec: HeatMapSpec, width: number): number {
  let y = 12;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  ctx.fillStyle = '#111111';
  ctx.font = pmFont(FONT_PX.title, true);
  for (const line of wrapText(ctx, spec.title, width - 40)) {
    ctx.fillText(line, width / 2, y);
    y += FONT_PX.title + 8;
  }
  if (spec.subtitle) {
    ctx.font = pmFont(FONT_PX.subtitle);
    ctx.fillStyle = '#555555';
    for (const line of wrapText(ctx, spec.subtitle, width - 40)) {
      ctx.fillText(line, width / 2, y);
      y += FONT_PX.subtitle + 6;
    }
  }
  return y;
}

/** One cell per (x, y) value: its colour on the diverging scale, a dashed frame where asked, its text. */
function heatMapCells(ctx: Ctx2D, spec: HeatMapSpec, grid: HeatGrid): void {
  const center = spec.center ?? 1;
  const span = spec.logSpan ?? 1;
  const { left, bottom, cellW: cw, cellH: ch } = grid;
  for (let r = 0; r < spec.yValues.length; r++) {
    for (let c = 0; c < spec.xValues.length; c++) {
      const v = spec.values[r]?.[c] ?? NaN;
      const x0 = left + c * cw;
      const y0 = bottom - (r + 1) * ch;
      ctx.fillStyle = Number.isFinite(v) && v > 0 ? divergingColor(Math.log10(v / center) / span) : UNKNOWN_COLOR;
      ctx.fillRect(x0 + 1, y0 + 1, cw - 2, ch - 2);
      if (spec.dashed?.[r]?.[c]) {
        ctx.strokeStyle = '#111111';
        ctx.lineWidth = 2;
        ctx.setLineDash([6, 4]);
        ctx.strokeRect(x0 + 3, y0 + 3, cw - 6, ch - 6);
        ctx.setLineDash([]);
      }
      const text = (spec.cellText?.[r]?.[c] ?? (Number.isFinite(v) ? formatNumber(v) : '')) + (spec.dagger?.[r]?.[c] ? ' †' : '');
      const t = Number.isFinite(v) && v > 0 ? Math.abs(Math.log10(v / center) / span) : 0;
      ctx.fillStyle = t > 0.6 ? '#ffffff' : '#111111';
      ctx.font = pmFont(Math.max(12, Math.min(FONT_PX.cell, Math.floor(cw / 5))));
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillText(text, x0 + cw / 2, y0 + ch / 2);
    }
  }
}

/** The values under and beside the grid, and the two axis titles (the y title turned upright). */
function heatMapAxes(ctx: Ctx2D, spec: HeatMapSpec, grid: HeatGrid): void {
  const { left, right, top, bottom, cellW: cw, cellH: ch } = grid;
  ctx.fillStyle = TEXT_COLOR;
  ctx.font = pmFont(FONT_PX.tick);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  spec.xValues.forEach((v, c) => ctx.fillText(v, left + (c + 0.5) * cw, bottom + 6));
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  spec.yValues.forEach((v, r) => ctx.fillText(v, left - 8, bottom - (r + 0.5) * ch));
  ctx.font = pmFont(FONT_PX.axisTitle);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  ctx.fillText(spec.xLabel, (left + right) / 2, bottom + 30);
  ctx.save();
  ctx.translate(24, (top + bottom) / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.textBaseline = 'middle';
  ctx.fillText(spec.yLabel, 0, 0);
  ctx.restore();
}

/** The colour scale, its caption above it, its ends and centre below it, then the notes. */
function heatMapLegend(ctx: Ctx2D, spec: HeatMapSpec, grid: HeatGrid, width: number): void {
  const center = spec.center ?? 1;
  const span = spec.logSpan ?? 1;
  const ly = grid.bottom + 82;
  const lw = Math.min(480, grid.right - grid.left);
  const lx = (width - lw) / 2;
  ctx.fillStyle = TEXT_COLOR;
  ctx.font = pmFont(FONT_PX.legend);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'bottom';
  ctx.fillText(spec.legendLabel, width / 2, ly - 3);
  for (let k = 0; k < lw; k++) {
    ctx.fillStyle = divergingColor((2 * k) / (lw - 1) - 1);
    ctx.fillRect(lx + k, ly, 1, 14);
  }
  ctx.strokeStyle = '#888888';
  ctx.lineWidth = 1;
  ctx.strokeRect(lx + 0.5, ly + 0.5, lw - 1, 13);
  ctx.fillStyle = TEXT_COLOR;
  ctx.textBaseline = 'top';
  const end = formatNumber(Number((center * Math.pow(10, span)).toPrecision(2)));
  ctx.textAlign = 'left';
  ctx.fillText(`≤ 1/${end}`, lx, ly + 17);
  ctx.textAlign = 'center';
  ctx.fillText(formatNumber(center), lx + lw / 2, ly + 17);
  ctx.textAlign = 'right';
  ctx.fillText(`≥ ${end}`, lx + lw, ly + 17);
  ctx.textAlign = 'center';
  ctx.font = pmFont(FONT_PX.note);
  (spec.notes ?? []).forEach((n, i) => ctx.fillText(n, width / 2, ly + 42 + i * (FONT_PX.note + 6)));
}

function wrapText(ctx: Ctx2D, text: string, maxWidth: number): string[] {
  const words = text.split(' ');
  const lines: string[] = [];
  let line = '';
  for (const w of words) {
    const next = line ? `${line} ${w}` : w;
    if (ctx.measureText(next).width > maxWidth && line) {
      lines.push(line);
      line = w;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Bar chart
// ---------------------------------------------------------------------------------------------

export function renderBarChart(spec: BarChartSpec): Buffer {
  const width = spec.width ?? CHART_WIDTH;
  const height = spec.height ?? CHART_HEIGHT;
  const categories = spec.categories ?? [];
  const horizontal = !!spec.horizontal;
  const stacked = !!spec.stacked;
  const log = !!spec.yLog;
  let anyValue = false;
  const datasets = spec.series.map((s, i) => {
    const color = s.color ?? PALETTE[i % PALETTE.length]!;
    const data = categories.map((_c, j) => {
      const v = s.values?.[j];
      if (typeof v !== 'number' || !Number.isFinite(v) || (log && v <= 0)) return null;
      anyValue = true;
      return v;
    });
    return { label: s.label, data, backgroundColor: color, borderColor: color, borderWidth: 0 };
  });
  const empty = !anyValue;
  // A log axis starts a decade below the smallest bar, so a bar of 1 (the axis' usual floor) still shows.
  const smallest = Math.min(...datasets.flatMap((d) => d.data.filter((v): v is number => v !== null && v > 0)));
  const logFloor = log && Number.isFinite(smallest) ? { min: Math.pow(10, Math.floor(Math.log10(smallest) - 1e-9)) } : {};
  const valueAxis: Record<string, unknown> = {
    ...logFloor,
    type: log ? 'logarithmic' : 'linear',
    stacked,
    beginAtZero: !log,
    title: axisTitle(spec.yLabel),
    grid: { color: GRID_COLOR },
    ticks: { callback: log ? logTickLabel : linearTickLabel, font: { size: FONT_PX.tick } },
    ...(empty ? (log ? { min: 1, max: 10 } : { min: 0, max: 1 }) : {}),
  };
  const categoryAxis: Record<string, unknown> = {
    type: 'category',
    stacked,
    title: axisTitle(spec.xLabel),
    grid: { display: false },
    ticks: { font: { size: FONT_PX.tick }, maxRotation: horizontal ? 0 : 45, autoSkip: false },
  };
  // Labels wrapped to a category's share of the width (horizontal bars: a third of the width).
  const labels = horizontal ? categories.map((c) => wrapLabel(c, width / 3, FONT_PX.tick)) : categories.length <= 12 ? categoryTicks(categories, width) : categories;
  if (!horizontal && categories.length <= 12) (categoryAxis.ticks as Record<string, unknown>).maxRotation = 0;
  const config = {
    type: 'bar',
    data: { labels, datasets },
    options: {
      indexAxis: horizontal ? 'y' : 'x',
      layout: { padding: { left: 8, right: 16, top: 4, bottom: 8 } },
      scales: horizontal ? { x: valueAxis, y: categoryAxis } : { x: categoryAxis, y: valueAxis },
      plugins: {
        ...titlePlugins(spec.title, spec.subtitle, width),
        legend: { display: datasets.length > 0, position: 'top', labels: { font: { size: FONT_PX.legend }, padding: 16 } },
        tooltip: { enabled: false },
      },
    },
    plugins: [backgroundPlugin, noDataPlugin(empty), ...(spec.valueLabels && !horizontal ? [barValuePlugin(stacked)] : [])],
  } as unknown as ChartConfiguration;
  return renderChart(config, width, height, scaleOf(spec));
}

/** Each bar's value printed above it (stacked: the total above the stack's top). */
function barValuePlugin(stacked: boolean): Plugin {
  return {
    id: 'rowsimBarValues',
    afterDatasetsDraw(chart: AnyChart) {
      const { ctx } = chart;
      ctx.save();
      ctx.font = `${FONT_PX.tick}px "${FONT_FAMILY}"`;
      ctx.fillStyle = '#333333';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'bottom';
      const datasets = chart.data.datasets as { data: (number | null)[] }[];
      const n = (chart.data.labels as unknown[]).length;
      for (let j = 0; j < n; j++) {
        if (stacked) {
          let top: { x: number; y: number } | null = null;
          let total = 0;
          datasets.forEach((d, i) => {
            const v = d.data[j];
            if (v === null || v === undefined || !chart.isDatasetVisible(i)) return;
            total += v;
            const el = chart.getDatasetMeta(i).data[j];
            if (el && (top === null || el.y < top.y)) top = { x: el.x, y: el.y };
          });
          const at = top as { x: number; y: number } | null;
          if (at !== null && total > 0) ctx.fillText(formatNumber(total), at.x, at.y - 3);
        } else {
          datasets.forEach((d, i) => {
            const v = d.data[j];
            const el = chart.getDatasetMeta(i).data[j];
            if (v !== null && v !== undefined && el && chart.isDatasetVisible(i)) ctx.fillText(formatNumber(v), el.x, el.y - 3);
          });
        }
      }
      ctx.restore();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Page map
// ---------------------------------------------------------------------------------------------

/** Sequential blue scale (ColorBrewer Blues-like), from a light but non-white tint to navy. */
const FILL_STOPS: Array<[number, [number, number, number]]> = [
  [0, [235, 242, 250]],
  [0.25, [189, 215, 238]],
  [0.5, [107, 174, 214]],
  [0.75, [33, 113, 181]],
  [1, [8, 48, 107]],
];
const STUB_COLOR = '#e0001b';
const FWD_COLOR = '#ff8c00';
const UNKNOWN_COLOR = '#bdbdbd';
const GRID_BG = '#c8c8c8';

/** Colour of a page filled to `f` (0..1); non-finite → grey. */
function fillColor(f: number): string {
  const [r, g, b] = fillRgb(f);
  return `rgb(${r},${g},${b})`;
}

/** The fill scale's colour of a fill (0..1) as red, green, blue; UNKNOWN_COLOR for no figure. */
function fillRgb(f: number): [number, number, number] {
  if (!Number.isFinite(f)) return hexRgb(UNKNOWN_COLOR);
  const t = Math.min(1, Math.max(0, f));
  for (let i = 1; i < FILL_STOPS.length; i++) {
    const [t1, c1] = FILL_STOPS[i]!;
    if (t <= t1) {
      const [t0, c0] = FILL_STOPS[i - 1]!;
      const u = (t - t0) / (t1 - t0);
      return [0, 1, 2].map((k) => Math.round(c0[k]! + (c1[k]! - c0[k]!) * u)) as [number, number, number];
    }
  }
  return FILL_STOPS[FILL_STOPS.length - 1]![1];
}

function hexRgb(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** An opaque colour as one 32-bit RGBA pixel in the machine's byte order (for Uint32Array views of image data). */
function pixel32([r, g, b]: readonly number[]): number {
  return rgbWord(r!, g!, b!);
}

/** pixel32 of red, green and blue (0–255 each). */
function rgbWord(r: number, g: number, b: number): number {
  return (LITTLE_ENDIAN ? (255 << 24) | (b << 16) | (g << 8) | r : (r << 24) | (g << 16) | (b << 8) | 255) >>> 0;
}

/**
 * Page maps are drawn on one canvas a thread, and their cells in one pixel buffer, kept from one map to
 * the next while they are at most this many pixels. Memory first touched costs a page fault a 4 kB page
 * (15–20 µs each on a virtual machine such as this project's): a fresh 1200 × 850 canvas and its pixels
 * read back cost more in faults than drawing the map does.
 */
const KEEP_PIXELS = 1 << 23;
let keptCanvas: Canvas | undefined;
let keptCells: Uint32Array | undefined;

/** A canvas `w` pixels wide and at least `h` high (the kept one when it fits), for a drawing read back as its top `h` rows. */
function mapCanvas(w: number, h: number): Canvas {
  if (w * h > KEEP_PIXELS) return createCanvas(w, h);
  // Headroom: the maps of a sweep differ in height by a few rows, and rows never drawn on cost nothing.
  if (!keptCanvas || keptCanvas.width !== w || keptCanvas.height < h) keptCanvas = createCanvas(w, Math.min(Math.floor(KEEP_PIXELS / w), Math.ceil((h + 1) / 512) * 512));
  return keptCanvas;
}

/**
 * A page map's grid as rowsim paints it, in device pixels: `w` × `h` pixels whose top left corner is at
 * (x, y) of the image, RGBA, row by row (`words` the same memory as 32-bit pixels).
 */
interface GridPixels {
  x: number;
  y: number;
  w: number;
  h: number;
  bytes: Uint8Array;
  words: Uint32Array;
}

/** The top `w` × `h` pixels of `canvas` as a PNG file, read a strip at a time (encodePng's file; the canvas's own encoder where a pixel is not opaque). */
function regionPng(canvas: Canvas, w: number, h: number): Buffer {
  const ctx = canvas.getContext('2d');
  return encodeStripsPng((y, rows) => ctx.getImageData(0, y, w, rows).data, w, h, () => {
    if (canvas.height === h) return canvas.toBuffer('image/png');
    const exact = createCanvas(w, h);
    exact.getContext('2d').drawImage(canvas, 0, 0);
    return exact.toBuffer('image/png');
  });
}

/**
 * The canvases a thread keeps for the parts of page maps the canvas draws: the header (the whole width,
 * the rows above the grid) and the row labels (the columns left of the grid, its rows and those below).
 * Small, because reading a canvas back costs in proportion to its size, and more than that the first
 * few times: Skia copies the canvas's pixels to fresh memory before drawing on it again after a read, a
 * page fault a 4 kB page until the allocator has memory to give back (a 1200 × 1024 canvas: 15–24 ms of
 * CPU a read for the first six reads of a process, then 0.3; a 1200 × 160 one 2–6 ms, then 0.1).
 */
const keptParts = new Map<'header' | 'labels', Canvas>();

/** The kept canvas `part`, at least `w` × `h` (rounded up so that the maps of a sweep share one), or a fresh one past KEEP_PIXELS. */
function partCanvas(part: 'header' | 'labels', w: number, h: number): Canvas {
  if (w * h > KEEP_PIXELS) return createCanvas(w, h);
  const kept = keptParts.get(part);
  if (kept && kept.width >= w && kept.height >= h) return kept;
  const round = (v: number, step: number) => Math.ceil((v + 1) / step) * step;
  const cw = Math.max(w, part === 'labels' ? round(w, 64) : w, kept?.width ?? 0);
  const ch = Math.min(Math.max(h, Math.floor(KEEP_PIXELS / cw)), Math.max(round(h, part === 'header' ? 64 : 512), kept?.height ?? 0));
  const c = createCanvas(cw, ch);
  keptParts.set(part, c);
  return c;
}

/**
 * A page map as a PNG file, put together a strip of rows at a time: the rows above the grid from the
 * header's canvas, then beside the grid the row labels' canvas (its first grid.x columns), the grid's own
 * pixels and white. `full()` is the canvas's own file of the same picture (the fallback: a pixel that is
 * not opaque, which none of these has).
 */
function composedPng(w: number, h: number, header: Canvas, labels: Canvas, grid: GridPixels, full: () => Buffer): Buffer {
  const hctx = header.getContext('2d');
  const lctx = labels.getContext('2d');
  const rowIn = w * 4;
  const top = grid.y;
  const side = grid.x * 4;
  const gw = grid.w * 4;
  return encodeRowsPng(
    (y, rows, into, at) => {
      let r = 0;
      if (y < top) {
        r = Math.min(rows, top - y);
        const px = hctx.getImageData(0, y, w, r).data;
        if (px.length !== r * rowIn) return false;
        into.set(px, at);
      }
      if (r === rows) return true;
      const y1 = y + r;
      const n = rows - r;
      const o = at + r * rowIn;
      into.fill(255, o, o + n * rowIn);
      const left = side > 0 ? lctx.getImageData(0, y1 - top, grid.x, n).data : null;
      for (let k = 0; k < n; k++) {
        const row = o + k * rowIn;
        if (left) into.set(left.subarray(k * side, (k + 1) * side), row);
        const g = y1 + k - top;
        if (g < grid.h) into.set(grid.bytes.subarray(g * gw, (g + 1) * gw), row + side);
      }
      return true;
    },
    w,
    h,
    full,
  );
}

/** `w` × `h` pixels for paintCells, on the kept pixel buffer when it fits (its contents are painted over). */
function cellPixels(x: number, y: number, w: number, h: number): GridPixels {
  const n = w * h;
  let words: Uint32Array;
  if (n > KEEP_PIXELS) words = new Uint32Array(n);
  else {
    if (!keptCells || keptCells.length < n) keptCells = new Uint32Array(n);
    words = keptCells.subarray(0, n);
  }
  return { x, y, w, h, words, bytes: new Uint8Array(words.buffer, words.byteOffset, n * 4) };
}

/**
 * The grid of a page map as pixels, cells and corner marks, drawn by rowsim rather than the canvas
 * (composedPng puts them in the image): a 20,000-cell map costs a millisecond or two. Device pixels:
 * `scale` is applied here. Each cell's row of pixels is one fill of 32-bit words; a mark is the same
 * triangle the legend's sample shows (markPath), each pixel on its slanted edge given the share of it the
 * triangle covers (its colour that share of the mark's and the rest the cell's), as the canvas smooths an
 * edge.
 */
function paintCells(L: { cell: number; cols: number; gridLeft: number; gridTop: number; pages: number; scale: number }, cells: PageCells, gap: number, marks: boolean): GridPixels {
  const { cell, cols, gridLeft, gridTop, pages, scale } = L;
  const rows = Math.ceil(pages / cols);
  const x0 = Math.round(gridLeft * scale);
  const y0 = Math.round(gridTop * scale);
  const w = Math.round((gridLeft + cols * cell) * scale) - x0;
  const h = Math.round((gridTop + rows * cell) * scale) - y0;
  const grid = cellPixels(x0, y0, w, h);
  const words = grid.words;
  /** Fill a box given in layout px from the grid's corner (its device pixels rounded as the cells' are). */
  const box = (x: number, y: number, bw: number, bh: number, word: number): void => {
    const px0 = Math.round((gridLeft + x) * scale) - x0;
    const px1 = Math.min(w, Math.round((gridLeft + x + bw) * scale) - x0);
    const py1 = Math.min(h, Math.round((gridTop + y + bh) * scale) - y0);
    if (px1 <= px0) return;
    for (let py = Math.round((gridTop + y) * scale) - y0; py < py1; py++) words.fill(word, py * w + px0, py * w + px1);
  };
  // White, then grey behind the cells (it shows as the separators).
  words.fill(pixel32([255, 255, 255]));
  const bg = pixel32(hexRgb(GRID_BG));
  const fullRows = Math.floor(pages / cols);
  box(0, 0, cols * cell, fullRows * cell, bg);
  if (pages % cols) box(0, fullRows * cell, (pages % cols) * cell, cell, bg);
  const inner = cell - gap;
  // Each column's and row's device pixels, once: cell (c, r) is [xs[c], xe[c]) × [ys[r], ye[r]). The
  // loop below then does little but fill: a thread's first maps run it before it is compiled.
  const xs = new Int32Array(cols);
  const xe = new Int32Array(cols);
  for (let c = 0; c < cols; c++) {
    xs[c] = Math.round((gridLeft + c * cell) * scale) - x0;
    xe[c] = Math.min(w, Math.round((gridLeft + c * cell + inner) * scale) - x0);
  }
  const ys = new Int32Array(rows);
  const ye = new Int32Array(rows);
  for (let r = 0; r < rows; r++) {
    ys[r] = Math.round((gridTop + r * cell) * scale) - y0;
    ye[r] = Math.min(h, Math.round((gridTop + r * cell + inner) * scale) - y0);
  }
  const cache = new Map<number, { rgb: [number, number, number]; word: number }>();
  const stub = hexRgb(STUB_COLOR);
  const moved = hexRgb(FWD_COLOR);
  for (let i = 0, c = 0, r = 0; i < pages; i++) {
    const f = cells.fill[i]!;
    const key = Number.isFinite(f) ? Math.round(Math.min(1, Math.max(0, f)) * 4096) : -1;
    let k = cache.get(key);
    if (!k) {
      const rgb = fillRgb(key < 0 ? NaN : key / 4096);
      cache.set(key, (k = { rgb, word: pixel32(rgb) }));
    }
    const px0 = xs[c]!;
    const px1 = xe[c]!;
    const py0 = ys[r]!;
    const py1 = ye[r]!;
    if (px1 > px0) for (let py = py0; py < py1; py++) words.fill(k.word, py * w + px0, py * w + px1);
    if (marks) {
      if (valAt(cells.stubs, i) > 0) paintMark(words, w, px0, py0, px1, py1, inner, scale, 'tl', stub, k.rgb);
      if (valAt(cells.forwardedIn, i) > 0) paintMark(words, w, px0, py0, px1, py1, inner, scale, 'br', moved, k.rgb);
    }
    if (++c === cols) {
      c = 0;
      r++;
    }
  }
  return grid;
}

/**
 * A corner mark of a cell of layout size `s` whose device pixels are [px0, px1) × [py0, py1) (markPath's
 * shape): a right triangle of legs t = max(4, round(0.55 s)) when s ≥ 8, its slanted edge's pixels
 * blended by the share the triangle covers; else a square of ceil(s / 2), whole pixels.
 */
function paintMark(words: Uint32Array, w: number, px0: number, py0: number, px1: number, py1: number, s: number, scale: number, corner: 'tl' | 'br', mark: readonly number[], under: readonly number[]): void {
  const cw = px1 - px0;
  const ch = py1 - py0;
  if (cw <= 0 || ch <= 0) return;
  const solid = pixel32(mark);
  if (s < 8) {
    const t = Math.min(cw, ch, Math.max(1, Math.round(Math.ceil(s / 2) * scale)));
    for (let v = 0; v < t; v++) {
      const py = corner === 'tl' ? py0 + v : py1 - 1 - v;
      if (corner === 'tl') words.fill(solid, py * w + px0, py * w + px0 + t);
      else words.fill(solid, py * w + px1 - t, py * w + px1);
    }
    return;
  }
  // Legs in device pixels; pixel (u, v) counted from the corner is the square [u, u + 1] × [v, v + 1],
  // and the triangle is X + Y ≤ T.
  const T = Math.max(4, Math.round(s * 0.55)) * scale;
  for (let v = 0; v < Math.min(ch, Math.ceil(T)); v++) {
    const py = corner === 'tl' ? py0 + v : py1 - 1 - v;
    const rowAt = py * w;
    // Whole pixels: u + v + 2 ≤ T.
    const whole = Math.max(0, Math.min(cw, Math.floor(T - v - 2) + 1));
    if (corner === 'tl') words.fill(solid, rowAt + px0, rowAt + px0 + whole);
    else words.fill(solid, rowAt + px1 - whole, rowAt + px1);
    for (let u = whole; u < Math.min(cw, Math.ceil(T - v)); u++) {
      const m = T - u - v;
      const cover = m >= 2 ? 1 : m > 1 ? 1 - ((2 - m) * (2 - m)) / 2 : m > 0 ? (m * m) / 2 : 0;
      if (cover <= 0) continue;
      const px = corner === 'tl' ? px0 + u : px1 - 1 - u;
      const rest = 1 - cover;
      words[rowAt + px] = rgbWord(Math.round(mark[0]! * cover + under[0]! * rest), Math.round(mark[1]! * cover + under[1]! * rest), Math.round(mark[2]! * cover + under[2]! * rest));
    }
  }
}

interface PageMapLayout {
  /** Cells drawn (≤ the cells of the map). */
  pages: number;
  /** Pages of the table. */
  totalPages: number;
  /** Pages a cell stands for (1: one page a cell). */
  pagesPerCell: number;
  /** Cell size in px; cell i is at (gridLeft + (i % cols) * cell, gridTop + floor(i / cols) * cell). */
  cell: number;
  cols: number;
  rows: number;
  gridLeft: number;
  gridTop: number;
  /** Layout size in px (the PNG is `scale` times as many pixels each way). */
  width: number;
  height: number;
  scale: number;
  /** Subtitle as drawn (with the "showing the first N of M cells" note when the image would be too tall). */
  subtitle: string;
}

const PM_MARGIN = 16;
const PM_MAX_CELL = 32;
/** The tallest PNG drawn, in pixels (PNG viewers struggle beyond); taller maps show their first rows and say so. */
const PM_MAX_HEIGHT = 30000;
const DEFAULT_MARKS = { stubs: 'forwarding stubs', movedIn: 'forwarded-in rows' } as const;

type Ctx2D = ReturnType<ReturnType<typeof createCanvas>['getContext']>;

function pmFont(px: number, bold = false): string {
  return `${bold ? 'bold ' : ''}${px}px "${FONT_FAMILY}"`;
}

function valAt(a: ArrayLike<number>, i: number): number {
  const v = i < a.length ? a[i]! : 0;
  return Number.isFinite(v) ? v : 0;
}

/** The cells to draw: the spec's own, or, when it has more than maxCells, its pages reduced to several a cell. */
interface PageCells {
  fill: ArrayLike<number>;
  stubs: ArrayLike<number>;
  forwardedIn: ArrayLike<number>;
  pagesPerCell: number;
  totalPages: number;
  stubPages?: number;
  forwardedInPages?: number;
}

function pageCells(spec: PageMapSpec): PageCells {
  const maxCells = Math.max(1, Math.floor(spec.maxCells ?? RUN_DEFAULTS.pageMapMaxCells));
  const perCell = Math.max(1, Math.floor(spec.pagesPerCell ?? 1));
  if (spec.fill.length > maxCells) {
    // More cells than drawn: pages (or cells) reduced further; the counts by page survive only if given.
    const r = reducePageMap(spec, maxCells);
    const given = spec.totalPages ?? spec.fill.length * perCell;
    return { fill: r.fill, stubs: r.stubs, forwardedIn: r.forwardedIn, pagesPerCell: r.pagesPerCell * perCell, totalPages: given, stubPages: spec.stubPages ?? (perCell === 1 ? r.stubPages : undefined), forwardedInPages: spec.forwardedInPages ?? (perCell === 1 ? r.forwardedInPages : undefined) };
  }
  return { fill: spec.fill, stubs: spec.stubs, forwardedIn: spec.forwardedIn, pagesPerCell: perCell, totalPages: spec.totalPages ?? spec.fill.length * perCell, stubPages: spec.stubPages, forwardedInPages: spec.forwardedInPages };
}

interface PageTotals {
  stubPages: number | undefined; // undefined: not known page by page (cells only)
  stubTotal: number;
  fwdPages: number | undefined;
  fwdTotal: number;
  meanFill: number; // NaN when no finite fill
}

function pageTotals(c: PageCells): PageTotals {
  let stubCells = 0;
  let fwdCells = 0;
  const t: PageTotals = { stubPages: 0, stubTotal: 0, fwdPages: 0, fwdTotal: 0, meanFill: NaN };
  let fillSum = 0;
  let fillN = 0;
  for (let i = 0; i < c.fill.length; i++) {
    const s = valAt(c.stubs, i);
    const f = valAt(c.forwardedIn, i);
    if (s > 0) {
      stubCells++;
      t.stubTotal += s;
    }
    if (f > 0) {
      fwdCells++;
      t.fwdTotal += f;
    }
    const fl = c.fill[i]!;
    if (Number.isFinite(fl)) {
      // A cell's fill is its pages' mean: weigh it by its pages (the last cell may hold fewer).
      const w = i === c.fill.length - 1 ? c.totalPages - i * c.pagesPerCell : c.pagesPerCell;
      fillSum += Math.min(1, Math.max(0, fl)) * Math.max(1, w);
      fillN += Math.max(1, w);
    }
  }
  if (fillN > 0) t.meanFill = fillSum / fillN;
  t.stubPages = c.stubPages ?? (c.pagesPerCell === 1 ? stubCells : undefined);
  t.fwdPages = c.forwardedInPages ?? (c.pagesPerCell === 1 ? fwdCells : undefined);
  return t;
}

/** "12 pages" and the count of what they hold, for the legend: "(3 pages, 5 stubs)". */
function countText(pages: number | undefined, total: number, what: string): string {
  return pages === undefined ? `(${formatNumber(total)} ${what})` : `(${formatNumber(pages)} pages, ${formatNumber(total)} ${what})`;
}

/**
 * Draws the title, subtitle and legend (what a cell is, the fill scale, the marks) from the top of the
 * image, wrapping lines and legend items when the width runs out. Returns the y below it. Also used on
 * a scratch canvas to measure the header height.
 */
function drawPageMapHeader(ctx: Ctx2D, width: number, spec: PageMapSpec, subtitle: string, c: PageCells, t: PageTotals): number {
  ctx.textAlign = 'left';
  ctx.textBaseline = 'top';
  let y = 10;
  const lines = (text: string, px: number, bold: boolean, color: string): void => {
    ctx.fillStyle = color;
    ctx.font = pmFont(px, bold);
    for (const line of wrapText(ctx, text, width - 2 * PM_MARGIN)) {
      ctx.fillText(line, PM_MARGIN, y);
      y += px + 8;
    }
  };
  if (spec.title) lines(spec.title, FONT_PX.title, true, '#111111');
  if (subtitle) lines(subtitle, FONT_PX.subtitle, false, '#555555');
  const words = legendWords(spec, c, t);
  if (words.cells) {
    y += 4;
    lines(words.cells, FONT_PX.legend, true, TEXT_COLOR);
  }
  y += 6;
  ctx.font = pmFont(FONT_PX.legend);
  const items = [fillScaleItem(ctx, words.fill)];
  if (words.stubs) items.push(markItem(ctx, STUB_COLOR, 'tl', words.stubs));
  if (words.movedIn) items.push(markItem(ctx, FWD_COLOR, 'br', words.movedIn));
  return drawLegendItems(ctx, items, y, width - PM_MARGIN) + 12;
}

/** The page map's legend in words: what a cell is (reduced maps only), the fill scale's caption, the two marks. */
interface LegendWords {
  cells?: string;
  fill: string;
  stubs?: string;
  movedIn?: string;
}

function legendWords(spec: PageMapSpec, c: PageCells, t: PageTotals): LegendWords {
  const reduced = c.pagesPerCell > 1;
  const marks = spec.marks === undefined ? DEFAULT_MARKS : spec.marks;
  const words: LegendWords = { fill: `${reduced ? 'mean page fill' : 'page fill'}${Number.isFinite(t.meanFill) ? ` (table: ${Math.round(t.meanFill * 100)}%)` : ''}:` };
  if (reduced) {
    const last = c.totalPages - (c.fill.length - 1) * c.pagesPerCell;
    const lastText = last > 0 && last < c.pagesPerCell ? ` (the last: ${formatNumber(last)})` : '';
    words.cells = `each cell: ${formatNumber(c.pagesPerCell)} pages${lastText}; colour: their mean fill${marks ? '; a mark: any of its pages has one' : ''}`;
  }
  if (marks) {
    words.stubs = `${marks.stubs} ${countText(t.stubPages, t.stubTotal, 'stubs')}`;
    words.movedIn = `${marks.movedIn} ${countText(t.fwdPages, t.fwdTotal, 'rows')}`;
  }
  return words;
}

/** The legend's texts as the page map draws them (for tests and callers that describe the image). */
export function pageMapLegend(spec: PageMapSpec): string[] {
  const c = pageCells(spec);
  const w = legendWords(spec, c, pageTotals(c));
  return [w.cells, w.fill, w.stubs, w.movedIn].filter((x): x is string => !!x);
}

/** A legend item: its width and height, and how to draw it with its top left corner at (x, y). */
interface LegendItem {
  width: number;
  height: number;
  draw(x: number, y: number): void;
}

/** Legend items laid out left to right from PM_MARGIN, wrapping at `right`; returns the y below the last line. */
function drawLegendItems(ctx: Ctx2D, items: LegendItem[], top: number, right: number): number {
  let y = top;
  let x = PM_MARGIN;
  let lineH = 0;
  for (const item of items) {
    if (x > PM_MARGIN && x + item.width > right) {
      y += lineH + 8;
      x = PM_MARGIN;
      lineH = 0;
    }
    ctx.font = pmFont(FONT_PX.legend);
    item.draw(x, y);
    x += item.width + 32;
    lineH = Math.max(lineH, item.height);
  }
  return y + lineH;
}

/** "page fill (mean N%):" and the fill colour scale from 0% to 100%. */
function fillScaleItem(ctx: Ctx2D, caption: string): LegendItem {
  const capW = ctx.measureText(caption).width;
  const barW = 200;
  const barH = 18;
  return {
    width: capW + 12 + barW,
    height: barH + FONT_PX.legend + 8,
    draw: (x, y0) => {
      ctx.fillStyle = TEXT_COLOR;
      ctx.textAlign = 'left';
      ctx.textBaseline = 'middle';
      ctx.fillText(caption, x, y0 + barH / 2);
      const bx = x + capW + 12;
      for (let k = 0; k < barW; k++) {
        ctx.fillStyle = fillColor(k / (barW - 1));
        ctx.fillRect(bx + k, y0, 1, barH);
      }
      ctx.strokeStyle = '#888888';
      ctx.lineWidth = 1;
      ctx.strokeRect(bx + 0.5, y0 + 0.5, barW - 1, barH - 1);
      ctx.fillStyle = TEXT_COLOR;
      ctx.textBaseline = 'top';
      ctx.fillText('0%', bx, y0 + barH + 3);
      ctx.textAlign = 'center';
      ctx.fillText('50%', bx + barW / 2, y0 + barH + 3);
      ctx.textAlign = 'right';
      ctx.fillText('100%', bx + barW, y0 + barH + 3);
    },
  };
}

/** A half-filled sample cell with a corner mark, and its text. */
function markItem(ctx: Ctx2D, color: string, corner: 'tl' | 'br', text: string): LegendItem {
  const s = 20;
  return {
    width: s + 8 + ctx.measureText(text).width,
    height: s + 4,
    draw: (x, y0) => {
      ctx.fillStyle = fillColor(0.5);
      ctx.fillRect(x, y0, s, s);
      ctx.fillStyle = color;
      ctx.beginPath();
      markPath(ctx, x, y0, s, corner);
      ctx.fill();
      ctx.fillStyle = TEXT_COLOR;
      ctx.textAlign = 'left';
      ctx.textBaseline = 'middle';
      ctx.fillText(text, x + s + 8, y0 + s / 2);
    },
  };
}

/** Where everything goes in a page map; exported so callers and tests can find a page's cell in the image. */
export function pageMapLayout(spec: PageMapSpec): PageMapLayout {
  const cells = pageCells(spec);
  return layoutWithTotals(spec, cells, pageTotals(cells));
}

function layoutWithTotals(spec: PageMapSpec, c: PageCells, totals: PageTotals): PageMapLayout {
  ensureSetup();
  const width = Math.max(200, Math.round(spec.width ?? CHART_WIDTH));
  const scale = scaleOf(spec);
  const totalCells = c.fill.length;
  let pages = totalCells;

  const scratch = createCanvas(width, 10).getContext('2d');
  scratch.font = pmFont(FONT_PX.tick);
  const labelW = Math.ceil(scratch.measureText(formatNumber(Math.max(0, c.totalPages - 1))).width) + 10;
  const gridLeft = PM_MARGIN + labelW;
  const gridW = Math.max(2, width - gridLeft - PM_MARGIN);
  const targetH = Math.max(300, Math.round(gridW * 0.6));
  let cell = pages > 0 ? Math.floor(Math.sqrt((gridW * targetH) / pages)) : PM_MAX_CELL;
  cell = Math.max(2, Math.min(PM_MAX_CELL, cell));
  const cols = Math.max(1, Math.floor(gridW / cell));

  const unit = c.pagesPerCell > 1 ? 'cells' : 'pages';
  const note = (n: number): string => `showing the first ${formatNumber(n)} of ${formatNumber(totalCells)} ${unit}`;
  const subtitleFor = (n: number): string => {
    const base = spec.subtitle ?? '';
    if (n >= totalCells) return base;
    return base ? `${base} — ${note(n)}` : note(n);
  };
  // Keep the image a size PNG viewers handle: beyond PM_MAX_HEIGHT pixels, draw fewer cells (and say so).
  const headerMax = drawPageMapHeader(scratch, width, spec, subtitleFor(0), c, totals);
  const maxRows = Math.max(1, Math.floor((PM_MAX_HEIGHT / scale - headerMax - PM_MARGIN) / cell));
  if (Math.ceil(pages / cols) > maxRows) pages = maxRows * cols;
  const rows = Math.ceil(pages / cols);
  const subtitle = subtitleFor(pages);
  const gridTop = drawPageMapHeader(scratch, width, spec, subtitle, c, totals);
  const height = gridTop + Math.max(rows * cell, pages === 0 ? 60 : 0) + PM_MARGIN;
  return { pages, totalPages: c.totalPages, pagesPerCell: c.pagesPerCell, cell, cols, rows, gridLeft, gridTop, width, height, scale, subtitle };
}

export function renderPageMap(spec: PageMapSpec): Buffer {
  ensureSetup();
  const cells = pageCells(spec);
  const totals = pageTotals(cells);
  const L = layoutWithTotals(spec, cells, totals);
  const w = Math.round(L.width * L.scale);
  const h = Math.round(L.height * L.scale);
  if (L.pages === 0) {
    const canvas = mapCanvas(w, h);
    drawOn(canvas, (ctx) => {
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, w, h);
      ctx.scale(L.scale, L.scale);
      drawPageMapHeader(ctx, L.width, spec, L.subtitle, cells, totals);
      ctx.fillStyle = '#666666';
      ctx.font = pmFont(FONT_PX.axisTitle);
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillText('no data', L.width / 2, L.gridTop + 30);
    });
    return regionPng(canvas, w, h);
  }
  // Grey behind the cells shows as 1 px separators once cells are large enough to afford them.
  const grid = paintCells(L, cells, L.cell >= 6 ? 1 : 0, spec.marks !== null);
  const header = partCanvas('header', w, grid.y);
  drawOn(header, (ctx) => {
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, w, grid.y);
    ctx.scale(L.scale, L.scale);
    drawPageMapHeader(ctx, L.width, spec, L.subtitle, cells, totals);
  });
  const labels = partCanvas('labels', Math.max(1, grid.x), h - grid.y);
  drawOn(labels, (ctx) => {
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, grid.x, h - grid.y);
    // Layout coordinates, the grid's top at the canvas's top.
    ctx.scale(L.scale, L.scale);
    ctx.translate(0, -grid.y / L.scale);
    drawRowLabels(ctx, L, cells.pagesPerCell);
  });
  const full = (): Buffer => {
    const c = createCanvas(w, h);
    const ctx = c.getContext('2d');
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, w, h);
    ctx.drawImage(header, 0, 0, w, grid.y, 0, 0, w, grid.y);
    if (grid.x > 0) ctx.drawImage(labels, 0, 0, grid.x, h - grid.y, 0, grid.y, grid.x, h - grid.y);
    ctx.putImageData(new ImageData(new Uint8ClampedArray(grid.bytes.buffer, grid.bytes.byteOffset, grid.w * grid.h * 4), grid.w, grid.h), grid.x, grid.y);
    return c.toBuffer('image/png');
  };
  return composedPng(w, h, header, labels, grid, full);
}

/** Draw on a kept canvas: its state is the default again afterwards (every pixel read is painted over). */
function drawOn(canvas: Canvas, draw: (ctx: Ctx2D) => void): void {
  const ctx = canvas.getContext('2d');
  ctx.save();
  try {
    draw(ctx);
  } finally {
    ctx.restore();
  }
}

/** Row labels left of the grid: the number of the first page of every few rows. */
function drawRowLabels(ctx: Ctx2D, L: PageMapLayout, pagesPerCell: number): void {
  const { cell, cols, rows, gridLeft, gridTop } = L;
  const inner = cell - (cell >= 6 ? 1 : 0);
  let step = 1;
  for (const m of [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]) {
    step = m;
    if (m * cell >= FONT_PX.tick * 2.5) break;
  }
  ctx.font = pmFont(FONT_PX.tick);
  ctx.fillStyle = '#555555';
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (let r = 0; r < rows; r += step) {
    const ly = gridTop + r * cell + inner / 2;
    ctx.fillText(formatNumber(r * cols * pagesPerCell), gridLeft - 6, Math.max(gridTop + 8, ly));
  }
}

/** A corner mark of a cell of size s at (x, y), added to the current path: a triangle when there is room, else a small square. */
function markPath(ctx: Ctx2D, x: number, y: number, s: number, corner: 'tl' | 'br'): void {
  if (s >= 8) {
    const t = Math.max(4, Math.round(s * 0.55));
    if (corner === 'tl') {
      ctx.moveTo(x, y);
      ctx.lineTo(x + t, y);
      ctx.lineTo(x, y + t);
    } else {
      ctx.moveTo(x + s, y + s);
      ctx.lineTo(x + s - t, y + s);
      ctx.lineTo(x + s, y + s - t);
    }
    ctx.closePath();
  } else {
    const t = Math.max(1, Math.ceil(s / 2));
    if (corner === 'tl') ctx.rect(x, y, t, t);
    else ctx.rect(x + s - t, y + s - t, t, t);
  }
}
