/**
 * The compiler's inlining budget (src/cli/compiler.ts): which flag rowsim's processes give V8, for which
 * work, and when they leave V8's own. The speed it buys is a bench figure (docs/performance.md), never
 * asserted here.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  describeInlining,
  INLINE_BUDGET_BYTES,
  inliningSetting,
  tuneCompiler,
  WIDE_INLINING_MIN_ROW_OPS,
  type CompilerContext,
} from '../src/cli/compiler.js';
import { UserError } from '../src/config/errors.js';
import type { PhaseSpec } from '../src/config/spec.js';
import { plannedRowOperations } from '../src/workload/planned-work.js';

function context(over: Partial<Omit<CompilerContext, 'setFlags'>> = {}): CompilerContext & { given: string[] } {
  const given: string[] = [];
  return { env: {}, execArgv: [], v8: '11.3.244.8-node.33', ...over, given, setFlags: (f) => given.push(f) };
}

const FLAG = `--max-inlined-bytecode-size-cumulative=${INLINE_BUDGET_BYTES}`;

describe('the inlining budget', () => {
  it('is given to V8 as one flag from WIDE_INLINING_MIN_ROW_OPS planned row operations on, not below', () => {
    expect(INLINE_BUDGET_BYTES).toBeGreaterThan(920);
    const large = context();
    expect(tuneCompiler(WIDE_INLINING_MIN_ROW_OPS, large)).toBe(true);
    expect(large.given).toEqual([FLAG]);
    for (const ops of [0, WIDE_INLINING_MIN_ROW_OPS - 1, Number.NaN]) {
      const small = context();
      expect(tuneCompiler(ops, small)).toBe(false);
      expect(small.given).toEqual([]);
    }
    expect(describeInlining(context())).toContain(`${INLINE_BUDGET_BYTES} bytes in a process of 10,000,000 row operations or more`);
  });

  it('ROWSIM_INLINING=wide gives it whatever the size; v8 never', () => {
    const wide = context({ env: { ROWSIM_INLINING: ' Wide ' } });
    expect(tuneCompiler(0, wide)).toBe(true);
    expect(wide.given).toEqual([FLAG]);
    expect(describeInlining(wide)).toContain('every process');
    const v8 = context({ env: { ROWSIM_INLINING: 'v8' } });
    expect(tuneCompiler(1e9, v8)).toBe(false);
    expect(v8.given).toEqual([]);
    expect(describeInlining(v8)).toContain("V8's own");
    expect(inliningSetting({ ROWSIM_INLINING: 'AUTO' })).toBe('auto');
    expect(inliningSetting({})).toBe('auto');
  });

  it('leaves a flag given to node by hand, and a V8 it does not know, as they are', () => {
    for (const c of [
      context({ env: { ROWSIM_INLINING: 'wide' }, execArgv: ['--max-inlined-bytecode-size-cumulative=500'] }),
      context({ execArgv: ['--max-inlined-bytecode-size-cumulative', '500'] }),
      context({ v8: '9.4.146.26-node.22' }),
      context({ v8: '14.0.1' }),
    ]) {
      expect(tuneCompiler(1e9, c)).toBe(false);
      expect(c.given).toEqual([]);
      expect(describeInlining(c)).not.toContain(`${INLINE_BUDGET_BYTES} bytes`);
    }
  });

  it('refuses a ROWSIM_INLINING it does not know, naming the variable and what it takes, before any flag is set', () => {
    const c = context({ env: { ROWSIM_INLINING: 'fast' } });
    expect(() => tuneCompiler(1e9, c)).toThrow(UserError);
    expect(() => tuneCompiler(1e9, c)).toThrow(/^ROWSIM_INLINING: expected auto .*, wide \(always\) or v8 \(V8's own\), found "fast"$/);
    expect(c.given).toEqual([]);
  });

  it('a bad ROWSIM_INLINING stops the command line with exit status 2 and one message, whatever the command', () => {
    for (const args of [['validate', 'sim-configs/quickstart.yaml'], ['--help']]) {
      const r = spawnSync(process.execPath, ['bin/rowsim.js', ...args], {
        encoding: 'utf8',
        env: { ...process.env, ROWSIM_INLINING: 'fast' },
      });
      expect(r.status).toBe(2);
      expect(r.stderr.trim()).toMatch(/^error: ROWSIM_INLINING: expected auto .*found "fast"$/);
      expect(r.stdout).toBe('');
    }
    const ok = spawnSync(process.execPath, ['bin/rowsim.js', 'validate', 'sim-configs/quickstart.yaml'], {
      encoding: 'utf8',
      env: { ...process.env, ROWSIM_INLINING: 'v8' },
    });
    expect(ok.status).toBe(0);
  });
});

describe('planned row operations', () => {
  const all = { kind: 'all' } as const;
  const random = { kind: 'random' } as const;
  it("count each phase's rows against the live rows at that point, a read as often as it repeats, a reorg's live rows", () => {
    const workload: PhaseSpec[] = [
      { op: 'insert', rows: { kind: 'count', n: 1000 }, values: {} },
      { op: 'update', rows: all, order: random, transaction: 'statement', set: {} },
      { op: 'delete', rows: { kind: 'percent', pct: 10 }, order: random, transaction: 'row' },
      { op: 'select', rows: { kind: 'count', n: 5000 }, order: random, via: 'scan', repeat: 3 },
      { op: 'reorg', kind: 'rebuild' },
      { op: 'insert', rows: { kind: 'percent', pct: 50 }, values: {} },
      { op: 'update', rows: { kind: 'count', n: 10 }, order: random, transaction: 'row', set: {} },
    ];
    // 1000 inserted; 1000 updated; 100 deleted (900 live); a read of at most the 900 live rows, 3 times;
    // the rebuild's 900; 450 inserted (1350 live); 10 updated.
    expect(plannedRowOperations(workload)).toBe(1000 + 1000 + 100 + 900 * 3 + 900 + 450 + 10);
    expect(plannedRowOperations([])).toBe(0);
  });
});
