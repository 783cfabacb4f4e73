/**
 * (Over 600 lines, on purpose: the event loop, the job lifecycle (start, end, suspension, preemption,
 * requeue) and the main scheduler share the engine's private state (event queue, running list, pending
 * order, timers). What stands alone is in its own module: the backfill planners (`backfill*.ts`), jobs on
 * specific nodes (`nodes.ts`), the priority formulas and usage ledger (`priority.ts`), the settings
 * (`config.ts`).)
 *
 * The Slurm engine: a discrete-event model of `slurmctld` on a `SlurmPlatform` (seed 004 §3, DESIGN
 * §10.4), sized for the seed's 57,600 cores and millions of jobs: jobs live in a recycled struct-of-arrays
 * table (`JobTable`), cores are counted per node group, and no event walks the platform.
 *
 * **Lifecycle.** A job is submitted (refused when its partition's limits forbid it), pends, starts on
 * `cores` cores of one group of its partition, and ends after `min(run time, time limit)` seconds of
 * *run*: reaching the time limit kills it (`Timeout`). It can be suspended and resumed; suspended time
 * is not run time, so, as sigsleep records it (§3.3.1), a job ends at
 *
 *     end = start + executed run time + sum over its suspend periods of (resume - suspend)
 *
 * and its record keeps the list of `(suspend, resume)` periods. Two sources of suspension:
 * - a timed operator event of the workload (`opAfter` seconds into the run, for `opFor` seconds:
 *   `scontrol suspend` / `scontrol resume`); the job keeps its cores;
 * - preemption with `PreemptMode=SUSPEND`: the job's cores go to the preemptor; it resumes (before any
 *   pending job of its partition is considered) as soon as its group has the cores again.
 *
 * **Preemption** (`PreemptType=preempt/partition_prio`): a pending job that does not fit may take the
 * cores of running jobs in partitions of lower `PriorityTier` whose `PreemptMode` is not `off`, in one
 * group of its partition; victims are taken lowest tier first, then the most recently started (least work
 * lost), until the job fits; nothing is preempted when even all candidates would not make room. Modes:
 * `suspend` (above), `requeue` (the job goes back to the queue; its next run starts from scratch and its
 * record is that of the last run, as sigsleep's log is), `cancel` (the job ends, `Cancelled`).
 *
 * **Scheduling** (https://slurm.schedmd.com/sched_config.html). The *main scheduler* runs after each
 * instant with events (submission, end, resume): it walks pending jobs in order (partition `PriorityTier`,
 * then priority, submit time, id; at most `queueDepth` jobs, Slurm's `default_queue_depth` = 100) and
 * starts each that fits; once a job of a partition is left pending, no other job of that partition is
 * started. The *backfill scheduler* (`sched/backfill`) runs every `bfInterval` s (default 30) when jobs
 * pend (after the main scheduler, once every other event of that instant is handled): one pass of the
 * planner the configuration chooses (`backfill.ts`: counted per group, whole nodes over expected ends, or
 * Slurm 22.05's will-run pass), which starts jobs now that do not delay the reservations of the jobs
 * before them and reserves the others' earliest starts within `bfWindow`.
 *
 * **Priority**: `priority.ts` (multifactor; usage accrues and decays every `PriorityCalcPeriod`, when
 * every pending job's priority is recomputed).
 *
 * **Slurm 22.05's behaviour** as measured against a live slurmctld (docs/slurm.md) is a set of options,
 * off by default so that seed 004's runs do not change and on when a slurm.conf is read
 * (`slurmConf.ts`): no scheduling at submission (`schedOnSubmit`), a periodic main pass
 * (`schedInterval`), the main pass queued by submissions and job ends and run by slurmctld's background
 * thread (`batchSchedDelay`; or a fixed delay after a job end, `schedDelay`, and `schedMinInterval`), backfill
 * on its own timer (`bfGrid`), bf_resolution on the absolute grid with floored ends (`bfSlurmRounding`),
 * reservations that hold idle nodes (`bfReserveIdle`), and, for whole-node allocation, jobs and backfill
 * reservations on specific nodes chosen by the select plugin's best fit over consecutive free nodes
 * (`nodeSelect`, `nodes.ts`; per-node state only then, `NodeMap`), with
 * the earliest start of a reservation found as the select plugin's will-run test finds it (`bfWillRun`).
 * Two more, kept at neutral values by slurm.conf: the background thread's tick phase (`bgTickPhase`) and the
 * share of job ends whose main pass runs at once, drawn per job (`endSchedShare`: in Slurm a race).
 */
import { InputError } from '../core/errors.js';
import { type DiscreteEventEngine, type EngineListener, JobPhase } from '../core/engine.js';
import { EventLoop } from '../core/eventLoop.js';
import { nextGridPoint } from '../core/grid.js';
import { type BackfillView, gpuFits } from './backfill.js';
import { CountedPlanner } from './backfillCounted.js';
import { NodeProfilePlanner } from './backfillNodes.js';
import { WillRunPlanner } from './backfillWillRun.js';
import {
  DEFAULT_SLURM,
  type EngineStats,
  type FinishListener,
  hashUnit,
  type SlurmConfig,
  type SlurmJobInput,
  type SlurmSchedulingChange,
  slurmConfigRefusal,
} from './config.js';
import { JobTable } from './jobs.js';
import { type NodeAlloc, NodeMap, type NodeRequest } from './nodes.js';
import type { SlurmPlatform } from './platform.js';
import { ageFactor, jobPriority, jobSizeFactor, jobSizeFactor22 } from './priority.js';
import { UsageLedger, UserLedger } from '../scheduling/userLedger.js';
import { measuredAfter, measuredTickFrom } from '../scheduling/slurmPassClock.js';

/** The engine's inputs and settings live in `config.ts`; their types are re-exported here for callers of the engine. */
export type { EngineStats, FinishListener, JobShape, SlurmConfig, SlurmJobInput, SlurmSchedulingChange } from './config.js';

