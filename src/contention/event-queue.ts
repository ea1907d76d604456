/**
 * The event queue: pending (time_ns, task) pairs taken in the order of (time, then insertion sequence),
 * so ties go first-in first-out and the order depends on nothing but the pushes. No allocation after
 * construction (the run's one growable ring aside). Each task has at most one pending event, and the
 * queue keeps where each task's event is, so that a pending event can be moved to another time
 * (`update`: a spinner whose spin limit is pending gets the lock first).
 *
 * Two structures hold the events, and the top is the lesser of their heads:
 * - a sorted ring: an event no earlier than the ring's last one is appended (O(1)). With constant
 *   service times most events are `now + the same delay` and arrive in time order, so they land here;
 * - a binary min-heap on typed arrays for the rest (short delays pushed behind long ones).
 * A moved event leaves a tombstone in the ring (skipped when it reaches the head).
 */
export class EventQueue {
  readonly capacity: number;
  private readonly times: Float64Array;
  private readonly seqs: Float64Array;
  private readonly ids: Int32Array;
  private heapSize = 0;
  // the sorted ring: slot k of a power-of-two ring; ids −1 are tombstones, never at the head
  private ringTimes: Float64Array;
  private ringSeqs: Float64Array;
  private ringIds: Int32Array;
  private ringMask: number;
  private ringHead = 0;
  private ringCount = 0;
  /**
   * Which head is first, as ringFirst found it: 1 the ring's, 0 the heap's, −1 not known. Kept until a
   * head changes (the event loop asks three times an event: its time, its id, its removal).
   */
  private first = -1;
  /** Where each task's event is: heap index ≥ 0, ring slot k as −2 − k, −1 when it has none. */
  private readonly pos: Int32Array;
  private seq = 0;
  /** Pending events. */
  size = 0;

