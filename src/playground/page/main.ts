/**
 * The playground page: controls on the left (config, format, page size, knob, columns, operations, the
 * format to compare, the YAML), the panes on the right (steps, narration, the pages before and after,
 * the counters). Every change re-runs the config with the bundled engine (RowsimEngine, ../engine.ts),
 * as `rowsim run` and `rowsim trace` would; the state goes into the address's #state.
 */
import type { CounterTable, FormatChoice, PlayPoint, PlayResult } from '../engine.js';
import {
  decodeState,
  encodeState,
  sizeBytes,
  pageSizeText,
  withColumns,
  withEngine,
  withFormat,
  withoutLastPhase,
  withPhase,
  type Column,
  type Config,
  type Operation,
  type PageState,
} from './state.js';

declare const RowsimEngine: typeof import('../engine.js');
const E = RowsimEngine;

interface Embedded {
  name: string;
  text: string;
}
const CONFIGS = JSON.parse(document.getElementById('rowsim-configs')!.textContent ?? '[]') as Embedded[];
const FORMATS = E.formatChoices();

type Child = Node | string | null | undefined | false;
function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

function select(id: string, options: [string, string][], value: string, onChange: (v: string) => void): HTMLSelectElement {
  const s = el('select', { id }, ...options.map(([v, t]) => el('option', { value: v }, t)));
  s.value = value;
  s.addEventListener('change', () => onChange(s.value));
  return s;
}

function button(id: string, text: string, onClick: () => void): HTMLButtonElement {
  const b = el('button', { id, type: 'button' }, text);
  b.addEventListener('click', onClick);
  return b;
}

function numberInput(id: string, value: number): HTMLInputElement {
  const i = el('input', { id, type: 'number', min: '0', value: String(value) });
  return i;
}

// ---- runs ---------------------------------------------------------------------------------------

const runs = new Map<string, PlayResult>();
function play(name: string, yaml: string): PlayResult {
  const key = `${name}\n${yaml}`;
  let r = runs.get(key);
  if (!r) {
    try {
      r = E.playConfig(name, yaml);
    } catch (err) {
      r = { ok: false, problems: [`internal error: ${err instanceof Error ? err.message : String(err)}`] };
    }
    if (runs.size > 40) runs.clear();
    runs.set(key, r);
  }
  return r;
}

function parseConfig(yaml: string): Config | null {
  try {
    const v: unknown = E.parseYaml(yaml);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Config) : null;
  } catch {
    return null;
  }
}

function formatOf(cfg: Config | null): FormatChoice | undefined {
  return FORMATS.find((f) => f.id === cfg?.engine?.format);
}

/** The compared pane's config: the same table and workload in another format (no sweep). */
function compareYaml(cfg: Config, id: string): string | null {
  const to = FORMATS.find((f) => f.id === id);
  return to ? E.stringifyYaml(withFormat(cfg, to, formatOf(cfg))) : null;
}

// ---- state --------------------------------------------------------------------------------------

let state: PageState = initialState();

function initialState(): PageState {
  const first = CONFIGS[0]!;
  return decodeState(location.hash) ?? { source: first.name, yaml: first.text, point: null, step: 1, compare: null, compareStep: 1 };
}

function pointOf(r: PlayResult, label: string | null): PlayPoint | null {
  if (!r.ok) return null;
  return r.points.find((p) => p.label === label) ?? r.points[0] ?? null;
}

/** Change the config: re-run, keep the point where it still exists, and show `step` (default: the first). */
function setConfig(cfg: Config | string, step?: (p: PlayPoint) => number): void {
  const yaml = typeof cfg === 'string' ? cfg : E.stringifyYaml(cfg);
  const embedded = CONFIGS.find((c) => c.text === yaml);
  state = { ...state, yaml, source: embedded ? embedded.name : 'custom' };
  const p = pointOf(play(state.source, yaml), state.point);
  state.step = p && step ? step(p) : 1;
  state.compareStep = state.step;
  renderAll();
}

function stepBoth(to: (n: number, at: number) => number): void {
  const [a, b] = panes();
  if (a.point) state.step = clamp(to(a.point.trace.steps.length, state.step), a.point);
  if (b?.point) state.compareStep = clamp(to(b.point.trace.steps.length, state.compareStep), b.point);
  renderPanes();
}