/** Event kinds (`EventLoop` kinds; a job event carries its slot, stamped with the slot's version). */
const ARRIVAL = 0;
const END = 1;
const OP_SUSPEND = 2;
const OP_RESUME = 3;
const BACKFILL = 4;
const PRIO = 5;
const SCHED = 6;
const DEFER = 7;
/** A job's nodes leave `COMPLETING` (`SlurmJobInput.completing`). */
const RELEASE = 8;

/**
 * Observers of the engine: the engine listener of `core/engine.ts`, a job's handle being its slot in
 * `engine.jobs` (read its fields during the call: the slot is recycled once the job has left).
 */
export type SlurmListener = EngineListener<SlurmEngine, number>;

/** The discrete-event Slurm model. */
export class SlurmEngine implements DiscreteEventEngine, BackfillView {
  readonly jobs = new JobTable();
  readonly config: SlurmConfig;
  /** Users' decayed usage and shares (the one user ledger, src/scheduling/userLedger.ts). */
  readonly fairShare: UserLedger;
  /** Current time (s). */
  now = 0;
  /** Free cores per group. */
  readonly free: Float64Array;
  /**
   * Free GPUs per group (issue 45). A job asking for GPUs (`SlurmJobInput.gpus`) runs where they are free
   * beside its cores: counted per group as cores are (`gpuFits`, and a GPU profile in the counted backfill
   * pass), or with `nodeSelect` on each of its nodes (`NodeMap`).
   */
  readonly freeGpus: Float64Array;
  readonly stats: EngineStats = {
    submitted: 0,
    started: 0,
    backfilled: 0,
    preempted: 0,
    suspensions: 0,
    requeued: 0,
    cancelled: 0,
    timeouts: 0,
    refused: 0,
    events: 0,
    backfillPasses: 0,
  };
  /** Pending slots in scheduling order. */
  pending: number[] = [];
  /** Slots holding cores (running or operator-suspended): the first `nRunning` entries. */
  private running = new Int32Array(1024);
  private nRunning = 0;
  /** Preempt-suspended slots, in suspension order. */
  private suspended: number[] = [];
  /**
   * Job events (arrival, end, operator suspend/resume; payload the slot, stamp the slot's version: stale
   * when the slot moved on) and timed passes (backfill, priority, periodic and deferred main passes), in
   * scheduling order within an instant; the passes an instant asks for run after all its events.
   */
  private readonly queue = new EventLoop<number>({ capacity: 4096 });
  private source: Iterator<SlurmJobInput> | null = null;
  private readonly listeners: SlurmListener[] = [];
  /** Cores x seconds run per user since the last `PriorityCalcPeriod` tick (folded into `fairShare` there). */
  private readonly usage: UsageLedger;
  private dirty = false;
  /** Whether the main scheduler is walking the queue (requeued jobs wait in `requeued`). */
  private walking = false;
  private requeued: number[] = [];
  private bfScheduled = false;
  /** A backfill pass / priority tick fell due at this instant: run after the instant's other events. */
  private bfDue = false;
  private prioDue = false;
  private prioScheduled = false;
  /** A periodic (`sched_interval`) or deferred (`sched_min_interval`) main pass is in the queue. */
  private schedScheduled = false;
  private lastSchedule = Number.NEGATIVE_INFINITY;
  /** The time of the last main pass run by the background thread (`batchSchedDelay`). */
  private lastBackground = Number.NEGATIVE_INFINITY;
  /** A deferred main pass (`schedDelay`, `schedMinInterval`, `batchSchedDelay`) is in the queue at this time (-Infinity: none). */
  private deferredAt = Number.NEGATIVE_INFINITY;
  /** The main pass at this instant is a timed one (periodic or deferred): no delay applies. */
  private passDue = false;
  /** A job end at this instant runs the main scheduler at once (`endSchedShare`). */
  private endNow = false;
  /** With `endNow`: a pass was already queued for the background thread before that end. */
  private queuedBeforeEnd = false;
  private readonly maxQos: number;
  private readonly tier: Int32Array;
  private readonly canPreempt: boolean;
  /** `nodeSelect`: which slot holds each node (null otherwise); the nodes chosen for the job being started. */
  readonly nodeMap: NodeMap | null;
  private picked: NodeAlloc | null = null;
  /** Submitted jobs with a node request (`SlurmJobInput.shape`, with `nodeSelect`) not yet arrived. */
  private readonly shaped = new Set<number>();
  /** Why the job being rejected was refused (`SlurmPlatform.refusal`, `NodeMap.refusal`; read it in `onReject`). */
  refusedBecause = '';
  /**
   * Jobs whose nodes stay `COMPLETING` after their end (`SlurmJobInput.completing`, `epilogPass`; with
   * `nodeSelect` and `bfWillRun`): slot -> seconds after the end, and whether the release is an epilog message.
   */
  private readonly completion = new Map<number, { after: number; epilog: boolean; nodes?: Int32Array }>();
  /**
   * Jobs `COMPLETING` on each node (`nodeSelect`; null until one is). The select plugin has their CPUs back at the
   * end (node_scheduler.c `deallocate_nodes`: `select_g_job_fini`), but the main scheduler places no job on such a
   * node, shared or not (`_pick_best_nodes`: `idle_node_bitmap`, `bit_and_not(..., cg_node_bitmap)`), and a backfill
   * start on one waits (`backfillWillRun.ts`).
   */
  completingNodes: Int32Array | null = null;
  /** During a main pass with several partitions: the groups of partitions whose jobs were left pending (1). */
  private offGroups: Uint8Array | null = null;
  /** `nodeSelect`: what each job in the system asks of the nodes. */
  private readonly requests = new Map<number, NodeRequest>();
  /** The backfill planners (`backfill.ts`), one of which runs each pass by the configuration. */
  private readonly counted = new CountedPlanner();
  private readonly nodeProfile = new NodeProfilePlanner();
  private readonly willRun = new WillRunPlanner();

