/**
 * The event loop of every engine: a binary min-heap of events ordered by `(time, rank of the event's
 * kind, seq)`.
 *
 * - **Time** first.
 * - **Kind rank** next: an engine declares the order of its event kinds within one instant (`ranks`,
 *   indexed by kind; lower first). An engine that processes the events of an instant in the order
 *   they were scheduled gives every kind the same rank (the default).
 * - **seq**, a strictly increasing insertion counter, last: two events of the same time and rank come
 *   out in the order they were scheduled. That is what makes a run bit-for-bit deterministic.
 *
 * **Lazy cancellation.** An event carries a *stamp* (a number the owner chooses: a job's version
 * counter, or the time the owner expects it at). Cancelling an event is changing the owner's current
 * stamp; the stale event stays in the heap and is dropped when it reaches the top, if the loop was
 * given an `isLive(kind, payload, stamp)` predicate (or handed to the owner, which checks `stamp`
 * itself, if not). `push` and `pop` stay O(log n) and nothing searches the heap.
 *
 * Dense storage: times, keys (rank and seq packed into one float64: `rank * 2^44 + seq`, exact up to
 * 2^44 events and 256 ranks), kinds and stamps live in parallel growable typed arrays; only the
 * payloads are an array of references. Reading an event allocates nothing: `next()` moves its
 * fields into `time`, `kind`, `payload` and `stamp`.
 */

const SEQ_SPAN = 2 ** 44;

/** Options of an `EventLoop`. */
export interface EventLoopOptions<T> {
  /** Rank of each event kind within an instant (index = kind; lower first). Absent: every kind ranks 0. */
  ranks?: ArrayLike<number> | undefined;
  /**
   * Whether an event is still current (lazy cancellation). Absent: every event is handed out and the
   * owner checks `stamp` itself.
   */
  isLive?: ((kind: number, payload: T, stamp: number) => boolean) | undefined;
  /** Initial capacity (grows by doubling). */
  capacity?: number | undefined;
}

/** A heap of timed events (see the module comment). */
export class EventLoop<T> {
  /** The fields of the event `next()` took last. */
  time = Number.NaN;
  kind = -1;
  payload: T | undefined = undefined;
  stamp = 0;

  private times: Float64Array;
  private keys: Float64Array;
  private stamps: Float64Array;
  private kinds: Uint8Array;
  private payloads: (T | undefined)[];
  private n = 0;
  private seq = 0;
  private readonly rankOf: Float64Array | null;
  private readonly isLive: ((kind: number, payload: T, stamp: number) => boolean) | null;

  constructor(options: EventLoopOptions<T> = {}) {
    const cap = Math.max(16, options.capacity ?? 1024);
    this.times = new Float64Array(cap);
    this.keys = new Float64Array(cap);
    this.stamps = new Float64Array(cap);
    this.kinds = new Uint8Array(cap);
    this.payloads = new Array<T | undefined>(cap);
    const r = options.ranks;
    if (r && r.length > 256) throw new Error('EventLoop: at most 256 event kinds');
    let ranked = false;
    if (r)
      for (let k = 0; k < r.length; k++) {
        const v = r[k]!;
        if (!(Number.isInteger(v) && v >= 0 && v < 256)) throw new Error(`EventLoop: the rank of kind ${k} must be an integer in [0, 256), found ${v}`);
        if (v !== 0) ranked = true;
      }
    this.rankOf = ranked ? Float64Array.from(r!, (v) => v * SEQ_SPAN) : null;
    this.isLive = options.isLive ?? null;
  }

  /** Events in the heap, stale ones included. */
  get size(): number {
    return this.n;
  }

