/**
 * What the charts share (charts.ts lists the kinds): colours, sizes and the pixel scale, chart.js loaded
 * and set up on first use, number and tick formats, the plugins every chart.js chart draws (background,
 * "no data", markers, titles), label wrapping, and the drawing of a chart.js configuration to a PNG.
 */
import { createCanvas } from '@napi-rs/canvas';
import { encodePng } from './png.js';
import { FONT_FAMILY, ensureFonts } from '../util/fonts.js';
import { createRequire } from 'node:module';
import type { ChartConfiguration, Plugin } from 'chart.js';
import { groupedNumber } from '../util/numbers.js';

/** A vertical dashed line at data coordinate x (an index when xCategories is set) with a label at the top. */
export interface Marker {
  x: number;
  label: string;
  color?: string;
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
export const GRID_COLOR = '#e3e3e3';

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

export function charts(): typeof import('chart.js') {
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
export function linearTickLabel(value: number, index: number, ticks: TickLike[]): string {
  const compact = ticks.map((t) => formatCompact(t.value));
  if (new Set(compact).size === compact.length) return compact[index] ?? formatCompact(value);
  return formatNumber(value);
}

/** Log axis labels: only 1, 2, 5 × 10^n (only 1 × 10^n when the range is wide). */
export function logTickLabel(value: number, _index: number, ticks: TickLike[]): string {
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
export type AnyChart = any;

export const backgroundPlugin: Plugin = {
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

export function noDataPlugin(isEmpty: boolean): Plugin {
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

export function markerPlugin(markers: Marker[]): Plugin {
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
export function titlePlugins(title: string, subtitle: string | undefined, width: number): Record<string, unknown> {
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

/** An axis title; on a log axis "(unit)" becomes "(unit, log scale)" so that no one reads it as linear. */
export function axisTitle(text: string | undefined, log = false): Record<string, unknown> {
  let shown = text ?? '';
  if (log && shown) shown = /\)$/.test(shown) ? shown.replace(/\)$/, ', log scale)') : `${shown} (log scale)`;
  return { display: !!shown, text: shown, font: { size: FONT_PX.axisTitle }, color: TEXT_COLOR };
}

/**
 * A value axis (the y of a line chart, the bars' axis). Linear: from zero always (a comparison drawn from
 * anywhere else makes +13% look like a cliff), whole-number ticks when every value is whole (counts: no
 * "2.5 pages"), and 0 … 1 when every value is 0 (a degenerate range still draws a sensible span; equal
 * non-zero values draw from 0 up to them). Log: a floor a decade below the smallest value, so that a value
 * of 1 still shows. `values` are everything the axis must hold (data, error bars, reference lines).
 */
export function valueAxis(label: string, log: boolean, values: readonly number[]): Record<string, unknown> {
  const shown = values.filter((v) => Number.isFinite(v) && (!log || v > 0));
  const axis: Record<string, unknown> = {
    type: log ? 'logarithmic' : 'linear',
    title: axisTitle(label, log),
    grid: { color: GRID_COLOR },
    ticks: { callback: log ? logTickLabel : linearTickLabel, font: { size: FONT_PX.tick } },
  };
  if (log) {
    const smallest = Math.min(...shown);
    if (shown.length === 0) Object.assign(axis, { min: 1, max: 10 });
    else axis.min = Math.pow(10, Math.floor(Math.log10(smallest) - 1e-9));
    return axis;
  }
  axis.beginAtZero = true;
  if (shown.every((v) => v >= 0)) axis.min = 0;
  if (shown.every((v) => v === 0)) axis.max = 1;
  if (shown.every((v) => Number.isInteger(v))) (axis.ticks as Record<string, unknown>).precision = 0;
  const top = Math.max(0, ...shown);
  // A little room above the largest value, so that a line along it is not drawn on the plot's edge; a
  // share in % (a unit "(%…)") never beyond 100, and up to 100 when it comes near.
  if (top > 0) axis.suggestedMax = top * 1.05;
  if (/\(%[^)]*\)$/.test(label) && top <= 100) {
    if (top > 80) axis.max = 100;
    else if (top > 0) axis.suggestedMax = Math.min(100, top * 1.05);
  }
  return axis;
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
export function categoryTicks(cats: string[], width: number): Array<string | string[]> {
  const share = Math.max(60, (width - 180) / Math.max(1, cats.length) - 10);
  return cats.map((c) => {
    const lines = wrapLabel(c, share, FONT_PX.tick);
    return lines.length === 1 ? lines[0]! : lines;
  });
}

/** A canvas of @napi-rs/canvas. */
export type Canvas = ReturnType<typeof newCanvas>;

function newCanvas(width: number, height: number) {
  return createCanvas(width, height);
}

let recorded: ChartConfiguration[][] | undefined;

/**
 * The chart.js configurations of the charts `draw` renders, one list a PNG (a stacked chart: one a panel),
 * besides what it returns: what the tests read to check every chart's axes.
 */
export function recordChartConfigs<T>(draw: () => T): { result: T; charts: ChartConfiguration[][] } {
  const before = recorded;
  const charts: ChartConfiguration[][] = [];
  recorded = charts;
  try {
    return { result: draw(), charts };
  } finally {
    recorded = before;
  }
}

/**
 * A chart.js configuration drawn on a canvas of `width` × `height` layout pixels (`scale` times as many
 * pixels), handed to `use` before the chart is destroyed (which clears the canvas).
 */
function drawChart<T>(config: ChartConfiguration, width: number, height: number, scale: number, use: (canvas: Canvas) => T): T {
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
    return use(canvas);
  } finally {
    chart.destroy();
  }
}

export function renderChart(config: ChartConfiguration, width: number, height: number, scale: number): Buffer {
  recorded?.push([config]);
  return drawChart(config, width, height, scale, encodePng);
}

/** Charts one above the other, each `width` wide and of its own height, in one PNG. */
export function renderPanels(panels: Array<{ config: ChartConfiguration; height: number }>, width: number, scale: number): Buffer {
  recorded?.push(panels.map((p) => p.config));
  const heights = panels.map((p) => Math.max(50, Math.round(p.height)));
  const out = newCanvas(Math.round(Math.max(50, Math.round(width)) * scale), Math.round(heights.reduce((s, h) => s + h, 0) * scale) || 50);
  const ctx = out.getContext('2d');
  let y = 0;
  panels.forEach((p, i) => {
    drawChart(p.config, width, heights[i]!, scale, (canvas) => ctx.drawImage(canvas, 0, y));
    y += Math.round(heights[i]! * scale);
  });
  return encodePng(out);
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

/** A canvas's 2D context (@napi-rs/canvas). */
export type Ctx2D = ReturnType<ReturnType<typeof createCanvas>['getContext']>;

/** A canvas font of the charts' family at `px` pixels. */
export function pmFont(px: number, bold = false): string {
  return `${bold ? 'bold ' : ''}${px}px "${FONT_FAMILY}"`;
}
