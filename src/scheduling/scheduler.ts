/**
 * Batch schedulers: the policies that decide, at each decision point, which waiting jobs start and
 * where (DESIGN §4). A `Scheduler` is called by `runSimulation` after every `advance()` of the
 * simulator (a decision point: a time at which jobs wait and a job arrived or ended) and starts zero
 * or more jobs with `sim.startJob`.
 *
 * `PolicyScheduler` composes a job selection (the order of the queue), a resource selection with a
 * node fit (where a job goes) and a backfilling algorithm. At a decision point it
 * 1. orders the queue (the keys in `jobSelection.ts`; `queueOrder.ts` keeps each kind of order);
 * 2. starts jobs in that order while they fit; the first that does not fit is the HEAD;
 * 3. backfills around the head (`none`: stop there; `easy`: the head gets a reservation, later jobs
 *    that do not delay it start). With `conservative`, steps 2 and 3 are one pass: every job examined
 *    in order, the first included, gets (or keeps) a reservation, and those whose reservation is now
 *    start. See `backfilling.ts`.
 *
 * Head semantics. By default the queue is re-ordered at every decision point, as Slurm does: a job
 * that arrives with a better priority takes the place of the head. With `commitHead`, as RLScheduler
 * does, the job ranked first is COMMITTED: nothing overtakes it until it starts, whatever arrives (but
 * backfilling may run jobs around it); once it starts, the next job ranked first is committed. With
 * conservative backfilling the same choice applies to every reservation: re-ordering recomputes them
 * all in the current priority order at each decision point (Slurm's backfill pass), commit-head keeps
 * each as a commitment that later decisions never push back (Mu'alem & Feitelson's conservative
 * backfilling with compression).
 *
 * Instrumentation: `onReservation` is told every reservation made (the head's for EASY, every
 * examined job's for conservative), e.g. to check that a head never starts later than its reservation.
 */
import { derive, type Rng } from '../core/rng.js';
import { ScratchIndexList, ScratchList } from '../core/scratchList.js';
import type { ClusterSimulator } from '../execution/simulator.js';
import type { Job } from '../workload/job.js';
import { DEFAULT_MAX_JOB_TEST, easyReservation, isCountBased, RunningByEnd, type BackfillName, type EasyReservation } from './backfilling.js';
import { fcfsSelection, type JobSelection } from './jobSelection.js';
import type { NodeFit, ResourcePolicy } from './placement.js';
import { firstPolicy } from './resourceSelection.js';
import { CountProfile, NodeProfile, type NodePlan } from './profile.js';
import { ArrivalOrder, type QueueOrder, RecomputedOrder, StaticOrder } from './queueOrder.js';

export { fcfsSelection, type JobSelection } from './jobSelection.js';

/** A batch scheduling policy. */
export interface Scheduler {
  /** Name as given on the command line, e.g. `fcfs:first`. */
  readonly name: string;
  /** Starts zero or more waiting jobs at the current decision point. */
  schedule(sim: ClusterSimulator): void;
  /** Binds to `sim` now rather than at the first pass (a clock that runs the passes itself: `SlurmPassClock`). */
  attach?(sim: ClusterSimulator): void;
  /**
   * Called once before the run, before any submission, by a scheduler that wraps this one and binds it late
   * (`SlurmPassClock`): installs what this scheduler's model adds to the engine (an admission rule).
   */
  prepare?(sim: ClusterSimulator): void;
}

/**
 * A reservation made by a scheduler, for instrumentation. EASY reports the head's reservation when it
 * computes it; with `fcfs` and a count-based head it keeps it across decision points where only jobs
 * arrived (it cannot change then) and reports it again when it is recomputed.
 */
export interface ReservationEvent {
  job: Job;
  /** Time the reservation was made. */
  now: number;
  /** Reserved start time (the EASY shadow time; the conservative earliest start). */
  time: number;
  backfill: Exclude<BackfillName, 'none'>;
}

/** Options of a `PolicyScheduler`. */
export interface PolicySchedulerOptions {
  /** Job selection (default `fcfs`). */
  selection?: JobSelection;
  /** Resource selection (default `first`). */
  resources?: ResourcePolicy;
  /** Node fit for `seq` jobs (default `first_fit`). */
  fit?: NodeFit;
  /** Backfilling (default `none`). */
  backfill?: BackfillName;
  /** Commit the head (RLScheduler) instead of re-ordering at every decision point (Slurm). */
  commitHead?: boolean;
  /** Queued jobs examined after the head per decision point when backfilling (default 500). */
  maxJobTest?: number;
  /** Name to report (default `JOB:RESOURCE[+BACKFILL]`). */
  name?: string;
  /** Told of every reservation made. */
  onReservation?: (r: ReservationEvent) => void;
  /**
   * With arrival order (`fcfs`) and EASY, scan the simulator's queue in place and keep the head's
   * reservation across decision points where only jobs arrived (default true). `false` recomputes
   * everything at every decision point: the same decisions, slower (a reference for tests).
   */
  incrementalEasy?: boolean;
}

