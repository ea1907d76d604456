/** Growable typed arrays for the page engine (struct-of-arrays, doubling growth). */
type NumArray = Int32Array | Uint16Array | Uint8Array | Float64Array | Uint32Array;

export function grown<T extends NumArray>(arr: T, minLength: number): T {
  if (arr.length >= minLength) return arr;
  let n = Math.max(16, arr.length);
  while (n < minLength) n *= 2;
  const next = new (arr.constructor as new (n: number) => T)(n);
  next.set(arr);
  return next;
}
