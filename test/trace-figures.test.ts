/**
 * The trace's words and drawings tell one story, and the page book that draws them is the engine's:
 *
 * - for every step of every teaching config (every sweep point), each number a sentence states is what
 *   the drawn page shows: free, contiguous and hole bytes (the "before" drawing of the page named), the
 *   page and slot a row went to and the slot its stub stays at (the "after" drawing), the bytes a
 *   compaction squeezed or a prune freed, the page an insert passed over and its PFS band;
 * - the page book (src/mechanism/page-book.ts) agrees with the bulk engine's totals after every step, on
 *   the teaching configs and on random small workloads in every heap format (fast-check): a trace whose
 *   book disagrees says so in `note`, so no note is the check.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StorageSpec } from '../src/config/spec.js';
import { loadConfig } from '../src/loader/config.js';
import type { PageDrawing } from '../src/mechanism/drawing.js';
import { pageFigures } from '../src/mechanism/svg.js';
import { traceRun, type TraceStep } from '../src/mechanism/trace.js';
import { ROOT } from './helpers/cli.js';
import { col, engine, storage, table } from './helpers/spec.js';

const TEACHING = join(ROOT, 'sim-configs', 'teaching');
const points = readdirSync(TEACHING)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) => loadConfig(join(TEACHING, f)).storage.map((p) => [`${f} ${p.label}`, p.spec] as [string, StorageSpec]));

/** The drawing of page p in a step, before or after. */
function drawn(s: TraceStep, p: number, when: 'before' | 'after'): PageDrawing {
  const d = s.pages.find((x) => x.page === p)?.[when];
  if (!d) throw new Error(`step ${s.step}: page ${p} ${when} is not drawn, though its sentence names it`);
  return d;
}

const entryAt = (d: PageDrawing, slot: number) => d.detail.slots.find((e) => e.slot === slot && e.count === undefined);

/** Every number of one sentence checked against the step's drawings; returns how many it checked and what disagreed. */
function checkLine(s: TraceStep, line: string): { checked: number; bad: string[] } {
  const bad: string[] = [];
  let checked = 0;
  const say = (ok: boolean, what: string) => {
    checked++;
    if (!ok) bad.push(`step ${s.step}: ${what} — "${line}"`);
  };
  const row = Number(/row (\d+)/.exec(line)?.[1] ?? NaN);
  let m = /page (\d+) has (\d+) B free(?: \((\d+) B for a new version after its (\d+) B line pointer\))?/.exec(line);
  if (m && !line.includes('PFS band') && !line.includes('PCTFREE')) {
    const f = pageFigures(drawn(s, +m[1]!, 'before').detail);
    say(f.free === +m[2]!, `free ${m[2]} B, the drawing ${f.free}`);
    if (m[3]) say(+m[3] === +m[2]! - +m[4]!, `${m[3]} B for a new version is not ${m[2]} less ${m[4]}`);
    if (!m[3]) say(f.holes === 0, `"free" alone, the drawing has ${f.holes} B in holes`);
  }
  m = /page (\d+) has (\d+) B contiguous and (\d+) B total free/.exec(line);
  if (m) {
    const f = pageFigures(drawn(s, +m[1]!, 'before').detail);
    say(f.contiguous === +m[2]! && f.free === +m[3]!, `${m[2]} contiguous / ${m[3]} free, the drawing ${f.contiguous} / ${f.free}`);
  }
  for (const t of line.matchAll(/(?:→ page|to page|at page|on page) (\d+) (slot|lp) (\d+)/g)) {
    const stub = line.slice(Math.max(0, t.index! - 30), t.index!).includes('stays');
    const e = entryAt(drawn(s, +t[1]!, 'after'), +t[3]!);
    say(
      e?.row === row && (stub ? e.kind === 'stub' : e.kind !== 'stub'),
      `page ${t[1]} ${t[2]} ${t[3]}: the drawing has ${e ? `${e.kind} of row ${e.row}` : 'nothing'} there`,
    );
  }
  m = /page (\d+) is compacted: (\d+) B of holes/.exec(line);
  if (m) say(pageFigures(drawn(s, +m[1]!, 'before').detail).holes === +m[2]!, `compaction of ${m[2]} B of holes`);
  m = /page (\d+) is pruned.*?(\d+) B freed/.exec(line);
  if (m) {
    const dead = drawn(s, +m[1]!, 'before')
      .detail.slots.filter((e) => e.kind === 'dead')
      .reduce((n, e) => n + e.bytes, 0);
    say(dead === +m[2]!, `prune frees ${m[2]} B, the drawing has ${dead} B dead`);
  }
  m = /page (\d+) has (\d+) B free, but its PFS band \((.+?)\) promises only/.exec(line);
  if (m) {
    const d = drawn(s, +m[1]!, 'before');
    say(
      pageFigures(d.detail).free === +m[2]! && d.band === m[3],
      `passed-over page: ${m[2]} B, ${m[3]}; drawn ${pageFigures(d.detail).free} B, ${d.band}`,
    );
  }
  return { checked, bad };
}

