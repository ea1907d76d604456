/**
 * The page drawings and the trace: what the engines say about their pages adds up, every format's page
 * anatomy matches its geometry, the drawing covers the page exactly, the trace's narrative follows the
 * engine's branches, and the trace replayed on its own ends where the run ended (the replay checked too).
 */
import { describe, expect, it } from 'vitest';
import type { StorageSpec } from '../src/config/spec.js';
import type { FormatId } from '../src/config/format-ids.js';
import { FORMAT_IDS, getFormat } from '../src/formats/registry.js';
import type { HeapEvent } from '../src/heap/events.js';
import { captureAfter, interestingPage } from '../src/mechanism/capture.js';
import { compareReplay, replayEvents } from '../src/mechanism/replay.js';
import { layoutPage, pageScriptSource, renderPageSvg } from '../src/mechanism/svg.js';
import { pageText } from '../src/mechanism/text.js';
import { traceRun } from '../src/mechanism/trace.js';
import { traceDeck } from '../src/mechanism/deck.js';
import { runStorage } from '../src/workload/runner.js';
import { col, engine, storage, table } from './helpers/spec.js';

const cols = [col('id', 'int'), col('body', 'varchar(400)', true)];
const idx = [{ name: 't_pk', columns: ['id'], unique: true, clustered: false }] as StorageSpec['table']['indexes'];
const growWorkload = (rows: number): StorageSpec['workload'] =>
  [
    { op: 'insert', rows: { kind: 'count', n: rows }, values: { body: { length: { kind: 'uniform', min: 20, max: 60 } } } },
    {
      op: 'update',
      rows: { kind: 'all' },
      order: { kind: 'random' },
      transaction: 'statement',
      set: { body: { kind: 'length', dist: { kind: 'uniform', min: 150, max: 380 } } },
    },
    { op: 'reorg', kind: 'forwarded_rows' },
  ] as unknown as StorageSpec['workload'];

/** A small table that grows, in `format` (page sizes small enough for a few pages). */
function spec(format: FormatId, extra: Record<string, unknown> = {}, rows = 60): StorageSpec {
  const page_size = getFormat(format).pageSizes.includes(2048) ? 2048 : getFormat(format).defaultPageBytes;
  return storage(
    table(cols, format === 'sqlserver-heap' && extra.clustered ? [{ ...idx[0]!, clustered: true }] : idx),
    engine({ format, page_size, ...(extra.engine as object) }),
    growWorkload(rows),
  );
}

const CASES: [string, StorageSpec][] = [
  ...FORMAT_IDS.map((f) => [f, spec(f)] as [string, StorageSpec]),
  ['sqlserver-heap clustered', spec('sqlserver-heap', { clustered: true })],
  ['ase-dol exp_row_size 300', spec('ase-dol', { engine: { exp_row_size: 300 } })],
  ['postgres-heap fillfactor 70', spec('postgres-heap', { engine: { fillfactor: 70 } })],
];

