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
 * itself, if not). `push` and `pop` stay O(log n) and nothing searches the heap. An owner that moves
 * one event often (a task whose speed changes) keeps its handle and calls `reschedule` instead: the
 * event moves in place (O(log n)), with the order a cancel-and-schedule gives, and the heap stays the
 * size of the pending events rather than of their history.
 *
 * Dense storage: the heap holds what ordering reads, times and keys (rank and seq packed into one
 * float64: `rank * 2^44 + seq`, exact up to 2^44 events and 256 ranks), and each event's slot; kinds,
 * stamps and payloads stay in their slot (recycled through a free list), so a sift moves three typed
 * arrays, not five. Reading an event allocates nothing: `next()` moves its fields into `time`, `kind`,
 * `payload` and `stamp`.
 */

const SEQ_SPAN = 2 ** 44;

/** Options of an `EventLoop`. */
export interface EventLoopOptions<T> {
  /** Rank of each event kind within an instant (index = kind; lower first). Absent: every kind ranks 0. Read once per array: do not change it afterwards. */
  ranks?: ArrayLike<number> | undefined;
  /**
   * Whether an event is still current (lazy cancellation). Absent: every event is handed out and the
   * owner checks `stamp` itself.
   */
  isLive?: ((kind: number, payload: T, stamp: number) => boolean) | undefined;
  /** Initial capacity (grows by doubling). */
  capacity?: number | undefined;
}

/** Rank tables already checked, by the `ranks` array they were made from (engines made per episode share one). */
const RANK_TABLES = new WeakMap<ArrayLike<number>, Float64Array | null>();

/** The heap keys' rank part of each kind (`rank * 2^44`), null when every rank is 0; checked once per `ranks` array. */
function rankTable(r: ArrayLike<number>): Float64Array | null {
  const known = RANK_TABLES.get(r);
  if (known !== undefined) return known;
  if (r.length > 256) throw new Error('EventLoop: at most 256 event kinds');
  let ranked = false;
  for (let k = 0; k < r.length; k++) {
    const v = r[k]!;
    if (!(Number.isInteger(v) && v >= 0 && v < 256)) throw new Error(`EventLoop: the rank of kind ${k} must be an integer in [0, 256), found ${v}`);
    if (v !== 0) ranked = true;
  }
  const table = ranked ? Float64Array.from(r, (v) => v * SEQ_SPAN) : null;
  RANK_TABLES.set(r, table);
  return table;
}

/** A heap of timed events (see the module comment). */
export class EventLoop<T> {
  /** The fields of the event `next()` took last. */
  time = Number.NaN;
  kind = -1;
  payload: T | undefined = undefined;
  stamp = 0;

  // the heap: what ordering reads (time, key) and the event's slot, moved together
  private times: Float64Array;
  private keys: Float64Array;
  private slots: Int32Array;
  // per slot: what only the event's owner reads, written once and never moved
  private stamps: Float64Array;
  private kinds: Uint8Array;
  private payloads: (T | undefined)[];
  /** Heap index of each slot's event, -1 for a free slot. */
  private pos: Int32Array;
  private freeSlots: Int32Array;
  private nFree: number;
  private n = 0;
  private seq = 0;
  private readonly rankOf: Float64Array | null;
  private readonly isLive: ((kind: number, payload: T, stamp: number) => boolean) | null;

  constructor(options: EventLoopOptions<T> = {}) {
    const cap = Math.max(16, options.capacity ?? 1024);
    this.times = new Float64Array(cap);
    this.keys = new Float64Array(cap);
    this.slots = new Int32Array(cap);
    this.stamps = new Float64Array(cap);
    this.kinds = new Uint8Array(cap);
    this.payloads = new Array<T | undefined>(cap).fill(undefined);
    this.pos = new Int32Array(cap).fill(-1);
    this.freeSlots = new Int32Array(cap);
    for (let i = 0; i < cap; i++) this.freeSlots[i] = cap - 1 - i;
    this.nFree = cap;
    this.rankOf = options.ranks ? rankTable(options.ranks) : null;
    this.isLive = options.isLive ?? null;
  }

  /** Events in the heap, stale ones included. */
  get size(): number {
    return this.n;
  }

  /**
   * Schedules `payload` as an event of `kind` (an integer in [0, 256)) at `time`, with `stamp`. Returns
   * the event's handle (for `reschedule`), valid until the event is taken or dropped.
   */
  schedule(time: number, kind: number, payload: T, stamp = 0): number {
    if (this.nFree === 0) this.grow();
    const slot = this.freeSlots[--this.nFree]!;
    this.stamps[slot] = stamp;
    this.kinds[slot] = kind;
    this.payloads[slot] = payload;
    const rank = this.rankOf !== null ? (this.rankOf[kind] ?? 0) : 0;
    this.siftUp(this.n++, time, rank + this.seq++, slot);
    return slot;
  }

