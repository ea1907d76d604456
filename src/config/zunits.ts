/**
 * zod types for the config's units. A failed conversion becomes a zod issue whose message says what
 * was expected and what was found; the config loader adds file, line, column and key path.
 */
import { z } from 'zod';
import { parseCount, parseDurationNs, parseSize, type Count } from '../util/units.js';

function unit<T>(parse: (v: unknown) => T) {
  return z.union([z.string(), z.number()]).transform((value, ctx): T => {
    try {
      return parse(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message, input: value });
      return z.NEVER;
    }
  });
}

/** A size in bytes: 2048, `2k`, `8k`. */
export const zSize = () => unit<number>(parseSize);
/** A duration, resolved to nanoseconds: `250ns`, `5us`, `2ms`, `1s`. */
export const zDurationNs = () => unit<number>(parseDurationNs);
/** A row count: N, `20%` or `all`. */
export const zCount = () => unit<Count>(parseCount);
/** A positive whole number. */
export const zPosInt = () => z.number().int().positive();
/** A share in [0, 1]. */
export const zShare = () => z.number().min(0).max(1);