  constructor(
    readonly platform: SlurmPlatform,
    config: Partial<SlurmConfig> = {},
  ) {
    this.config = { ...DEFAULT_SLURM, ...config, priority: { ...DEFAULT_SLURM.priority, ...config.priority } };
    const why = slurmConfigRefusal(this.config, platform.coresPerNode);
    if (why !== null) throw new InputError(why, 'slurm config');
    this.fairShare = UserLedger.numbered(this.config.users, platform.totalCores, 1);
    this.usage = new UsageLedger(this.config.users);
    this.free = Float64Array.from(platform.groupCores);
    this.freeGpus = Float64Array.from(platform.gpusPerNode, (n, g) => n * platform.nodes[g]!);
    this.maxQos = Math.max(1, ...this.config.qosPriorities);
    this.tier = Int32Array.from(platform.partitions, (p) => p.priorityTier);
    const parts = platform.partitions;
    this.canPreempt = parts.some(
      (p) => p.preemptMode !== 'off' && parts.some((q) => q.priorityTier > p.priorityTier && q.groups.some((g) => p.groups.includes(g))),
    );
    this.nodeMap = this.config.nodeSelect ? new NodeMap(platform) : null;
  }

  /** Registers a listener for jobs leaving the system. */
  onFinish(l: FinishListener): void {
    const leave = (e: SlurmEngine, s: number) => l(e.jobs, s);
    this.listeners.push({ onEnd: leave, onReject: leave });
  }

  /** Adds an observer (submissions, starts, ends, refusals; see `SlurmListener`). */
  addListener(l: SlurmListener): void {
    this.listeners.push(l);
  }

  /** Whether nothing is left: no event (job to come, running or pending job, timed pass) remains. */
  get done(): boolean {
    return this.queue.size === 0 && this.source === null;
  }

  /** Streams jobs from `source` (submit times nondecreasing); one job is read ahead. */
  stream(source: Iterable<SlurmJobInput>): void {
    this.source = source[Symbol.iterator]();
    this.pull();
  }

  /** Submits one job at its submit time (>= now). */
  submit(input: SlurmJobInput): number {
    if (!(input.user >= 0 && input.user < this.config.users && Number.isInteger(input.user)))
      throw new InputError(`job ${input.id}: user ${input.user} is not one of the ${this.config.users} users (0..${this.config.users - 1})`);
    if (!(input.cores >= 1 && input.runTime >= 0 && input.timeLimit > 0 && input.submit >= 0))
      throw new InputError(`job ${input.id}: expected cores >= 1, run time >= 0, time limit > 0, submit >= 0`);
    const J = this.jobs;
    const s = J.alloc();
    J.id[s] = input.id;
    J.submit[s] = input.submit;
    J.cores[s] = input.cores;
    J.timeLimit[s] = input.timeLimit;
    J.runTime[s] = input.runTime;
    J.user[s] = input.user;
    J.part[s] = input.partition ?? 0;
    J.qos[s] = input.qos ?? 0;
    J.opAfter[s] = input.opAfter ?? -1;
    J.opFor[s] = input.opFor ?? 0;
    J.state[s] = JobPhase.Waiting;
    this.submitGpus(input, s);
    if (this.nodeMap !== null) {
      this.requests.set(s, this.requestOf(input, s));
      if (input.shape !== undefined) this.shaped.add(s);
    }
    if ((input.completing ?? 0) > 0 || input.epilogPass === true) {
      const after = this.nodeMap !== null && this.config.bfWillRun ? Math.max(0, input.completing ?? 0) : 0;
      this.completion.set(s, { after, epilog: input.epilogPass === true });
    }
    this.push(Math.max(input.submit, this.now), ARRIVAL, s);
    return s;
  }

  /** The job's GPU request (issue 45), checked: a whole count, a known type, a group (a node with `nodeSelect`) of its partition that holds it. */
  private submitGpus(input: SlurmJobInput, s: number): void {
    const J = this.jobs;
    const p = this.platform;
    const n = input.gpus ?? 0;
    J.gpus[s] = n;
    J.gpuType[s] = -1;
    if (n === 0) return;
    const what = `job ${input.id}: ${n} GPUs${input.gpuType !== undefined ? ` of type ${input.gpuType}` : ''}`;
    if (!(Number.isInteger(n) && n > 0)) throw new InputError(`${what}: expected a whole number of GPUs >= 0`);
    if (input.gpuType !== undefined) {
      J.gpuType[s] = p.gpuTypes.indexOf(input.gpuType);
      if (J.gpuType[s]! < 0) throw new InputError(`${what}: no node has GPUs of that type (the types: ${p.gpuTypes.join(', ') || 'none'})`);
    }
    const perNode = this.nodeMap !== null;
    const part = p.partitions[input.partition ?? 0];
    if (part !== undefined && !part.groups.some((g) => gpuFits(this, s, g, p.gpusPerNode[g]! * (perNode ? 1 : p.nodes[g]!))))
      throw new InputError(
        `${what}: no ${perNode ? 'node' : 'node group'} of partition ${part.name} has that many GPUs${input.gpuType !== undefined ? ' of that type' : ''}`,
      );
  }

  private pull(): void {
    if (!this.source) return;
    const r = this.source.next();
    if (r.done) {
      this.source = null;
      return;
    }
    this.submit(r.value);
  }

  private push(t: number, type: number, s: number): void {
    this.queue.schedule(t, type, s, this.jobs.ver[s]!);
  }

  /** Whether events remain. */
  get busy(): boolean {
    return this.queue.size > 0;
  }

  /** Time of the next event (Infinity when none). */
  nextEventTime(): number {
    return this.queue.peekTime();
  }

  /** Runs until no event remains. */
  run(): void {
    this.runUntil(Number.POSITIVE_INFINITY);
  }

  /** Processes every event with time <= `t` (and schedules after each instant); `now` ends at `t` when finite. Returns `now`. */
  runUntil(t: number): number {
    const q = this.queue;
    for (;;) {
      const time = q.peekTime();
      if (time === Number.POSITIVE_INFINITY || time > t) break;
      this.now = time;
      while (q.peekTime() === time && q.next()) this.handle(q.kind, q.payload!, q.stamp);
      // the periodic passes see the instant's state after all its events (not only those pushed before them)
      if (this.prioDue) {
        this.prioDue = false;
        this.priorityTick();
      }
      if (this.dirty) this.mainPass();
      if (this.bfDue) {
        this.bfDue = false;
        this.backfillPass();
        if (this.dirty) this.mainPass();
      }
    }
    if (Number.isFinite(t) && t > this.now) this.now = t;
    return this.now;
  }

