/**
 * The queue of waiting jobs, in arrival order, and their waiting slots (see `WaitingQueue`).
 */
import { grown } from '../core/arrays.js';
import type { Job } from '../workload/job.js';

/**
 * The waiting jobs in arrival order, built for long queues: a buffer with a moving head and holes,
 * so that removing a job near the front (the head, or a job backfilled from the first few hundred)
 * costs O(its position) instead of O(queue) — a JS array's `splice` copies the whole tail, and V8
 * stops trimming the front of arrays of more than ~16k elements in place, so `shift` becomes O(queue)
 * too. Holes are compacted away when they outnumber the jobs (amortised O(1) per removal).
 *
 * Positions (`start`..`end`, `at`) are buffer indices, stable while jobs arrive or leave; only a
 * compaction (`tidy`, called by the engine when time advances; `generation` counts them) changes
 * them. `at(i)` is null where a job left.
 *
 * **Waiting slots.** Each waiting job holds a slot, a small integer, from its arrival (`push` returns it) until
 * the engine frees it (`freeSlot`, after the listeners of its start or rejection ran); a freed slot is given to
 * a later arrival. The slots are dense (at most the jobs waiting at once, and those leaving now), so that what a
 * dimension keeps per waiting job (a priority, a place in an order) is an array indexed by slot, as what it keeps
 * per running job is indexed by the running slot (`RunningJob.slot`), rather than a map keyed by job, and a
 * job's buffer position is found from its slot in O(1) (`positionOf`), compactions included.
 */
export class WaitingQueue {
  private buf: (Job | null)[] = [];
  /** Union-find "next position still holding a job": `next[i] = i` where a job is, else a later position. */
  private next = new Int32Array(64);
  /** The slot of the job at each buffer position (valid where a job is). */
  private slotAtPos = new Int32Array(64);
  /** The buffer position of each slot's job (-1: it left the queue, or the slot is free). */
  private posOfSlot = new Int32Array(64).fill(-1);
  /** The job holding each slot (null: free). */
  private jobAtSlot: (Job | null)[] = [];
  /** Slots freed, given again to later arrivals (last freed first). */
  private freeSlots: number[] = [];
  private head = 0;
  private holes = 0;
  private snapshot: Job[] | null = [];
  /** Incremented when buffer positions change (compaction). */
  generation = 0;
  /** Number of waiting jobs. */
  length = 0;

  /** Buffer position of the first job (equal to `end` when empty). */
  get start(): number {
    return this.head;
  }

  /** One past the last buffer position. */
  get end(): number {
    return this.buf.length;
  }

  /** The job at buffer position `i`, or null where a job left. */
  at(i: number): Job | null {
    return this.buf[i] ?? null;
  }

  /** The first position `>= i` that holds a job (`end` when none); skips runs of holes in amortised O(1). */
  nextAt(i: number): number {
    const n = this.next;
    const end = this.buf.length;
    let r = i;
    while (r < end && n[r] !== r) r = n[r]!;
    // path compression
    while (i < end && n[i] !== i) {
      const up = n[i]!;
      n[i] = r;
      i = up;
    }
    return r;
  }

  /** The first waiting job. */
  first(): Job | undefined {
    return this.length > 0 ? this.buf[this.head]! : undefined;
  }

  /** Appends an arriving job; its waiting slot (module comment). */
  push(job: Job): number {
    const i = this.buf.length;
    if (i >= this.next.length) {
      this.next = grown(this.next, this.next.length * 2);
      this.slotAtPos = grown(this.slotAtPos, this.next.length);
    }
    let slot = this.freeSlots.pop();
    if (slot === undefined) {
      slot = this.jobAtSlot.length;
      this.jobAtSlot.push(job);
      if (slot >= this.posOfSlot.length) this.posOfSlot = grown(this.posOfSlot, this.posOfSlot.length * 2, -1);
    } else this.jobAtSlot[slot] = job;
    this.next[i] = i;
    this.slotAtPos[i] = slot;
    this.posOfSlot[slot] = i;
    this.buf.push(job);
    this.length++;
    if (this.snapshot) this.snapshot.push(job);
    return slot;
  }

