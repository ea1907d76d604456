/** Bar charts (chart.js): grouped or stacked, vertical or horizontal, linear or log, values above the bars. */
import type { ChartConfiguration, Plugin } from 'chart.js';
import { FONT_FAMILY } from '../util/fonts.js';
import {
  axisTitle,
  backgroundPlugin,
  categoryTicks,
  CHART_HEIGHT,
  CHART_WIDTH,
  FONT_PX,
  formatNumber,
  noDataPlugin,
  PALETTE,
  renderChart,
  scaleOf,
  titlePlugins,
  valueAxis,
  wrapLabel,
  type AnyChart,
} from './chart-base.js';

interface BarChartSpec {
  title: string;
  subtitle?: string;
  categories: string[]; // x axis groups
  series: Array<{ label: string; values: number[]; color?: string }>;
  /** What the categories are ("engine (page size)", "read phase"). */
  xLabel: string;
  /** The quantity and its unit: "page reads (a statement)", "size (MiB)". */
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
  // What the value axis must hold: each bar, or each stack's total.
  const values = stacked
    ? categories.map((_c, j) => datasets.reduce((sum, d) => sum + (d.data[j] ?? 0), 0))
    : datasets.flatMap((d) => d.data.filter((v): v is number => v !== null));
  const valueScale: Record<string, unknown> = { ...valueAxis(spec.yLabel, log, empty ? [] : values), stacked };
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
      scales: horizontal ? { x: valueScale, y: categoryAxis } : { x: categoryAxis, y: valueScale },
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
