/**
 * Universal Scalability Law fit (Gunther): X(N) = λ·N / (1 + σ(N − 1) + κ·N(N − 1)).
 * σ is contention (serialisation), κ coherency (crosstalk); κ = 0 is Amdahl's law. N is users or
 * engines. The fit minimises the squared relative error; for fixed (σ, κ) the best λ is closed form,
 * so the search is over (σ, κ) only: a log grid, then a shrinking pattern search. Deterministic.
 */
interface UslFit {
  lambda: number;
  sigma: number;
  kappa: number;
  /** Root-mean-square relative error of the fit, percent. */
  rms_error_pct: number;
}

function uslCapacity(n: number, sigma: number, kappa: number): number {
  return n / (1 + sigma * (n - 1) + kappa * n * (n - 1));
}

export function uslThroughput(fit: Pick<UslFit, 'lambda' | 'sigma' | 'kappa'>, n: number): number {
  return fit.lambda * uslCapacity(n, fit.sigma, fit.kappa);
}

/** N* = sqrt((1 − σ)/κ): the load of peak throughput (Infinity when κ = 0). */
export function uslPeak(fit: Pick<UslFit, 'sigma' | 'kappa'>): number {
  return fit.kappa > 0 ? Math.sqrt((1 - fit.sigma) / fit.kappa) : Infinity;
}

export function fitUsl(ns: readonly number[], xs: readonly number[]): UslFit {
  if (ns.length !== xs.length || ns.length === 0) throw new RangeError('fitUsl needs matching, non-empty N and X lists');
  const pts = ns.map((n, i) => [n, xs[i]!] as const).filter(([n, x]) => n > 0 && x > 0);
  if (pts.length === 0) return { lambda: 0, sigma: 0, kappa: 0, rms_error_pct: 0 };
  const allowKappa = pts.length >= 3;
  const allowSigma = pts.length >= 2;
  const evaluate = (sigma: number, kappa: number): { lambda: number; err: number } => {
    let a = 0;
    let b = 0;
    for (const [n, x] of pts) {
      const r = uslCapacity(n, sigma, kappa) / x;
      a += r;
      b += r * r;
    }
    const lambda = a / b;
    let err = 0;
    for (const [n, x] of pts) {
      const e = 1 - (lambda * uslCapacity(n, sigma, kappa)) / x;
      err += e * e;
    }
    return { lambda, err };
  };
  const sigmas = [0];
  if (allowSigma) for (let i = 0; i <= 60; i++) sigmas.push(Math.pow(10, -6 + i / 10));
  const kappas = [0];
  if (allowKappa) for (let i = 0; i <= 140; i++) kappas.push(Math.pow(10, -14 + i / 10));
  let best = { sigma: 0, kappa: 0, err: Infinity };
  for (const s of sigmas) {
    for (const k of kappas) {
      const { err } = evaluate(s, k);
      if (err < best.err) best = { sigma: s, kappa: k, err };
    }
  }
  // refine with Nelder–Mead in log10 space, free σ and κ, and with either one held at zero
  const toS = (v: number): number => Math.min(1, Math.pow(10, v));
  const variants: Array<{ dims: number; start: number[]; map: (v: number[]) => [number, number] }> = [];
  const ls = Math.log10(best.sigma || 1e-4);
  const lk = Math.log10(best.kappa || 1e-8);
  if (allowSigma && allowKappa) variants.push({ dims: 2, start: [ls, lk], map: (v) => [toS(v[0]!), Math.pow(10, v[1]!)] });
  if (allowKappa) variants.push({ dims: 1, start: [lk], map: (v) => [0, Math.pow(10, v[0]!)] });
  if (allowSigma) variants.push({ dims: 1, start: [ls], map: (v) => [toS(v[0]!), 0] });
  for (const variant of variants) {
    const f = (v: number[]): number => {
      const [sg, kp] = variant.map(v);
      return evaluate(sg, kp).err;
    };
    const v = nelderMead(f, variant.start, 0.3, 400);
    const [sg, kp] = variant.map(v);
    const err = evaluate(sg, kp).err;
    if (err < best.err) best = { sigma: sg, kappa: kp, err };
  }
  // values that vanish numerically are reported as zero (e.g. σ = 1e-18 means no contention term)
  for (const [sg, kp] of [[best.sigma < 1e-9 ? 0 : best.sigma, best.kappa < 1e-15 ? 0 : best.kappa]] as const) {
    const e = evaluate(sg, kp).err;
    if (e <= best.err * (1 + 1e-9) + 1e-300) best = { sigma: sg, kappa: kp, err: e };
  }
  const { lambda, err } = evaluate(best.sigma, best.kappa);
  return { lambda, sigma: best.sigma, kappa: best.kappa, rms_error_pct: 100 * Math.sqrt(err / pts.length) };
}

/** Nelder–Mead minimisation (standard coefficients), a bounded number of iterations. */
function nelderMead(f: (v: number[]) => number, start: number[], step: number, maxIter: number): number[] {
  const n = start.length;
  let simplex: Array<{ v: number[]; y: number }> = [{ v: start.slice(), y: f(start) }];
  for (let i = 0; i < n; i++) {
    const v = start.slice();
    v[i]! += step;
    simplex.push({ v, y: f(v) });
  }
  const combine = (a: number[], b: number[], t: number): number[] => a.map((x, i) => x + t * (b[i]! - x));
  for (let iter = 0; iter < maxIter; iter++) {
    simplex.sort((a, b) => a.y - b.y);
    const bestY = simplex[0]!.y;
    const worst = simplex[n]!;
    if (Math.abs(worst.y - bestY) <= 1e-14 * (Math.abs(bestY) + 1e-300)) break;
    const centroid = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i++) for (let d = 0; d < n; d++) centroid[d]! += simplex[i]!.v[d]! / n;
    const reflected = combine(centroid, worst.v, -1);
    const yr = f(reflected);
    if (yr < bestY) {
      const expanded = combine(centroid, worst.v, -2);
      const ye = f(expanded);
      simplex[n] = ye < yr ? { v: expanded, y: ye } : { v: reflected, y: yr };
    } else if (yr < simplex[n - 1]!.y) {
      simplex[n] = { v: reflected, y: yr };
    } else {
      const contracted = combine(centroid, worst.v, 0.5);
      const yc = f(contracted);
      if (yc < worst.y) simplex[n] = { v: contracted, y: yc };
      else {
        const b = simplex[0]!.v;
        simplex = simplex.map((p, i) => (i === 0 ? p : { v: combine(b, p.v, 0.5), y: f(combine(b, p.v, 0.5)) }));
      }
    }
  }
  simplex.sort((a, b) => a.y - b.y);
  return simplex[0]!.v;
}
