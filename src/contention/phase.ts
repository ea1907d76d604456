/**
 * The headline of a phase diagram, stated conditionally: the sweep cells where the latched manager
 * collapsed in every replication, described as "key ≥ value and …" corners when that region is
 * monotone in each swept key (an up-set once each axis is oriented), else as a list of cells. Pure.
 */
interface PhaseCell {
  /** Index into each axis's values. */
  index: number[];
  ratio: number;
  /** Share of the latched replications that collapsed. */
  collapsed_share: number;
  /** Share of the lockless replications that collapsed (a CAS line saturated). */
  lockless_collapsed_share?: number;
}

interface PhaseAxis {
  key: string;
  values: Array<string | number | boolean>;
}

export interface PhaseHeadline {
  /** The sentence. */
  text: string;
  /** The collapse region as corners: per axis null (any value) or a bound. */
  region: Array<Record<string, { op: '≥' | '≤'; value: string | number | boolean }>> | null;
  /** Every collapsed cell (all replications), by its values. */
  collapsed_cells: Array<Record<string, string | number | boolean>>;
  bimodal_cells: Array<Record<string, string | number | boolean> & { collapsed_share: number }>;
  /** Cells where the lockless manager collapsed too, in at least half its replications. */
  lockless_collapsed_cells: Array<Record<string, string | number | boolean> & { collapsed_share: number }>;
  /** Lockless ÷ latched throughput: range over the collapsed cells and over the others. */
  ratio_collapsed: [number, number] | null;
  ratio_other: [number, number] | null;
  monotone: boolean;
}

const fmtRatio = (x: number): string => (x >= 10 ? x.toFixed(0) : x.toFixed(1));
const range = (xs: number[]): [number, number] | null => (xs.length ? [Math.min(...xs), Math.max(...xs)] : null);
const rangeText = (r: [number, number]): string =>
  fmtRatio(r[0]) === fmtRatio(r[1]) ? `${fmtRatio(r[0])}×` : `${fmtRatio(r[0])}–${fmtRatio(r[1])}×`;

/** Is `set` (cells as index tuples) an up-set of the grid when axis a's order is flipped where flip[a]? */
function isUpSet(set: Set<string>, cells: number[][], sizes: number[], flip: boolean[]): boolean {
  for (const c of cells) {
    if (!set.has(c.join(','))) continue;
    for (let a = 0; a < sizes.length; a++) {
      const next = c.slice();
      next[a] = c[a]! + (flip[a] ? -1 : 1);
      if (next[a]! < 0 || next[a]! >= sizes[a]!) continue;
      if (!set.has(next.join(','))) return false;
    }
  }
  return true;
}

type CellLabel = Record<string, string | number | boolean>;
type Region = NonNullable<PhaseHeadline['region']>;

const labelOf = (axes: readonly PhaseAxis[], index: number[]): CellLabel =>
  Object.fromEntries(axes.map((a, i) => [a.key, a.values[index[i]!]!]));

/** A cell by its values: "users 5000, engines 80". */
const whereText = (axes: readonly PhaseAxis[], c: PhaseCell): string =>
  axes.map((a, i) => `${a.key} ${String(a.values[c.index[i]!])}`).join(', ');

const locklessCollapsed = (cells: readonly PhaseCell[]): PhaseCell[] => cells.filter((c) => (c.lockless_collapsed_share ?? 0) >= 0.5);

/** The headline's cells and ratios, whatever the shape of the collapse region. */
function headlineFigures(axes: readonly PhaseAxis[], cells: readonly PhaseCell[]): Omit<PhaseHeadline, 'text' | 'region' | 'monotone'> {
  const collapsed = cells.filter((c) => c.collapsed_share >= 1);
  const bimodal = cells.filter((c) => c.collapsed_share > 0 && c.collapsed_share < 1);
  return {
    collapsed_cells: collapsed.map((c) => labelOf(axes, c.index)),
    bimodal_cells: bimodal.map((c) => ({ ...labelOf(axes, c.index), collapsed_share: c.collapsed_share })),
    ratio_collapsed: range(collapsed.map((c) => c.ratio)),
    ratio_other: range(cells.filter((c) => c.collapsed_share < 1).map((c) => c.ratio)),
    lockless_collapsed_cells: locklessCollapsed(cells).map((c) => ({
      ...labelOf(axes, c.index),
      collapsed_share: c.lockless_collapsed_share!,
    })),
  };
}