function clamp(step: number, p: PlayPoint): number {
  return Math.max(Math.min(step, p.trace.steps.length), p.trace.steps.length > 0 ? 1 : 0);
}

interface Pane {
  id: 'a' | 'b';
  title: string;
  result: PlayResult;
  point: PlayPoint | null;
  step: number;
}

function panes(): [Pane, Pane | null] {
  const ra = play(state.source, state.yaml);
  const a: Pane = { id: 'a', title: state.source, result: ra, point: pointOf(ra, state.point), step: state.step };
  // A shared address may name a step past the end (or before the first): the nearest one is shown.
  if (a.point) a.step = state.step = clamp(state.step, a.point);
  const cfg = parseConfig(state.yaml);
  const yb = state.compare && cfg ? compareYaml(cfg, state.compare) : null;
  if (yb === null) return [a, null];
  const rb = play(`${state.source} as ${state.compare}`, yb);
  const pb = pointOf(rb, null);
  if (pb) state.compareStep = clamp(state.compareStep, pb);
  return [a, { id: 'b', title: `the same in ${state.compare}`, result: rb, point: pb, step: state.compareStep }];
}

// ---- rendering ----------------------------------------------------------------------------------

function renderAll(): void {
  renderControls();
  renderPanes();
}

function publishState(): void {
  const want = encodeState(state);
  if (location.hash !== want) history.replaceState(null, '', want);
  const [a] = panes();
  document.getElementById('status')!.textContent = a.result.ok
    ? `${a.result.name}: ${a.result.points.length} point(s)`
    : 'the config has problems';
}

function renderPanes(): void {
  const host = document.getElementById('panes')!;
  host.replaceChildren(...panes().flatMap((p) => (p ? [paneView(p)] : [])));
  publishState();
}

function table(id: string, t: CounterTable, on: (row: number) => boolean): HTMLTableElement {
  const head = el('tr', {}, ...t.header.map((h) => el('th', {}, h)));
  const rows = t.rows.map((r, i) => el('tr', on(i) ? { class: 'on' } : {}, ...r.map((c) => el('td', {}, c))));
  return el('table', { id }, el('thead', {}, head), el('tbody', {}, ...rows));
}

function paneView(p: Pane): HTMLElement {
  if (!p.result.ok)
    return el(
      'section',
      { class: 'pane', id: `pane-${p.id}` },
      el('h2', {}, p.title),
      el('div', { class: 'problems' }, p.result.problems.join('\n')),
    );
  const point = p.point!;
  const steps = point.trace.steps;
  const s = steps[p.step - 1];
  const controls = el(
    'div',
    { class: 'steps' },
    button(`first-${p.id}`, '|◀ first', () => stepBoth(() => 1)),
    button(`back-${p.id}`, '◀', () => stepBoth((_n, at) => at - 1)),
    el('span', { id: `step-${p.id}` }, steps.length ? `step ${p.step} / ${steps.length}` : 'no steps'),
    button(`next-${p.id}`, '▶', () => stepBoth((_n, at) => at + 1)),
    button(`last-${p.id}`, 'last ▶|', () => stepBoth((n) => n)),
    s ? el('span', {}, `phase ${s.phase}: ${s.phaseLabel}`) : null,
  );
  const what = el('ul', { class: 'what', id: `what-${p.id}` }, ...(s ? s.text.split('\n').map((l) => el('li', {}, l)) : []));
  const phase = s?.phase ?? 0;
  const idx = p.result.points.indexOf(point);
  return el(
    'section',
    { class: 'pane', id: `pane-${p.id}` },
    el('h2', {}, `${p.title} · ${point.label} · ${point.format}`),
    controls,
    what,
    s ? figures(p, s) : null,
    point.trace.truncated ? el('p', {}, `The trace stops after ${steps.length} steps.`) : null,
    point.trace.note ? el('p', {}, `Note: ${point.trace.note}.`) : null,
    el('h2', {}, 'Counters after the workload (rowsim run --wide)'),
    table(`counters-${p.id}`, p.result.counters, (i) => i === idx),
    el('h2', {}, 'After each phase (the current step’s highlighted)'),
    table(`phases-${p.id}`, point.phases, (i) => i + 1 === phase),
  );
}

