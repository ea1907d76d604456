/** Line charts (chart.js): series with error bars on one y axis, linear or log, markers, reference lines; panels stacked. */
import type { ChartConfiguration, Plugin } from 'chart.js';
import { FONT_FAMILY } from '../util/fonts.js';
import {
  axisTitle,
  backgroundPlugin,
  categoryTicks,
  charts,
  CHART_HEIGHT,
  CHART_WIDTH,
  FONT_PX,
  GRID_COLOR,
  linearTickLabel,
  logTickLabel,
  markerPlugin,
  noDataPlugin,
  PALETTE,
  renderChart,
  renderPanels,
  scaleOf,
  titlePlugins,
  valueAxis,
  type AnyChart,
  type Marker,
} from './chart-base.js';

export interface Series {
  label: string;
  points: Array<[number, number]>; // x, y
  color?: string; // default: a fixed, colour-blind-friendly palette by series index
  dashed?: boolean;
  showPoints?: boolean; // default true
  showLine?: boolean; // default true; false draws the points only
  pointStyle?: 'circle' | 'triangle' | 'rectRot' | 'crossRot' | 'rect';
  pointRadius?: number;
  /** Per point (aligned with `points`): a vertical interval [low, high] drawn as an error bar, or null. */
  errorBars?: Array<[number, number] | null>;
}

/** A horizontal line across the plot at `y` (a target), labelled at its right end. */
export interface ReferenceLine {
  y: number;
  label: string;
  color?: string;
}

/**
 * A line chart. One y axis: quantities of unlike units go into panels of their own (renderStackedLineChart),
 * never onto a second axis, where two scales make unequal numbers look equal. Axis titles name the unit:
 * "pages (8 KiB)", "forwarded rows (% of rows)".
 */
export interface LineChartSpec {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  xLog?: boolean;
  yLog?: boolean;
  xCategories?: string[]; // when set, x values are indexes 0..n-1 into these category labels
  series: Series[];
  markers?: Marker[];
  referenceLines?: ReferenceLine[];
  width?: number;
  height?: number; // default CHART_WIDTH x CHART_HEIGHT
  /** Pixels per layout pixel (default: setChartScale's, 1). */
  scale?: number;
}

export function renderLineChart(spec: LineChartSpec): Buffer {
  const width = spec.width ?? CHART_WIDTH;
  return renderChart(lineChartConfig(spec, width, {}), width, spec.height ?? CHART_HEIGHT, scaleOf(spec));
}

/** One panel of a stacked chart: a line chart without a title of its own. */
export type PanelSpec = Omit<LineChartSpec, 'title' | 'subtitle' | 'width' | 'height' | 'scale'>;

export interface StackedLineChartSpec {
  title: string;
  subtitle?: string;
  /** Top to bottom; they share the x axis (its categories or range), each has its own y axis and legend. */
  panels: PanelSpec[];
  width?: number;
  /** Of the whole image; default STACKED_HEIGHT. */
  height?: number;
  scale?: number;
}

/** The default height of a stacked chart at 1×: two panels of readable height under one title. */
export const STACKED_HEIGHT = 960;
/** The width of every panel's y axis (ticks and title), so that the panels' plots line up. */
const PANEL_Y_AXIS_PX = 96;

/** Line charts one above the other under one title: unlike quantities (rows and pages) each on an axis of its own. */
export function renderStackedLineChart(spec: StackedLineChartSpec): Buffer {
  const width = spec.width ?? CHART_WIDTH;
  const height = spec.height ?? STACKED_HEIGHT;
  const n = spec.panels.length;
  // The first panel carries the title (about 90 px); the x axis title is drawn on the last only.
  const titlePx = spec.title ? 90 + (spec.subtitle ? 24 : 0) : 0;
  const each = (height - titlePx) / Math.max(1, n);
  const panels = spec.panels.map((p, i) => {
    const last = i === n - 1;
    const h = Math.round(each + (i === 0 ? titlePx : 0));
    const config = lineChartConfig(
      { ...p, title: i === 0 ? spec.title : '', subtitle: i === 0 ? spec.subtitle : undefined, xLabel: last ? p.xLabel : '' },
      width,
      { yAxisPx: PANEL_Y_AXIS_PX, markerLabels: i === 0 },
    );
    return { config, height: h };
  });
  return renderPanels(panels, width, scaleOf(spec));
}