  /**
   * Runs the main scheduler now, or defers it: by `schedDelay` after the event that asked for it, and
   * to the end of `sched_min_interval` since the last pass. A deferred pass already due earlier serves.
   */
  private mainPass(): void {
    const c = this.config;
    if (this.endNow) {
      // the epilog message's handler: a pass now, outside the background thread (its queue and timer unchanged)
      this.endNow = false;
      if (!this.passDue && !(c.schedMinInterval > 0 && this.lastSchedule + c.schedMinInterval > this.now)) {
        this.lastSchedule = this.now;
        this.dirty = false;
        this.schedule();
        if (this.queuedBeforeEnd) this.dirty = true;
        if (!this.dirty) return;
      }
    }
    let at = this.now;
    if (c.batchSchedDelay > 0) {
      // the background thread's next tick at least batchSchedDelay after its last pass
      // (controller.c `_slurmctld_background`: `difftime(now, last_sched_time) >= batch_sched_delay`, time_t)
      if (!this.passDue) at = this.bgTick(Math.max(this.now, Math.floor(this.lastBackgroundPass() + 1e-9) + c.batchSchedDelay));
    } else if (!this.passDue && c.schedDelay > 0) at = this.now + c.schedDelay;
    if (c.schedMinInterval > 0) at = Math.max(at, this.lastSchedule + c.schedMinInterval);
    if (at > this.now) {
      if (!(this.deferredAt > this.now && this.deferredAt <= at)) {
        this.deferredAt = at;
        this.queue.schedule(at, DEFER, -1);
      }
      return;
    }
    this.passDue = false;
    this.dirty = false;
    this.lastSchedule = this.now;
    if (c.batchSchedDelay > 0) {
      // the background thread's pass (queued or periodic) serves every request queued so far (controller.c sets
      // job_sched_cnt to 0): a pass still in the queue for later is void, and later requests wait from now
      this.lastBackground = this.now;
      this.deferredAt = Number.NEGATIVE_INFINITY;
    }
    this.schedule();
  }

  private handle(type: number, s: number, ver: number): void {
    this.stats.events++;
    switch (type) {
      case BACKFILL:
        this.bfScheduled = false;
        this.bfDue = true;
        return;
      case PRIO:
        this.prioScheduled = false;
        this.prioDue = true;
        return;
      case SCHED:
        this.schedScheduled = false;
        this.dirty = true;
        this.passDue = true;
        this.ensureTicks();
        return;
      case RELEASE:
        if (this.jobs.ver[s] === ver) this.release(s);
        return;
      case DEFER:
        // with batchSchedDelay a background pass since it was queued has served its requests (mainPass)
        if (this.config.batchSchedDelay > 0 && this.deferredAt !== this.now) return;
        if (this.deferredAt === this.now) this.deferredAt = Number.NEGATIVE_INFINITY;
        this.dirty = true;
        this.passDue = true;
        return;
    }
    if (this.jobs.ver[s] !== ver) return; // stale
    if (type === ARRIVAL) this.arrive(s);
    else if (type === END) this.finishRun(s);
    else if (type === OP_SUSPEND) this.opSuspend(s);
    else if (type === OP_RESUME) this.opResume(s);
  }

  // ---------------------------------------------------------------- lifecycle

  private arrive(s: number): void {
    const J = this.jobs;
    J.listPos[s] = this.stats.submitted++;
    this.pull();
    // (with nodeSelect, a node request the select plugin can never place is refused too, as slurmctld refuses it;
    // the slot leaves `shaped` whatever refuses it: a later job given the slot has its own shape or none)
    const shaped = this.nodeMap !== null && this.shaped.delete(s);
    const why =
      this.platform.refusal(J.part[s]!, J.cores[s]!, J.timeLimit[s]!, J.user[s]!) ?? (shaped ? this.nodeMap!.refusal(this.requests.get(s)!, J.part[s]!) : null);
    if (why !== null) {
      this.refusedBecause = why;
      J.state[s] = JobPhase.Rejected;
      this.stats.refused++;
      for (const l of this.listeners) l.onReject?.(this, s);
      this.requests.delete(s);
      this.completion.delete(s);
      this.jobs.release(s);
      return;
    }
    for (const l of this.listeners) l.onSubmit?.(this, s);
    J.priority[s] = this.computePriority(s, this.fairShare.totalUsage());
    this.insertPending(s);
    if (this.config.schedOnSubmit || this.config.batchSchedDelay > 0) this.dirty = true;
    this.ensureTicks();
  }

  private ensureTicks(): void {
    if (!this.prioScheduled) {
      this.prioScheduled = true;
      this.queue.schedule(this.nextPriorityTick(), PRIO, -1);
    }
    if (this.config.backfill && !this.bfScheduled && this.pending.length > 0) {
      this.bfScheduled = true;
      this.queue.schedule(this.nextBackfill(), BACKFILL, -1);
    }
    if (this.config.schedInterval > 0 && !this.schedScheduled && this.pending.length > 0) {
      this.schedScheduled = true;
      this.queue.schedule(this.nextSchedInterval(), SCHED, -1);
    }
  }

  /** The background thread's first tick at or after `t`: `k + bgTickPhase`, or from its measured ticks (`bgTickTimes`). */
  private bgTick(t: number): number {
    const xs = this.config.bgTickTimes;
    if (xs === undefined || xs.length < 2) {
      const ph = this.config.bgTickPhase;
      return Math.ceil(t - ph - 1e-9) + ph;
    }
    return measuredTickFrom(xs, t);
  }