/** The sentences on bimodal cells and on cells where the lockless manager collapses too ('' when none). */
function flagsText(axes: readonly PhaseAxis[], cells: readonly PhaseCell[]): string {
  const bimodal = cells.filter((c) => c.collapsed_share > 0 && c.collapsed_share < 1);
  const llCollapsed = locklessCollapsed(cells);
  const locklessText = llCollapsed.length
    ? ` The lockless manager collapses too (its hottest CAS line saturates) at ${llCollapsed.map((c) => `${whereText(axes, c)} (${Math.round(c.lockless_collapsed_share! * 100)}% of its replications)`).join('; ')}.`
    : '';
  const bimodalText = bimodal.length
    ? ` Bimodal (some seeds collapse, some do not) at ${bimodal.map((c) => `${whereText(axes, c)} (${Math.round(c.collapsed_share * 100)}% collapsed)`).join('; ')}.`
    : '';
  return bimodalText + locklessText;
}

/** An orientation of the axes (flip[a]: axis a's order reversed) that makes the collapsed cells an up-set, or null. */
function upSetOrientation(axes: readonly PhaseAxis[], cells: readonly PhaseCell[], collapsed: readonly PhaseCell[]): boolean[] | null {
  const sizes = axes.map((a) => a.values.length);
  const set = new Set(collapsed.map((c) => c.index.join(',')));
  const all = cells.map((c) => c.index);
  for (let mask = 0; mask < 1 << axes.length; mask++) {
    const f = axes.map((_a, i) => ((mask >> i) & 1) === 1);
    if (isUpSet(set, all, sizes, f)) return f;
  }
  return null;
}

/** The minimal corners of the up-set in the oriented order, each as bounds on the axes that are not at their end. */
function regionCorners(axes: readonly PhaseAxis[], collapsed: readonly PhaseCell[], flip: boolean[]): Region {
  const sizes = axes.map((a) => a.values.length);
  const le = (a: number[], b: number[]): boolean => a.every((x, i) => (flip[i] ? x >= b[i]! : x <= b[i]!));
  const corners = collapsed.filter((c) => !collapsed.some((d) => d !== c && le(d.index, c.index)));
  return corners.map((c) =>
    Object.fromEntries(
      axes
        .map((a, i) => [a, i] as const)
        .filter(([_a, i]) => (flip[i] ? c.index[i]! < sizes[i]! - 1 : c.index[i]! > 0))
        .map(([a, i]) => [a.key, { op: flip[i] ? ('≤' as const) : ('≥' as const), value: a.values[c.index[i]!]! }]),
    ),
  );
}

/** The region as a condition: "users ≥ 3000 and engines ≥ 40; or …". */
function regionConditions(region: Region): string {
  return region
    .map((r) => {
      const parts = Object.entries(r).map(([k, v]) => `${k} ${v.op} ${String(v.value)}`);
      return parts.length ? parts.join(' and ') : 'anywhere';
    })
    .join('; or ');
}

export function phaseHeadline(axes: readonly PhaseAxis[], cells: readonly PhaseCell[], context: string): PhaseHeadline {
  const base = headlineFigures(axes, cells);
  const collapsed = cells.filter((c) => c.collapsed_share >= 1);
  const flags = flagsText(axes, cells);
  const other = base.ratio_other ? rangeText(base.ratio_other) : 'n/a';
  if (collapsed.length === 0) {
    return {
      ...base,
      region: null,
      monotone: true,
      text: `The latched manager collapses nowhere in this sweep (${context}); lockless ÷ latched throughput ${other}.${flags}`,
    };
  }
  const lockless = rangeText(base.ratio_collapsed!);
  if (collapsed.length === cells.length) {
    return {
      ...base,
      region: [],
      monotone: true,
      text: `The latched manager collapses everywhere in this sweep (${context}): lockless ${lockless} the latched throughput.`,
    };
  }
  const flip = upSetOrientation(axes, cells, collapsed);
  if (!flip) {
    const list = collapsed.map((c) => whereText(axes, c)).join('; ');
    return {
      ...base,
      region: null,
      monotone: false,
      text: `Lockless ${lockless} the latched throughput where the latched manager collapses (${context}), a region that is not monotone in the swept keys: ${list}; elsewhere ${other}.${flags}`,
    };
  }
  const region = regionCorners(axes, collapsed, flip);
  return {
    ...base,
    region,
    monotone: true,
    text: `Lockless ${lockless} the latched throughput when ${regionConditions(region)} (${context}), where the latched manager collapses in every replication; elsewhere ${other}.${flags}`,
  };
}