/** The chart.js configuration of a line chart `width` wide; `yAxisPx` fixes the y axis' width (panels that line up). */
function lineChartConfig(spec: LineChartSpec, width: number, opts: { yAxisPx?: number; markerLabels?: boolean }): ChartConfiguration {
  const cats = spec.xCategories && spec.xCategories.length > 0 ? spec.xCategories : undefined;
  const xLog = !!spec.xLog && !cats;
  const yLog = !!spec.yLog;
  const { datasets, anyPoint, values } = lineDatasets(spec, xLog, yLog);
  const markers = (spec.markers ?? []).filter((m) => m && Number.isFinite(m.x) && (!xLog || m.x > 0));
  const lines = (spec.referenceLines ?? []).filter((l) => Number.isFinite(l.y) && (!yLog || l.y > 0));
  const y = valueAxis(spec.yLabel, yLog, [...values, ...lines.map((l) => l.y)]);
  if (opts.yAxisPx !== undefined) {
    const px = opts.yAxisPx;
    y.afterFit = (scale: AnyChart) => {
      scale.width = px;
    };
  }
  const scales: Record<string, unknown> = {
    x: lineXScale(
      spec.xLabel,
      cats,
      xLog,
      anyPoint,
      markers.map((m) => m.x),
      width,
    ),
    y,
  };
  const labelled = opts.markerLabels === false ? markers.map((m) => ({ ...m, label: '' })) : markers;
  return {
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
        [REFERENCE_PLUGIN]: { lines },
      },
    },
    plugins: [backgroundPlugin, errorBarPlugin, referenceLinePlugin, markerPlugin(labelled), noDataPlugin(!anyPoint)],
  } as unknown as ChartConfiguration;
}

interface LineDataset {
  label: string;
  data: Array<{ x: number; y: number }>;
  borderColor: string;
  borderDash: number[];
  [option: string]: unknown;
}

/** One chart.js dataset per series: the points a log axis can show, their error bars, the series' style; and every y the axis must hold. */
function lineDatasets(spec: LineChartSpec, xLog: boolean, yLog: boolean): { datasets: LineDataset[]; anyPoint: boolean; values: number[] } {
  let anyPoint = false;
  const values: number[] = [];
  const datasets = spec.series.map((s, i): LineDataset => {
    const data: Array<{ x: number; y: number }> = [];
    const errors: Array<[number, number] | null> = [];
    (s.points ?? []).forEach((p, k) => {
      if (!p) return;
      const [x, y] = p;
      if (!Number.isFinite(x) || !Number.isFinite(y)) return;
      if (xLog && x <= 0) return;
      if (yLog && y <= 0) return;
      data.push({ x, y });
      values.push(y);
      const e = s.errorBars?.[k];
      const ok = e && Number.isFinite(e[0]) && Number.isFinite(e[1]) && (!yLog || e[0] > 0);
      errors.push(ok ? e : null);
      if (ok) values.push(e[0], e[1]);
    });
    if (data.length > 0) anyPoint = true;
    const color = s.color ?? PALETTE[i % PALETTE.length]!;
    const showPoints = s.showPoints ?? true;
    return {
      label: data.length === 0 ? `${s.label} (no data)` : s.label,
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
      yAxisID: 'y',
    };
  });
  return { datasets, anyPoint, values };
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
    title: axisTitle(label, xLog),
    grid: { color: GRID_COLOR },
    ticks: { callback: xLog ? logTickLabel : linearTickLabel, font: { size: FONT_PX.tick }, maxRotation: 45 },
  };
  if (cats) {
    const n = cats.length;
    xScale.type = 'linear';
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

/** The id (and the options key) of the plugin that draws the reference lines. */
export const REFERENCE_PLUGIN = 'rowsimReferenceLines';

/** Horizontal dashed lines across the plot (options.plugins.rowsimReferenceLines.lines), each labelled above its right end. */
const referenceLinePlugin: Plugin = {
  id: REFERENCE_PLUGIN,
  afterDatasetsDraw(chart: AnyChart, _args: unknown, options: AnyChart) {
    const lines = (options?.lines ?? []) as ReferenceLine[];
    const { ctx, chartArea } = chart;
    const yScale = chart.scales.y;
    ctx.save();
    ctx.font = `bold ${FONT_PX.marker}px "${FONT_FAMILY}"`;
    for (const l of lines) {
      const py = yScale.getPixelForValue(l.y) as number;
      if (!Number.isFinite(py) || py < chartArea.top - 0.5 || py > chartArea.bottom + 0.5) continue;
      const color = l.color ?? '#444444';
      ctx.strokeStyle = color;
      ctx.lineWidth = 2;
      ctx.setLineDash([10, 5]);
      ctx.beginPath();
      ctx.moveTo(chartArea.left, py);
      ctx.lineTo(chartArea.right, py);
      ctx.stroke();
      ctx.setLineDash([]);
      const w = ctx.measureText(l.label).width + 8;
      const x0 = chartArea.right - w - 4;
      const above = py - chartArea.top > FONT_PX.marker + 8;
      const y0 = above ? py - FONT_PX.marker - 8 : py + 3;
      ctx.fillStyle = 'rgba(255,255,255,0.85)';
      ctx.fillRect(x0, y0, w, FONT_PX.marker + 5);
      ctx.fillStyle = color;
      ctx.textAlign = 'left';
      ctx.textBaseline = 'middle';
      ctx.fillText(l.label, x0 + 4, y0 + (FONT_PX.marker + 5) / 2);
    }
    ctx.restore();
  },
};

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