  /**
   * When slurmctld's background thread last ran a main pass, as `batch_sched_delay` counts from it
   * (controller.c `_slurmctld_background`, `last_sched_time`): the later of the last queued or periodic pass
   * the engine ran, the last periodic `sched_interval` pass (which runs whether jobs pend or not: `schedule()`
   * on an empty queue), and the thread's start (`last_sched_time = now` when it starts: slurmctld's start,
   * `timerOrigin`). Without `timerOrigin` (no log) the periodic passes are on their nominal grid from time 0
   * (`nextSchedInterval`) and slurmctld started long before.
   */
  private lastBackgroundPass(): number {
    const c = this.config;
    let last = this.lastBackground;
    if (c.timerOrigin !== undefined) last = Math.max(last, c.timerOrigin);
    const I = c.schedInterval;
    if (I > 0) {
      if (c.timerOrigin === undefined) {
        const ph = c.bgTickPhase;
        last = Math.max(last, Math.floor((this.now - ph) / I + 1e-9) * I + ph);
      } else {
        const base = Math.floor(c.timerOrigin + 1e-9);
        for (let k = Math.floor((this.now - base) / I + 1e-9); k >= 1; k--) {
          const t = this.bgTick(base + k * I);
          if (t <= this.now + 1e-9) {
            last = Math.max(last, t);
            break;
          }
        }
      }
    }
    return last;
  }

  /**
   * The next backfill pass: `bfInterval` after now, or on its grid (`bfGrid`): multiples of `bfInterval`
   * from time 0, or with `timerOrigin` from slurmctld's start (the backfill thread sleeps `bf_interval` after
   * each pass from its start).
   */
  private nextBackfill(): number {
    const c = this.config;
    const xs = c.bfTickTimes;
    // the next measured pass after now
    if (xs !== undefined && xs.length > 0 && xs[xs.length - 1]! > this.now) return measuredAfter(xs, this.now);
    const phase = c.timerOrigin !== undefined && c.bfInterval > 1 ? c.timerOrigin : 0;
    return this.nextTick(c.bfInterval, c.bfGrid, phase);
  }

  /**
   * The next periodic main pass (`sched_interval`): on the grid `k x interval` from time 0, with
   * `batchSchedDelay` on the background thread's tick (controller.c); with `timerOrigin`, every `interval`
   * whole seconds from slurmctld's start.
   */
  private nextSchedInterval(): number {
    const c = this.config;
    if (c.batchSchedDelay <= 0) return this.nextTick(c.schedInterval, true, 0);
    if (c.timerOrigin === undefined) return this.nextTick(c.schedInterval, true, c.bgTickPhase);
    const base = Math.floor(c.timerOrigin + 1e-9);
    const k = Math.floor((this.now - base) / c.schedInterval + 1e-9) + 1;
    return this.bgTick(base + k * c.schedInterval);
  }

  /** The next `PriorityCalcPeriod` tick: a period from now, or the next point of its grid (`calcPhase`). */
  private nextPriorityTick(): number {
    const c = this.config.priority;
    return c.calcPhase === undefined ? this.now + c.calcPeriod : this.nextTick(c.calcPeriod, true, c.calcPhase);
  }

  /**
   * The next periodic pass: `period` from now, or on a grid the next point `k x period + phase` after now.
   */
  private nextTick(period: number, grid: boolean, phase = 0): number {
    return grid ? nextGridPoint(this.now, period, phase) : this.now + period;
  }

  /** Starts (or resumes after a requeue) job `s` on group `g` now (`byBackfill`: by a backfill pass). */
  private startJob(s: number, g: number, byBackfill = false): void {
    const J = this.jobs;
    J.backfilled[s] = byBackfill ? 1 : 0;
    J.state[s] = JobPhase.Running;
    J.group[s] = g;
    J.start[s] = this.now;
    J.executed[s] = 0;
    this.stats.started++;
    this.take(s, g);
    this.runStretch(s);
    for (const l of this.listeners) l.onStart?.(this, s);
  }

  /** Takes the job's cores and schedules its next event (end or operator suspension) from now. */
  private runStretch(s: number): void {
    const J = this.jobs;
    J.lastResume[s] = this.now;
    J.ver[s] = (J.ver[s]! + 1) & 0xfffff;
    const remaining = Math.min(J.runTime[s]!, J.timeLimit[s]!) - J.executed[s]!;
    const op = J.opAfter[s]!;
    if (op >= 0 && J.opDone[s] === 0 && op - J.executed[s]! < remaining) this.push(this.now + Math.max(0, op - J.executed[s]!), OP_SUSPEND, s);
    else this.push(this.now + remaining, END, s);
  }

  private take(s: number, g: number): void {
    const J = this.jobs;
    const nm = this.nodeMap;
    if (nm !== null) {
      if (this.picked === null && this.fitNow(s) < 0) throw new Error(`nodeSelect: job ${J.id[s]} started without the nodes it asks for`);
      const a = this.picked!;
      this.picked = null;
      nm.assign(s, a, (x) => J.id[x]!);
      // the units it holds (a job on whole nodes of several units holds them all)
      let units = 0;
      for (let i = 0; i < a.nodes.length; i++) {
        units += a.units[i]!;
        this.free[nm.groupOf[a.nodes[i]!]!]! -= a.units[i]!;
        this.freeGpus[nm.groupOf[a.nodes[i]!]!]! -= a.gpus[i]!;
      }
      J.cores[s] = units;
    } else {
      this.free[g]! -= J.cores[s]!;
      this.freeGpus[g]! -= J.gpus[s]!;
    }
    // the time so far is charged at the old core count before this job's cores count
    this.usage.addCores(J.user[s]!, J.cores[s]!, this.now);
    if (this.nRunning === this.running.length) {
      const r = new Int32Array(this.running.length * 2);
      r.set(this.running);
      this.running = r;
    }
    J.runPos[s] = this.nRunning;
    this.running[this.nRunning++] = s;
  }