/** Job selection x resource selection x node fit x backfilling (see the module comment). */
export class PolicyScheduler implements Scheduler {
  readonly name: string;
  readonly selection: JobSelection;
  readonly resources: ResourcePolicy;
  readonly fit: NodeFit;
  readonly backfill: BackfillName;
  readonly commitHead: boolean;
  readonly maxJobTest: number;
  private readonly incrementalEasy: boolean;
  private readonly onReservation: ((r: ReservationEvent) => void) | undefined;

  private sim: ClusterSimulator | null = null;
  private order: QueueOrder | null = null;
  private index: RunningByEnd | null = null;
  private committed: Job | null = null;
  /** Counts job ends and starts made by others (invalidates the EASY cache). */
  private stamp = 0;
  /** The jobs a backfilling pass walks after the head (one list, refilled at each pass). */
  private readonly walk = new ScratchList<Job>();
  /** Set while this scheduler starts a job. */
  private starting = false;
  /** Conservative: the reservations of waiting jobs, kept from one decision point to the next. */
  private readonly reservations = new Map<Job, { time: number; duration: number; plan: NodePlan }>();
  /** Conservative: count profile until a job with a placement constraint is examined. */
  private profileKind: 'count' | 'node' = 'count';
  /** EASY reservation kept across decision points where only jobs arrived (FCFS). */
  private easyCache: { head: Job; stamp: number; res: EasyReservation; examined: number; resume: number; generation: number } | null = null;

  constructor(options: PolicySchedulerOptions = {}) {
    this.selection = options.selection ?? fcfsSelection;
    this.resources = options.resources ?? firstPolicy;
    this.fit = options.fit ?? 'first_fit';
    this.backfill = options.backfill ?? 'none';
    this.commitHead = options.commitHead ?? false;
    this.maxJobTest = options.maxJobTest ?? DEFAULT_MAX_JOB_TEST;
    if (!(Number.isInteger(this.maxJobTest) && this.maxJobTest >= 0)) throw new RangeError(`maxJobTest must be an integer >= 0, got ${this.maxJobTest}`);
    this.onReservation = options.onReservation;
    this.incrementalEasy = options.incrementalEasy ?? true;
    this.name = options.name ?? `${this.selection.name}:${this.resources.name}${this.backfill === 'none' ? '' : `+${this.backfill}`}`;
  }

  /** Binds to `sim` (on first use): listeners for the queue order, the running jobs and the committed head. */
  attach(sim: ClusterSimulator): void {
    if (this.sim === sim) return;
    this.sim = sim;
    this.selection.attach?.(sim);
    this.committed = null;
    this.easyCache = null;
    this.reservations.clear();
    this.profileKind = 'count';
    const k = this.selection.kind;
    let sorted: StaticOrder | null = null;
    if (k === 'arrival') this.order = new ArrivalOrder();
    else if (k === 'static' || k === 'epoch') this.order = sorted = new StaticOrder(this.selection, sim);
    else this.order = new RecomputedOrder(this.selection);
    const index = this.backfill !== 'none' ? new RunningByEnd(sim) : null;
    this.index = index;
    // one listener for the queue order, the running jobs, the committed head and the EASY cache
    sim.addListener({
      onSubmit: (s, job) => {
        if (this.sim === sim) sorted?.onSubmit(s, job);
      },
      onStart: (s, rj) => {
        if (this.sim !== sim) return;
        sorted?.onStart(s, rj);
        index?.onStart(s, rj);
        if (rj.job === this.committed) this.committed = null;
        if (this.reservations.size > 0) this.reservations.delete(rj.job);
        if (!this.starting) this.stamp++;
      },
      onEnd: (s, rec, rj) => {
        if (this.sim !== sim) return;
        index?.onEnd(s, rec, rj);
        sorted?.forgetRunning(rec.job);
        this.forget(rec.job);
      },
      onReject: (s, rec) => {
        if (this.sim !== sim) return;
        sorted?.onReject(s, rec);
        this.forget(rec.job);
      },
      // a requeued job waits again (`StaticOrder.requeue`)
      onRequeue: (s, rj) => {
        if (this.sim !== sim) return;
        sorted?.requeue(s, rj.job);
        this.stamp++;
      },
    });
  }

  /** A job left the system (ended or rejected): it is no longer committed nor reserved, and cached plans are stale. */
  private forget(job: Job): void {
    if (job === this.committed) this.committed = null;
    if (this.reservations.size > 0) this.reservations.delete(job);
    this.stamp++;
  }

