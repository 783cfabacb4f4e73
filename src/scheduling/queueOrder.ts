/**
 * The queue orders a `PolicyScheduler` keeps for one engine (its job selection's `kind`, `selection.ts`):
 *
 * - `ArrivalOrder`: the engine's waiting queue itself (`fcfs`);
 * - `StaticOrder`: a key fixed at submission (`sjf`, `f1`, ...), or held between epochs (`multifactor`'s
 *   priority between `PriorityCalcPeriod` ticks): the queue kept sorted as jobs arrive and leave, by waiting slot
 *   (`WaitingQueue`), so that an arrival allocates nothing;
 * - `RecomputedOrder`: a key that depends on the time (`wfp3`, `unicep`, a random order), sorted again at each
 *   decision point.
 *
 * Each gives the first waiting job, the next `k` after it, and (where it knows it) the first one's queue
 * position, a hint for `startJob`.
 */
import { grown } from '../core/arrays.js';
import { ScratchIndexList, ScratchList } from '../core/scratchList.js';
import type { ClusterSimulator, JobRecord, RunningJob, SimulationListener } from '../execution/simulator.js';
import type { WaitingQueue } from '../execution/waitingQueue.js';
import type { Job } from '../workload/job.js';
import type { JobSelection } from './selection.js';
import { SortedList } from './sortedList.js';

/** A queue order maintained for one simulator. */
export interface QueueOrder {
  /** Called at the start of a decision point. */
  begin(sim: ClusterSimulator): void;
  /** The first waiting job in order, or undefined. */
  first(): Job | undefined;
  /**
   * Appends to `into` up to `k` waiting jobs in order, skipping `exclude`; an order that keeps its jobs' waiting
   * slots (`WaitingQueue`) appends each one's to `slots` when given (one that does not leaves it as it is).
   * (Lists kept by the caller: a pass that reads the queue at every decision point allocates nothing.)
   */
  after(exclude: Job, k: number, into: ScratchList<Job>, slots?: ScratchIndexList): void;
  /** The queue position (`WaitingQueue`) of the job `first()` gave, when known: a hint for `startJob` (undefined: it searches). */
  firstPosition(): number | undefined;
}

/** Arrival order: the simulator's queue itself. */
export class ArrivalOrder implements QueueOrder {
  private sim!: ClusterSimulator;
  begin(sim: ClusterSimulator): void {
    this.sim = sim;
  }
  first(): Job | undefined {
    return this.sim.queue.first();
  }
  firstPosition(): number | undefined {
    return this.sim.queue.start;
  }
  after(exclude: Job, k: number, into: ScratchList<Job>, slots?: ScratchIndexList): void {
    const q = this.sim.queue;
    for (let i = q.start, n = 0; i < q.end && n < k; i++) {
      const j = q.at(i);
      if (j && j !== exclude) {
        into.push(j);
        slots?.push(q.slotAt(i));
        n++;
      }
    }
  }
}

/** What a static order keeps of a waiting slot's job: nothing, keyed in its sorted list, or not keyed yet (an epoch's fresh job). */
const NOT_HELD = 0;
const KEYED = 1;
const FRESH = 2;

/**
 * A static key: the queue kept sorted as jobs arrive and leave. With an `epoch` selection the keys hold
 * between epochs and are taken at passes, as a recomputed order would take them: a job that arrived since
 * the last pass gets its key at the next, and the first pass of a new epoch re-keys every waiting job (one
 * sort per epoch, not one per pass).
 *
 * It keeps its jobs by their waiting slots (`WaitingQueue`): the sorted list holds slots, and each slot's key,
 * arrival rank and state are typed arrays, so that an arrival allocates nothing and the list's chunks hold no
 * pointers to young objects (no write barrier's remembered-set entry per store).
 */