  /** Schedules `payload` as an event of `kind` (an integer in [0, 256)) at `time`, with `stamp`. */
  schedule(time: number, kind: number, payload: T, stamp = 0): void {
    if (this.n === this.times.length) this.grow();
    const rank = this.rankOf !== null ? (this.rankOf[kind] ?? 0) : 0;
    const key = rank + this.seq++;
    let i = this.n++;
    const times = this.times;
    const keys = this.keys;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = times[p]!;
      if (pt < time || (pt === time && keys[p]! < key)) break;
      times[i] = pt;
      keys[i] = keys[p]!;
      this.stamps[i] = this.stamps[p]!;
      this.kinds[i] = this.kinds[p]!;
      this.payloads[i] = this.payloads[p];
      i = p;
    }
    times[i] = time;
    keys[i] = key;
    this.stamps[i] = stamp;
    this.kinds[i] = kind;
    this.payloads[i] = payload;
  }

  /** Time of the earliest event (stale events dropped first when `isLive` was given), Infinity when none. */
  peekTime(): number {
    if (this.isLive !== null) this.dropStale();
    return this.n > 0 ? this.times[0]! : Number.POSITIVE_INFINITY;
  }

  /** Kind of the earliest event (after `peekTime`), -1 when none. */
  peekKind(): number {
    return this.n > 0 ? this.kinds[0]! : -1;
  }

  /**
   * Takes the earliest (live) event out: its fields are then in `time`, `kind`, `payload` and `stamp`.
   * False (fields unchanged) when there is none.
   */
  next(): boolean {
    if (this.isLive !== null) this.dropStale();
    if (this.n === 0) return false;
    this.time = this.times[0]!;
    this.kind = this.kinds[0]!;
    this.stamp = this.stamps[0]!;
    this.payload = this.payloads[0];
    this.removeTop();
    return true;
  }

  /**
   * `next()` for the events of one instant: takes the earliest (live) event when its time is `t` and
   * returns true; otherwise takes nothing and returns false. One liveness check of the top per call
   * (`while (peekTime() === t) next()` makes two).
   */
  nextAt(t: number): boolean {
    if (this.isLive !== null) this.dropStale();
    if (this.n === 0 || this.times[0] !== t) return false;
    this.time = t;
    this.kind = this.kinds[0]!;
    this.stamp = this.stamps[0]!;
    this.payload = this.payloads[0];
    this.removeTop();
    return true;
  }

  /** Removes every event. */
  clear(): void {
    this.payloads.fill(undefined, 0, this.n);
    this.n = 0;
  }

  private dropStale(): void {
    const live = this.isLive!;
    while (this.n > 0 && !live(this.kinds[0]!, this.payloads[0] as T, this.stamps[0]!)) this.removeTop();
  }

  private removeTop(): void {
    const last = --this.n;
    const times = this.times;
    const keys = this.keys;
    if (last > 0) {
      const t = times[last]!;
      const k = keys[last]!;
      const st = this.stamps[last]!;
      const kd = this.kinds[last]!;
      const pl = this.payloads[last];
      let i = 0;
      const half = last >> 1;
      while (i < half) {
        let c = 2 * i + 1;
        const r = c + 1;
        if (r < last) {
          const ctm = times[c]!;
          const rt = times[r]!;
          if (rt < ctm || (rt === ctm && keys[r]! < keys[c]!)) c = r;
        }
        const ct = times[c]!;
        if (t < ct || (t === ct && k < keys[c]!)) break;
        times[i] = ct;
        keys[i] = keys[c]!;
        this.stamps[i] = this.stamps[c]!;
        this.kinds[i] = this.kinds[c]!;
        this.payloads[i] = this.payloads[c];
        i = c;
      }
      times[i] = t;
      keys[i] = k;
      this.stamps[i] = st;
      this.kinds[i] = kd;
      this.payloads[i] = pl;
    }
    this.payloads[last] = undefined;
  }

  private grow(): void {
    const cap = this.times.length * 2;
    const t = new Float64Array(cap);
    t.set(this.times);
    this.times = t;
    const k = new Float64Array(cap);
    k.set(this.keys);
    this.keys = k;
    const s = new Float64Array(cap);
    s.set(this.stamps);
    this.stamps = s;
    const kd = new Uint8Array(cap);
    kd.set(this.kinds);
    this.kinds = kd;
    this.payloads.length = cap;
  }
}
