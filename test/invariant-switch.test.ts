/**
 * The heap invariants in real runs: `run --check` or ROWSIM_CHECK=1 checks every page engine's
 * invariants after every phase. A broken invariant stops the run as an internal error; checking changes
 * no figure.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ForwardingHeap } from '../src/heap/forwarding-heap.js';
import { PostgresHeap } from '../src/heap/postgres-heap.js';
import { runStorage } from '../src/workload/runner.js';
import { ROOT, rowsim } from './helpers/cli.js';
import { col, engine, storage, table } from './helpers/spec.js';

const workload = storage(table([col('id', 'int'), col('body', 'varchar(200)', true)]), engine(), [
  { op: 'insert', rows: { kind: 'count', n: 500 }, values: { body: { length: { kind: 'const', value: 10 }, null: 0 } } },
  {
    op: 'update',
    rows: { kind: 'all' },
    order: { kind: 'random' },
    transaction: 'statement',
    set: { body: { kind: 'length', dist: { kind: 'const', value: 150 } } },
  },
]);

afterEach(() => vi.restoreAllMocks());

describe('the invariant switch', () => {
  it('checks after every phase when on, and a broken invariant stops the run naming the phase', () => {
    const spy = vi.spyOn(ForwardingHeap.prototype, 'checkInvariants');
    runStorage(workload, { checkInvariants: true });
    expect(spy).toHaveBeenCalledTimes(2);
    spy.mockReturnValue(['page 3: used bytes 2100 exceed the usable 2002']);
    expect(() => runStorage(workload, { checkInvariants: true })).toThrow(
      /invariants broken after phase 1 \(insert 500 rows\): page 3: used bytes 2100/,
    );
  });

  it('does not check when off (the default)', () => {
    const spy = vi.spyOn(ForwardingHeap.prototype, 'checkInvariants').mockReturnValue(['broken']);
    const other = vi.spyOn(PostgresHeap.prototype, 'checkInvariants');
    expect(() => runStorage(workload)).not.toThrow();
    expect(spy).not.toHaveBeenCalled();
    expect(other).not.toHaveBeenCalled();
  });

  it('run --check and ROWSIM_CHECK=1 give the figures of an unchecked run, byte for byte', () => {
    const config = join(ROOT, 'sim-configs', 'quickstart.yaml');
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-check-'));
    const results = (name: string, args: string[], env: Record<string, string> = {}) => {
      const out = join(dir, name);
      const r = rowsim(['run', config, '--out', out, '--quiet', '--workers', '1', ...args], ROOT, env);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      return readFileSync(join(out, 'results.json'), 'utf8');
    };
    const plain = results('plain', []);
    expect(results('flag', ['--check'])).toBe(plain);
    expect(results('env', [], { ROWSIM_CHECK: '1' })).toBe(plain);
  });
});