function figures(p: Pane, s: PlayPoint['trace']['steps'][number]): HTMLElement {
  const box = el('div', { class: 'figs', id: `figs-${p.id}` });
  for (const pg of s.pages) {
    const opts = (when: string) => ({ idPrefix: `${p.id}${s.step}-${pg.page}-${when}`, highlight: s.rows, scale: 1, legend: false });
    for (const [when, d] of [
      ['before', pg.before],
      ['after', pg.after],
    ] as const) {
      if (!d) continue;
      const fig = el('figure', {}, el('figcaption', {}, `page ${pg.page} ${when}`));
      fig.insertAdjacentHTML('beforeend', E.pageSvg(d, opts(when)));
      box.append(fig);
    }
  }
  return box;
}

// ---- controls -----------------------------------------------------------------------------------

function section(title: string, ...children: Child[]): HTMLElement {
  return el('section', {}, el('h2', {}, title), ...children);
}

function renderControls(): void {
  const cfg = parseConfig(state.yaml);
  const [a] = panes();
  const host = document.getElementById('controls')!;
  host.replaceChildren(
    configSection(a),
    ...(cfg ? [engineSection(cfg), columnsSection(cfg), operationsSection(cfg), compareSection()] : []),
    yamlSection(a),
  );
}

function configSection(a: Pane): HTMLElement {
  const names: [string, string][] = CONFIGS.map((c) => [c.name, c.name]);
  if (state.source === 'custom') names.push(['custom', 'custom (edited)']);
  const points: [string, string][] = a.result.ok ? a.result.points.map((p) => [p.label, p.label]) : [];
  return section(
    'Config',
    select('config', names, state.source, (v) => {
      state.point = null;
      setConfig(CONFIGS.find((c) => c.name === v)!.text);
    }),
    points.length > 1
      ? el(
          'label',
          {},
          'point ',
          select('point', points, a.point?.label ?? '', (v) => {
            state.point = v;
            state.step = 1;
            renderPanes();
          }),
        )
      : null,
  );
}

function engineSection(cfg: Config): HTMLElement {
  const f = formatOf(cfg);
  const formats = select(
    'format',
    FORMATS.map((x) => [x.id, x.id]),
    f?.id ?? '',
    (v) =>
      setConfig(
        withFormat(
          cfg,
          FORMATS.find((x) => x.id === v)!,
          f,
        ),
      ),
  );
  const size = sizeBytes(cfg.engine?.page_size) ?? f?.defaultPageBytes ?? 0;
  const sizes = select(
    'page-size',
    (f?.pageSizes ?? []).map((b) => [String(b), pageSizeText(b)]),
    String(size),
    (v) => setConfig(withEngine(cfg, 'page_size', pageSizeText(Number(v)))),
  );
  let knob: HTMLElement | null = null;
  if (f?.knob) {
    const name = f.knob;
    const input = el('input', { id: 'knob', value: String(cfg.engine?.[name] ?? ''), size: '6' });
    input.addEventListener('change', () => {
      const v = input.value.trim();
      setConfig(withEngine(cfg, name, /^\d+$/.test(v) ? Number(v) : v));
    });
    knob = el('label', {}, `${name} (${f.knobUnit === '%' ? '%' : 'bytes'}) `, input);
  }
  return section('Engine', el('label', {}, 'format ', formats), el('label', {}, 'page ', sizes), knob);
}