export class StaticOrder implements QueueOrder, SimulationListener {
  /** Key of each slot's job (valid while `state` is `KEYED`). */
  private keys = new Float64Array(64);
  /** Arrival rank of each slot's job (ties of equal keys go by it). */
  private seqs = new Float64Array(64);
  /** `NOT_HELD`, `KEYED` or `FRESH` by slot. */
  private state = new Uint8Array(64);
  private readonly list = new SortedList<number>((a, b) => this.keys[a]! - this.keys[b]! || this.seqs[a]! - this.seqs[b]!);
  private seq = 0;
  /** `epoch` selections: the epoch of the keys, and the slots of the jobs not keyed yet. */
  private epoch = Number.NaN;
  private readonly fresh = new ScratchIndexList();
  /** The first slots in order `after` reads (one list, refilled at each call). */
  private readonly firsts = new ScratchIndexList();
  private readonly deferred: boolean;
  /**
   * The arrival rank of each running job, kept where partitions requeue their preempted jobs: a requeued job
   * goes back to its place among the jobs of its key and submission time, as Slurm orders it (null elsewhere:
   * it joins after them).
   */
  private readonly runningSeq: Map<Job, number> | null;
  private readonly queue: WaitingQueue;
  constructor(
    private readonly selection: JobSelection,
    sim: ClusterSimulator,
  ) {
    this.queue = sim.queue;
    this.deferred = selection.kind === 'epoch';
    this.runningSeq = sim.platform.partitions.some((p) => p.preemptMode === 'requeue') ? new Map() : null;
    sim.queue.forEach((j, slot) => {
      this.add(sim, j, slot, this.seq++);
    });
  }
  onSubmit(sim: ClusterSimulator, job: Job): void {
    this.add(sim, job, sim.queue.slotOf(job), this.seq++);
  }
  /** Enters waiting `job` (in waiting slot `slot`) with arrival rank `seq`. */
  private add(sim: ClusterSimulator, job: Job, slot: number, seq: number): void {
    if (slot >= this.state.length) this.grow(slot + 1);
    // (an order made during a submission's listeners holds that job already, `constructor`, and then hears of it)
    if (this.state[slot] !== NOT_HELD) return;
    this.seqs[slot] = seq;
    if (this.deferred) {
      this.state[slot] = FRESH;
      this.fresh.push(slot);
    } else {
      this.keys[slot] = this.selection.key(job, sim.now, sim.timeOrigin, slot);
      this.state[slot] = KEYED;
      this.list.insert(slot);
    }
  }
  private grow(n: number): void {
    const size = Math.max(n, this.state.length * 2);
    this.keys = grown(this.keys, size);
    this.seqs = grown(this.seqs, size);
    this.state = grown(this.state, size);
  }
  private remove(slot: number): void {
    const st = this.state[slot];
    this.state[slot] = NOT_HELD;
    if (st === KEYED) {
      // (a start by the queue's order takes its first job: a shift, not a search and a shift of its chunk)
      if (this.list.first() === slot) this.list.shift();
      else this.list.delete(slot);
    } else if (st === FRESH) this.fresh.remove(slot);
  }
  onStart(_sim: ClusterSimulator, rj: RunningJob): void {
    const slot = rj.waitingSlot;
    if (this.runningSeq !== null && this.state[slot] !== NOT_HELD) this.runningSeq.set(rj.job, this.seqs[slot]!);
    this.remove(slot);
  }
  /** A job left the system. */
  forgetRunning(job: Job): void {
    this.runningSeq?.delete(job);
  }
  /** A requeued job waits again: at its arrival rank where it is kept, else as a new submission. */
  requeue(sim: ClusterSimulator, job: Job): void {
    const seq = this.runningSeq?.get(job);
    this.runningSeq?.delete(job);
    this.add(sim, job, sim.queue.slotOf(job), seq ?? this.seq++);
  }
  onReject(sim: ClusterSimulator, rec: JobRecord): void {
    // (a job rejected at its submission never waited; one rejected from the queue holds its slot until its listeners ran)
    const slot = sim.queue.slotOf(rec.job);
    if (slot >= 0 && slot < this.state.length) this.remove(slot);
  }
  begin(sim: ClusterSimulator): void {
    if (!this.deferred) return;
    const ep = this.selection.epoch!(sim.now);
    const q = this.queue;
    const fresh = this.fresh;
    if (ep !== this.epoch) {
      this.epoch = ep;
      // the waiting jobs in the last epoch's order, then the ones not keyed yet: the new keys mostly keep
      // that order (age grows alike for all), which the sort's runs take in near-linear time
      const es = this.list.toArray();
      for (let i = 0; i < fresh.length; i++) es.push(fresh.at(i));
      for (const slot of es) {
        this.keys[slot] = this.selection.key(q.jobOf(slot)!, sim.now, sim.timeOrigin, slot);
        this.state[slot] = KEYED;
      }
      const keys = this.keys;
      const seqs = this.seqs;
      es.sort((a, b) => keys[a]! - keys[b]! || seqs[a]! - seqs[b]!);
      this.list.load(es);
      fresh.clear();
      return;
    }
    if (fresh.length === 0) return;
    for (let i = 0; i < fresh.length; i++) {
      const slot = fresh.at(i);
      this.keys[slot] = this.selection.key(q.jobOf(slot)!, sim.now, sim.timeOrigin, slot);
      this.state[slot] = KEYED;
      this.list.insert(slot);
    }
    fresh.clear();
  }
  first(): Job | undefined {
    const slot = this.list.first();
    return slot !== undefined ? this.queue.jobOf(slot)! : undefined;
  }
  firstPosition(): number | undefined {
    const slot = this.list.first();
    return slot !== undefined ? this.queue.positionOf(slot) : undefined;
  }
  after(exclude: Job, k: number, into: ScratchList<Job>, slots?: ScratchIndexList): void {
    if (k <= 0) return;
    // the first k + 1 slots hold the k jobs after `exclude` (it is one of them, or none is)
    const firsts = this.firsts;
    firsts.clear();
    this.list.firstInto(k + 1, firsts);
    const q = this.queue;
    for (let i = 0, n = 0; i < firsts.length && n < k; i++) {
      const slot = firsts.at(i);
      const job = q.jobOf(slot)!;
      if (job !== exclude) {
        into.push(job);
        slots?.push(slot);
        n++;
      }
    }
  }
}

/** A dynamic or random order: computed at each decision point; started jobs are skipped. */
export class RecomputedOrder implements QueueOrder {
  private order: Job[] = [];
  private pos = 0;
  private readonly started = new Set<Job>();
  constructor(private readonly selection: JobSelection) {}
  firstPosition(): number | undefined {
    return undefined;
  }
  begin(sim: ClusterSimulator): void {
    this.order = this.selection.order(sim.waiting, sim.now, sim.timeOrigin);
    this.pos = 0;
    this.started.clear();
  }
  markStarted(job: Job): void {
    this.started.add(job);
  }
  first(): Job | undefined {
    while (this.pos < this.order.length && this.started.has(this.order[this.pos]!)) this.pos++;
    return this.order[this.pos];
  }
  after(exclude: Job, k: number, into: ScratchList<Job>): void {
    for (let i = this.pos, n = 0; i < this.order.length && n < k; i++) {
      const j = this.order[i]!;
      if (j !== exclude && !this.started.has(j)) {
        into.push(j);
        n++;
      }
    }
  }
}