describe('what the engines say about their pages', () => {
  for (const [name, s] of CASES) {
    it(`${name}: every page adds up to the page size and every row is on exactly one page`, () => {
      for (const after of [1, 2, 3]) {
        const cap = captureAfter(s, after);
        const g = getFormat(s.engine.format).rows.layout(s.table, s.engine).geometry;
        const bodies = new Map<number, number>();
        for (let p = 0; p < cap.inspector.pages; p++) {
          const d = cap.inspector.page(p);
          if (!d.allocated) continue;
          expect(
            g.headerBytes + d.storedBytes + d.slotArrayBytes + d.fragmentedBytes + d.contiguousBytes,
            `page ${p} after phase ${after}`,
          ).toBe(g.pageBytes);
          const stored = d.slots.reduce((n, e) => n + e.bytes, 0);
          expect(stored, `page ${p}: entries' bytes`).toBe(d.storedBytes);
          const entries = d.slots.reduce((n, e) => n + (e.count ?? 1), 0);
          expect(entries * g.slotBytes, `page ${p}: one slot an entry`).toBe(d.slotArrayBytes);
          for (const e of d.slots) {
            if (e.row !== undefined && e.kind !== 'stub') bodies.set(e.row, (bodies.get(e.row) ?? 0) + 1);
            if (e.kind === 'stub') {
              const there = cap.inspector.page(e.to!.page).slots.find((x) => x.slot === e.to!.slot);
              expect(there?.kind, `stub of row ${e.row} on page ${p}`).toBe('forwarded');
              expect(there?.row).toBe(e.row);
              expect(there?.from).toEqual({ page: p, slot: e.slot });
            }
          }
        }
        const result = runStorage({ ...s, workload: s.workload.slice(0, after) });
        expect(bodies.size).toBe(result.final.rows);
        expect([...bodies.values()].every((n) => n === 1)).toBe(true);
        expect(new Set([...bodies.keys()].map((r) => cap.inspector.locate(r)?.page)).has(undefined)).toBe(false);
      }
    });
  }

  it('an exp_row_size reservation shows on the rows it was charged to', () => {
    const cap = captureAfter(spec('ase-dol', { engine: { exp_row_size: 300 } }), 1);
    const d = cap.inspector.page(0);
    expect(d.reservedBytes).toBeGreaterThan(0);
    expect(d.slots.reduce((n, e) => n + (e.reserved ?? 0), 0)).toBe(d.reservedBytes);
  });

  it('PostgreSQL pages show heap-only tuples and dead versions after HOT updates', () => {
    const s = spec('postgres-heap', { engine: { fillfactor: 50 } });
    const cap = captureAfter(s, 2);
    const kinds = new Set(Array.from({ length: cap.inspector.pages }, (_, p) => cap.inspector.page(p).slots.map((e) => e.kind)).flat());
    expect(kinds.has('heap-only')).toBe(true);
    expect(kinds.has('dead') || kinds.has('redirect') || kinds.has('unused')).toBe(true);
  });
});

describe('each format says what its page is made of', () => {
  for (const id of FORMAT_IDS) {
    it(`${id}: the header parts add up to the geometry's header, and the slot entry (a slot per recordsPerSlot records) to its slot bytes a record`, () => {
      const s = spec(id);
      const f = getFormat(id);
      const layout = f.rows.layout(s.table, s.engine);
      const a = f.pages.pageAnatomy(layout, s.engine);
      expect(a.header.reduce((n, h) => n + h.bytes, 0) + (a.trailer?.bytes ?? 0)).toBe(layout.geometry.headerBytes);
      expect(a.slotArray.entryBytes / (a.slotArray.recordsPerSlot ?? 1)).toBe(layout.geometry.slotBytes);
    });
  }
});

describe('the drawing', () => {
  for (const [name, s] of CASES) {
    it(`${name}: its regions cover the page exactly once, in order`, () => {
      const cap = captureAfter(s, 2);
      for (let p = 0; p < cap.inspector.pages; p++) {
        const d = cap.draw(p);
        if (!d.detail.allocated) continue;
        const L = layoutPage(d);
        let at = 0;
        for (const seg of L.segments) {
          expect(seg.start, `${seg.kind} on page ${p}`).toBe(at);
          expect(seg.bytes).toBeGreaterThan(0);
          at += seg.bytes;
        }
        expect(at).toBe(d.pageBytes);
      }
    });
  }

  it('draws rows, stubs with an arrow to where they point, and the text lists one line per entry', () => {
    const s = spec('ase-dol');
    const cap = captureAfter(s, 2);
    const page = interestingPage(cap.inspector);
    const d = cap.draw(page);
    const stub = d.detail.slots.find((e) => e.kind === 'stub')!;
    expect(stub).toBeDefined();
    const svg = renderPageSvg(d);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain(`row ${stub.row} stub → (${stub.to!.page},${stub.to!.slot})`);
    // The stub's block carries its row id.
    expect(svg).toContain(`>${stub.row}→</text>`);
    expect(svg).toContain('marker-end="url(#rowsim-page-arrow)"');
    expect((svg.match(/<text/g) ?? []).length).toBe((svg.match(/<\/text>/g) ?? []).length);
    const text = pageText(d);
    const body = text.split('\n').filter((l) => /^\d+\s/.test(l));
    expect(body).toHaveLength(d.detail.slots.length);
    expect(text).toContain(`→ (${stub.to!.page},${stub.to!.slot})`);
  });

  it('PostgreSQL line pointers are numbered from 1 and the fillfactor line is drawn', () => {
    const s = spec('postgres-heap', { engine: { fillfactor: 70 } });
    const d = captureAfter(s, 1).draw(0);
    expect(Math.min(...d.detail.slots.map((e) => e.slot))).toBe(1);
    expect(d.fillLine?.label).toContain('fillfactor 70');
    expect(renderPageSvg(d)).toContain('fillfactor 70');
  });

  it('the browser copy of the drawing code is the same code (it runs without the module around it)', () => {
    const d = captureAfter(spec('oracle-heap'), 2).draw(0);
    const run = new Function('d', `${pageScriptSource()}\nreturn renderPageSvg(d);`) as (x: unknown) => string;
    expect(run(JSON.parse(JSON.stringify(d)))).toBe(renderPageSvg(d));
  });
});

