/**
 * PNG charts: line (one y axis; unlike quantities stacked in panels, never on a second axis) and bar (chart.js drawn on @napi-rs/canvas) and heat maps (plain canvas 2D); page maps
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
 *
 * By kind, one file each: line-chart.ts, bar-chart.ts, heat-map.ts; what they share (sizes, fonts,
 * number and tick formats, the common plugins, rendering) is chart-base.ts's. Import from here.
 */
export * from './chart-base.js';
export {
  renderLineChart,
  renderStackedLineChart,
  REFERENCE_PLUGIN,
  STACKED_HEIGHT,
  type LineChartSpec,
  type PanelSpec,
  type ReferenceLine,
  type Series,
} from './line-chart.js';
export { renderBarChart } from './bar-chart.js';
export { renderHeatMap } from './heat-map.js';
