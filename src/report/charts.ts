/**
 * PNG charts: line and bar (chart.js drawn on @napi-rs/canvas) and heat maps (plain canvas 2D); page maps
 * are page-map-png.ts's, with the sizes, fonts and number formats set here.
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
import { createCanvas } from '@napi-rs/canvas';
import { encodePng } from './png.js';
import { FONT_FAMILY, ensureFonts } from '../util/fonts.js';
import { createRequire } from 'node:module';
import type { ChartConfiguration, Plugin } from 'chart.js';
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

export const TEXT_COLOR = '#222222';
/** The colour of a cell with no figure (heat maps, page maps). */
export const UNKNOWN_COLOR = '#bdbdbd';
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

export function scaleOf(spec: { scale?: number }): number {
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
export function ensureSetup(): void {
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
    x: lineXScale(
      spec.xLabel,
      cats,
      xLog,
      anyPoint,
      markers.map((m) => m.x),
      width,
    ),
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
function lineDatasets(
  spec: LineChartSpec,
  xLog: boolean,
  yLog: boolean,
  y2Log: boolean,
): { datasets: LineDataset[]; anyPoint: boolean; anyLeft: boolean; anyRight: boolean } {
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
function lineXScale(
  label: string | undefined,
  cats: string[] | undefined,
  xLog: boolean,
  anyPoint: boolean,
  markerXs: number[],
  width: number,
): Record<string, unknown> {
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
        charts()
          .Chart.defaults.plugins.legend.labels.generateLabels(chart)
          .map((item: AnyChart) => {
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

export function wrapText(ctx: Ctx2D, text: string, maxWidth: number): string[] {
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
  const labels = horizontal
    ? categories.map((c) => wrapLabel(c, width / 3, FONT_PX.tick))
    : categories.length <= 12
      ? categoryTicks(categories, width)
      : categories;
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

/** A canvas's 2D context (@napi-rs/canvas). */
export type Ctx2D = ReturnType<ReturnType<typeof createCanvas>['getContext']>;

/** A canvas font of the charts' family at `px` pixels. */
export function pmFont(px: number, bold = false): string {
  return `${bold ? 'bold ' : ''}${px}px "${FONT_FAMILY}"`;
}
