/**
 * Numbers as `Number#toLocaleString('en-US', { maximumFractionDigits })` writes them, without ICU.
 *
 * The first number a process formats through Intl loads ICU's number formatting: 20–35 ms of CPU on this
 * project's machine, paid by whichever thread of a `rowsim run` formats first (the simulating worker, in
 * a sweep: it builds the points' tables). rowsim formats numbers for people in one locale only, so it
 * writes them itself: test/numbers.test.ts compares this with Intl over random values.
 *
 * What Intl does and this does too: the value's shortest decimal form (what `String(v)` gives) is
 * rounded to at most `decimals` decimals, half away from zero (1.005 → "1.01", although the double is a
 * little below 1.005); trailing zeros go; the integer digits are grouped by threes with commas; a
 * negative value that rounds to zero, and −0, keep their sign ("-0"); NaN is "NaN" and the infinities
 * "∞" and "-∞".
 */

/** `v` with grouped digits and at most `decimals` decimals (default 3, Intl's), as en-US writes it. */
export function groupedNumber(v: number, decimals = 3): string {
  if (Number.isNaN(v)) return 'NaN';
  const sign = v < 0 || Object.is(v, -0) ? '-' : '';
  if (!Number.isFinite(v)) return `${sign}∞`;
  // Small integers, the common case: no decimals to round.
  if (Number.isInteger(v) && Math.abs(v) < 1e21) return sign + group(String(Math.abs(v)));
  const { digits, point } = decimalDigits(Math.abs(v));
  // digits × 10^(point − digits.length): the first `point` digits are the integer part.
  const keep = point + decimals;
  let d = digits;
  let p = point;
  if (keep < d.length) {
    if (keep < 0) {
      d = '0';
      p = 1;
    } else {
      const up = d.charCodeAt(keep) >= 53; // '5'
      d = d.slice(0, keep);
      if (up) {
        const r = increment(d);
        if (r.length > d.length) p++;
        d = r;
      }
      if (d === '') {
        d = '0';
        p = 1;
      }
    }
  }
  const intPart = p <= 0 ? '0' : d.length >= p ? d.slice(0, p) : d + '0'.repeat(p - d.length);
  const frac = (p < 0 ? '0'.repeat(-p) + d : d.slice(Math.max(0, p))).replace(/0+$/, '');
  return `${sign}${group(intPart.replace(/^0+(?=\d)/, ''))}${frac ? `.${frac}` : ''}`;
}

/** The shortest decimal digits of a positive finite `v` (no leading zeros) and where the point goes. */
function decimalDigits(v: number): { digits: string; point: number } {
  const s = String(v);
  const e = s.indexOf('e');
  const mantissa = e < 0 ? s : s.slice(0, e);
  const exp = e < 0 ? 0 : Number(s.slice(e + 1));
  const dot = mantissa.indexOf('.');
  const whole = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  let point = (dot < 0 ? mantissa.length : dot) + exp;
  // Leading zeros (0.00123): drop them, moving the point.
  let lead = 0;
  while (lead < whole.length - 1 && whole[lead] === '0') lead++;
  point -= lead;
  return { digits: whole.slice(lead), point };
}

/** A string of decimal digits plus one in its last place ("199" → "200", "99" → "100", "" → "1"). */
function increment(d: string): string {
  let i = d.length - 1;
  while (i >= 0 && d[i] === '9') i--;
  if (i < 0) return '1' + '0'.repeat(d.length);
  return d.slice(0, i) + String.fromCharCode(d.charCodeAt(i) + 1) + '0'.repeat(d.length - 1 - i);
}

/** Integer digits with a comma before every three from the right. */
function group(int: string): string {
  if (int.length <= 3) return int;
  const head = int.length % 3 || 3;
  let out = int.slice(0, head);
  for (let i = head; i < int.length; i += 3) out += ',' + int.slice(i, i + 3);
  return out;
}

/** Bytes as KB, MB or GB (binary units, as sp_spaceused and pg_size_pretty count). */
export function binarySize(bytes: number): string {
  const abs = Math.abs(bytes);
  if (abs >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
  if (abs >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024).toFixed(0)} KB`;
}
