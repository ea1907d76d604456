/**
 * The event queue: a binary min-heap of (time_ns, task) pairs on typed arrays. No allocation after
 * construction. Each task has at most one pending event, so the capacity is the number of tasks, and
 * the heap keeps each task's position (`pos`) so that a pending event can be moved to another time
 * (`update`: a spinner whose spin limit is pending gets the lock first).
 *
 * Ties keep the element already at the root on top (sift-up moves only on a strictly smaller time), so
 * the current event can be rescheduled in place with replaceTop after other events were pushed at the
 * same instant.
 */
export class EventQueue {
  readonly capacity: number;
  private readonly times: Float64Array;
  private readonly ids: Int32Array;
  /** Heap index of each task's pending event, −1 when it has none. */
  private readonly pos: Int32Array;
  size = 0;

  constructor(capacity: number) {
    if (!(Number.isInteger(capacity) && capacity > 0)) throw new RangeError(`heap capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
    this.times = new Float64Array(capacity);
    this.ids = new Int32Array(capacity);
    this.pos = new Int32Array(capacity).fill(-1);
  }

  topTime(): number {
    return this.times[0]!;
  }

  topId(): number {
    return this.ids[0]!;
  }

  /** Does task `id` have a pending event? */
  has(id: number): boolean {
    return this.pos[id]! >= 0;
  }

  push(time: number, id: number): void {
    if (this.size >= this.capacity) throw new RangeError(`event heap full (${this.capacity}): a task has two pending events`);
    if (this.pos[id]! >= 0) throw new RangeError(`task ${id} already has a pending event`);
    const i = this.size;
    this.size = i + 1;
    this.siftUp(time, id, i);
  }

  /** Remove the root. */
  pop(): void {
    const n = this.size - 1;
    this.pos[this.ids[0]!] = -1;
    this.size = n;
    if (n > 0) this.siftDown(this.times[n]!, this.ids[n]!, 0, n);
  }

  /** Give the root a new time (it keeps its id) and restore the heap order. */
  replaceTop(time: number): void {
    this.siftDown(time, this.ids[0]!, 0, this.size);
  }

  /** Move task `id`'s pending event to `time`. */
  update(id: number, time: number): void {
    const i = this.pos[id]!;
    if (i < 0) throw new RangeError(`task ${id} has no pending event`);
    if (time < this.times[i]!) this.siftUp(time, id, i);
    else this.siftDown(time, id, i, this.size);
  }

  private siftUp(time: number, id: number, start: number): void {
    const times = this.times;
    const ids = this.ids;
    const pos = this.pos;
    let i = start;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = times[parent]!;
      if (pt <= time) break;
      times[i] = pt;
      const pid = ids[parent]!;
      ids[i] = pid;
      pos[pid] = i;
      i = parent;
    }
    times[i] = time;
    ids[i] = id;
    pos[id] = i;
  }

  private siftDown(time: number, id: number, start: number, n: number): void {
    const times = this.times;
    const ids = this.ids;
    const pos = this.pos;
    let i = start;
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
      const cid = ids[child]!;
      ids[i] = cid;
      pos[cid] = i;
      i = child;
    }
    times[i] = time;
    ids[i] = id;
    pos[id] = i;
  }
}