describe('the trace', () => {
  it('narrates a forwarded update from the engine: the page, its free space, where the row went, the stub', () => {
    const t = traceRun(spec('ase-dol'), { steps: 500 });
    const fwd = t.steps.find((s) => s.events.some((e) => e.op === 'update' && e.outcome === 'forwarded'))!;
    expect(fwd).toBeDefined();
    const e = fwd.events.find((x): x is Extract<HeapEvent, { op: 'update' }> => x.op === 'update')!;
    expect(fwd.text).toContain(`update row ${e.row}: grows ${e.fromBytes} → ${e.toBytes} B`);
    expect(fwd.text).toContain(`forwarded to page ${e.toPage}`);
    expect(fwd.text).toContain(`a 10 B stub stays at page ${e.page}`);
    // Drawn before and after: the home page had the row's body before, a stub after.
    const home = fwd.pages.find((p) => p.page === e.page)!;
    expect(home.before!.detail.slots.find((x) => x.row === e.row)!.kind).toBe('row');
    expect(home.after.detail.slots.find((x) => x.row === e.row)!.kind).toBe('stub');
  });

  it('narrates HOT and new-page updates on PostgreSQL, and prunes', () => {
    const t = traceRun(spec('postgres-heap', { engine: { fillfactor: 60 } }), { steps: 1000 });
    const all = t.steps.map((s) => s.text).join('\n');
    expect(all).toContain('heap-only tuple (HOT update)');
    expect(all).toMatch(/no room for the new version → it goes to page \d+/);
    expect(all).toMatch(/commit: \d+ old versions? on page/);
  });

  it("narrates reads: a forwarded row read through its stub, the index from root to leaf, a scan's extra reads at the stubs", () => {
    const s = spec('ase-dol');
    s.workload = [
      ...growWorkload(60).slice(0, 2),
      { op: 'select', rows: { kind: 'all' }, order: { kind: 'sequential' }, via: 'index', index: 't_pk', repeat: 1 },
      { op: 'select', rows: { kind: 'all' }, order: { kind: 'sequential' }, via: 'scan', repeat: 1 },
    ];
    const t = traceRun(s, { steps: 100_000 });
    const reads = t.steps.filter((st) => st.op === 'select');
    expect(reads).toHaveLength(60);
    const fwd = reads.find((st) => st.events.some((e) => e.op === 'read' && e.forwarded))!;
    const e = fwd.events.find((x): x is Extract<HeapEvent, { op: 'read' }> => x.op === 'read')!;
    expect(fwd.text).toMatch(/^read index t_pk from its root to the leaf: \d+ pages?/);
    expect(fwd.text).toContain(
      `read row ${e.row}: page ${e.pages[0]} holds only its stub → page ${e.pages[1]}, where the forwarded row lives: 2 data page reads`,
    );
    // The step draws both pages it read.
    expect(fwd.pages.map((p) => p.page)).toEqual(e.pages);
    const scan = t.steps.find((st) => st.op === 'scan')!;
    const forwarded = runStorage(s).phases[1]!.metrics.forwarded_rows;
    expect(scan.text).toMatch(
      new RegExp(
        `table scan: the table's \\d+ pages read, and ${forwarded} forwarded rows read at their stubs: ${forwarded} page reads more`,
      ),
    );
  });

  it('narrates PostgreSQL reads: dead versions an index scan visits once, then not again after they are marked LP_DEAD', () => {
    const s = spec('postgres-heap', { engine: { fillfactor: 100 } });
    // The key at leaf fillfactor 50: the updates' new entries fit, no posting list (which no scan could kill) forms.
    s.table.indexes = [{ ...idx[0]!, fillfactor: 50 }];
    const read = { op: 'select', rows: { kind: 'all' }, order: { kind: 'sequential' }, via: 'index', index: 't_pk', repeat: 1 } as const;
    s.workload = [...growWorkload(60).slice(0, 2), read, read];
    const t = traceRun(s, { steps: 100_000 });
    const phase3 = t.steps
      .filter((st) => st.phase === 3)
      .map((st) => st.text)
      .join('\n');
    const phase4 = t.steps
      .filter((st) => st.phase === 4)
      .map((st) => st.text)
      .join('\n');
    expect(phase3).toMatch(/first 1 dead version its index entries still point to .*LP_DEAD/);
    expect(phase4).not.toMatch(/dead version/);
  });

  it('--rows keeps only those rows, --page only the steps that change that page, --steps stops', () => {
    const s = spec('ase-dol');
    const rows = traceRun(s, { rows: [5, 7], steps: 1000 });
    expect(rows.steps.length).toBeGreaterThan(0);
    for (const st of rows.steps) if (st.row !== undefined) expect(st.row >= 5 && st.row <= 7).toBe(true);
    const page = traceRun(s, { page: 1, steps: 1000 });
    for (const st of page.steps) expect(st.pages.map((p) => p.page)).toEqual([1]);
    // The watched page's "before" is the "after" of the step before it.
    for (let i = 1; i < page.steps.length; i++) expect(page.steps[i]!.pages[0]!.before).toEqual(page.steps[i - 1]!.pages[0]!.after);
    const short = traceRun(s, { steps: 7 });
    expect(short.steps).toHaveLength(7);
    expect(short.truncated).toBe(true);
  });

  for (const [name, s] of CASES) {
    it(`${name}: the trace replayed on its own ends in the run's page state`, () => {
      const t = traceRun(s, { steps: 100_000 });
      expect(t.truncated).toBe(false);
      const final = captureAfter(s, 'final');
      expect(compareReplay(replayEvents(t.steps.flatMap((st) => st.events)), final.inspector)).toEqual([]);
    });
  }

  it('the replay check finds a trace that sends a row to the wrong page, or loses an event', () => {
    const s = spec('ase-dol');
    const events = traceRun(s, { steps: 100_000 }).steps.flatMap((st) => st.events);
    const final = captureAfter(s, 'final').inspector;
    const i = events.findIndex((e) => e.op === 'update' && e.outcome === 'forwarded');
    const wrong = events.map((e, k) => (k === i ? { ...e, toPage: (e as { toPage: number }).toPage + 1 } : e)) as HeapEvent[];
    // The forwarded row may be moved home by the reorg: check the state before it.
    const before = captureAfter(s, 2).inspector;
    const upTo = (evs: HeapEvent[]) =>
      evs.slice(
        0,
        evs.findIndex((e) => e.op === 'reorg-row' || (e.op === 'compact' && false)) < 0
          ? evs.length
          : evs.findIndex((e) => e.op === 'reorg-row'),
      );
    expect(compareReplay(replayEvents(upTo(events)), before)).toEqual([]);
    expect(compareReplay(replayEvents(upTo(wrong)), before).length).toBeGreaterThan(0);
    const lost = events.filter((_, k) => k !== events.findIndex((e) => e.op === 'insert' && e.row === 3));
    expect(() => compareReplay(replayEvents(lost), final)).toThrow(/row 3/);
  });

  it('the slide deck has a slide a step, moves with the arrow keys, fetches nothing', () => {
    const t = traceRun(spec('ase-dol'), { steps: 12 });
    const html = traceDeck('t', 'sub', t);
    expect((html.match(/<section class="slide[ "]/g) ?? []).length).toBe(t.steps.length + 2);
    expect(html).toContain('ArrowRight: 1');
    expect(html).toContain("addEventListener('hashchange'");
    expect(html).not.toMatch(/(src|href)="https?:/);
    // Each drawing names its own pattern and marker: a hidden slide's would not draw in another.
    const ids = [...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('with no sink the engines emit nothing and the results are those of a run without a trace', () => {
    const s = spec('sqlserver-heap');
    const plain = runStorage(s);
    const seen: HeapEvent[] = [];
    const traced = runStorage(s, { events: (e) => seen.push(e) });
    expect(seen.length).toBeGreaterThan(0);
    expect(traced.final).toEqual(plain.final);
    expect(traced.phases).toEqual(plain.phases);
  });
});