  /** The waiting slot of the job at buffer position `i` (which must hold a job). */
  slotAt(i: number): number {
    return this.slotAtPos[i]!;
  }

  /** The buffer position of the job holding `slot`, or -1 when it left the queue. */
  positionOf(slot: number): number {
    return this.posOfSlot[slot]!;
  }

  /** The job holding `slot` (waiting, or leaving now), or null when the slot is free. */
  jobOf(slot: number): Job | null {
    return this.jobAtSlot[slot] ?? null;
  }

  /**
   * The slot `job` holds (waiting, or leaving now: until `freeSlot`), or -1: the last arrival's at once, else
   * a scan of the slots (O(slots); for callers that do not know it, which are rare).
   */
  slotOf(job: Job): number {
    const last = this.buf.length - 1;
    if (last >= this.head && this.buf[last] === job) return this.slotAtPos[last]!;
    return this.jobAtSlot.indexOf(job);
  }

  /** Frees `slot`, whose job left the queue (`removeAt`) and whose listeners ran: a later arrival may take it. */
  freeSlot(slot: number): void {
    if (this.jobAtSlot[slot] === null || this.posOfSlot[slot] !== -1) throw new Error(`WaitingQueue.freeSlot(${slot}): not a slot whose job left`);
    this.jobAtSlot[slot] = null;
    this.freeSlots.push(slot);
  }

  /** Buffer position of `job`, or -1 (a scan from the front over the jobs: O(rank)). */
  indexOf(job: Job): number {
    const b = this.buf;
    for (let i = this.head; i < b.length; i = this.nextAt(i + 1)) if (b[i] === job) return i;
    return -1;
  }

  /** Removes the job at buffer position `i`; its slot, which stays its own until `freeSlot`. */
  removeAt(i: number): number {
    const b = this.buf;
    if (i < this.head || i >= b.length || b[i] === null) throw new Error(`WaitingQueue.removeAt(${i}): no job there`);
    const slot = this.slotAtPos[i]!;
    this.posOfSlot[slot] = -1;
    b[i] = null;
    this.next[i] = i + 1;
    this.length--;
    this.snapshot = null;
    if (i === this.head) {
      const h = this.nextAt(i + 1);
      this.holes -= h - i - 1;
      this.head = h;
    } else this.holes++;
    return slot;
  }

  /**
   * Drops the holes when they outnumber the jobs (amortised O(1) per removal). The engine calls it
   * when time advances, so that positions stay stable within a decision point.
   */
  tidy(): void {
    if (this.head + this.holes > 1024 && this.head + this.holes > this.length) this.compact();
  }

  private compact(): void {
    const out: Job[] = [];
    const b = this.buf;
    const slots = this.slotAtPos;
    for (let i = this.head; i < b.length; i = this.nextAt(i + 1)) {
      // (positions only move down: a slot's new position is written over one already read)
      const k = out.length;
      const slot = slots[i]!;
      slots[k] = slot;
      this.posOfSlot[slot] = k;
      out.push(b[i]!);
    }
    this.buf = out;
    for (let i = 0; i < out.length; i++) this.next[i] = i;
    this.head = 0;
    this.holes = 0;
    this.generation++;
  }

  /** Calls `fn` on each waiting job (and its slot) in arrival order, in place (no snapshot; do not add or remove jobs meanwhile). */
  forEach(fn: (job: Job, slot: number) => void): void {
    const b = this.buf;
    const slots = this.slotAtPos;
    for (let i = this.head; i < b.length; i = this.nextAt(i + 1)) fn(b[i]!, slots[i]!);
  }

  /** The waiting jobs as an array (a snapshot, rebuilt after a removal). */
  toArray(): Job[] {
    if (!this.snapshot) {
      const out: Job[] = [];
      const b = this.buf;
      for (let i = this.head; i < b.length; i = this.nextAt(i + 1)) out.push(b[i]!);
      this.snapshot = out;
    }
    return this.snapshot;
  }
}
