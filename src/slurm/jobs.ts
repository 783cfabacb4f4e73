/**
 * The job table of the Slurm engine: one slot per job in the system, every field a typed array
 * (struct of arrays), slots recycled when a job leaves, so memory follows the jobs in the system and
 * not the length of the workload (millions of jobs stream through a few MB).
 *
 * Suspend periods are kept as the seed's trace keeps them (sigsleep's `job_data` followed by its
 * `suspend_period` list, §3.3.1): a linked list per job of `(suspend, resume)` pairs, in flat arrays
 * with their own free list.
 */

import { JobPhase } from '../core/engine.js';

/**
 * Slurm's names of the job phases (the one enum, `JobPhase` of src/core/engine.ts), indexed by phase, for
 * outputs: a job preempted with `PreemptMode=SUSPEND` (cores released, resumed when they are free) is
 * `suspended`, one suspended by an operator (`scontrol suspend`: cores kept, resumed at the timed event)
 * is `op_suspended`, a job refused at submission (partition limits) is `refused`.
 */
export const STATE_NAMES: readonly string[] = (() => {
  const names: string[] = [];
  names[JobPhase.None] = 'free';
  names[JobPhase.Waiting] = 'pending';
  names[JobPhase.Running] = 'running';
  names[JobPhase.Suspended] = 'op_suspended';
  names[JobPhase.Preempted] = 'suspended';
  names[JobPhase.Resizing] = 'resizing';
  names[JobPhase.Completed] = 'completed';
  names[JobPhase.TimedOut] = 'timeout';
  names[JobPhase.Cancelled] = 'cancelled';
  names[JobPhase.Rejected] = 'refused';
  return names;
})();

function grow<T extends Float64Array | Int32Array | Uint8Array>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}

const COLUMNS = [
  'id',
  'submit',
  'timeLimit',
  'runTime',
  'start',
  'end',
  'executed',
  'lastResume',
  'suspendedAt',
  'priority',
  'opAfter',
  'opFor',
  'cores',
  'gpus',
  'gpuType',
  'user',
  'part',
  'qos',
  'group',
  'requeues',
  'ver',
  'runPos',
  'susHead',
  'susTail',
  'nSus',
  'state',
  'opDone',
  'backfilled',
  'listPos',
] as const;

/** Struct-of-arrays job table with recycled slots. */
export class JobTable {
  cap: number;
  id = new Float64Array(0);
  submit = new Float64Array(0);
  timeLimit = new Float64Array(0);
  runTime = new Float64Array(0);
  start = new Float64Array(0);
  end = new Float64Array(0);
  /** Run time accumulated in the current attempt (excludes suspended time). */
  executed = new Float64Array(0);
  /** When the current running stretch began. */
  lastResume = new Float64Array(0);
  /** Start of the current suspension. */
  suspendedAt = new Float64Array(0);
  priority = new Float64Array(0);
  /** Operator suspension: after this many seconds of run (-1: none), for `opFor` seconds. */
  opAfter = new Float64Array(0);
  opFor = new Float64Array(0);
  cores = new Int32Array(0);
  /** GPUs (`SlurmJobInput.gpus`) and their type (index into `SlurmPlatform.gpuTypes`, -1: any; issue 45). */
  gpus = new Int32Array(0);
  gpuType = new Int32Array(0);
  user = new Int32Array(0);
  part = new Int32Array(0);
  qos = new Int32Array(0);
  group = new Int32Array(0);
  requeues = new Int32Array(0);
  /** Version of the job's scheduled events (bumped when they become stale). */
  ver = new Int32Array(0);
  /** Index in the running list, -1 when not there. */
  runPos = new Int32Array(0);
  susHead = new Int32Array(0);
  susTail = new Int32Array(0);
  nSus = new Int32Array(0);
  state = new Uint8Array(0);
  /** 1 once the operator suspension happened. */
  opDone = new Uint8Array(0);
  /** 1 when the job's last start was made by a backfill pass (Slurm's `Scheduler=Backfill`). */
  backfilled = new Uint8Array(0);
  /**
   * The job's place in slurmctld's job list (`job_list`: a record is appended when the job is submitted and kept
   * through requeues): its arrival's rank, set when it arrives. The will-run test walks running jobs of equal
   * expected ends in this order (`WillRunJob.key`), as `_will_run_test`'s stable sort of that list does.
   */
  listPos = new Float64Array(0);
  private freeSlots: number[] = [];
  private used = 0;