  private give(s: number): void {
    const J = this.jobs;
    const nm = this.nodeMap;
    const a = nm?.held.get(s);
    if (nm && a) {
      for (let i = 0; i < a.nodes.length; i++) {
        this.free[nm.groupOf[a.nodes[i]!]!]! += a.units[i]!;
        this.freeGpus[nm.groupOf[a.nodes[i]!]!]! += a.gpus[i]!;
      }
      nm.release(s);
    } else {
      this.free[J.group[s]!]! += J.cores[s]!;
      this.freeGpus[J.group[s]!]! += J.gpus[s]!;
    }
    this.usage.addCores(J.user[s]!, -J.cores[s]!, this.now);
    const i = J.runPos[s]!;
    const last = this.running[--this.nRunning]!;
    this.running[i] = last;
    J.runPos[last] = i;
    J.runPos[s] = -1;
    this.dirty = true;
  }

  /** Stops the running stretch: run time so far is added to `executed`. */
  private stopStretch(s: number): void {
    const J = this.jobs;
    J.executed[s]! += this.now - J.lastResume[s]!;
    J.ver[s] = (J.ver[s]! + 1) & 0xfffff;
  }

  private finishRun(s: number): void {
    const J = this.jobs;
    const c = this.config;
    const done = this.completion.get(s);
    if (done !== undefined && done.after > 0) {
      // the job has ended and its CPUs are free; its nodes stay COMPLETING until slurmd answers (`release`), and
      // the main pass that answer asks for is not queued before it
      this.stopStretch(s);
      const nodes = Int32Array.from(this.nodeMap!.held.get(s)!.nodes);
      const dirty = this.dirty;
      this.give(s);
      this.dirty = dirty;
      J.end[s] = this.now;
      if (J.runTime[s]! > J.timeLimit[s]!) {
        J.state[s] = JobPhase.TimedOut;
        this.stats.timeouts++;
      } else J.state[s] = JobPhase.Completed;
      done.nodes = nodes;
      this.completingNodes ??= new Int32Array(this.nodeMap!.cap.length);
      for (const x of nodes) this.completingNodes[x]! += 1;
      this.push(this.now + done.after, RELEASE, s);
      return;
    }
    if (done?.epilog === true && c.batchSchedDelay > 0 && !this.endNow) {
      this.endNow = true;
      this.queuedBeforeEnd = this.dirty;
    }
    if (c.endSchedShare > 0 && c.batchSchedDelay > 0 && !this.endNow && hashUnit(J.id[s]!, c.endSchedSeed) < c.endSchedShare) {
      this.endNow = true;
      this.queuedBeforeEnd = this.dirty;
    }
    this.stopStretch(s);
    this.give(s);
    J.end[s] = this.now;
    if (J.runTime[s]! > J.timeLimit[s]!) {
      J.state[s] = JobPhase.TimedOut;
      this.stats.timeouts++;
    } else J.state[s] = JobPhase.Completed;
    this.leave(s);
  }

  /**
   * The nodes of an ended job leave `COMPLETING` (`SlurmJobInput.completing`): freed now; the main pass this asks
   * for is queued for the background thread (agent.c: the "already complete" answer), or run at once when the
   * release is an epilog message (proc_req.c `_slurm_rpc_epilog_complete`: `schedule(false)`).
   */
  private release(s: number): void {
    const done = this.completion.get(s)!;
    for (const x of done.nodes!) this.completingNodes![x]! -= 1;
    if (done.epilog && this.config.batchSchedDelay > 0 && !this.endNow) {
      this.endNow = true;
      this.queuedBeforeEnd = this.dirty;
    }
    this.dirty = true;
    for (const l of this.listeners) l.onRelease?.(this, s);
    this.leave(s);
  }

  /** A job that ran leaves the system: its listeners hear of it, then its slot is recycled. */
  private leave(s: number): void {
    for (const l of this.listeners) l.onEnd?.(this, s, s);
    this.requests.delete(s);
    this.completion.delete(s);
    this.jobs.release(s);
  }

  private opSuspend(s: number): void {
    const J = this.jobs;
    this.stopStretch(s);
    this.usage.addCores(J.user[s]!, -J.cores[s]!, this.now);
    J.opDone[s] = 1;
    J.state[s] = JobPhase.Suspended;
    J.suspendedAt[s] = this.now;
    J.openPeriod(s, this.now);
    this.stats.suspensions++;
    this.push(this.now + J.opFor[s]!, OP_RESUME, s);
    for (const l of this.listeners) l.onSuspend?.(this, s, JobPhase.Suspended);
  }

  private opResume(s: number): void {
    const J = this.jobs;
    J.closePeriod(s, this.now);
    J.state[s] = JobPhase.Running;
    this.usage.addCores(J.user[s]!, J.cores[s]!, this.now);
    J.lastResume[s] = this.now;
    J.ver[s] = (J.ver[s]! + 1) & 0xfffff;
    this.push(this.now + Math.min(J.runTime[s]!, J.timeLimit[s]!) - J.executed[s]!, END, s);
    for (const l of this.listeners) l.onResume?.(this, s);
  }

  /** Preempts running job `s` by its partition's mode. */
  private preempt(s: number): void {
    const J = this.jobs;
    const mode = this.platform.partitions[J.part[s]!]!.preemptMode;
    this.stopStretch(s);
    this.give(s);
    this.stats.preempted++;
    if (mode === 'suspend') {
      J.state[s] = JobPhase.Preempted;
      J.openPeriod(s, this.now);
      this.stats.suspensions++;
      this.suspended.push(s);
      for (const l of this.listeners) l.onSuspend?.(this, s, JobPhase.Preempted);
    } else if (mode === 'requeue') {
      J.state[s] = JobPhase.Waiting;
      J.executed[s] = 0;
      J.clearPeriods(s);
      J.start[s] = Number.NaN;
      J.requeues[s]! += 1;
      J.opDone[s] = 0;
      this.stats.requeued++;
      J.priority[s] = this.computePriority(s, this.fairShare.totalUsage());
      // while the main scheduler walks the queue, requeued jobs go back after its pass
      if (this.walking) this.requeued.push(s);
      else this.insertPending(s);
      this.ensureTicks();
      for (const l of this.listeners) l.onRequeue?.(this, s);
    } else {
      J.state[s] = JobPhase.Cancelled;
      J.end[s] = this.now;
      this.stats.cancelled++;
      this.leave(s);
    }
  }

