/**
 * Typed-array helpers. Growable typed arrays for the page engine (struct-of-arrays): small arrays
 * double; arrays of more than a million elements grow by half, so the copy that briefly holds old and
 * new together stays within 2.5 times the data instead of 3 (a 100-million-row table's page arrays run to hundreds of MB).
 */
type NumArray = Int32Array | Uint16Array | Uint8Array | Float64Array | Uint32Array;

const DOUBLING_LIMIT = 1 << 20;

export function grown<T extends NumArray>(arr: T, minLength: number): T {
  if (arr.length >= minLength) return arr;
  let n = Math.max(16, arr.length);
  while (n < minLength) n = n < DOUBLING_LIMIT ? n * 2 : Math.ceil(n * 1.5);
  const next = new (arr.constructor as new (n: number) => T)(n);
  next.set(arr);
  return next;
}

/**
 * keys[0 … n − 1] sorted ascending in place (a typed array's sort: no comparator called per pair), then each
 * value once: the distinct values, a view of keys' start. A Map or Set of float keys took as long as the
 * rest of a checker's ranking.
 */
export function sortedDistinct(keys: Float64Array, n: number): Float64Array {
  keys.subarray(0, n).sort();
  let d = 0;
  for (let i = 0; i < n; i++) if (d === 0 || keys[i] !== keys[d - 1]) keys[d++] = keys[i]!;
  return keys.subarray(0, d);
}

/** In a sorted ascending: the first index whose value is ≥ x (a.length when there is none). */
export function lowerBound(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Bytes in base64, read in place (no copy of the bytes first). */
export function base64Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * In a[0 … n − 1], sorted ascending: the last index whose value is ≤ v (0 when there is none), the
 * answer a plain binary search gives. The search starts at `guess` (clamped) and steps out by doubling
 * until it brackets the answer, then halves: a good guess (an interpolation) reads a few entries near
 * it instead of log2(n) spread over the array.
 */
export function lastAtMost(a: Int32Array, n: number, v: number, guess: number): number {
  if (n <= 1) return 0;
  const g = guess < 0 ? 0 : guess >= n ? n - 1 : guess;
  let lo: number;
  let hi: number;
  if (a[g]! <= v) {
    lo = g;
    let step = 1;
    let p = g + 1;
    while (p < n && a[p]! <= v) {
      lo = p;
      step *= 2;
      p = g + step;
    }
    hi = p < n ? p - 1 : n - 1;
  } else {
    hi = g - 1;
    let step = 1;
    let p = g - 1;
    while (p >= 0 && a[p]! > v) {
      hi = p - 1;
      step *= 2;
      p = g - step;
    }
    lo = p > 0 ? p : 0;
  }
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (a[mid]! <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
