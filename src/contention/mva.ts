/**
 * Analytic checks of the simulation: exact Mean Value Analysis (Reiser–Lavenberg) of the closed
 * network — think time as a delay station, the N engines as one load-dependent station with rate
 * min(j, N)/D, each lock as a single-server FCFS station — the machine-repairman closed form
 * M/M/N//U, and the operational bounds. Pure functions.
 *
 * The load-dependent station's marginal probabilities p(j | n) are computed without subtraction:
 * p(j | n) = X(n)·D/min(j, N)·p(j−1 | n−1) for j ≥ 1 and p(0 | n) = X(n)/X₋(n)·p(0 | n−1), where X₋ is
 * the throughput of the network without the engines (Reiser's identity). The textbook normalisation
 * p(0 | n) = 1 − Σ… cancels catastrophically once 80 engines saturate.
 */
interface MvaNetwork {
  think_ns: number;
  engines: number;
  engine_demand_ns: number;
  lock_demands_ns: readonly number[];
}

interface MvaSolution {
  /** Throughput in transactions per ns at population n (index n; index 0 unused). */
  throughput_per_ns: Float64Array;
  /** Mean response time (ns) at population n. */
  response_ns: Float64Array;
}

/** Group equal demands: stations with the same demand have the same queue at every population. */
function groupDemands(demands: readonly number[]): { d: Float64Array; mult: Float64Array } {
  const map = new Map<number, number>();
  for (const x of demands) if (x > 0) map.set(x, (map.get(x) ?? 0) + 1);
  const keys = [...map.keys()].sort((a, b) => a - b);
  return { d: Float64Array.from(keys), mult: Float64Array.from(keys.map((k) => map.get(k)!)) };
}

export function exactMva(net: MvaNetwork, maxUsers: number): MvaSolution {
  if (!(Number.isInteger(maxUsers) && maxUsers >= 1)) throw new RangeError(`maxUsers must be a positive integer, got ${maxUsers}`);
  const Z = net.think_ns;
  const D = net.engine_demand_ns;
  const m = net.engines;
  const { d, mult } = groupDemands(net.lock_demands_ns);
  const K = d.length;
  // the network without the engines: think + locks
  const xMinus = new Float64Array(maxUsers + 1);
  const qc = new Float64Array(K);
  const complementEmpty = Z === 0 && K === 0;
  if (!complementEmpty) {
    for (let n = 1; n <= maxUsers; n++) {
      let r = Z;
      for (let k = 0; k < K; k++) r += mult[k]! * d[k]! * (1 + qc[k]!);
      const x = n / r;
      for (let k = 0; k < K; k++) qc[k] = x * d[k]! * (1 + qc[k]!);
      xMinus[n] = x;
    }
  }
  const X = new Float64Array(maxUsers + 1);
  const R = new Float64Array(maxUsers + 1);
  const q = new Float64Array(K);
  const p = new Float64Array(maxUsers + 1); // p[j] = p(j | n − 1)
  p[0] = 1;
  for (let n = 1; n <= maxUsers; n++) {
    let rEngine = 0;
    if (D > 0) {
      for (let j = 1; j <= n; j++) rEngine += (j <= m ? D : (j * D) / m) * p[j - 1]!;
    }
    let rLocks = 0;
    for (let k = 0; k < K; k++) rLocks += mult[k]! * d[k]! * (1 + q[k]!);
    const x = n / (Z + rEngine + rLocks);
    for (let k = 0; k < K; k++) q[k] = x * d[k]! * (1 + q[k]!);
    if (D > 0) {
      for (let j = n; j >= 1; j--) p[j] = ((x * D) / (j < m ? j : m)) * p[j - 1]!;
      p[0] = complementEmpty ? 0 : (x / xMinus[n]!) * p[0]!;
    }
    X[n] = x;
    R[n] = rEngine + rLocks;
  }
  return { throughput_per_ns: X, response_ns: R };
}

/**
 * M/M/N//U with think time: U users, exponential think Z, N servers with exponential service D.
 * Closed form over the number at the servers (computed in logs). Returns throughput per ns.
 */
export function machineRepairman(
  users: number,
  servers: number,
  service_ns: number,
  think_ns: number,
): { throughput_per_ns: number; response_ns: number } {
  if (!(think_ns > 0 && service_ns > 0)) throw new RangeError('machineRepairman needs think_ns > 0 and service_ns > 0');
  const logs: number[] = [];
  let logTerm = 0; // log of C(U, j)·j!/β(j)·(D/Z)^j with β(j) = j! (j ≤ N) or N!·N^(j−N)
  const r = Math.log(service_ns / think_ns);
  logs.push(0);
  for (let j = 1; j <= users; j++) {
    // term_j / term_{j−1} = (U − j + 1)·(D/Z) / min(j, N)
    logTerm += Math.log(users - j + 1) + r - Math.log(Math.min(j, servers));
    logs.push(logTerm);
  }
  const top = Math.max(...logs);
  let sum = 0;
  let busy = 0;
  for (let j = 0; j <= users; j++) {
    const w = Math.exp(logs[j]! - top);
    sum += w;
    busy += w * Math.min(j, servers);
  }
  const x = busy / sum / service_ns;
  return { throughput_per_ns: x, response_ns: users / x - think_ns };
}

export interface Bounds {
  /** min of the three. */
  throughput_tps: number;
  engines_tps: number;
  lock_tps: number;
  users_tps: number;
  binding: 'engines' | 'lock' | 'users';
}

/** Operational bounds: X ≤ min(N / D_engine, 1 / D_lock_max, U / (D + Z)). */
export function operationalBounds(net: MvaNetwork & { total_demand_ns: number }, users: number): Bounds {
  const perSec = 1e9;
  const enginesTps = net.engine_demand_ns > 0 ? (net.engines / net.engine_demand_ns) * perSec : Infinity;
  const maxLock = net.lock_demands_ns.reduce((a, b) => Math.max(a, b), 0);
  const lockTps = maxLock > 0 ? perSec / maxLock : Infinity;
  const usersTps = (users / (net.total_demand_ns + net.think_ns)) * perSec;
  const x = Math.min(enginesTps, lockTps, usersTps);
  const binding = x === usersTps ? 'users' : x === enginesTps ? 'engines' : 'lock';
  return { throughput_tps: x, engines_tps: enginesTps, lock_tps: lockTps, users_tps: usersTps, binding };
}