  private resumePreempted(s: number, g: number): void {
    const J = this.jobs;
    J.closePeriod(s, this.now);
    J.state[s] = JobPhase.Running;
    this.take(s, g);
    this.runStretch(s);
    for (const l of this.listeners) l.onResume?.(this, s);
  }

  // ---------------------------------------------------------------- priority

  /** The multifactor priority of pending job `s` now. */
  computePriority(s: number, totalUsage: number): number {
    const J = this.jobs;
    const c = this.config.priority;
    const part = this.platform.partitions[J.part[s]!]!;
    return jobPriority(c, {
      age: ageFactor(this.now - J.submit[s]!, c.maxAge),
      fairshare: this.fairShare.fairShare(J.user[s]!, totalUsage, c.dampening),
      jobSize: c.jobSize === 'slurm22' ? this.sizeFactor22(s, c.favorSmall) : jobSizeFactor(J.cores[s]!, this.platform.totalCores, c.favorSmall),
      partition: part.priorityJobFactor / this.platform.maxPartitionFactor,
      qos: (this.config.qosPriorities[J.qos[s]!] ?? 0) / this.maxQos,
    });
  }

  /** Slurm 22.05's job size factor of pending slot `s` (its minimum nodes and its CPUs: one per node for a whole-node job). */
  private sizeFactor22(s: number, favorSmall: boolean): number {
    const J = this.jobs;
    const p = this.platform;
    const req = this.requests.get(s);
    const minNodes = req ? req.minNodes : Math.ceil(J.cores[s]! / p.coresPerNode[p.partitions[J.part[s]!]!.groups[0]!]!);
    const cpus = req?.whole ? req.minNodes : J.cores[s]!;
    return jobSizeFactor22(minNodes, cpus, p.nodeCount, p.totalCpus, favorSmall);
  }

  /** Whether slot a goes before slot b: tier desc, priority desc, submit asc, id asc. */
  private before(a: number, b: number): boolean {
    const J = this.jobs;
    const ta = this.tier[J.part[a]!]!;
    const tb = this.tier[J.part[b]!]!;
    if (ta !== tb) return ta > tb;
    const pa = J.priority[a]!;
    const pb = J.priority[b]!;
    if (pa !== pb) return pa > pb;
    const sa = J.submit[a]!;
    const sb = J.submit[b]!;
    if (sa !== sb) return sa < sb;
    return J.id[a]! < J.id[b]!;
  }