  constructor(capacity: number) {
    if (!(Number.isInteger(capacity) && capacity > 0)) throw new RangeError(`heap capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
    this.times = new Float64Array(capacity);
    this.seqs = new Float64Array(capacity);
    this.ids = new Int32Array(capacity);
    this.pos = new Int32Array(capacity).fill(-1);
    let ring = 16;
    while (ring < capacity + 1) ring *= 2;
    this.ringTimes = new Float64Array(ring);
    this.ringSeqs = new Float64Array(ring);
    this.ringIds = new Int32Array(ring);
    this.ringMask = ring - 1;
  }

  /** Is the ring's head the first event (else the heap's root)? */
  private ringFirst(): boolean {
    if (this.first >= 0) return this.first === 1;
    let ring: boolean;
    if (this.ringCount === 0) ring = false;
    else if (this.heapSize === 0) ring = true;
    else {
      const rt = this.ringTimes[this.ringHead]!;
      const ht = this.times[0]!;
      ring = rt < ht || (rt === ht && this.ringSeqs[this.ringHead]! < this.seqs[0]!);
    }
    this.first = ring ? 1 : 0;
    return ring;
  }

  topTime(): number {
    return this.ringFirst() ? this.ringTimes[this.ringHead]! : this.times[0]!;
  }

  topId(): number {
    return this.ringFirst() ? this.ringIds[this.ringHead]! : this.ids[0]!;
  }

  /** Does task `id` have a pending event? */
  has(id: number): boolean {
    return this.pos[id]! !== -1;
  }

  push(time: number, id: number): void {
    if (this.size >= this.capacity) throw new RangeError(`event heap full (${this.capacity}): a task has two pending events`);
    if (this.pos[id]! !== -1) throw new RangeError(`task ${id} already has a pending event`);
    this.size++;
    this.insert(time, this.seq++, id);
  }

  /** Remove the first event. */
  pop(): void {
    if (this.ringFirst()) this.ringShift();
    else this.heapRemove(0);
    this.size--;
  }

  /** Give the first event a new time (a new place in the sequence: it keeps its id). */
  replaceTop(time: number): void {
    const s = this.seq++;
    if (this.ringFirst()) {
      const id = this.ringShift();
      this.insert(time, s, id);
    } else if (this.ringCount === 0 || time >= this.ringTimes[(this.ringHead + this.ringCount - 1) & this.ringMask]!) {
      const id = this.ids[0]!;
      this.heapRemove(0);
      this.ringAppend(time, s, id);
    } else this.siftDown(time, s, this.ids[0]!, 0, this.heapSize);
  }

  /** Move task `id`'s pending event to `time` (a new place in the sequence). */
  update(id: number, time: number): void {
    const p = this.pos[id]!;
    if (p === -1) throw new RangeError(`task ${id} has no pending event`);
    if (p >= 0) this.heapRemove(p);
    else {
      const k = -2 - p;
      this.ringIds[k] = -1;
      this.pos[id] = -1;
      if (k === this.ringHead) this.ringSkipTombstones();
    }
    this.insert(time, this.seq++, id);
  }

  private insert(time: number, seq: number, id: number): void {
    if (this.ringCount === 0 || time >= this.ringTimes[(this.ringHead + this.ringCount - 1) & this.ringMask]!)
      this.ringAppend(time, seq, id);
    else {
      const i = this.heapSize++;
      this.siftUp(time, seq, id, i);
    }
  }

  private ringAppend(time: number, seq: number, id: number): void {
    if (this.ringCount > this.ringMask) this.growRing();
    if (this.ringCount === 0) this.first = -1;
    const k = (this.ringHead + this.ringCount) & this.ringMask;
    this.ringTimes[k] = time;
    this.ringSeqs[k] = seq;
    this.ringIds[k] = id;
    this.pos[id] = -2 - k;
    this.ringCount++;
  }

  /** Take the ring's head off; returns its id. */
  private ringShift(): number {
    const id = this.ringIds[this.ringHead]!;
    this.pos[id] = -1;
    this.ringHead = (this.ringHead + 1) & this.ringMask;
    this.ringCount--;
    this.ringSkipTombstones();
    return id;
  }

  private ringSkipTombstones(): void {
    this.first = -1;
    while (this.ringCount > 0 && this.ringIds[this.ringHead]! < 0) {
      this.ringHead = (this.ringHead + 1) & this.ringMask;
      this.ringCount--;
    }
  }

  /** Twice the ring (tombstones can fill it): the slots move, so do their positions. */
  private growRing(): void {
    const n = this.ringMask + 1;
    const times = new Float64Array(2 * n);
    const seqs = new Float64Array(2 * n);
    const ids = new Int32Array(2 * n);
    for (let i = 0; i < this.ringCount; i++) {
      const k = (this.ringHead + i) & this.ringMask;
      times[i] = this.ringTimes[k]!;
      seqs[i] = this.ringSeqs[k]!;
      const id = this.ringIds[k]!;
      ids[i] = id;
      if (id >= 0) this.pos[id] = -2 - i;
    }
    this.ringTimes = times;
    this.ringSeqs = seqs;
    this.ringIds = ids;
    this.ringMask = 2 * n - 1;
    this.ringHead = 0;
  }

  /** Remove the heap's element at index i. */
  private heapRemove(i: number): void {
    if (i === 0) this.first = -1;
    this.pos[this.ids[i]!] = -1;
    const last = --this.heapSize;
    if (i === last) return;
    const time = this.times[last]!;
    const seq = this.seqs[last]!;
    const id = this.ids[last]!;
    const parent = (i - 1) >> 1;
    if (i > 0 && (time < this.times[parent]! || (time === this.times[parent]! && seq < this.seqs[parent]!))) this.siftUp(time, seq, id, i);
    else this.siftDown(time, seq, id, i, last);
  }

  private siftUp(time: number, seq: number, id: number, start: number): void {
    const times = this.times;
    const seqs = this.seqs;
    const ids = this.ids;
    const pos = this.pos;
    let i = start;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = times[parent]!;
      if (pt < time || (pt === time && seqs[parent]! < seq)) break;
      times[i] = pt;
      seqs[i] = seqs[parent]!;
      const pid = ids[parent]!;
      ids[i] = pid;
      pos[pid] = i;
      i = parent;
    }
    if (i === 0) this.first = -1;
    times[i] = time;
    seqs[i] = seq;
    ids[i] = id;
    pos[id] = i;
  }

  private siftDown(time: number, seq: number, id: number, start: number, n: number): void {
    const times = this.times;
    const seqs = this.seqs;
    const ids = this.ids;
    const pos = this.pos;
    if (start === 0) this.first = -1;
    let i = start;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      let ct = times[child]!;
      const right = child + 1;
      if (right < n) {
        const rt = times[right]!;
        if (rt < ct || (rt === ct && seqs[right]! < seqs[child]!)) {
          child = right;
          ct = rt;
        }
      }
      if (ct > time || (ct === time && seqs[child]! > seq)) break;
      times[i] = ct;
      seqs[i] = seqs[child]!;
      const cid = ids[child]!;
      ids[i] = cid;
      pos[cid] = i;
      i = child;
    }
    times[i] = time;
    seqs[i] = seq;
    ids[i] = id;
    pos[id] = i;
  }
}