describe('the trace of every teaching config', () => {
  it.each(points)('%s: the page book agrees with the engine and every sentence with its drawings', (_name, spec) => {
    const trace = traceRun(spec, { steps: 1000 });
    // A clustered table (InnoDB) has no page book: its drawings are the engine's, in key order, and say so.
    const clustered = spec.engine.format === 'innodb';
    if (clustered) expect(trace.note).toBe('a clustered table: rows are drawn packed in key order, not at their byte positions');
    else expect(trace.note).toBeUndefined();
    expect(trace.truncated).toBe(false);
    const bad: string[] = [];
    let checked = 0;
    for (const s of trace.steps) {
      for (const p of s.pages) {
        expect(p.after.detail.positioned === true, `step ${s.step} page ${p.page}`).toBe(!clustered);
        if (p.before) expect(p.before.detail.positioned === true).toBe(!clustered);
      }
      for (const line of s.text.split('\n')) {
        const r = checkLine(s, line);
        checked += r.checked;
        bad.push(...r.bad);
      }
    }
    expect(bad, bad.join('\n')).toEqual([]);
    // Every insert and update names at least its page and slot: the checks ran.
    expect(checked).toBeGreaterThanOrEqual(trace.steps.filter((s) => s.op === 'insert' || s.op === 'update').length);
  });
});

describe('the page book against the engines', () => {
  const formats = ['ase-dol', 'ase-apl', 'sqlserver-heap', 'oracle-heap', 'postgres-heap'] as const;
  it('agrees with every heap engine after every step of random small workloads', { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...formats),
        fc.integer({ min: 5, max: 40 }),
        fc.integer({ min: 1, max: 400 }),
        fc.constantFrom('forwarded_rows', 'rebuild', 'vacuum', 'compact'),
        fc.integer({ min: 0, max: 1000 }),
        (format, rows, grow, reorg, seed) => {
          const pageSize = format === 'postgres-heap' || format === 'oracle-heap' || format === 'sqlserver-heap' ? 8192 : 2048;
          const spec = storage(
            table([col('id', 'int'), col('body', 'varchar(1500)', true)], [
              { name: 't_pk', columns: ['id'], unique: true, clustered: false },
            ] as StorageSpec['table']['indexes']),
            engine({ format, page_size: pageSize }),
            [
              { op: 'insert', rows: { kind: 'count', n: rows }, values: { body: { length: { kind: 'uniform', min: 10, max: 300 } } } },
              {
                op: 'update',
                rows: { kind: 'all' },
                order: { kind: 'random' },
                transaction: 'row',
                set: { body: { kind: 'length', dist: { kind: 'uniform', min: 5, max: 300 + grow } } },
              },
              { op: 'delete', rows: { kind: 'count', n: Math.floor(rows / 4) }, order: { kind: 'random' } },
              {
                op: 'update',
                rows: { kind: 'all' },
                order: { kind: 'random' },
                transaction: 'statement',
                set: { body: { kind: 'length', dist: { kind: 'uniform', min: 5, max: 300 + grow } } },
              },
              { op: 'reorg', kind: reorg },
            ] as unknown as StorageSpec['workload'],
          );
          const trace = traceRun({ ...spec, seed }, { steps: 10_000 });
          expect(trace.note).toBeUndefined();
        },
      ),
      { numRuns: 60, seed: 36 },
    );
  });
});
