/**
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
 * pend (after the main scheduler, once every other event of that instant is handled): it builds the free-core profile of each group over `bfWindow` (default 1440 min) at `bfResolution`
 * (default 60 s) from the time limits of running jobs, walks up to `bfMaxJobTest` pending jobs (default
 * 100) in priority order, starts a job now if it fits from now for its whole time limit without touching
 * the reservations already made, and otherwise reserves its earliest start within the window (a job whose
 * start is beyond the window gets no reservation). Lower-priority jobs thus never delay the expected start
 * of a higher-priority one within the window.
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
 * (`nodeSelect`, `pickNodes`; per-node state only then, in an `Int32Array` of the job on each node), with
 * the earliest start of a reservation found as the select plugin's will-run test finds it (`bfWillRun`).
 * Two more, kept at neutral values by slurm.conf: the background thread's tick phase (`bgTickPhase`) and the
 * share of job ends whose main pass runs at once, drawn per job (`endSchedShare`: in Slurm a race).
 */
import { InputError } from '../core/errors.js';
import { type DiscreteEventEngine, type EngineListener, JobPhase } from '../core/engine.js';
import { EventLoop } from '../core/eventLoop.js';
import { JobState, JobTable } from './jobs.js';
import type { SlurmPlatform } from './platform.js';
import { DEFAULT_PRIORITY, ageFactor, jobPriority, jobSizeFactor, type PriorityConfig } from './priority.js';
import { UserLedger } from '../scheduling/userLedger.js';

/**
 * A number in [0, 1) from a job id and a seed, the same on every run (murmur3's 32-bit finaliser over
 * the id's low 32 bits mixed with the seed).
 */
