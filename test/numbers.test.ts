/**
 * groupedNumber (src/util/numbers.ts) writes what Number#toLocaleString('en-US', { maximumFractionDigits })
 * writes, without ICU: compared with Intl itself over random values and the cases where rounding and
 * signs are decided.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { groupedNumber } from '../src/util/numbers.js';

const intl = (v: number, decimals = 3): string => v.toLocaleString('en-US', { maximumFractionDigits: decimals });

describe('groupedNumber', () => {
  it('the cases that decide rounding, grouping and signs, as Intl writes them', () => {
    const cases: [number, number][] = [];
    for (const v of [
      0,
      -0,
      1,
      -1,
      999,
      1000,
      -1000,
      999_999,
      1_000_000,
      123_456_789,
      2 ** 31,
      2 ** 53,
      1e21,
      1.5e21,
      -1e22,
      1.7976931348623157e308,
    ])
      cases.push([v, 3]);
    for (const v of [
      1.005, 0.125, 9.995, 999.9996, 99.995, -2.5, 2.5, 0.5, -0.5, 0.4, 0.0001, -0.0001, 0.006, 0.0006, 1.5e-7, -1.5e-7, 5e-324,
      123456789.987654, 0.045, 1234.5, 1e-3, 0.9999,
    ]) {
      for (const d of [0, 1, 2, 3]) cases.push([v, d]);
    }
    for (const [v, d] of cases) expect(groupedNumber(v, d), `${v} to ${d} decimals`).toBe(intl(v, d));
    expect(groupedNumber(Number.NaN)).toBe('NaN');
    expect(groupedNumber(Infinity)).toBe('∞');
    expect(groupedNumber(-Infinity)).toBe('-∞');
    // The default is Intl's: at most 3 decimals.
    expect(groupedNumber(1234.56789)).toBe('1,234.568');
  });

  it('random doubles, integers and values on a rounding edge, to 0–3 decimals: the same as Intl', () => {
    const value = fc.oneof(
      fc.double({ noNaN: true }),
      fc.double({ min: -1e7, max: 1e7, noNaN: true }),
      fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }),
      // k + 5 × 10^-(d+1): the half that rounds away from zero.
      fc.tuple(fc.integer({ min: -100_000, max: 100_000 }), fc.integer({ min: 1, max: 4 })).map(([k, e]) => k / 100 + 5 * 10 ** -(e + 2)),
    );
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 3 }), (v, d) => groupedNumber(v, d) === intl(v, d)),
      { numRuns: 20_000 },
    );
  });
});
