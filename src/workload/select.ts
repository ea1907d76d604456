/**
 * Which rows a phase touches: a count of live rows in sequential, random, spread or zipf order.
 * Sequential, random and spread choose distinct rows; zipf draws with replacement, so hot rows are
 * updated again and again.
 */
import type { Order } from '../config/spec.js';
import type { Prng } from '../util/prng.js';
import { ZipfSampler } from './dist.js';

/**
 * Call `visit(row)` for `count` rows chosen from `live` (row ids in id order) in the given order.
 * `live` may be reordered in place.
 */
export function selectRows(live: Int32Array, count: number, order: Order, rng: Prng, visit: (row: number) => void): void {
  const n = live.length;
  if (n === 0 || count <= 0) return;
  switch (order.kind) {
    case 'sequential': {
      const k = Math.min(count, n);
      for (let i = 0; i < k; i++) visit(live[i]!);
      return;
    }
    case 'spread': {
      const k = Math.min(count, n);
      for (let i = 0; i < k; i++) visit(live[Math.floor((i * n) / k)]!);
      return;
    }
    case 'random': {
      const k = Math.min(count, n);
      for (let i = 0; i < k; i++) {
        const j = i + rng.int(n - i);
        const t = live[j]!;
        live[j] = live[i]!;
        live[i] = t;
        visit(t);
      }
      return;
    }
    case 'zipf': {
      const z = new ZipfSampler(n, order.s);
      // Scatter ranks over the table with a fixed bijection, so hot rows are not all on the first pages.
      const a = scatterMultiplier(n, rng);
      const b = rng.int(n);
      for (let i = 0; i < count; i++) {
        const rank = z.sample(rng) - 1;
        visit(live[(rank * a + b) % n]!);
      }
      return;
    }
  }
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** A multiplier coprime to n (so i → (i·a + b) mod n is a permutation), small enough for exact math. */
function scatterMultiplier(n: number, rng: Prng): number {
  if (n <= 2) return 1;
  const limit = Math.min(n - 1, Math.floor(Number.MAX_SAFE_INTEGER / n));
  for (let attempt = 0; attempt < 64; attempt++) {
    const a = 1 + rng.int(limit);
    if (gcd(a, n) === 1) return a;
  }
  return 1;
}
