import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { exactMva, machineRepairman, operationalBounds } from '../src/contention/mva.js';
import { fitUsl, uslPeak, uslThroughput } from '../src/contention/usl.js';
import { EventQueue } from '../src/contention/event-queue.js';

const rel = (a: number, b: number): number => Math.abs(a - b) / Math.abs(b);

describe('exact MVA with a load-dependent engine station', () => {
  it('equals the machine-repairman closed form M/M/N//U when there are no locks', () => {
    for (const [users, servers, d, z] of [
      [1, 1, 1000, 5000],
      [10, 1, 1000, 5000],
      [30, 4, 400e3, 2e6],
      [64, 4, 400e3, 2e6],
      [5000, 80, 194e3, 10e6],
    ] as const) {
      const mva = exactMva({ think_ns: z, engines: servers, engine_demand_ns: d, lock_demands_ns: [] }, users);
      const mr = machineRepairman(users, servers, d, z);
      expect(rel(mva.throughput_per_ns[users]!, mr.throughput_per_ns)).toBeLessThan(1e-9);
      expect(rel(mva.response_ns[users]!, mr.response_ns)).toBeLessThan(1e-6);
    }
  });

  it('reduces to single-server MVA with one engine (Reiser–Lavenberg recursion)', () => {
    const z = 3000;
    const demands = [700, 200, 50];
    const sol = exactMva({ think_ns: z, engines: 1, engine_demand_ns: demands[0]!, lock_demands_ns: demands.slice(1) }, 40);
    const q = [0, 0, 0];
    for (let n = 1; n <= 40; n++) {
      const r = demands.map((d, k) => d * (1 + q[k]!));
      const x = n / (z + r.reduce((a, b) => a + b, 0));
      r.forEach((rk, k) => (q[k] = x * rk));
      expect(rel(sol.throughput_per_ns[n]!, x)).toBeLessThan(1e-12);
    }
  });

  it('respects the operational bounds at every population', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1, max: 200 }),
        fc.double({ min: 10, max: 1e4, noNaN: true }),
        fc.double({ min: 0, max: 1e5, noNaN: true }),
        fc.array(fc.double({ min: 0, max: 500, noNaN: true }), { maxLength: 4 }),
        (engines, users, d, z, locks) => {
          const net = { think_ns: z, engines, engine_demand_ns: d, lock_demands_ns: locks };
          const sol = exactMva(net, users);
          const total = d + locks.reduce((a, b) => a + b, 0);
          for (let n = 1; n <= users; n++) {
            const b = operationalBounds({ ...net, total_demand_ns: total }, n);
            expect(sol.throughput_per_ns[n]! * 1e9).toBeLessThanOrEqual(b.throughput_tps * (1 + 1e-9));
            expect(sol.response_ns[n]!).toBeGreaterThanOrEqual(total * (1 - 1e-9));
          }
        },
      ),
      { numRuns: 60, seed: 42 },
    );
  });
});

describe('USL fit', () => {
  it('recovers λ, σ, κ from exact USL data', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 1e5, noNaN: true }),
        fc.double({ min: 0.001, max: 0.3, noNaN: true }),
        fc.double({ min: 1e-5, max: 1e-2, noNaN: true }),
        (lambda, sigma, kappa) => {
          const ns = [1, 2, 4, 8, 16, 32, 64];
          const xs = ns.map((n) => uslThroughput({ lambda, sigma, kappa }, n));
          const fit = fitUsl(ns, xs);
          expect(fit.rms_error_pct).toBeLessThan(0.5);
          for (const n of [1, 8, 64]) expect(rel(uslThroughput(fit, n), uslThroughput({ lambda, sigma, kappa }, n))).toBeLessThan(0.01);
        },
      ),
      { numRuns: 30, seed: 42 },
    );
  });

  it('gives κ = 0 for linear scaling and a finite peak for retrograde throughput', () => {
    const linear = fitUsl([1, 2, 4, 8], [10, 20, 40, 80]);
    expect(linear.sigma).toBeLessThan(1e-4);
    expect(linear.kappa).toBeLessThan(1e-6);
    const retro = fitUsl([1, 2, 4, 8, 16], [100, 180, 260, 250, 150]);
    expect(uslPeak(retro)).toBeGreaterThan(2);
    expect(uslPeak(retro)).toBeLessThan(16);
  });
});

describe('event heap', () => {
  it('pops in time order (a heap sort of random times)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1e9, noNaN: true }), { minLength: 1, maxLength: 300 }), (times) => {
        const h = new EventQueue(times.length);
        times.forEach((t, i) => h.push(t, i));
        const out: number[] = [];
        while (h.size > 0) {
          out.push(h.topTime());
          h.pop();
        }
        expect(out).toEqual([...times].sort((a, b) => a - b));
      }),
      { numRuns: 50, seed: 42 },
    );
  });

  it('takes events by (time, insertion sequence) through pushes, pops, replaceTop and update, like a sorted list', () => {
    // times from a few values, so that ties are frequent; ops: push an idle task, pop, replace the top, move a pending event
    const op = fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 11 }));
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 400 }), (ops) => {
        const tasks = 8;
        const q = new EventQueue(tasks);
        let list: { time: number; seq: number; id: number }[] = [];
        let seq = 0;
        let now = 0;
        const sorted = () => list.sort((a, b) => a.time - b.time || a.seq - b.seq);
        for (const [kind, task, delay] of ops) {
          const time = now + (delay % 4) * 10;
          if (kind === 0 && !q.has(task)) {
            q.push(time, task);
            list.push({ time, seq: seq++, id: task });
          } else if (kind === 1 && q.size > 0) {
            now = sorted()[0]!.time;
            q.pop();
            list.shift();
          } else if (kind === 2 && q.size > 0) {
            const top = sorted()[0]!;
            now = top.time;
            q.replaceTop(time);
            list = list.filter((e) => e !== top);
            list.push({ time, seq: seq++, id: top.id });
          } else if (kind === 3 && q.has(task)) {
            q.update(task, time);
            list = list.filter((e) => e.id !== task);
            list.push({ time, seq: seq++, id: task });
          }
          expect(q.size).toBe(list.length);
          if (list.length > 0) expect([q.topTime(), q.topId()]).toEqual([sorted()[0]!.time, sorted()[0]!.id]);
        }
      }),
      { numRuns: 200, seed: 7 },
    );
    // moved events leave tombstones in the ring: 8 tasks, 100 moves to ever later times grow it
    const q = new EventQueue(8);
    for (let t = 0; t < 8; t++) q.push(t, t);
    q.pop(); // the ring's head moves off its first slot
    q.push(7.5, 0);
    const moved = [2, 3, 4, 5, 6, 7, 0];
    for (let k = 0; k < 100; k++) q.update(moved[k % 7]!, 10 + k);
    const order: number[] = [];
    for (; q.size > 0; q.pop()) order.push(q.topId());
    expect(order).toEqual([1, 4, 5, 6, 7, 0, 2, 3]);
  });
});
