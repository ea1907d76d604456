/** Heat maps, drawn on the canvas directly (no chart.js): a diverging colour scale around a centre, marks per cell. */
import { createCanvas } from '@napi-rs/canvas';
import { encodePng } from './png.js';
import {
  CHART_HEIGHT,
  CHART_WIDTH,
  ensureSetup,
  FONT_PX,
  formatNumber,
  pmFont,
  scaleOf,
  TEXT_COLOR,
  UNKNOWN_COLOR,
  wrapText,
  type Ctx2D,
} from './chart-base.js';

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
  /** A boundary drawn as a thick line along every edge between a cell marked true and one marked false (e.g. a closed-form prediction). */
  boundary?: boolean[][];
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
  if (spec.boundary) heatMapBoundary(ctx, spec.boundary, grid, nx, ny);
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

/** A thick line along each edge between a marked cell and an unmarked neighbour. */
function heatMapBoundary(ctx: Ctx2D, marked: boolean[][], grid: HeatGrid, nx: number, ny: number): void {
  const { left, bottom, cellW: cw, cellH: ch } = grid;
  const at = (r: number, c: number): boolean => !!marked[r]?.[c];
  ctx.strokeStyle = '#000000';
  ctx.lineWidth = 4;
  ctx.setLineDash([]);
  ctx.beginPath();
  for (let r = 0; r < ny; r++)
    for (let c = 0; c < nx; c++) {
      const x0 = left + c * cw;
      const y0 = bottom - (r + 1) * ch;
      if (c + 1 < nx && at(r, c) !== at(r, c + 1)) {
        ctx.moveTo(x0 + cw, y0);
        ctx.lineTo(x0 + cw, y0 + ch);
      }
      if (r + 1 < ny && at(r, c) !== at(r + 1, c)) {
        ctx.moveTo(x0, y0);
        ctx.lineTo(x0 + cw, y0);
      }
    }
  ctx.stroke();
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
