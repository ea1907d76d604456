/**
 * Universal Scalability Law fit (Gunther): X(N) = λ·N / (1 + σ(N − 1) + κ·N(N − 1)).
 * σ is contention (serialisation), κ coherency (crosstalk); κ = 0 is Amdahl's law. N is users or
 * engines. The fit minimises the squared relative error; for fixed (σ, κ) the best λ is closed form,
 * so the search is over (σ, κ) only: a log grid, then a shrinking pattern search. Deterministic.
 */
export interface UslFit {
  lambda: number;
  sigma: number;
  kappa: number;
  /** Root-mean-square relative error of the fit, percent. */
  rms_error_pct: number;
}

export function uslCapacity(n: number, sigma: number, kappa: number): number {
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
  // pattern search in log space (a zero coordinate stays zero unless a step away from it helps)
  let step = 0.1;
  for (let iter = 0; iter < 200 && step > 1e-6; iter++) {
    let improved = false;
    const candidates: Array<[number, number]> = [];
    for (const f of [Math.pow(10, step), Math.pow(10, -step)]) {
      if (allowSigma) candidates.push([Math.min(1, (best.sigma || 1e-7) * f), best.kappa]);
      if (allowKappa) candidates.push([best.sigma, (best.kappa || 1e-15) * f]);
    }
    for (const [s, k] of candidates) {
      const { err } = evaluate(s, k);
      if (err < best.err) {
        best = { sigma: s, kappa: k, err };
        improved = true;
      }
    }
    if (!improved) step /= 2;
  }
  const { lambda, err } = evaluate(best.sigma, best.kappa);
  return { lambda, sigma: best.sigma, kappa: best.kappa, rms_error_pct: 100 * Math.sqrt(err / pts.length) };
}
