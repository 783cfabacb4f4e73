/**
 * Event queue of the discrete-event engine: a binary min-heap ordered by `(time, seq)`.
 *
 * `seq` is a strictly increasing insertion counter, so two events at the same time come out
 * in the order they were pushed: that is what makes a run bit-for-bit deterministic.
 * Cancellation is lazy: the owner of an event keeps a version number and ignores events whose
 * version is stale when they are popped (see `ClusterSimulator`), which keeps `push` and `pop`
 * at O(log n) and avoids any search inside the heap.
 *
 * Times and sequence numbers live in parallel growable typed arrays (dense data, no per-event
 * object on the hot path besides the caller's payload).
 */
export class EventQueue<T> {
  private times: Float64Array;
  private seqs: Float64Array;
  private payloads: (T | undefined)[];
  private n = 0;
  private nextSeq = 0;

  constructor(initialCapacity = 1024) {
    this.times = new Float64Array(initialCapacity);
    this.seqs = new Float64Array(initialCapacity);
    this.payloads = new Array<T | undefined>(initialCapacity);
  }

  /** Number of events in the queue (including lazily cancelled ones). */
  get size(): number {
    return this.n;
  }

  /** Time of the earliest event, or `Infinity` when the queue is empty. */
  peekTime(): number {
    return this.n > 0 ? this.times[0]! : Infinity;
  }

  /** Payload of the earliest event, or `undefined` when the queue is empty. */
  peek(): T | undefined {
    return this.n > 0 ? this.payloads[0] : undefined;
  }

  /** Inserts `payload` at `time`; returns the sequence number it was given. */
  push(time: number, payload: T): number {
    if (this.n === this.times.length) this.grow();
    const seq = this.nextSeq++;
    let i = this.n++;
    // sift up
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = this.times[p]!;
      if (pt < time || (pt === time && this.seqs[p]! < seq)) break;
      this.times[i] = pt;
      this.seqs[i] = this.seqs[p]!;
      this.payloads[i] = this.payloads[p];
      i = p;
    }
    this.times[i] = time;
    this.seqs[i] = seq;
    this.payloads[i] = payload;
    return seq;
  }

  /** Removes and returns the earliest event's payload; throws on an empty queue. */
  pop(): T {
    if (this.n === 0) throw new Error('EventQueue.pop on an empty queue');
    const top = this.payloads[0] as T;
    const last = --this.n;
    if (last > 0) {
      const t = this.times[last]!;
      const s = this.seqs[last]!;
      const pl = this.payloads[last];
      let i = 0;
      const half = last >> 1;
      while (i < half) {
        let c = 2 * i + 1;
        const r = c + 1;
        if (r < last) {
          const ct = this.times[c]!;
          const rt = this.times[r]!;
          if (rt < ct || (rt === ct && this.seqs[r]! < this.seqs[c]!)) c = r;
        }
        const ct = this.times[c]!;
        if (t < ct || (t === ct && s < this.seqs[c]!)) break;
        this.times[i] = ct;
        this.seqs[i] = this.seqs[c]!;
        this.payloads[i] = this.payloads[c];
        i = c;
      }
      this.times[i] = t;
      this.seqs[i] = s;
      this.payloads[i] = pl;
    }
    this.payloads[last] = undefined;
    return top;
  }

  /** Removes every event. */
  clear(): void {
    this.payloads.fill(undefined, 0, this.n);
    this.n = 0;
  }

  private grow(): void {
    const cap = this.times.length * 2;
    const t = new Float64Array(cap);
    t.set(this.times);
    const s = new Float64Array(cap);
    s.set(this.seqs);
    this.times = t;
    this.seqs = s;
    this.payloads.length = cap;
  }
}
