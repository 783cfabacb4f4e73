/**
 * The queue of waiting jobs, in arrival order (see `WaitingQueue`).
 */
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
 */
export class WaitingQueue {
  private buf: (Job | null)[] = [];
  /** Union-find "next position still holding a job": `next[i] = i` where a job is, else a later position. */
  private next = new Int32Array(64);
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

  /** Appends an arriving job. */
  push(job: Job): void {
    const i = this.buf.length;
    if (i >= this.next.length) {
      const bigger = new Int32Array(this.next.length * 2);
      bigger.set(this.next);
      this.next = bigger;
    }
    this.next[i] = i;
    this.buf.push(job);
    this.length++;
    if (this.snapshot) this.snapshot.push(job);
  }

  /** Buffer position of `job`, or -1 (a scan from the front over the jobs: O(rank)). */
  indexOf(job: Job): number {
    const b = this.buf;
    for (let i = this.head; i < b.length; i = this.nextAt(i + 1)) if (b[i] === job) return i;
    return -1;
  }

  /** Removes the job at buffer position `i`. */
  removeAt(i: number): void {
    const b = this.buf;
    if (i < this.head || i >= b.length || b[i] === null) throw new Error(`WaitingQueue.removeAt(${i}): no job there`);
    b[i] = null;
    this.next[i] = i + 1;
    this.length--;
    this.snapshot = null;
    if (i === this.head) {
      const h = this.nextAt(i + 1);
      this.holes -= h - i - 1;
      this.head = h;
    } else this.holes++;
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
    for (let i = this.head; i < b.length; i = this.nextAt(i + 1)) out.push(b[i]!);
    this.buf = out;
    for (let i = 0; i < out.length; i++) this.next[i] = i;
    this.head = 0;
    this.holes = 0;
    this.generation++;
  }

  /** Calls `fn` on each waiting job in arrival order, in place (no snapshot; do not add or remove jobs meanwhile). */
  forEach(fn: (job: Job) => void): void {
    const b = this.buf;
    for (let i = this.head; i < b.length; i = this.nextAt(i + 1)) fn(b[i]!);
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