function columnsSection(cfg: Config): HTMLElement {
  const cols: Column[] = (cfg.table?.columns ?? []).map((c) => ({ ...c }));
  const apply = () => setConfig(withColumns(cfg, cols));
  const rows = cols.map((c, i) => {
    const name = el('input', { value: c.name, 'data-col': `name-${i}` });
    const type = el('input', { value: c.type, 'data-col': `type-${i}` });
    const nul = el('input', { type: 'checkbox', 'data-col': `null-${i}` });
    nul.checked = c.null === true;
    name.addEventListener('change', () => ((c.name = name.value.trim()), apply()));
    type.addEventListener('change', () => ((c.type = type.value.trim()), apply()));
    nul.addEventListener('change', () => (nul.checked ? (c.null = true) : delete c.null, apply()));
    const drop = button(`drop-${i}`, '✕', () => (cols.splice(i, 1), apply()));
    return el('tr', {}, el('td', {}, name), el('td', {}, type), el('td', {}, nul), el('td', {}, drop));
  });
  const add = button(
    'add-column',
    'add a column',
    () => (cols.push({ name: `c${cols.length}`, type: 'varchar(100)', null: true }), apply()),
  );
  const head = el('tr', {}, el('th', {}, 'name'), el('th', {}, 'type'), el('th', {}, 'null'), el('th', {}, ''));
  return section('Table columns', el('table', { class: 'cols' }, head, ...rows), add);
}

function operationsSection(cfg: Config): HTMLElement {
  const cols = (cfg.table?.columns ?? []).map((c) => c.name);
  const rows = numberInput('op-rows', 2);
  const bytes = numberInput('op-bytes', 100);
  const column = select(
    'op-column',
    cols.map((c) => [c, c]),
    cols[cols.length - 1] ?? '',
    () => {},
  );
  const kind = select(
    'op-reorg',
    ['forwarded_rows', 'rebuild', 'compact'].map((k) => [k, k]),
    'forwarded_rows',
    () => {},
  );
  const add = (o: Operation) => {
    const phases = (cfg.workload ?? []).length + 1;
    setConfig(withPhase(cfg, o), (p) => {
      const i = p.trace.steps.findIndex((s) => s.phase === phases);
      return i >= 0 ? i + 1 : p.trace.steps.length;
    });
  };
  const rowOp = (op: 'insert' | 'update' | 'delete') => () =>
    add({ op, rows: Number(rows.value), column: column.value, bytes: Number(bytes.value) });
  return section(
    'Operations (a phase each)',
    el('label', {}, 'rows ', rows),
    el('label', {}, 'column ', column),
    el('label', { title: 'insert: the length; update: how much it grows' }, 'bytes ', bytes),
    el(
      'div',
      {},
      button('op-insert', 'insert', rowOp('insert')),
      button('op-update', 'update (grow)', rowOp('update')),
      button('op-delete', 'delete', rowOp('delete')),
    ),
    el(
      'div',
      {},
      kind,
      button('op-reorg-go', 'reorg', () => add({ op: 'reorg', kind: kind.value })),
      button('op-vacuum', 'vacuum', () => add({ op: 'vacuum' })),
      button('op-undo', 'remove the last phase', () => setConfig(withoutLastPhase(cfg), (p) => p.trace.steps.length)),
    ),
  );
}

function compareSection(): HTMLElement {
  const options: [string, string][] = [['', 'no comparison'], ...FORMATS.map((f): [string, string] => [f.id, f.id])];
  return section(
    'Compare side by side',
    select('compare', options, state.compare ?? '', (v) => {
      state.compare = v || null;
      state.compareStep = state.step;
      renderPanes();
    }),
  );
}

function yamlSection(a: Pane): HTMLElement {
  const area = el('textarea', { id: 'yaml', spellcheck: 'false' });
  area.value = state.yaml;
  return section(
    'The config (YAML)',
    area,
    button('apply-yaml', 'run this YAML', () => setConfig(area.value)),
    a.result.ok ? null : el('div', { class: 'problems', id: 'problems' }, a.result.problems.join('\n')),
  );
}

// ---- start --------------------------------------------------------------------------------------

document.addEventListener('keydown', (e) => {
  const t = e.target as HTMLElement | null;
  if (t && /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) return;
  if (e.key === 'ArrowRight') stepBoth((_n, at) => at + 1);
  else if (e.key === 'ArrowLeft') stepBoth((_n, at) => at - 1);
  else return;
  e.preventDefault();
});
window.addEventListener('hashchange', () => {
  const s = decodeState(location.hash);
  if (s && encodeState(s) !== encodeState(state)) {
    state = s;
    renderAll();
  }
});

/** For tests and the curious: the state and the runs shown. */
(window as unknown as Record<string, unknown>).rowsimPlayground = {
  state: () => state,
  results: () => panes().map((p) => p?.result ?? null),
};

renderAll();
