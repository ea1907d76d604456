/**
 * The pool runner's lanes (src/pool/scheduler.ts): which waiting task each thread takes. A thread at
 * home for sweep points does not take drawings while points may still come, and the drawing thread
 * does not take points, unless the points are large enough that warming up to them pays; one thread or
 * one kind is a plain pool. The whole runner on real threads is
 * checked by the runs with --workers 2 against --workers 1 (test/shard.test.ts, test/cli.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { LaneQueues, WARM_UP_MS } from '../src/pool/scheduler.js';
import type { TaskKind } from '../src/run/tasks.js';

const job = (kind: TaskKind, name: string) => ({ task: { kind, payload: name }, resolve() {}, reject() {} });
const name = (j: ReturnType<LaneQueues['take']>): string | undefined => (j ? String(j.task.payload) : undefined);

/**
 * Two lanes after a run's points: lane 0 ran the only point, lane 1 drew two page maps (the first cold, 300 ms; the
 * second `warmMs`), and the points are done; both lanes are idle at 300 + warmMs.
 */
function pointsDoneMapsDrawn(warmMs: number): LaneQueues {
  const q = new LaneQueues(2, ['run-point', 'run-render']);
  q.push(job('run-point', 'p1'), 0);
  expect(name(q.take(0, 0))).toBe('p1');
  q.push(job('run-render', 'm1'), 1);
  q.push(job('run-render', 'm2'), 1);
  expect(name(q.take(1, 0))).toBe('m1');
  q.finish(1, 300);
  expect(name(q.take(1, 300))).toBe('m2');
  q.finish(1, 300 + warmMs);
  q.done('run-point');
  q.finish(0, 300 + warmMs);
  return q;
}