  private start(sim: ClusterSimulator, job: Job, cores: Int32Array, queuePosition?: number): void {
    this.starting = true;
    try {
      sim.startJob(job, cores, { transfer: true, queuePosition });
    } finally {
      this.starting = false;
    }
    if (this.order instanceof RecomputedOrder) this.order.markStarted(job);
  }

  /** The head candidate: the committed job, or the first in order (committed when `commitHead`). */
  private nextHead(): Job | undefined {
    if (this.commitHead) {
      if (!this.committed) this.committed = this.order!.first() ?? null;
      return this.committed ?? undefined;
    }
    return this.order!.first();
  }

  /**
   * The first `k` waiting jobs in this scheduler's order now, into `into` (emptied first; the jobs Slurm's
   * backfill pass tests, `slurmBackfill.ts`). With `slots` (emptied first), the jobs' waiting slots
   * (`WaitingQueue`) when the order keeps them (arrival order, static and epoch keys; `slots` is left empty by a
   * recomputed order). The caller keeps both lists: a pass at every decision point allocates nothing.
   */
  inOrder(sim: ClusterSimulator, k: number, into: ScratchList<Job>, slots?: ScratchIndexList): void {
    into.clear();
    slots?.clear();
    if (sim.queue.length === 0 || k === 0) return;
    const first = this.firstInOrder(sim);
    if (first === undefined) return;
    const pos = slots !== undefined ? this.order!.firstPosition() : undefined;
    into.push(first);
    if (pos !== undefined) slots!.push(sim.queue.slotAt(pos));
    this.order!.after(first, k - 1, into, pos !== undefined ? slots : undefined);
  }

  /** The queue position of the job `firstInOrder` gave last, when its order knows it (a hint for `startJob`), else undefined. */
  firstQueuePosition(): number | undefined {
    return this.order?.firstPosition();
  }

  /** The first waiting job of `sim` in this policy's queue order (`inOrder(sim, 1)[0]`, without the array), or undefined. */
  firstInOrder(sim: ClusterSimulator): Job | undefined {
    if (sim.queue.length === 0) return undefined;
    this.attach(sim);
    const order = this.order!;
    order.begin(sim);
    return order.first();
  }

  schedule(sim: ClusterSimulator): void {
    if (sim.queue.length === 0) return;
    this.attach(sim);
    const order = this.order!;
    order.begin(sim);
    if (this.backfill === 'conservative') {
      // every job, the first included, starts only where it delays no reservation
      const first = this.nextHead();
      if (first) this.conservative(sim, first);
      return;
    }
    let head: Job | undefined;
    for (;;) {
      head = this.nextHead();
      if (!head) return;
      const cores = this.resources.place(sim, head, this.fit);
      if (!cores) break;
      this.start(sim, head, cores, this.commitHead ? undefined : this.order!.firstPosition());
    }
    if (this.backfill === 'easy') this.easy(sim, head);
  }

  private easy(sim: ClusterSimulator, head: Job): void {
    const now = sim.now;
    const arrival = this.incrementalEasy && this.order instanceof ArrivalOrder;
    const c = this.easyCache;
    let res: EasyReservation;
    let examined = 0;
    if (arrival && c && c.head === head && c.stamp === this.stamp && c.res.time > now) {
      // Nothing ended and nobody else started anything since the last decision point, with the same
      // count-based head: recomputing would give the same shadow time and the same extra cores
      // (less what long backfilled jobs took, which `consume` subtracted), and the jobs examined
      // then were rejected for reasons that still hold (free cores and extra only shrank, `now`
      // grew). Only the jobs not yet examined are. (A node-based head is recomputed every time: a
      // new computation may pick other nodes for it.)
      res = c.res;
      examined = c.examined;
    } else {
      res = easyReservation(sim, head, this.index!);
      this.onReservation?.({ job: head, now, time: res.time, backfill: 'easy' });
      this.easyCache = arrival && res.countBased ? { head, stamp: this.stamp, res, examined: 0, resume: 0, generation: -1 } : null;
    }
    if (res.time === Infinity) return;
    if (arrival) {
      // In place over the simulator's queue (buffer positions are stable while jobs leave): the head
      // is first, the jobs examined before (all rejected) follow it. The window is the first
      // `maxJobTest` jobs after the head as they are when the pass begins.
      const q = sim.queue;
      const cache = this.easyCache;
      let pos: number;
      if (cache && examined > 0 && cache.generation === q.generation) pos = cache.resume;
      else {
        pos = q.nextAt(q.start + 1);
        for (let seen = 0; seen < examined && pos < q.end; pos = q.nextAt(pos + 1)) seen++;
      }
      let budget = this.maxJobTest - examined;
      let free = sim.freeCores;
      for (pos = q.nextAt(pos); pos < q.end && budget > 0 && free > 0; pos = q.nextAt(pos + 1)) {
        const job = q.at(pos)!;
        budget--;
        if (job.ntasks > free || !this.tryBackfill(sim, job, res, pos)) examined++;
        else free = sim.freeCores;
      }
      if (cache) {
        cache.examined = examined;
        cache.resume = pos;
        cache.generation = q.generation;
      }
      return;
    }
    const after = this.walk;
    after.clear();
    this.order!.after(head, this.maxJobTest, after);
    for (let i = 0; i < after.length; i++) {
      if (sim.freeCores === 0) break;
      this.tryBackfill(sim, after.at(i), res);
    }
  }

