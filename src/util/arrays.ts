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

/** Bytes in base64, read in place (no copy of the bytes first). */
export function base64Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