  private insertPending(s: number): void {
    const p = this.pending;
    let lo = 0;
    let hi = p.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.before(p[mid]!, s)) lo = mid + 1;
      else hi = mid;
    }
    p.splice(lo, 0, s);
  }

  private priorityTick(): void {
    const c = this.config.priority;
    // usage <- usage * 2^(-period / half-life) + cores x seconds run during the period (priority.ts)
    this.usage.tick(this.now, this.fairShare, c.calcPeriod, c.decayHalfLife);
    this.recomputePriorities();
    if (this.nRunning > 0 || this.pending.length > 0 || this.queue.size > 0) {
      this.prioScheduled = true;
      this.queue.schedule(this.nextPriorityTick(), PRIO, -1);
    }
  }

  /** Recomputes every pending job's priority and reorders the queue (also after a weight change). */
  recomputePriorities(): void {
    const total = this.fairShare.totalUsage();
    for (const s of this.pending) this.jobs.priority[s] = this.computePriority(s, total);
    this.pending.sort((a, b) => (this.before(a, b) ? -1 : this.before(b, a) ? 1 : 0));
    this.dirty = true;
  }

  // ---------------------------------------------------------------- scheduling

  /**
   * A group of the job's partition with `cores` free now, or -1; with `nodeSelect`, the group of the first
   * node of the allocation the select plugin would give it now (kept in `picked` for `take`), or -1.
   */
  private fitNow(s: number): number {
    const nm = this.nodeMap;
    const off = this.offGroups;
    if (nm !== null) {
      const a = nm.fit(this.requests.get(s)!, this.jobs.part[s]!, off, this.completingNodes);
      if (a === null) return -1;
      this.picked = a;
      return nm.groupOf[a.nodes[0]!]!;
    }
    const cores = this.jobs.cores[s]!;
    for (const g of this.platform.partitions[this.jobs.part[s]!]!.groups)
      if (this.free[g]! >= cores && !off?.[g] && gpuFits(this, s, g, this.freeGpus[g]!)) return g;
    return -1;
  }

  /** The main scheduler: resumes preempted jobs that fit, then walks the queue in order. */
  schedule(): void {
    const J = this.jobs;
    if (this.suspended.length > 0) {
      const keep: number[] = [];
      for (const s of this.suspended) {
        // on specific nodes: where the select plugin would put it now (fitNow keeps it for take)
        const g = this.nodeMap !== null ? this.fitNow(s) : J.group[s]!;
        if (g >= 0 && (this.nodeMap !== null || (this.free[g]! >= J.cores[s]! && gpuFits(this, s, g, this.freeGpus[g]!)))) this.resumePreempted(s, g);
        else keep.push(s);
      }
      this.suspended = keep;
    }
    const p = this.pending;
    if (p.length === 0) return;
    const parts = this.platform.partitions;
    const blocked = new Uint8Array(parts.length);
    // a job left pending takes its partition's nodes out of this pass for every partition (job_scheduler.c
    // `_schedule`: "Do not schedule more jobs in this partition or on nodes in this partition")
    this.offGroups = parts.length > 1 ? new Uint8Array(this.platform.groupNames.length) : null;
    let started = 0;
    const depth = Math.min(p.length, this.config.queueDepth);
    this.walking = true;
    for (let i = 0; i < depth; i++) {
      const s = p[i]!;
      const part = J.part[s]!;
      if (blocked[part]) continue;
      let g = this.fitNow(s);
      if (g < 0 && this.canPreempt) g = this.preemptFor(s);
      if (g >= 0) {
        p[i] = -1;
        started++;
        this.startJob(s, g);
      } else {
        blocked[part] = 1;
        if (this.offGroups !== null) for (const x of parts[part]!.groups) this.offGroups[x] = 1;
      }
    }
    this.walking = false;
    this.offGroups = null;
    if (started > 0) this.pending = p.filter((x) => x >= 0);
    if (this.requeued.length > 0) {
      for (const s of this.requeued) this.insertPending(s);
      this.requeued = [];
      this.dirty = true;
    }
  }

  /** Preempts lower-tier jobs so that `s` fits in one group; returns the group or -1. */
  private preemptFor(s: number): number {
    if (this.nodeMap !== null) return this.preemptForNodes(s);
    const J = this.jobs;
    const need = J.cores[s]!;
    const tier = this.tier[J.part[s]!]!;
    const parts = this.platform.partitions;
    for (const g of parts[J.part[s]!]!.groups) {
      const cands: number[] = [];
      let avail = this.free[g]!;
      let availGpus = this.freeGpus[g]!;
      for (let i = 0; i < this.nRunning; i++) {
        const r = this.running[i]!;
        if (J.group[r] !== g || J.state[r] !== JobPhase.Running) continue;
        const q = parts[J.part[r]!]!;
        if (q.priorityTier >= tier || q.preemptMode === 'off') continue;
        cands.push(r);
        avail += J.cores[r]!;
        availGpus += J.gpus[r]!;
      }
      if (avail < need || !gpuFits(this, s, g, availGpus)) continue;
      cands.sort((a, b) => this.tier[J.part[a]!]! - this.tier[J.part[b]!]! || J.lastResume[b]! - J.lastResume[a]! || J.id[b]! - J.id[a]!);
      for (const r of cands) {
        if (this.free[g]! >= need && gpuFits(this, s, g, this.freeGpus[g]!)) break;
        this.preempt(r);
      }
      return g;
    }
    return -1;
  }

  /**
   * `preemptFor` on specific nodes: the candidates are the preemptable running jobs on the job's partition's
   * nodes; none is preempted unless the job would fit with all of them gone; then they go in the same order
   * until it fits. The group of the allocation (kept in `picked`), or -1.
   */
  private preemptForNodes(s: number): number {
    const J = this.jobs;
    const nm = this.nodeMap!;
    const tier = this.tier[J.part[s]!]!;
    const parts = this.platform.partitions;
    const inP = new Set(nm.partitionNodes[J.part[s]!]!);
    const cands: number[] = [];
    for (let i = 0; i < this.nRunning; i++) {
      const r = this.running[i]!;
      if (J.state[r] !== JobPhase.Running) continue;
      const q = parts[J.part[r]!]!;
      if (q.priorityTier >= tier || q.preemptMode === 'off') continue;
      if (nm.held.get(r)!.nodes.some((x) => inP.has(x))) cands.push(r);
    }
    if (cands.length === 0 || !nm.fitsWithout(this.requests.get(s)!, J.part[s]!, cands)) return -1;
    cands.sort((a, b) => this.tier[J.part[a]!]! - this.tier[J.part[b]!]! || J.lastResume[b]! - J.lastResume[a]! || J.id[b]! - J.id[a]!);
    for (const r of cands) {
      this.preempt(r);
      const g = this.fitNow(s);
      if (g >= 0) return g;
    }
    return -1;
  }

  /** One pass of the backfill scheduler (see the module comment and `backfill.ts`), then the next one scheduled. */
  backfillPass(): void {
    const cfg = this.config;
    this.stats.backfillPasses++;
    if (this.pending.length > 0) {
      const p = this.pending;
      const planner = cfg.nodeSelect ? (cfg.bfWillRun ? this.willRun : this.nodeProfile) : this.counted;
      if (planner.pass(this, p, Math.min(p.length, cfg.bfMaxJobTest)) > 0) this.pending = p.filter((x) => x >= 0);
    }
    if (this.pending.length > 0 && (this.nRunning > 0 || this.queue.size > 0)) {
      this.bfScheduled = true;
      this.queue.schedule(this.nextBackfill(), BACKFILL, -1);
    }
  }

  /** `BackfillView.startByBackfill`. */
  startByBackfill(s: number, g: number, alloc: NodeAlloc | null): void {
    this.stats.backfilled++;
    this.picked = alloc;
    this.startJob(s, g, true);
  }

  /** `BackfillView.nodeRequest`. */
  nodeRequest(s: number): NodeRequest {
    return this.requests.get(s)!;
  }

  /**
   * What a submitted job asks of the nodes (`nodeSelect`): its shape, or by default whole nodes (`cores` of
   * them) when its partition's nodes are one unit each (a whole-node platform), else `cores` units anywhere.
   */
  private requestOf(input: SlurmJobInput, s: number): NodeRequest {
    const P = this.nodeMap!.partitionNodes[input.partition ?? 0];
    if (P === undefined) throw new InputError(`job ${input.id}: partition ${input.partition} does not exist`);
    return this.nodeMap!.request(input.cores, input.partition ?? 0, input.shape ?? {}, this.jobs.gpus[s]!, this.jobs.gpuType[s]!);
  }

  /**
   * Changes the scheduler's settings from now on (what an operator does with `scontrol reconfigure`):
   * multifactor weights and flags, backfill on/off, window, interval, depths. Pending priorities are
   * recomputed and the queue reordered; a backfill pass is scheduled if backfill was off.
   */
  setScheduling(change: SlurmSchedulingChange): void {
    const { priority, ...rest } = change;
    Object.assign(this.config, rest);
    if (priority) this.config.priority = { ...this.config.priority, ...priority };
    this.recomputePriorities();
    this.ensureTicks();
  }

  /** Slots holding cores (running or operator-suspended): the first `runningCount` entries (`BackfillView`). */
  get runningSlots(): Int32Array {
    return this.running;
  }

  /** Jobs running (holding cores). */
  get runningCount(): number {
    return this.nRunning;
  }

  /** Jobs suspended by preemption. */
  get suspendedCount(): number {
    return this.suspended.length;
  }

  /** Cores in use (total minus free). */
  usedCores(): number {
    let f = 0;
    for (const x of this.free) f += x;
    return this.platform.totalCores - f;
  }
}