  /**
   * Moves the pending event `handle` (from `schedule`) of `kind` and `payload` to `time` with `stamp`,
   * as if it were cancelled and scheduled anew (it takes the next seq: the order is the one lazy
   * cancellation gives, without the stale event left in the heap). False, and nothing changed, when
   * `handle` is no longer that event (taken, dropped, or -1): schedule a new one then.
   */
  reschedule(handle: number, kind: number, payload: T, time: number, stamp = 0): boolean {
    if (handle < 0 || handle >= this.pos.length) return false;
    const i = this.pos[handle]!;
    if (i < 0 || this.payloads[handle] !== payload || this.kinds[handle] !== kind) return false;
    this.stamps[handle] = stamp;
    const rank = this.rankOf !== null ? (this.rankOf[kind] ?? 0) : 0;
    const key = rank + this.seq++;
    // the new key is the largest: the event moves up only to an earlier time
    if (i > 0 && time < this.times[(i - 1) >> 1]!) this.siftUp(i, time, key, handle);
    else this.siftDown(i, time, key, handle);
    return true;
  }

  /** Time of the earliest event (stale events dropped first when `isLive` was given), Infinity when none. */
  peekTime(): number {
    if (this.isLive !== null) this.dropStale();
    return this.n > 0 ? this.times[0]! : Number.POSITIVE_INFINITY;
  }

  /** Kind of the earliest event (after `peekTime`), -1 when none. */
  peekKind(): number {
    return this.n > 0 ? this.kinds[this.slots[0]!]! : -1;
  }

  /**
   * Takes the earliest (live) event out: its fields are then in `time`, `kind`, `payload` and `stamp`.
   * False (fields unchanged) when there is none.
   */
  next(): boolean {
    if (this.isLive !== null) this.dropStale();
    if (this.n === 0) return false;
    this.time = this.times[0]!;
    this.take(this.slots[0]!);
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
    this.take(this.slots[0]!);
    this.removeTop();
    return true;
  }

  /** Removes every event. */
  clear(): void {
    for (let i = 0; i < this.n; i++) this.release(this.slots[i]!);
    this.n = 0;
  }

  /** Moves the event of `slot` into the public fields and frees the slot. */
  private take(slot: number): void {
    this.kind = this.kinds[slot]!;
    this.stamp = this.stamps[slot]!;
    this.payload = this.payloads[slot];
    this.release(slot);
  }

  private release(slot: number): void {
    this.payloads[slot] = undefined;
    this.pos[slot] = -1;
    this.freeSlots[this.nFree++] = slot;
  }

  private dropStale(): void {
    const live = this.isLive!;
    const slots = this.slots;
    while (this.n > 0) {
      const s = slots[0]!;
      if (live(this.kinds[s]!, this.payloads[s] as T, this.stamps[s]!)) return;
      this.release(s);
      this.removeTop();
    }
  }

  /** Removes the heap's top (its slot already released or taken). */
  private removeTop(): void {
    const last = --this.n;
    if (last === 0) return;
    this.siftDown(0, this.times[last]!, this.keys[last]!, this.slots[last]!);
  }

  /** Puts the event (`time`, `key`, `slot`) at heap index `i` or above it. */
  private siftUp(i: number, time: number, key: number, slot: number): void {
    const times = this.times;
    const keys = this.keys;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = times[p]!;
      if (pt < time || (pt === time && keys[p]! < key)) break;
      this.put(i, pt, keys[p]!, this.slots[p]!);
      i = p;
    }
    this.put(i, time, key, slot);
  }

  /** Puts the event (`time`, `key`, `slot`) at heap index `i` or below it, in a heap of `n` events. */
  private siftDown(i: number, time: number, key: number, slot: number): void {
    const times = this.times;
    const keys = this.keys;
    const n = this.n;
    const half = n >> 1;
    while (i < half) {
      let c = 2 * i + 1;
      const r = c + 1;
      if (r < n) {
        const ctm = times[c]!;
        const rt = times[r]!;
        if (rt < ctm || (rt === ctm && keys[r]! < keys[c]!)) c = r;
      }
      const ct = times[c]!;
      if (time < ct || (time === ct && key < keys[c]!)) break;
      this.put(i, ct, keys[c]!, this.slots[c]!);
      i = c;
    }
    this.put(i, time, key, slot);
  }

  /** Writes an event at heap index `i`. */
  private put(i: number, time: number, key: number, slot: number): void {
    this.times[i] = time;
    this.keys[i] = key;
    this.slots[i] = slot;
    this.pos[slot] = i;
  }

  /** Doubles the capacity: the heap and the slots (every slot in use when it is called). */
  private grow(): void {
    const old = this.times.length;
    const cap = old * 2;
    const t = new Float64Array(cap);
    t.set(this.times);
    this.times = t;
    const k = new Float64Array(cap);
    k.set(this.keys);
    this.keys = k;
    const sl = new Int32Array(cap);
    sl.set(this.slots);
    this.slots = sl;
    const ps = new Int32Array(cap).fill(-1);
    ps.set(this.pos);
    this.pos = ps;
    const s = new Float64Array(cap);
    s.set(this.stamps);
    this.stamps = s;
    const kd = new Uint8Array(cap);
    kd.set(this.kinds);
    this.kinds = kd;
    const pl = this.payloads;
    for (let i = old; i < cap; i++) pl.push(undefined);
    const fr = new Int32Array(cap);
    for (let i = 0; i < cap - old; i++) fr[i] = cap - 1 - i;
    this.freeSlots = fr;
    this.nFree = cap - old;
  }
}
