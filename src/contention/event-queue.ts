/**
 * The event queue: a binary min-heap of (time_ns, task) pairs on typed arrays. No allocation after
 * construction. Each task has at most one pending event, so the capacity is the number of tasks.
 *
 * Ties keep the element already at the root on top (sift-up moves only on a strictly smaller time), so
 * the current event can be rescheduled in place with replaceTop after other events were pushed at the
 * same instant.
 */
export class EventQueue {
  readonly capacity: number;
  private readonly times: Float64Array;
  private readonly ids: Int32Array;
  size = 0;

  constructor(capacity: number) {
    if (!(Number.isInteger(capacity) && capacity > 0)) throw new RangeError(`heap capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
    this.times = new Float64Array(capacity);
    this.ids = new Int32Array(capacity);
  }

  topTime(): number {
    return this.times[0]!;
  }

  topId(): number {
    return this.ids[0]!;
  }

  push(time: number, id: number): void {
    const times = this.times;
    const ids = this.ids;
    let i = this.size;
    if (i >= this.capacity) throw new RangeError(`event heap full (${this.capacity}): a task has two pending events`);
    this.size = i + 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = times[parent]!;
      if (pt <= time) break;
      times[i] = pt;
      ids[i] = ids[parent]!;
      i = parent;
    }
    times[i] = time;
    ids[i] = id;
  }

  /** Remove the root. */
  pop(): void {
    const n = this.size - 1;
    this.size = n;
    if (n > 0) this.siftDown(this.times[n]!, this.ids[n]!, n);
  }

  /** Give the root a new time (it keeps its id) and restore the heap order. */
  replaceTop(time: number): void {
    this.siftDown(time, this.ids[0]!, this.size);
  }

  private siftDown(time: number, id: number, n: number): void {
    const times = this.times;
    const ids = this.ids;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      let ct = times[child]!;
      const right = child + 1;
      if (right < n) {
        const rt = times[right]!;
        if (rt < ct) {
          child = right;
          ct = rt;
        }
      }
      if (ct >= time) break;
      times[i] = ct;
      ids[i] = ids[child]!;
      i = child;
    }
    times[i] = time;
    ids[i] = id;
  }
}
