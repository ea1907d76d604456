/** Line charts (chart.js): series with error bars on one or two y axes, linear or log, markers. */
import type { ChartConfiguration, Plugin } from 'chart.js';
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
  scaleOf,
  titlePlugins,
  type AnyChart,
  type Marker,
} from './chart-base.js';

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