export function hashUnit(id: number, seed: number): number {
  let h = (Math.trunc(id) ^ Math.imul(seed | 0, 0x9e3779b9)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

/** A job as submitted. */
export interface SlurmJobInput {
  /** Job id (any number; outputs carry it). */
  id: number;
  /** Submission time (s); nondecreasing along a stream. */
  submit: number;
  cores: number;
  /** Requested time (time limit, s). */
  timeLimit: number;
  /** Actual run time (s). */
  runTime: number;
  user: number;
  /** Partition index (default 0). */
  partition?: number;
  /** QOS index into `SlurmConfig.qosPriorities` (default 0). */
  qos?: number;
  /** Operator suspension: after this many seconds of run, for `opFor` seconds. */
  opAfter?: number;
  opFor?: number;
  /** GPUs (`--gres=gpu[:TYPE]:N`, over the job), optionally of one type (issue 45: `gpuFits`). */
  gpus?: number;
  gpuType?: string;
}

/** Scheduler configuration (slurm.conf names in the comments). */
export interface SlurmConfig {
  priority: PriorityConfig;
  /** `SchedulerType=sched/backfill` (false: `sched/builtin`). */
  backfill: boolean;
  /** bf_interval (s). */
  bfInterval: number;
  /** bf_window (s). */
  bfWindow: number;
  /** bf_resolution (s). */
  bfResolution: number;
  /** bf_max_job_test. */
  bfMaxJobTest: number;
  /** default_queue_depth. */
  queueDepth: number;
  /** Priority of each QOS (index = QOS id). */
  qosPriorities: number[];
  /** Number of users (ids 0..users-1). */
  users: number;
  /**
   * `sched_min_interval` (s): the main scheduler runs at most once per this interval (Slurm gives it
   * in µs, default 2 µs); an instant with events inside the interval is scheduled at its end. 0: every instant.
   */
  schedMinInterval: number;
  /**
   * Whether a submission runs the main scheduler at once (the engine's historical behaviour, kept for
   * seed 004). Slurm 22.05 does not start a batch job at submission: it waits for the next backfill
   * pass, the next job end, or the periodic `sched_interval` pass (measured: docs/slurm.md).
   */
  schedOnSubmit: boolean;
  /**
   * Delay (s) of the main scheduler after the event that asks for it (a job end): slurmctld's
   * scheduling thread runs the pass a fraction of a second later (measured: docs/slurm.md). 0: at once.
   */
  schedDelay: number;
  /**
   * `sched_interval` (s): a main-scheduler pass over the queue this often while jobs pend (0: none). With
   * `batchSchedDelay` it is the background thread's: on its tick (`k x interval + bgTickPhase`), whatever
   * `batch_sched_delay` says, and like any background pass it serves the passes queued until then.
   */
  schedInterval: number;
  /**
   * `batch_sched_delay` (s; 0: off). Slurm 22.05 runs the main scheduler for a submission and, without an
   * `Epilog`, for most job ends (the nodes of a job whose processes are gone by the time slurmctld asks
   * them to terminate answer "already complete", and that reply only queues a pass) from its background
   * thread: a tick every second (at `k + bgTickPhase` s), which runs a
   * queued pass once at least this long has passed since the last one it ran. When on, every pass
   * the engine would run after a submission or a job end waits for that tick, and `schedDelay` is not
   * used. (The end of a job whose batch step is still exiting is reported by an epilog message that
   * runs the main scheduler at once: `endSchedShare`.)
   */
  batchSchedDelay: number;
  /**
   * With `batchSchedDelay`: the share of job ends (0-1) after which the main scheduler runs at once
   * instead of on the background thread's tick. In Slurm 22.05 without an `Epilog` this happens when the
   * batch host's slurmstepd has not yet exited as slurmd handles slurmctld's terminate request (a race of
   * a few ms: slurmd then reports the end by an epilog message, whose handler runs the main scheduler).
   * Nothing the engine knows decides that race, so the ends are drawn: job `id` takes this path when
   * `hashUnit(id, endSchedSeed) < endSchedShare`, the same for every run of the engine. Measured: 20 of
   * 144 ends (docs/slurm.md). 0: never (the default).
   */
  endSchedShare: number;
  /** The seed of `endSchedShare`'s draw. */
  endSchedSeed: number;
  /**
   * With `batchSchedDelay`: the background thread's ticks fall at `k + bgTickPhase` s (0 <= phase < 1).
   * In Slurm the thread's one-second loop drifts against the backfill timer, so main passes fall at any
   * fraction of a second (measured over 24 live runs: docs/slurm.md); the default 0.5 is half way between
   * backfill ticks.
   */
  bgTickPhase: number;
  /**
   * Backfill passes on a fixed grid (multiples of `bfInterval` from time 0, as slurmctld's backfill
   * thread keeps its own timer) instead of `bfInterval` after the instant a job arrived to an idle queue.
   */
  bfGrid: boolean;
  /**
   * Which cores a backfill reservation holds. Slurm reserves *specific* nodes for a pending job (those
   * its select plugin picks among the nodes free at the reserved start), so a node idle now but
   * reserved serves only jobs that end before the reservation starts. `none`: reservations are counts
   * of cores over time and any idle core serves (the engine's historical behaviour, kept for seed 004);
   * `first`: a reservation takes idle cores first (pessimistic); `proportional`: it takes idle cores in
   * the proportion they have among the cores free at its start (the select plugin's choice by node
   * index is blind to which nodes are idle now). Measured against Slurm 22.05: docs/slurm.md.
   */
  bfReserveIdle: 'none' | 'first' | 'proportional';
  /**
   * Slurm 22.05's time rounding in backfill: the map of free cores is on the absolute grid of
   * `bfResolution` (from `floor(now / res) x res`), running jobs' expected ends and a reservation's
   * start and end are rounded down to it, and a job that would start now must not overlap any
   * reserved slot it touches (its end rounded up). Off: buckets of `bfResolution` from now, ends
   * rounded up (the engine's historical behaviour).
   */
  bfSlurmRounding: boolean;
  /**
   * Whole-node allocation on specific nodes (`select/linear`, or `OverSubscribe=EXCLUSIVE` everywhere):
   * every unit of a group is one node, in slurm.conf order. A job starts on the nodes Slurm's select
   * plugin picks: among the available nodes, the shortest run of consecutive nodes that holds the job
   * (first such run on ties), its first nodes; with no such run, the longest runs first. A backfill
   * reservation takes specific nodes the same way, among the nodes free (jobs ended, other reservations
   * not overlapping) at its start; a node reserved serves only jobs that end before the reservation.
   * Replaces `bfReserveIdle`. Off: units are counted per group (the engine's historical behaviour, seed 004).
   */
  nodeSelect: boolean;
  /**
   * With `nodeSelect`: the backfill pass as Slurm 22.05's sched/backfill and select plugin do it
   * (`_attempt_backfill`, cons_common `_will_run_test`), instead of a free-node profile of running jobs'
   * expected ends. Running jobs are not in the backfill map (no `bf_running_job_reserve`): the map holds
   * only this pass's reservations and starts, on the `bfResolution` grid. A job's earliest start is found
   * by the will-run test: on the nodes no reservation of the map touches from the tested start to its end
   * (inclusive), idle nodes first; else running jobs on those nodes are removed in order of expected end
   * (start + time limit) in batches, the first batch all jobs ending up to 30 s after the first end
   * rounded up to 30 s (absolute), each further window twice as long (a batch closes when the next running
   * job in the list, usable or not, ends after its window: cons_common peeks at the next job of the whole
   * list, so a job on none of the usable nodes can extend a batch), and the start is the expected end of
   * the last job of the first batch after which the job fits, on the nodes `pickNodes` chooses among those
   * free then. A start after the next map boundary where other nodes become free, or a reservation that
   * would overlap another, is tried again from that boundary (`later_start`). The reservation is
   * `[floor(start), floor(start + limit))` on the grid; a job started now holds its nodes until
   * `floor(now + limit)`. Measured: docs/slurm.md.
   */
  bfWillRun: boolean;
}

/** Slurm's defaults (16.05, the seed's version) with `DEFAULT_PRIORITY`. */
export const DEFAULT_SLURM: SlurmConfig = {
  priority: DEFAULT_PRIORITY,
  backfill: true,
  bfInterval: 30,
  bfWindow: 1440 * 60,
  bfResolution: 60,
  bfMaxJobTest: 100,
  queueDepth: 100,
  qosPriorities: [0],
  users: 1,
  schedMinInterval: 0,
  schedOnSubmit: true,
  schedDelay: 0,
  schedInterval: 0,
  batchSchedDelay: 0,
  endSchedShare: 0,
  endSchedSeed: 0,
  bgTickPhase: 0.5,
  bfGrid: false,
  bfReserveIdle: 'none',
  bfSlurmRounding: false,
  nodeSelect: false,
  bfWillRun: false,
};

/** Called when a job leaves the system (completed, timeout, cancelled, refused); read its slot then. */
export type FinishListener = (jobs: JobTable, slot: number) => void;

/**
 * Observers of the engine: the engine listener of `core/engine.ts`, a job's handle being its slot in
 * `engine.jobs` (read its fields during the call: the slot is recycled once the job has left).
 */
export type SlurmListener = EngineListener<SlurmEngine, number>;

const ARRIVAL = 0;
const END = 1;
const OP_SUSPEND = 2;
const OP_RESUME = 3;
const BACKFILL = 4;
const PRIO = 5;
const SCHED = 6;
const DEFER = 7;

/** Counters of a run. */
export interface EngineStats {
  submitted: number;
  started: number;
  backfilled: number;
  preempted: number;
  suspensions: number;
  requeued: number;
  cancelled: number;
  timeouts: number;
  refused: number;
  events: number;
  backfillPasses: number;
}

/** The discrete-event Slurm model. */
export class SlurmEngine implements DiscreteEventEngine {
  readonly jobs = new JobTable();
  readonly config: SlurmConfig;
  /** Users' decayed usage and shares (the one user ledger, src/scheduling/userLedger.ts). */
  readonly fairShare: UserLedger;
  /** Current time (s). */
  now = 0;
  /** Free cores per group. */
  readonly free: Float64Array;
  /**
   * GPUs (issue 45): free per group, each group's GPU type (index into `gpuTypes`, -1: none). A GPU job
   * runs in a group with its GPUs free beside its cores (counted per group, as cores are); the backfill
   * pass keeps a GPU profile beside the core profile once a GPU job was submitted. Not with `nodeSelect`.
   */
  readonly freeGpus: Float64Array;
  private readonly gpuTypes: string[];
  private readonly groupGpuType: Int32Array;
  private gpuProfile: Float64Array[] | null = null;
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
  /** Slots holding cores (running or operator-suspended). */
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
  /** Cores per user running (for usage accrual). */
  private readonly userCores: Float64Array;
  /** Users with cores running (dense list and each user's position in it, -1 when absent). */
  private readonly activeUsers: Int32Array;
  private readonly activePos: Int32Array;
  private nActive = 0;
  /** Cores x seconds per user run since the last `PriorityCalcPeriod` tick (folded into usage there). */
  private readonly periodUsage: Float64Array;
  private lastAccrual = 0;
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
  private profile: Float64Array[];
  private readonly delta: Float64Array;
  /** `nodeSelect`: first node of each group (and the total at the end), the slot on each node (-1: idle). */
  private readonly nodeBase: Int32Array;
  private readonly nodeJob: Int32Array;
  /** `nodeSelect`: the nodes each running job holds; the nodes chosen for the job being started. */
  private readonly jobNodes = new Map<number, Int32Array>();
  private picked: Int32Array | null = null;

  constructor(
    readonly platform: SlurmPlatform,
    config: Partial<SlurmConfig> = {},
  ) {
    this.config = { ...DEFAULT_SLURM, ...config, priority: { ...DEFAULT_SLURM.priority, ...config.priority } };
    this.fairShare = UserLedger.numbered(this.config.users, platform.totalCores, 1);
    this.userCores = new Float64Array(this.config.users);
    this.activeUsers = new Int32Array(this.config.users);
    this.activePos = new Int32Array(this.config.users).fill(-1);
    this.periodUsage = new Float64Array(this.config.users);
    this.free = Float64Array.from(platform.groupCores);
    this.freeGpus = Float64Array.from(platform.groupGpus);
    this.gpuTypes = [...new Set(platform.groupGpuType.filter((t) => t !== null))] as string[];
    this.groupGpuType = Int32Array.from(platform.groupGpuType, (t) => (t === null ? -1 : this.gpuTypes.indexOf(t)));
    this.maxQos = Math.max(1, ...this.config.qosPriorities);
    this.tier = Int32Array.from(platform.partitions, (p) => p.priorityTier);
    const parts = platform.partitions;
    this.canPreempt = parts.some(
      (p) => p.preemptMode !== 'off' && parts.some((q) => q.priorityTier > p.priorityTier && q.groups.some((g) => p.groups.includes(g))),
    );
    const K = this.bfBuckets();
    this.profile = Array.from(platform.groupNames, () => new Float64Array(K));
    this.delta = new Float64Array(K + 1);
    const G = platform.groupNames.length;
    this.nodeBase = new Int32Array(G + 1);
    if (this.config.nodeSelect) {
      for (let g = 0; g < G; g++) {
        const n = platform.groupCores[g]!;
        if (!Number.isInteger(n)) throw new InputError(`nodeSelect: group ${platform.groupNames[g]} must count whole nodes (found ${n} units)`);
        this.nodeBase[g + 1] = this.nodeBase[g]! + n;
      }
    }
    this.nodeJob = new Int32Array(this.nodeBase[G]!).fill(-1);
  }

  private bfBuckets(): number {
    return Math.max(1, Math.ceil(this.config.bfWindow / this.config.bfResolution));
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
    this.submitGpus(input, s);
    J.state[s] = JobState.Pending;
    this.push(Math.max(input.submit, this.now), ARRIVAL, s);
    return s;
  }

  /** The job's GPU request (issue 45), checked: a whole count, a known type, some group of its partition that holds it. */
  private submitGpus(input: SlurmJobInput, s: number): void {
    const J = this.jobs;
    const n = input.gpus ?? 0;
    J.gpus[s] = n;
    J.gpuType[s] = -1;
    if (n === 0) return;
    const what = `job ${input.id}: ${n} GPUs${input.gpuType !== undefined ? ` of type ${input.gpuType}` : ''}`;
    if (!(Number.isInteger(n) && n > 0)) throw new InputError(`${what}: expected a whole number of GPUs >= 0`);
    if (this.config.nodeSelect) throw new InputError(`${what}: GPU jobs on whole-node allocation (nodeSelect) are not modelled`);
    if (input.gpuType !== undefined) {
      J.gpuType[s] = this.gpuTypes.indexOf(input.gpuType);
      if (J.gpuType[s]! < 0) throw new InputError(`${what}: no node has GPUs of that type (the types: ${this.gpuTypes.join(', ') || 'none'})`);
    }
    const part = this.platform.partitions[input.partition ?? 0];
    if (part !== undefined && !part.groups.some((g) => this.gpuFits(s, g, this.platform.groupGpus[g]!)))
      throw new InputError(`${what}: no node group of partition ${part.name} has that many GPUs${input.gpuType !== undefined ? ' of that type' : ''}`);
    this.gpuProfile ??= Array.from(this.platform.groupNames, () => new Float64Array(this.bfBuckets()));
  }

  /** Whether job `s`'s GPUs fit in group `g` with `free` GPUs free there. */
  private gpuFits(s: number, g: number, free: number): boolean {
    const n = this.jobs.gpus[s]!;
    if (n === 0) return true;
    const t = this.jobs.gpuType[s]!;
    return this.groupGpuType[g]! >= 0 && (t < 0 || t === this.groupGpuType[g]) && free >= n;
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
      // the background thread's next tick (k + bgTickPhase s) at least batchSchedDelay after its last pass
      const ph = c.bgTickPhase;
      if (!this.passDue) at = Math.ceil(Math.max(this.now, this.lastBackground + c.batchSchedDelay) - ph - 1e-9) + ph;
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
    this.stats.submitted++;
    this.pull();
    const why = this.platform.refusal(J.part[s]!, J.cores[s]!, J.timeLimit[s]!, J.user[s]!);
    if (why !== null) {
      J.state[s] = JobState.Refused;
      this.stats.refused++;
      for (const l of this.listeners) l.onReject?.(this, s);
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
      this.queue.schedule(this.now + this.config.priority.calcPeriod, PRIO, -1);
    }
    if (this.config.backfill && !this.bfScheduled && this.pending.length > 0) {
      this.bfScheduled = true;
      this.queue.schedule(this.nextTick(this.config.bfInterval, this.config.bfGrid), BACKFILL, -1);
    }
    if (this.config.schedInterval > 0 && !this.schedScheduled && this.pending.length > 0) {
      this.schedScheduled = true;
      // with batchSchedDelay the periodic pass is the background thread's (controller.c): on its tick
      const phase = this.config.batchSchedDelay > 0 ? this.config.bgTickPhase : 0;
      this.queue.schedule(this.nextTick(this.config.schedInterval, true, phase), SCHED, -1);
    }
  }

  /**
   * The next periodic pass: `period` from now, or on a grid the next point `k x period + phase` after now.
   */
  private nextTick(period: number, grid: boolean, phase = 0): number {
    return grid ? (Math.floor((this.now - phase) / period) + 1) * period + phase : this.now + period;
  }

  /** Starts (or resumes after a requeue) job `s` on group `g` now (`byBackfill`: by a backfill pass). */
  private startJob(s: number, g: number, byBackfill = false): void {
    const J = this.jobs;
    J.backfilled[s] = byBackfill ? 1 : 0;
    J.state[s] = JobState.Running;
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
    if (this.config.nodeSelect) {
      let nodes = this.picked;
      this.picked = null;
      if (nodes === null) {
        const b = this.nodeBase[g]!;
        const avail = new Uint8Array(this.nodeBase[g + 1]! - b);
        for (let i = 0; i < avail.length; i++) avail[i] = this.nodeJob[b + i]! < 0 ? 1 : 0;
        nodes = pickNodes(avail, J.cores[s]!);
        if (nodes === null) throw new Error(`nodeSelect: job ${J.id[s]} started without ${J.cores[s]} idle nodes`);
        for (let i = 0; i < nodes.length; i++) nodes[i]! += b;
      }
      for (const x of nodes) {
        if (this.nodeJob[x]! >= 0) throw new Error(`nodeSelect: job ${J.id[s]} given node ${x}, which job ${J.id[this.nodeJob[x]!]} holds`);
        this.nodeJob[x] = s;
      }
      this.jobNodes.set(s, nodes);
    }
    this.free[g]! -= J.cores[s]!;
    this.freeGpus[g]! -= J.gpus[s]!;
    this.accrue(); // charge the time so far at the old core count before this job's cores count
    this.addUserCores(J.user[s]!, J.cores[s]!);
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
    const g = J.group[s]!;
    this.free[g]! += J.cores[s]!;
    this.freeGpus[g]! += J.gpus[s]!;
    const nodes = this.jobNodes.get(s);
    if (nodes !== undefined) {
      for (const x of nodes) this.nodeJob[x] = -1;
      this.jobNodes.delete(s);
    }
    this.accrue();
    this.addUserCores(J.user[s]!, -J.cores[s]!);
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
    if (c.endSchedShare > 0 && c.batchSchedDelay > 0 && !this.endNow && hashUnit(J.id[s]!, c.endSchedSeed) < c.endSchedShare) {
      this.endNow = true;
      this.queuedBeforeEnd = this.dirty;
    }
    this.stopStretch(s);
    this.give(s);
    J.end[s] = this.now;
    if (J.runTime[s]! > J.timeLimit[s]!) {
      J.state[s] = JobState.Timeout;
      this.stats.timeouts++;
    } else J.state[s] = JobState.Completed;
    this.leave(s);
  }

  /** A job that ran leaves the system: its listeners hear of it, then its slot is recycled. */
  private leave(s: number): void {
    for (const l of this.listeners) l.onEnd?.(this, s, s);
    this.jobs.release(s);
  }

  private opSuspend(s: number): void {
    const J = this.jobs;
    this.stopStretch(s);
    this.accrue();
    this.addUserCores(J.user[s]!, -J.cores[s]!);
    J.opDone[s] = 1;
    J.state[s] = JobState.OpSuspended;
    J.suspendedAt[s] = this.now;
    J.openPeriod(s, this.now);
    this.stats.suspensions++;
    this.push(this.now + J.opFor[s]!, OP_RESUME, s);
    for (const l of this.listeners) l.onSuspend?.(this, s, JobPhase.Suspended);
  }

  private opResume(s: number): void {
    const J = this.jobs;
    J.closePeriod(s, this.now);
    J.state[s] = JobState.Running;
    this.accrue();
    this.addUserCores(J.user[s]!, J.cores[s]!);
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
      J.state[s] = JobState.Suspended;
      J.openPeriod(s, this.now);
      this.stats.suspensions++;
      this.suspended.push(s);
      for (const l of this.listeners) l.onSuspend?.(this, s, JobPhase.Preempted);
    } else if (mode === 'requeue') {
      J.state[s] = JobState.Pending;
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
      J.state[s] = JobState.Cancelled;
      J.end[s] = this.now;
      this.stats.cancelled++;
      this.leave(s);
    }
  }

  private resumePreempted(s: number, g: number): void {
    const J = this.jobs;
    J.closePeriod(s, this.now);
    J.state[s] = JobState.Running;
    this.take(s, g);
    this.runStretch(s);
    for (const l of this.listeners) l.onResume?.(this, s);
  }

  // ---------------------------------------------------------------- priority

  /** Adds cores x seconds since the last accrual to the current period's usage (`periodUsage`). */
  private accrue(): void {
    const dt = this.now - this.lastAccrual;
    if (dt <= 0) return;
    this.lastAccrual = this.now;
    const u = this.userCores;
    const p = this.periodUsage;
    const a = this.activeUsers;
    for (let k = 0; k < this.nActive; k++) {
      const i = a[k]!;
      p[i]! += u[i]! * dt;
    }
  }

  /** Changes user `u`'s running cores by `delta`, keeping the list of users with cores (accrual walks only them). */
  private addUserCores(u: number, delta: number): void {
    const before = this.userCores[u]!;
    const after = before + delta;
    this.userCores[u] = after;
    if (before <= 0 && after > 0) {
      this.activePos[u] = this.nActive;
      this.activeUsers[this.nActive++] = u;
    } else if (before > 0 && after <= 0) {
      const i = this.activePos[u]!;
      const last = this.activeUsers[--this.nActive]!;
      this.activeUsers[i] = last;
      this.activePos[last] = i;
      this.activePos[u] = -1;
    }
  }

  /** The multifactor priority of pending job `s` now. */
  computePriority(s: number, totalUsage: number): number {
    const J = this.jobs;
    const c = this.config.priority;
    const part = this.platform.partitions[J.part[s]!]!;
    return jobPriority(c, {
      age: ageFactor(this.now - J.submit[s]!, c.maxAge),
      fairshare: this.fairShare.fairShare(J.user[s]!, totalUsage, c.dampening),
      jobSize: jobSizeFactor(J.cores[s]!, this.platform.totalCores, c.favorSmall),
      partition: part.priorityJobFactor / this.platform.maxPartitionFactor,
      qos: (this.config.qosPriorities[J.qos[s]!] ?? 0) / this.maxQos,
    });
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
    // usage <- usage * 2^(-period / half-life) + cores x seconds run during the period (module comment
    // of priority.ts): the old usage decays, the period's own usage is added undecayed.
    this.accrue();
    this.fairShare.decay(c.calcPeriod, c.decayHalfLife);
    const p = this.periodUsage;
    for (let i = 0; i < p.length; i++) {
      if (p[i]! > 0) this.fairShare.accrue(i, p[i]!);
      p[i] = 0;
    }
    this.recomputePriorities();
    if (this.nRunning > 0 || this.pending.length > 0 || this.queue.size > 0) {
      this.prioScheduled = true;
      this.queue.schedule(this.now + c.calcPeriod, PRIO, -1);
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

  /** A group of the job's partition with `cores` free now, or -1. */
  private fitNow(s: number): number {
    const cores = this.jobs.cores[s]!;
    for (const g of this.platform.partitions[this.jobs.part[s]!]!.groups) if (this.free[g]! >= cores && this.gpuFits(s, g, this.freeGpus[g]!)) return g;
    return -1;
  }

  /** The main scheduler: resumes preempted jobs that fit, then walks the queue in order. */
  schedule(): void {
    const J = this.jobs;
    if (this.suspended.length > 0) {
      const keep: number[] = [];
      for (const s of this.suspended) {
        const g = J.group[s]!;
        if (this.free[g]! >= J.cores[s]! && this.gpuFits(s, g, this.freeGpus[g]!)) this.resumePreempted(s, g);
        else keep.push(s);
      }
      this.suspended = keep;
    }
    const p = this.pending;
    if (p.length === 0) return;
    const blocked = new Uint8Array(this.platform.partitions.length);
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
      } else blocked[part] = 1;
    }
    this.walking = false;
    if (started > 0) this.pending = p.filter((x) => x >= 0);
    if (this.requeued.length > 0) {
      for (const s of this.requeued) this.insertPending(s);
      this.requeued = [];
      this.dirty = true;
    }
  }

  /** Preempts lower-tier jobs so that `s` fits in one group; returns the group or -1. */
  private preemptFor(s: number): number {
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
        if (J.group[r] !== g || J.state[r] !== JobState.Running) continue;
        const q = parts[J.part[r]!]!;
        if (q.priorityTier >= tier || q.preemptMode === 'off') continue;
        cands.push(r);
        avail += J.cores[r]!;
        availGpus += J.gpus[r]!;
      }
      if (avail < need || !this.gpuFits(s, g, availGpus)) continue;
      cands.sort((a, b) => this.tier[J.part[a]!]! - this.tier[J.part[b]!]! || J.lastResume[b]! - J.lastResume[a]! || J.id[b]! - J.id[a]!);
      for (const r of cands) {
        if (this.free[g]! >= need && this.gpuFits(s, g, this.freeGpus[g]!)) break;
        this.preempt(r);
      }
      return g;
    }
    return -1;
  }

  /** One pass of the backfill scheduler (see the module comment). */
  backfillPass(): void {
    const J = this.jobs;
    const cfg = this.config;
    this.stats.backfillPasses++;
    if (this.pending.length > 0 && cfg.nodeSelect && cfg.bfWillRun) this.backfillWillRun();
    else if (this.pending.length > 0 && cfg.nodeSelect) this.backfillNodes();
    else if (this.pending.length > 0) {
      const K = this.bfBuckets();
      const res = cfg.bfResolution;
      const G = this.platform.groupNames.length;
      // with Slurm's rounding the buckets sit on the absolute grid: bucket 0 began `offset` s ago
      const offset = cfg.bfSlurmRounding ? this.now - Math.floor(this.now / res) * res : 0;
      if (this.profile[0]!.length !== K) this.profile = Array.from({ length: G }, () => new Float64Array(K));
      for (let g = 0; g < G; g++) {
        const d = this.delta;
        d.fill(0);
        for (let i = 0; i < this.nRunning; i++) {
          const r = this.running[i]!;
          if (J.group[r] !== g) continue;
          let left = J.timeLimit[r]! - J.executed[r]!;
          if (J.state[r] === JobState.Running) left -= this.now - J.lastResume[r]!;
          else left += J.suspendedAt[r]! + J.opFor[r]! - this.now; // operator-suspended: back at its resume
          const b = cfg.bfSlurmRounding ? Math.floor((Math.max(0, left) + offset) / res) : Math.ceil(Math.max(0, left) / res);
          if (b < K) d[b]! += J.cores[r]!;
        }
        const prof = this.profile[g]!;
        let f = this.free[g]!;
        for (let k = 0; k < K; k++) {
          f += d[k]!;
          prof[k] = f;
        }
        if (this.gpuProfile !== null) this.fillGpuProfile(g, K, offset);
      }
      const p = this.pending;
      const n = Math.min(p.length, cfg.bfMaxJobTest);
      let started = 0;
      // bfReserveIdle: per group, the idle cores held by reservations and the bucket each starts at
      const holdIdle = cfg.bfReserveIdle !== 'none';
      const heldCores: number[][] = holdIdle ? Array.from({ length: G }, () => []) : [];
      const heldFrom: number[][] = holdIdle ? Array.from({ length: G }, () => []) : [];
      for (let i = 0; i < n; i++) {
        const s = p[i]!;
        const c = J.cores[s]!;
        const limit = J.timeLimit[s]!;
        // buckets a job starting now touches, and the length of a reservation
        const Lnow = Math.max(1, Math.ceil((offset + limit) / res - 1e-9));
        const Lres = cfg.bfSlurmRounding ? Math.max(1, Math.floor(limit / res + 1e-9)) : Lnow;
        let bestK = -1;
        let bestG = -1;
        const gp = J.gpus[s]!;
        for (const g of this.platform.partitions[J.part[s]!]!.groups) {
          if (gp > 0 && !this.gpuFits(s, g, this.platform.groupGpus[g]!)) continue;
          const prof = this.profile[g]!;
          // with GPUs, the first bucket where both the cores and the GPUs fit (issue 45)
          const firstBucket = (L: number, from: number) =>
            gp > 0 ? jointFit(prof, this.gpuProfile![g]!, K, c, gp, L, from) : earliestFit(prof, K, c, L, from);
          let k = firstBucket(Lnow, 0);
          if (k === 0) {
            // idle cores held for a reservation that starts before this job would end are not for it
            let usable = this.free[g]!;
            if (holdIdle) for (let a = 0; a < heldFrom[g]!.length; a++) if (heldFrom[g]![a]! < Lnow) usable -= heldCores[g]![a]!;
            if (usable < c) k = firstBucket(Lres, 1);
          } else if (k > 0 && Lres !== Lnow) k = firstBucket(Lres, 1);
          if (k >= 0 && (bestK < 0 || k < bestK)) {
            bestK = k;
            bestG = g;
          }
        }
        if (bestK < 0) continue; // beyond the window: no reservation
        const prof = this.profile[bestG]!;
        const e = Math.min(K, bestK + (bestK === 0 ? Lnow : Lres));
        if (bestK > 0 && holdIdle) {
          let idleLeft = this.free[bestG]!;
          for (const x of heldCores[bestG]!) idleLeft -= x;
          const take = Math.max(0, Math.min(c, idleLeft, cfg.bfReserveIdle === 'first' ? c : Math.round((c * idleLeft) / Math.max(1, prof[bestK]!))));
          if (take > 0) {
            heldCores[bestG]!.push(take);
            heldFrom[bestG]!.push(bestK);
          }
        }
        for (let k = bestK; k < e; k++) prof[k]! -= c;
        if (gp > 0) for (let k = bestK; k < e; k++) this.gpuProfile![bestG]![k]! -= gp;
        if (bestK === 0 && this.free[bestG]! >= c && this.gpuFits(s, bestG, this.freeGpus[bestG]!)) {
          p[i] = -1;
          started++;
          this.stats.backfilled++;
          this.startJob(s, bestG, true);
        }
      }
      if (started > 0) this.pending = p.filter((x) => x >= 0);
    }
    if (this.pending.length > 0 && (this.nRunning > 0 || this.queue.size > 0)) {
      this.bfScheduled = true;
      this.queue.schedule(this.nextTick(cfg.bfInterval, cfg.bfGrid), BACKFILL, -1);
    }
  }

  /** Group `g`'s free GPUs over the backfill window, as its core profile (issue 45). */
  private fillGpuProfile(g: number, K: number, offset: number): void {
    const J = this.jobs;
    if (this.gpuProfile![g]!.length !== K) this.gpuProfile![g] = new Float64Array(K);
    const prof = this.gpuProfile![g]!;
    const d = this.delta;
    d.fill(0);
    for (let i = 0; i < this.nRunning; i++) {
      const r = this.running[i]!;
      if (J.group[r] === g && J.gpus[r]! > 0) {
        const b = this.endBucket(r, offset);
        if (b < K) d[b]! += J.gpus[r]!;
      }
    }
    let f = this.freeGpus[g]!;
    for (let k = 0; k < K; k++) {
      f += d[k]!;
      prof[k] = f;
    }
  }

  /** The bucket (of `bfResolution`, grid as in `backfillPass`) in which running slot `r` is expected to end. */
  private endBucket(r: number, offset: number): number {
    const J = this.jobs;
    const cfg = this.config;
    const res = cfg.bfResolution;
    let left = J.timeLimit[r]! - J.executed[r]!;
    if (J.state[r] === JobState.Running) left -= this.now - J.lastResume[r]!;
    else left += J.suspendedAt[r]! + J.opFor[r]! - this.now;
    return cfg.bfSlurmRounding ? Math.floor((Math.max(0, left) + offset) / res) : Math.ceil(Math.max(0, left) / res);
  }

  /** Expected end (s) of running slot `r` as the backfill scheduler sees it: its start plus its time limit. */
  private expectedEnd(r: number): number {
    const J = this.jobs;
    let left = J.timeLimit[r]! - J.executed[r]!;
    if (J.state[r] === JobState.Running) left -= this.now - J.lastResume[r]!;
    else left += J.suspendedAt[r]! + J.opFor[r]! - this.now; // operator-suspended: back at its resume
    return this.now + Math.max(0, left);
  }

  /**
   * The backfill pass of `bfWillRun` (see its documentation): a map of records `[begin, end)` on the
   * `bfResolution` grid, each with the nodes no reservation holds, split and merged as sched/backfill's
   * `_add_reservation` does; for each pending job the will-run test and the `later_start` retries.
   * Cost per job tested: retries x (records x nodes + running jobs x nodes); meant for partitions of
   * tens of whole nodes, as `backfillNodes`.
   */
  private backfillWillRun(): void {
    const J = this.jobs;
    const cfg = this.config;
    const res = cfg.bfResolution;
    const now = this.now;
    const N = this.nodeJob.length;
    const g0 = Math.floor(now / res + 1e-9) * res;
    const windowEnd = Math.max(g0 + res, Math.floor((now + cfg.bfWindow) / res + 1e-9) * res);
    // the map: records in time order, each with the nodes free of reservations (1) in it
    const rb: number[] = [g0];
    const re: number[] = [windowEnd];
    const rav: Uint8Array[] = [new Uint8Array(N).fill(1)];
    const addReservation = (start: number, end: number, nodes: Int32Array): void => {
      start = Math.max(start, rb[0]!);
      if (end < start + res) end = start + res;
      let j = 0;
      while (j < rb.length && re[j]! <= start) j++;
      if (j === rb.length) return;
      if (rb[j]! < start) {
        // split record j at start
        rb.splice(j + 1, 0, start);
        re.splice(j + 1, 0, re[j]!);
        rav.splice(j + 1, 0, rav[j]!.slice());
        re[j] = start;
        j++;
      }
      const first = Math.max(0, j - 1);
      let last = j;
      for (; j < rb.length && rb[j]! < end; j++) {
        if (end < re[j]!) {
          rb.splice(j + 1, 0, end);
          re.splice(j + 1, 0, re[j]!);
          rav.splice(j + 1, 0, rav[j]!.slice());
          re[j] = end;
        }
        for (const x of nodes) rav[j]![x] = 0;
        last = j;
      }
      // merge neighbours with identical nodes (as _add_reservation drops duplicate records)
      for (let i = Math.min(last + 1, rb.length - 1); i > first; i--) {
        const a = rav[i - 1]!;
        const b = rav[i]!;
        let same = true;
        for (let x = 0; x < N && same; x++) same = a[x] === b[x];
        if (same) {
          re[i - 1] = re[i]!;
          rb.splice(i, 1);
          re.splice(i, 1);
          rav.splice(i, 1);
        }
      }
    };
    const overlaps = (nodes: Int32Array, start: number, end: number): boolean => {
      for (let j = 0; j < rb.length; j++) {
        if (re[j]! > start && rb[j]! < end) for (const x of nodes) if (!rav[j]![x]) return true;
      }
      return false;
    };
    // running jobs in order of expected end (ties: slot order), with their ends
    const run: { r: number; end: number }[] = [];
    for (let i = 0; i < this.nRunning; i++) {
      const r = this.running[i]!;
      if (this.jobNodes.has(r)) run.push({ r, end: this.expectedEnd(r) });
    }
    run.sort((a, b) => a.end - b.end || a.r - b.r);
    const p = this.pending;
    const n = Math.min(p.length, cfg.bfMaxJobTest);
    let started = 0;
    for (let i = 0; i < n; i++) {
      const s = p[i]!;
      const c = J.cores[s]!;
      const limit = J.timeLimit[s]!;
      let best: { start: number; nodes: Int32Array; g: number } | null = null;
      for (const g of this.platform.partitions[J.part[s]!]!.groups) {
        const b0 = this.nodeBase[g]!;
        const m = this.nodeBase[g + 1]! - b0;
        if (m < c) continue;
        const r = this.willRunStart(c, limit, b0, m, rb, re, rav, run, overlaps);
        if (r !== null && (best === null || r.start < best.start)) best = { ...r, g };
      }
      if (best === null) continue; // no start within the window: no reservation
      if (best.start <= now + 1e-9) {
        addReservation(g0, Math.floor((now + limit) / res + 1e-9) * res, best.nodes);
        p[i] = -1;
        started++;
        this.stats.backfilled++;
        this.picked = best.nodes;
        this.startJob(s, best.g, true);
        // the will-run tests of later jobs see it among the running jobs
        const end = this.expectedEnd(s);
        let at = run.length;
        while (at > 0 && run[at - 1]!.end > end) at--;
        run.splice(at, 0, { r: s, end });
      } else addReservation(Math.floor(best.start / res + 1e-9) * res, Math.floor((best.start + limit) / res + 1e-9) * res, best.nodes);
    }
    if (started > 0) this.pending = p.filter((x) => x >= 0);
  }

  /**
   * The earliest start of a job of `c` whole nodes and time limit `limit` on the group of nodes
   * `[b0, b0 + m)` (module comment of `bfWillRun`), and the nodes it gets then (global indices), or null
   * when it has none within the window.
   */
  private willRunStart(
    c: number,
    limit: number,
    b0: number,
    m: number,
    rb: readonly number[],
    re: readonly number[],
    rav: readonly Uint8Array[],
    run: readonly { r: number; end: number }[],
    overlaps: (nodes: Int32Array, start: number, end: number) => boolean,
  ): { start: number; nodes: Int32Array } | null {
    const res = this.config.bfResolution;
    const now = this.now;
    const A = new Uint8Array(m);
    const free = new Uint8Array(m);
    let startRes = now;
    for (let attempt = 0; attempt < 64; attempt++) {
      const endTime = Math.max(startRes, now) + limit;
      A.fill(1);
      let later = 0;
      for (let j = 0; j < rb.length; j++) {
        if (re[j]! > startRes && j + 1 < rb.length && later === 0) {
          // a later record where a node not usable now becomes usable
          const next = rav[j + 1]!;
          const cur = rav[j]!;
          for (let x = 0; x < m; x++) {
            if (next[b0 + x] && !(A[x] && cur[b0 + x])) {
              later = re[j]!;
              break;
            }
          }
        }
        if (re[j]! <= startRes) continue;
        if (rb[j]! <= endTime + 1e-9) {
          const av = rav[j]!;
          for (let x = 0; x < m; x++) if (!av[b0 + x]) A[x] = 0;
        } else break;
      }
      let count = 0;
      for (let x = 0; x < m; x++) count += A[x]!;
      if (count < c) {
        if (later > 0) {
          startRes = later;
          continue;
        }
        return null;
      }
      // will-run: idle nodes first, then running jobs removed in windows of 30 s, doubling
      let idle = 0;
      for (let x = 0; x < m; x++) {
        free[x] = A[x] && this.nodeJob[b0 + x]! < 0 ? 1 : 0;
        idle += free[x]!;
      }
      let start = -1;
      if (idle >= c) start = now;
      else {
        // cons_common `_will_run_test` walks ALL running jobs in order of expected end: a job on none of
        // the usable nodes is skipped when reached, but it is still the one looked at to close a batch
        // (`list_peek_next`), so a usable job behind it can join the batch although it ends after it.
        const usable = (q: { r: number }): boolean => this.jobNodes.get(q.r)!.some((x) => x >= b0 && x < b0 + m && A[x - b0]);
        let k = 0;
        let window = 30;
        let barrier = Number.NaN;
        let more = true;
        while (more && start < 0) {
          let lastEnd = Number.NaN;
          for (;;) {
            if (k >= run.length) {
              more = false;
              break;
            }
            const q = run[k++]!;
            if (!usable(q)) continue;
            if (Number.isNaN(barrier)) barrier = q.end + (30 - (q.end % 30));
            lastEnd = q.end;
            for (const x of this.jobNodes.get(q.r)!) if (x >= b0 && x < b0 + m && A[x - b0]) free[x - b0] = 1;
            if (k >= run.length) {
              more = false;
              break;
            }
            if (run[k]!.end > barrier + window) break;
          }
          if (Number.isNaN(lastEnd)) break;
          do window *= 2;
          while (k < run.length && run[k]!.end > barrier + window);
          let f = 0;
          for (let x = 0; x < m; x++) f += free[x]!;
          if (f >= c) start = Math.max(lastEnd, now);
        }
        if (start < 0) return null;
      }
      const nodes = pickNodes(free, c)!;
      for (let x = 0; x < nodes.length; x++) nodes[x]! += b0;
      start = Math.max(start, startRes);
      if (start <= now + 1e-9) return { start: now, nodes };
      if (later > 0 && start > later) {
        startRes = later;
        continue;
      }
      if (start > now + this.config.bfWindow) return null;
      const rs = Math.floor(start / res + 1e-9) * res;
      const rEnd = Math.floor((start + limit) / res + 1e-9) * res;
      if (overlaps(nodes, rs, Math.max(rEnd, rs + res))) {
        if (start <= startRes) return null; // no progress (Slurm would retry the same test)
        startRes = start;
        continue;
      }
      return { start, nodes };
    }
    return null;
  }

  /**
   * The backfill pass with `nodeSelect`: each node is free from the bucket its job is expected to end
   * in; reservations are intervals of buckets on specific nodes. A job starts now on idle nodes that no
   * reservation touches while it would run; otherwise its reservation starts at the earliest bucket
   * (a node's end bucket or a reservation's end: the only places where a node becomes usable) with
   * enough nodes free for its whole time limit, on the nodes `pickNodes` chooses among them. Cost per
   * pass: for each job tested, candidates x nodes of its groups x reservations per node (a few
   * thousand operations on 8-64 nodes; quadratic in the nodes of a partition, so meant for small ones).
   */
  private backfillNodes(): void {
    const J = this.jobs;
    const cfg = this.config;
    const K = this.bfBuckets();
    const res = cfg.bfResolution;
    const offset = cfg.bfSlurmRounding ? this.now - Math.floor(this.now / res) * res : 0;
    const N = this.nodeJob.length;
    const freeFrom = new Int32Array(N);
    for (let x = 0; x < N; x++) {
      const r = this.nodeJob[x]!;
      freeFrom[x] = r < 0 ? 0 : Math.min(K, this.endBucket(r, offset));
    }
    const resFrom: number[][] = Array.from({ length: N }, () => []);
    const resTo: number[][] = Array.from({ length: N }, () => []);
    const clear = (x: number, a: number, b: number): boolean => {
      const f = resFrom[x]!;
      const t = resTo[x]!;
      for (let i = 0; i < f.length; i++) if (f[i]! < b && t[i]! > a) return false;
      return true;
    };
    const p = this.pending;
    const n = Math.min(p.length, cfg.bfMaxJobTest);
    let started = 0;
    for (let i = 0; i < n; i++) {
      const s = p[i]!;
      const c = J.cores[s]!;
      const limit = J.timeLimit[s]!;
      const Lnow = Math.max(1, Math.ceil((offset + limit) / res - 1e-9));
      const Lres = cfg.bfSlurmRounding ? Math.max(1, Math.floor(limit / res + 1e-9)) : Lnow;
      const Ltest = cfg.bfSlurmRounding ? Math.floor((offset + limit) / res + 1e-9) + 1 : Lnow;
      const Lhold = cfg.bfSlurmRounding ? Math.max(1, Math.floor((offset + limit) / res + 1e-9)) : Lnow;
      let bestK = -1;
      let bestNodes: Int32Array | null = null;
      let bestG = -1;
      for (const g of this.platform.partitions[J.part[s]!]!.groups) {
        const b0 = this.nodeBase[g]!;
        const m = this.nodeBase[g + 1]! - b0;
        if (m < c) continue;
        const avail = new Uint8Array(m);
        // now: idle nodes no reservation touches while the job would run
        let count = 0;
        for (let x = 0; x < m; x++) {
          avail[x] = this.nodeJob[b0 + x]! < 0 && clear(b0 + x, 0, Ltest) ? 1 : 0;
          count += avail[x]!;
        }
        let k = -1;
        if (count >= c) k = 0;
        else {
          const cands = new Set<number>([1]);
          for (let x = b0; x < b0 + m; x++) {
            if (freeFrom[x]! >= 1 && freeFrom[x]! < K) cands.add(freeFrom[x]!);
            for (const t of resTo[x]!) if (t >= 1 && t < K) cands.add(t);
          }
          for (const kk of [...cands].sort((a, b) => a - b)) {
            if (bestK >= 0 && kk >= bestK) break;
            const e = Math.min(K, kk + Lres);
            count = 0;
            for (let x = 0; x < m; x++) {
              avail[x] = freeFrom[b0 + x]! <= kk && clear(b0 + x, kk, e) ? 1 : 0;
              count += avail[x]!;
            }
            if (count >= c) {
              k = kk;
              break;
            }
          }
        }
        if (k >= 0 && (bestK < 0 || k < bestK)) {
          bestK = k;
          bestG = g;
          bestNodes = pickNodes(avail, c);
          for (let x = 0; x < bestNodes!.length; x++) bestNodes![x]! += b0;
        }
      }
      if (bestK < 0 || bestNodes === null) continue; // beyond the window: no reservation
      const e = Math.min(K, bestK + (bestK === 0 ? Lhold : Lres));
      for (const x of bestNodes) {
        resFrom[x]!.push(bestK);
        resTo[x]!.push(e);
      }
      if (bestK === 0) {
        p[i] = -1;
        started++;
        this.stats.backfilled++;
        this.picked = bestNodes;
        this.startJob(s, bestG, true);
      }
    }
    if (started > 0) this.pending = p.filter((x) => x >= 0);
  }

  /**
   * Changes the scheduler's settings from now on (what an operator does with `scontrol reconfigure`):
   * multifactor weights and flags, backfill on/off, window, interval, depths. Pending priorities are
   * recomputed and the queue reordered; a backfill pass is scheduled if backfill was off.
   */
  setScheduling(change: Partial<Omit<SlurmConfig, 'priority' | 'users' | 'qosPriorities'>> & { priority?: Partial<PriorityConfig> }): void {
    const { priority, ...rest } = change;
    Object.assign(this.config, rest);
    if (priority) this.config.priority = { ...this.config.priority, ...priority };
    this.recomputePriorities();
    this.ensureTicks();
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

/** The first bucket from `from` where both `c` cores and `n` GPUs are free for `L` buckets (issue 45), or -1. */
export function jointFit(cores: Float64Array, gpus: Float64Array, K: number, c: number, n: number, L: number, from = 0): number {
  let k = earliestFit(cores, K, c, L, from);
  for (;;) {
    if (k < 0) return -1;
    const kg = earliestFit(gpus, K, n, L, k);
    if (kg === k || kg < 0) return kg;
    k = earliestFit(cores, K, c, L, kg);
  }
}

/**
 * The first bucket `k` of `free` (length `K`) such that `free[j] >= c` for every `j` in `[k, k + L)`
 * (buckets past the window count as free), or -1. Linear: a failing bucket moves the candidate past it.
 */
export function earliestFit(free: Float64Array, K: number, c: number, L: number, from = 0): number {
  let k = from;
  let j = 0;
  while (k < K) {
    const e = Math.min(K, k + L);
    if (j < k) j = k;
    while (j < e && free[j]! >= c) j++;
    if (j >= e) return k;
    k = j + 1;
  }
  return -1;
}

/**
 * The nodes (indices into `avail`, ascending) a whole-node job of `n` nodes gets among the available
 * ones (`avail[i] = 1`), as Slurm's select plugins choose without topology (select/linear `_job_test`,
 * cons_tres `_eval_nodes`): runs of consecutive available nodes; the shortest run that holds all `n`
 * (the first on ties) gives its first `n` nodes; if no run does, the longest run is taken whole (the
 * first on ties) and the choice repeats for the rest. null when fewer than `n` are available.
 */
export function pickNodes(avail: Uint8Array, n: number): Int32Array | null {
  const starts: number[] = [];
  const lens: number[] = [];
  let total = 0;
  for (let i = 0; i < avail.length; ) {
    if (!avail[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < avail.length && avail[j]) j++;
    starts.push(i);
    lens.push(j - i);
    total += j - i;
    i = j;
  }
  if (total < n) return null;
  const out = new Int32Array(n);
  let got = 0;
  while (got < n) {
    const rem = n - got;
    let best = -1;
    for (let r = 0; r < starts.length; r++) {
      const L = lens[r]!;
      if (L === 0) continue;
      if (best < 0) best = r;
      else {
        const bl = lens[best]!;
        const suff = L >= rem;
        const bsuff = bl >= rem;
        if ((suff && !bsuff) || (suff && bsuff && L < bl) || (!suff && !bsuff && L > bl)) best = r;
      }
    }
    const take = Math.min(rem, lens[best]!);
    for (let t = 0; t < take; t++) out[got++] = starts[best]! + t;
    lens[best] = 0;
  }
  out.sort();
  return out;
}