  // suspend periods
  pSuspend = new Float64Array(0);
  pResume = new Float64Array(0);
  pNext = new Int32Array(0);
  private pFree: number[] = [];
  private pUsed = 0;

  constructor(initial = 1024) {
    this.cap = 0;
    this.resize(initial);
    this.resizePeriods(256);
  }

  private resize(n: number): void {
    const self = this as unknown as Record<string, Float64Array | Int32Array | Uint8Array>;
    for (const k of COLUMNS) self[k] = grow(self[k]!, n);
    this.cap = n;
  }

  private resizePeriods(n: number): void {
    this.pSuspend = grow(this.pSuspend, n);
    this.pResume = grow(this.pResume, n);
    this.pNext = grow(this.pNext, n);
  }

  /** A fresh slot (fields zeroed except the lists). */
  alloc(): number {
    let s = this.freeSlots.pop();
    if (s === undefined) {
      if (this.used === this.cap) this.resize(this.cap * 2);
      s = this.used++;
    }
    this.susHead[s] = -1;
    this.susTail[s] = -1;
    this.nSus[s] = 0;
    this.runPos[s] = -1;
    this.executed[s] = 0;
    this.requeues[s] = 0;
    this.opDone[s] = 0;
    this.start[s] = Number.NaN;
    this.end[s] = Number.NaN;
    this.group[s] = -1;
    // (a refused job never starts: a slot's last job's flag would be read as its own)
    this.backfilled[s] = 0;
    return s;
  }

  /** Releases a slot and its suspend periods. */
  release(s: number): void {
    this.clearPeriods(s);
    this.state[s] = JobPhase.None;
    this.ver[s] = (this.ver[s]! + 1) & 0xfffff;
    this.freeSlots.push(s);
  }

  /** Slots in use. */
  get live(): number {
    return this.used - this.freeSlots.length;
  }

  /** Opens a suspend period at `t`. */
  openPeriod(s: number, t: number): void {
    let p = this.pFree.pop();
    if (p === undefined) {
      if (this.pUsed === this.pSuspend.length) this.resizePeriods(this.pUsed * 2);
      p = this.pUsed++;
    }
    this.pSuspend[p] = t;
    this.pResume[p] = Number.NaN;
    this.pNext[p] = -1;
    if (this.susTail[s]! >= 0) this.pNext[this.susTail[s]!] = p;
    else this.susHead[s] = p;
    this.susTail[s] = p;
    this.nSus[s]! += 1;
  }

  /** Closes the open suspend period at `t`. */
  closePeriod(s: number, t: number): void {
    this.pResume[this.susTail[s]!] = t;
  }

  /** Drops the job's suspend periods (a requeued job starts a new record). */
  clearPeriods(s: number): void {
    for (let p = this.susHead[s]!; p >= 0; p = this.pNext[p]!) this.pFree.push(p);
    this.susHead[s] = -1;
    this.susTail[s] = -1;
    this.nSus[s] = 0;
  }

  /** The job's suspend periods as `[suspend, resume]` pairs. */
  periods(s: number): [number, number][] {
    const out: [number, number][] = [];
    for (let p = this.susHead[s]!; p >= 0; p = this.pNext[p]!) out.push([this.pSuspend[p]!, this.pResume[p]!]);
    return out;
  }

  /** Sum of `resume - suspend` over the job's periods (from the list, as calcmets reads it). */
  suspendedTime(s: number): number {
    let t = 0;
    for (let p = this.susHead[s]!; p >= 0; p = this.pNext[p]!) t += this.pResume[p]! - this.pSuspend[p]!;
    return t;
  }
}