  /** Tries to start `job` now without delaying the head's reservation `res`; returns whether it started. */
  private tryBackfill(sim: ClusterSimulator, job: Job, res: EasyReservation, queuePosition?: number): boolean {
    if (job.ntasks > sim.freeCores) return false;
    let cores: Int32Array | null;
    if (sim.now + job.reqTime <= res.time) {
      cores = this.resources.place(sim, job, this.fit);
      if (!cores) return false;
      this.start(sim, job, cores, queuePosition);
      return true;
    }
    if (res.countBased && job.ntasks > res.extra) return false;
    cores = this.resources.place(sim, job, this.fit, res.limit);
    if (!cores) return false;
    this.start(sim, job, cores, queuePosition);
    res.consume(sim, job, cores);
    return true;
  }

  private conservative(sim: ClusterSimulator, head: Job): void {
    const walk = this.walk;
    walk.clear();
    walk.push(head);
    this.order!.after(head, this.maxJobTest, walk);
    const jobs = walk.toArray();
    const now = sim.now;
    const kept = this.reservations;
    const countOnly = jobs.every((j) => isCountBased(sim, j));
    let switched: [Job, { time: number; duration: number }][] = [];
    if (!this.commitHead) {
      // Slurm: the reservations are plans, made again in the current priority order every time
      kept.clear();
      this.profileKind = countOnly ? 'count' : 'node';
    } else if (this.profileKind === 'count' && !countOnly) {
      // commitments: from now on placed on nodes; those made so far get nodes at their time
      this.profileKind = 'node';
      switched = [...kept].sort((x, y) => x[1].time - y[1].time);
      kept.clear();
    }
    if (this.profileKind === 'count') {
      const profile = new CountProfile(sim, this.index!);
      for (const [job, r] of kept) profile.reserve(r.time, r.duration, job.ntasks);
      for (const job of jobs) {
        const d = job.reqTime;
        const old = kept.get(job);
        if (old) profile.reserve(old.time, old.duration, -job.ntasks);
        const t = profile.earliest(job.ntasks, d);
        if (t <= now) {
          const cores = this.resources.place(sim, job, this.fit);
          if (cores) {
            this.start(sim, job, cores);
            profile.reserve(now, d, job.ntasks);
            continue;
          }
        }
        profile.reserve(t, d, job.ntasks);
        kept.set(job, { time: t, duration: d, plan: [] });
        this.onReservation?.({ job, now, time: t, backfill: 'conservative' });
      }
      return;
    }
    const profile = new NodeProfile(sim, this.index!);
    for (const [job, r] of kept) profile.reserve(job, r.plan, r.time, r.duration);
    for (const [job, r] of switched) {
      const plan = profile.planAt(job, Math.max(r.time, now), r.duration);
      if (!plan) continue; // (rare) no node set holds it there any more: it is reserved afresh below
      profile.reserve(job, plan, r.time, r.duration);
      kept.set(job, { time: r.time, duration: r.duration, plan });
    }
    for (const job of jobs) {
      const d = job.reqTime;
      const old = kept.get(job);
      if (old) profile.reserve(job, old.plan, old.time, old.duration, -1);
      const { time, plan } = profile.earliest(job, d);
      if (time <= now) {
        const cores = this.resources.place(sim, job, this.fit, profile.limit(d));
        if (cores) {
          this.start(sim, job, cores);
          profile.commit(job, cores, d);
          continue;
        }
      }
      profile.reserve(job, plan, time, d);
      kept.set(job, { time, duration: d, plan });
      this.onReservation?.({ job, now, time, backfill: 'conservative' });
    }
  }
}

/**
 * The classic list scheduler: orders the queue with a job-selection policy, then starts jobs in that
 * order while they fit, and stops at the first that does not (no backfilling).
 */
export class ListScheduler extends PolicyScheduler {
  constructor(selection: JobSelection = fcfsSelection, resources: ResourcePolicy = firstPolicy, fit: NodeFit = 'first_fit') {
    super({ selection, resources, fit });
  }
}

/** The `derive(seed, 'policy')` stream that random policies draw from. */
export function policyRng(seed: number | string): Rng {
  return derive(seed, 'policy');
}