describe('lanes', () => {
  it('two threads, points and drawings: one simulates, the other draws; neither takes the other kind while points may come', () => {
    const q = new LaneQueues(2, ['run-point', 'run-render']);
    expect([q.home(0), q.home(1)]).toEqual([['run-point'], ['run-render']]);
    for (const p of ['p1', 'p2', 'p3']) q.push(job('run-point', p), 0);
    expect(name(q.take(1, 0))).toBeUndefined();
    expect(name(q.take(0, 0))).toBe('p1');
    q.push(job('run-render', 'm1'), 1);
    q.push(job('run-render', 'm2'), 1);
    q.push(job('run-render', 'm3'), 1);
    // The drawings wait for their own thread, even with the point thread free and three waiting.
    expect(name(q.take(0, 0))).toBe('p2');
    expect(name(q.take(1, 0))).toBe('m1');
    expect(name(q.take(0, 0))).toBe('p3');
    expect(name(q.take(0, 0))).toBeUndefined();
    // No more points, but two drawings of unknown warm cost: not worth the point thread's cold start.
    q.done('run-point');
    expect(name(q.take(0, 0))).toBeUndefined();
    expect(name(q.take(1, 0))).toBe('m2');
  });

  it('once its points are done, a lane helps with a backlog that would keep the drawing thread WARM_UP_MS, with the second in line', () => {
    // The drawing thread: a first map of 300 ms, then 20 ms a map once warm.
    const q = pointsDoneMapsDrawn(20);
    const maps = Math.floor(WARM_UP_MS / 20) - 1;
    for (let i = 0; i < maps; i++) q.push(job('run-render', `n${i}`), 1);
    expect(name(q.take(0, 320))).toBeUndefined(); // 14 maps: 280 ms of the drawing thread's
    q.push(job('run-render', 'last'), 1);
    expect(name(q.take(0, 320))).toBe('n1'); // 15: 300 ms; the first in line is the drawing thread's
    expect(name(q.take(1, 320))).toBe('n0');
  });

  it("a helping lane leaves the first in line to the kind's own lane: the charts, ahead of the page maps, are drawn where chart.js is warm", () => {
    const q = pointsDoneMapsDrawn(100); // 100 ms a map once warm
    q.push(job('run-render', 'charts'), 2);
    q.push(job('run-render', 'm3'), 1);
    q.push(job('run-render', 'm4'), 1);
    expect(name(q.take(0, 400))).toBe('m3');
    expect(name(q.take(1, 400))).toBe('charts');
    q.finish(0, 500);
    expect(name(q.take(0, 500))).toBeUndefined(); // one left: the drawing thread's
    q.finish(1, 600);
    expect(name(q.take(1, 600))).toBe('m4');
  });

  it('a lane is busy from the job it takes until that job finishes', () => {
    const q = new LaneQueues(2, ['run-point', 'run-render']);
    q.push(job('run-point', 'p1'), 0);
    expect(q.busy(0)).toBe(false);
    expect(name(q.take(0, 0))).toBe('p1');
    expect([q.busy(0), q.busy(1)]).toEqual([true, false]);
    q.finish(0, 10);
    expect(q.busy(0)).toBe(false);
    // Nothing taken: not busy.
    expect(name(q.take(0, 10))).toBeUndefined();
    expect(q.busy(0)).toBe(false);
  });

  it('one thread, or one kind: a plain pool, highest priority first, in the order queued among equals', () => {
    for (const q of [new LaneQueues(1, ['run-point', 'run-render']), new LaneQueues(3, ['contention']), new LaneQueues(2, [])]) {
      q.push(job('run-point', 'a'), 0);
      q.push(job('run-render', 'b'), 1);
      q.push(job('run-point', 'c'), 1);
      q.push(job('contention', 'd'), 0);
      const lanes = q.lanes;
      expect([0, 1, 2, 3].map((i) => name(q.take(i % lanes, 0)))).toEqual(['b', 'c', 'a', 'd']);
    }
  });

  it('a kind no thread is at home for goes to any thread', () => {
    const q = new LaneQueues(2, ['run-point', 'run-render']);
    q.push(job('contention', 'r1'), 0);
    q.push(job('contention', 'r2'), 0);
    expect([name(q.take(1, 0)), name(q.take(0, 0))]).toEqual(['r1', 'r2']);
  });

  it('more threads than kinds: the kinds dealt round; fewer: several kinds a thread', () => {
    const three = new LaneQueues(3, ['run-point', 'run-render']);
    expect([0, 1, 2].map((i) => three.home(i))).toEqual([['run-point'], ['run-render'], ['run-point']]);
    three.push(job('run-point', 'p1'), 0);
    three.push(job('run-point', 'p2'), 0);
    expect([name(three.take(1, 0)), name(three.take(2, 0)), name(three.take(0, 0))]).toEqual([undefined, 'p1', 'p2']);
    const two = new LaneQueues(2, ['run-point', 'run-render', 'contention']);
    expect([two.home(0), two.home(1)]).toEqual([['run-point', 'contention'], ['run-render']]);
  });

  it('small points stay on their thread: a first point of 330 ms (its warm-up included) and warm ones of 40 ms', () => {
    const q = new LaneQueues(2, ['run-point', 'run-render']);
    for (let i = 1; i <= 7; i++) q.push(job('run-point', `p${i}`), 0);
    expect(name(q.take(0, 0))).toBe('p1');
    expect(name(q.take(1, 200))).toBeUndefined();
    q.finish(0, 330);
    expect(name(q.take(1, 330))).toBeUndefined();
    expect(name(q.take(0, 330))).toBe('p2');
    q.finish(0, 370);
    expect(name(q.take(1, 5000))).toBeUndefined();
  });

  it('large points are shared out: once the first has run WARM_UP_MS beyond a warm-up, or once a warm one took that long', () => {
    const q = new LaneQueues(2, ['run-point', 'run-render']);
    for (let i = 1; i <= 4; i++) q.push(job('run-point', `p${i}`), 0);
    expect(name(q.take(0, 0))).toBe('p1');
    expect(name(q.take(1, 2 * WARM_UP_MS - 1))).toBeUndefined();
    expect(name(q.take(1, 2 * WARM_UP_MS))).toBe('p2');
    // Both threads now know the kind; the drawing thread still takes its own first.
    q.push(job('run-render', 'm1'), 1);
    q.finish(1, 3000);
    q.push(job('run-point', 'p5'), 0);
    expect(name(q.take(1, 3000))).toBe('m1');
    q.finish(1, 3020);
    expect(name(q.take(1, 3020))).toBe('p3');
    // A warm run shorter than WARM_UP_MS: the kind is small after all, and stays home.
    const small = new LaneQueues(2, ['run-point', 'run-render']);
    for (let i = 1; i <= 4; i++) small.push(job('run-point', `p${i}`), 0);
    small.take(0, 0);
    small.finish(0, 2000);
    small.take(0, 2000);
    small.finish(0, 2000 + WARM_UP_MS - 1);
    expect(name(small.take(1, 9000))).toBeUndefined();
  });

  it('an idle lane with another kind waiting asks to be looked at again; a plain pool with nothing idle does not', () => {
    const q = new LaneQueues(2, ['run-point', 'run-render']);
    q.push(job('run-point', 'p1'), 0);
    q.push(job('run-point', 'p2'), 0);
    q.take(0, 0);
    expect(q.waitingForTime()).toBe(true);
    const plain = new LaneQueues(1, ['run-point', 'run-render']);
    plain.push(job('run-point', 'p1'), 0);
    plain.push(job('run-point', 'p2'), 0);
    plain.take(0, 0);
    expect(plain.waitingForTime()).toBe(false);
  });
});
