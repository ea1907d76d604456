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

export function phaseHeadline(axes: readonly PhaseAxis[], cells: readonly PhaseCell[], context: string): PhaseHeadline {
  const sizes = axes.map((a) => a.values.length);
  const label = (index: number[]): Record<string, string | number | boolean> =>
    Object.fromEntries(axes.map((a, i) => [a.key, a.values[index[i]!]!]));
  const collapsed = cells.filter((c) => c.collapsed_share >= 1);
  const bimodal = cells.filter((c) => c.collapsed_share > 0 && c.collapsed_share < 1);
  const set = new Set(collapsed.map((c) => c.index.join(',')));
  const ratioCollapsed = range(collapsed.map((c) => c.ratio));
  const ratioOther = range(cells.filter((c) => c.collapsed_share < 1).map((c) => c.ratio));
  const base: Omit<PhaseHeadline, 'text' | 'region' | 'monotone'> = {
    collapsed_cells: collapsed.map((c) => label(c.index)),
    bimodal_cells: bimodal.map((c) => ({ ...label(c.index), collapsed_share: c.collapsed_share })),
    ratio_collapsed: ratioCollapsed,
    ratio_other: ratioOther,
    lockless_collapsed_cells: cells
      .filter((c) => (c.lockless_collapsed_share ?? 0) >= 0.5)
      .map((c) => ({ ...label(c.index), collapsed_share: c.lockless_collapsed_share! })),
  };
  const where = (c: PhaseCell): string => axes.map((a, i) => `${a.key} ${String(a.values[c.index[i]!])}`).join(', ');
  const llCollapsed = cells.filter((c) => (c.lockless_collapsed_share ?? 0) >= 0.5);
  const locklessText = llCollapsed.length
    ? ` The lockless manager collapses too (its hottest CAS line saturates) at ${llCollapsed.map((c) => `${where(c)} (${Math.round(c.lockless_collapsed_share! * 100)}% of its replications)`).join('; ')}.`
    : '';
  const bimodalText =
    (bimodal.length
      ? ` Bimodal (some seeds collapse, some do not) at ${bimodal.map((c) => `${where(c)} (${Math.round(c.collapsed_share * 100)}% collapsed)`).join('; ')}.`
      : '') + locklessText;
  if (collapsed.length === 0) {
    return {
      ...base,
      region: null,
      monotone: true,
      text: `The latched manager collapses nowhere in this sweep (${context}); lockless ÷ latched throughput ${ratioOther ? rangeText(ratioOther) : 'n/a'}.${bimodalText}`,
    };
  }
  if (collapsed.length === cells.length) {
    return {
      ...base,
      region: [],
      monotone: true,
      text: `The latched manager collapses everywhere in this sweep (${context}): lockless ${rangeText(ratioCollapsed!)} the latched throughput.`,
    };
  }
  // orient each axis so that the collapse region is an up-set, if any orientation does
  const all = cells.map((c) => c.index);
  let flip: boolean[] | null = null;
  for (let mask = 0; mask < 1 << axes.length && !flip; mask++) {
    const f = axes.map((_a, i) => ((mask >> i) & 1) === 1);
    if (isUpSet(set, all, sizes, f)) flip = f;
  }
  if (!flip) {
    const list = collapsed.map((c) => axes.map((a, i) => `${a.key} ${String(a.values[c.index[i]!])}`).join(', ')).join('; ');
    return {
      ...base,
      region: null,
      monotone: false,
      text: `Lockless ${rangeText(ratioCollapsed!)} the latched throughput where the latched manager collapses (${context}), a region that is not monotone in the swept keys: ${list}; elsewhere ${ratioOther ? rangeText(ratioOther) : 'n/a'}.${bimodalText}`,
    };
  }
  // minimal corners of the up-set in the oriented order
  const le = (a: number[], b: number[]): boolean => a.every((x, i) => (flip![i] ? x >= b[i]! : x <= b[i]!));
  const corners = collapsed.filter((c) => !collapsed.some((d) => d !== c && le(d.index, c.index)));
  const region = corners.map((c) =>
    Object.fromEntries(
      axes
        .map((a, i) => [a, i] as const)
        .filter(([_a, i]) => (flip![i] ? c.index[i]! < sizes[i]! - 1 : c.index[i]! > 0))
        .map(([a, i]) => [a.key, { op: flip![i] ? ('≤' as const) : ('≥' as const), value: a.values[c.index[i]!]! }]),
    ),
  );
  const conditions = region
    .map((r) => {
      const parts = Object.entries(r).map(([k, v]) => `${k} ${v.op} ${String(v.value)}`);
      return parts.length ? parts.join(' and ') : 'anywhere';
    })
    .join('; or ');
  return {
    ...base,
    region,
    monotone: true,
    text: `Lockless ${rangeText(ratioCollapsed!)} the latched throughput when ${conditions} (${context}), where the latched manager collapses in every replication; elsewhere ${ratioOther ? rangeText(ratioOther) : 'n/a'}.${bimodalText}`,
  };
}
