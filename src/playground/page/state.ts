/**
 * The playground page's state and the edits made to its config: plain data, no DOM. The state is what
 * the address's `#state=` carries (base64url of its JSON), so that a moment can be shared with a class.
 */
import type { FormatChoice } from '../engine.js';

export interface PageState {
  /** The embedded config it started from (teaching/….yaml) or "custom". */
  source: string;
  /** The config's YAML, as edited. */
  yaml: string;
  /** The sweep point shown, by its label (null: the first). */
  point: string | null;
  /** The step shown, from 1 (0: before the first). */
  step: number;
  /** The format compared side by side (null: none), and its pane's step. */
  compare: string | null;
  compareStep: number;
}

/** A config as the page edits it: the YAML's plain value. */
export type Config = Record<string, unknown> & {
  engine?: Record<string, unknown>;
  table?: { columns?: Column[] } & Record<string, unknown>;
  workload?: unknown[];
  sweep?: Record<string, unknown[]>;
};
export interface Column {
  name: string;
  type: string;
  null?: boolean;
}

function toBase64Url(text: string): string {
  let bin = '';
  for (const b of new TextEncoder().encode(text)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string {
  const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

export function encodeState(s: PageState): string {
  return `#state=${toBase64Url(JSON.stringify(s))}`;
}

/** The state in an address's fragment, or null when it has none or it does not read as one. */
export function decodeState(hash: string): PageState | null {
  const m = /^#state=([A-Za-z0-9_-]+)$/.exec(hash);
  if (!m) return null;
  try {
    const v = JSON.parse(fromBase64Url(m[1]!)) as Partial<PageState>;
    if (typeof v.yaml !== 'string' || typeof v.source !== 'string') return null;
    return {
      source: v.source,
      yaml: v.yaml,
      point: typeof v.point === 'string' ? v.point : null,
      step: typeof v.step === 'number' ? v.step : 0,
      compare: typeof v.compare === 'string' ? v.compare : null,
      compareStep: typeof v.compareStep === 'number' ? v.compareStep : 0,
    };
  } catch {
    return null;
  }
}

/** The page size as a config writes it: 2048 → "2k". */
export function pageSizeText(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024}k` : String(bytes);
}

/** Drop the sweep's keys that start with `prefix` (all of them for ""); an empty sweep goes. */
function dropSweep(cfg: Config, prefix: string): void {
  if (!cfg.sweep) return;
  for (const k of Object.keys(cfg.sweep)) if (k.startsWith(prefix)) delete cfg.sweep[k];
  if (Object.keys(cfg.sweep).length === 0) delete cfg.sweep;
}

/** Another format for the table: its page size kept where the format has it, the knob where it has the same one; no sweep. */
export function withFormat(cfg: Config, to: FormatChoice, from: FormatChoice | undefined): Config {
  const c = structuredClone(cfg);
  const old = c.engine ?? {};
  const engine: Record<string, unknown> = { format: to.id };
  const size = sizeBytes(old.page_size);
  engine.page_size = pageSizeText(size !== null && to.pageSizes.includes(size) ? size : to.defaultPageBytes);
  if (to.knob && from?.knob === to.knob && old[to.knob] !== undefined) engine[to.knob] = old[to.knob];
  c.engine = engine;
  dropSweep(c, '');
  return c;
}

/** A page size as a config has it ("2k", 2048) in bytes, or null. */
export function sizeBytes(v: unknown): number | null {
  if (typeof v === 'number') return v;
  const m = typeof v === 'string' ? /^(\d+)\s*([kK])?$/.exec(v.trim()) : null;
  return m ? Number(m[1]) * (m[2] ? 1024 : 1) : null;
}

/** Set an engine setting (page size or the knob); the sweep over it goes. */
export function withEngine(cfg: Config, key: string, value: unknown): Config {
  const c = structuredClone(cfg);
  c.engine = { ...(c.engine ?? {}), [key]: value };
  dropSweep(c, `engine.${key}`);
  return c;
}

export function withColumns(cfg: Config, columns: Column[]): Config {
  const c = structuredClone(cfg);
  c.table = { ...(c.table ?? {}), columns: columns.map((col) => ({ ...col })) };
  return c;
}

/** A phase the buttons add: a few rows at a time. */
export type Operation =
  { op: 'insert' | 'update' | 'delete'; rows: number; column: string; bytes: number } | { op: 'reorg'; kind: string } | { op: 'vacuum' };

export function phaseOf(o: Operation): Record<string, unknown> {
  switch (o.op) {
    case 'insert':
      return { insert: { rows: o.rows, ...(o.column ? { values: { [o.column]: { length: o.bytes } } } : {}) } };
    case 'update':
      return { update: { rows: o.rows, order: 'random', set: { [o.column]: { grow: o.bytes } } } };
    case 'delete':
      return { delete: { rows: o.rows, order: 'random' } };
    case 'reorg':
      return { reorg: o.kind };
    case 'vacuum':
      return { vacuum: null };
  }
}

export function withPhase(cfg: Config, o: Operation): Config {
  const c = structuredClone(cfg);
  c.workload = [...(c.workload ?? []), phaseOf(o)];
  return c;
}

export function withoutLastPhase(cfg: Config): Config {
  const c = structuredClone(cfg);
  c.workload = (c.workload ?? []).slice(0, -1);
  return c;
}
