/**
 * JSON that reads back exactly what was written. Plain JSON turns NaN and ±Infinity into null, -0 into 0,
 * drops properties whose value is undefined and writes a typed array as an object of indexes; here each of
 * these is written as a tagged object (`{"$rowsim": "NaN"}`, `{"$rowsim": "Float32Array", "values": […]}`)
 * and read back as it was. Numbers round-trip exactly (JSON writes the shortest text that reads back as the
 * same double). Only plain data is accepted: a Map, a Date, a class instance or a function is an error.
 * rowsim run's partial results (part.json, src/run/part.ts) are written this way.
 */

const TAG = '$rowsim';
const TYPED = [
  'Float32Array',
  'Float64Array',
  'Int8Array',
  'Int16Array',
  'Int32Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Uint16Array',
  'Uint32Array',
] as const;
type TypedName = (typeof TYPED)[number];
type Typed = Float32Array | Float64Array | Int8Array | Int16Array | Int32Array | Uint8Array | Uint8ClampedArray | Uint16Array | Uint32Array;

function encode(v: unknown, path: string): unknown {
  switch (typeof v) {
    case 'number':
      if (Number.isFinite(v) && !Object.is(v, -0)) return v;
      return { [TAG]: Object.is(v, -0) ? '-0' : String(v) };
    case 'undefined':
      return { [TAG]: 'undefined' };
    case 'string':
    case 'boolean':
      return v;
    case 'object':
      break;
    default:
      throw new Error(`exact JSON: cannot write a ${typeof v} at ${path || 'the top'}`);
  }
  if (v === null) return null;
  if (ArrayBuffer.isView(v)) {
    const name = v.constructor.name as TypedName;
    // Buffer is a Uint8Array of Node.js's: it reads back as a Uint8Array.
    const kind = v instanceof Uint8Array && name !== 'Uint8ClampedArray' ? 'Uint8Array' : name;
    if (!TYPED.includes(kind)) throw new Error(`exact JSON: cannot write a ${name} at ${path || 'the top'}`);
    return { [TAG]: kind, values: Array.from(v as Typed, (x, i) => encode(x, `${path}[${i}]`)) };
  }
  if (Array.isArray(v)) return Array.from(v, (x, i) => encode(x, `${path}[${i}]`));
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null)
    throw new Error(`exact JSON: cannot write a ${(v as object).constructor?.name ?? 'non-plain object'} at ${path || 'the top'}`);
  const out = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, encode(x, `${path}.${k}`)]));
  return TAG in (v as object) ? { [TAG]: 'object', value: out } : out;
}

function decode(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(decode);
  const o = v as Record<string, unknown>;
  if (TAG in o) {
    const tag = o[TAG];
    if (tag === 'undefined') return undefined;
    if (tag === 'NaN') return NaN;
    if (tag === 'Infinity') return Infinity;
    if (tag === '-Infinity') return -Infinity;
    if (tag === '-0') return -0;
    if (tag === 'object') return Object.fromEntries(Object.entries(o.value as Record<string, unknown>).map(([k, x]) => [k, decode(x)]));
    if (typeof tag === 'string' && (TYPED as readonly string[]).includes(tag) && Array.isArray(o.values)) {
      const values = o.values.map(decode) as number[];
      return new (globalThis[tag as TypedName] as unknown as new (values: number[]) => Typed)(values);
    }
    throw new Error(`exact JSON: unknown tag ${JSON.stringify(tag)}`);
  }
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, decode(x)]));
}

/** `value` as JSON text that exactParse reads back as the same value (NaN, -0, undefined and typed arrays included). */
export function exactStringify(value: unknown, space?: number): string {
  return JSON.stringify(encode(value, ''), null, space);
}

/** Read text written by exactStringify. Throws SyntaxError on text that is not JSON. */
export function exactParse(text: string): unknown {
  return decode(JSON.parse(text));
}
