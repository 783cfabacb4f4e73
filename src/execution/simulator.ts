/**
 * The cluster execution engine: a discrete-event simulation of jobs running on a compiled
 * `Platform` (DESIGN §2.3–§2.6). It knows nothing of scheduling policies nor of RL: a caller (a
 * batch scheduler, an environment) calls `advance()` to run to the next decision point and
 * `startJob(job, cores)` to place jobs there.
 *
 * This file owns the event loop and the clock, and the job lifecycle (submission, start, task and
 * job ends, walltime kills, rejection); the state it drives lives beside it:
 * - `allocation.ts`: who holds which core, free cores and memory per node, busy cores and power per
 *   processor, the placement checks;
 * - `progress.ts`: how fast each task goes (memory and communication contention) and when it ends;
 * - `running.ts`: running jobs and tasks, events, the records of jobs that left;
 * - `waitingQueue.ts`: the waiting jobs;
 * - `suspension.ts`: suspended jobs and their transitions (suspend, resume, operator events, the
 *   preempted jobs' resumption); `passRequests.ts`: the decision points a scheduler's clock asks for;
 * - `simulatorOptions.ts`: what callers give and get (options, `DecisionMaker`, `ResizeDecider`, listeners);
 * - `progressModel.ts`, `malleableProgress.ts`, `dlProgress.ts`, `capacity.ts`, `hostVectors.ts`: the
 *   dimensions that plug in.
 *
 * Over 600 lines: what remains is one state machine, the clock and the lifecycle every dimension's
 * events go through (submission, start, task and job ends, kills, rejection, resizes, suspension, preemption, the
 * pass clocks, IRMaSim's stepping); its transitions share the private event loop, the running-job slots
 * and the dirty marks, and split across files they would have to be exposed to each other.
 *
 * Time. Time 0 is the first job's submission: every submit time is rebased by the first one (or by
 * `timeOrigin`). Events at the same time are processed completions first, then submissions, each in
 * sequence order, and then form ONE decision point. Energy integrates the platform's power over time,
 * O(1) per event.
 *
 * Semantics `irmasim` (option `semantics`) runs IRMaSim's simulator loop instead of the documented
 * model, so that IRMaSim's workload managers give IRMaSim's numbers (see docs/model.md):
 * - time is stepped as IRMaSim steps it: `delta = min(next task end, next submission - now)`,
 *   `now += delta`, and every running task loses `round(rate * delta)` operations (an integer count,
 *   Python's round half to even); a job ends at the first step that is a task end at which all its
 *   tasks have no work left (a `delay` task loses `delta` seconds, unrounded);
 * - speed factors are recomputed only when a job starts or ends on a processor (IRMaSim's
 *   `update_speedup` runs on `schedule` and `reap`), not when one task of a running job ends;
 * - at one instant, the jobs submitted then form a decision point first, with the cores of the tasks
 *   ending then still held; then those tasks' jobs end (in submission order), their cores are freed,
 *   and that forms a second decision point, also when a task ended but no job did.
 * With `idlePower: 'after-first-task'` a processor draws nothing until its first task starts, as
 * IRMaSim's `Processor` does (its power is first computed before its cores exist).
 *
 * Extension points (docs/architecture.md): a lifecycle step that takes or frees cores of a running
 * job goes through `Allocation.move`/`releaseCore` and ends jobs through `endJob`; a progress model
 * other than "rate times time" plugs into `TaskProgress`; observers subscribe with `addListener`.
 *
 * Lifecycle operations a caller (a scheduler) may apply to a running job besides its end: `kill`
 * (it leaves, `killed`), and `preempt` (it stops now and goes back to the end of the waiting queue,
 * `Waiting` again: its cores and GPUs are freed, its listeners get `onRequeue`, and a plugged-in
 * progress model keeps its progress for its next start (`progressModel.ts`); the built-in models
 * start it again from scratch, as Slurm's `PreemptMode=REQUEUE` does. Its record (the `RunningJob` of
 * its last run) has that run's `start`, and `firstStart` its first run's). Round-based GPU schedulers preempt between rounds; Slurm's requeue is the other use.
 *
 * Suspension (`suspend`, `resume`; the lifecycle of Slurm's `scontrol suspend` and `PreemptMode=SUSPEND`):
 * a suspended job makes no progress and its end, walltime kill (the time limit counts run time only) and
 * next operator event wait; they move by the time it was suspended. Holding its cores (`Suspended`) they
 * stay its own and draw idle power; without them (`Preempted`) it resumes on the same cores as soon as
 * they are all free, before the next pass (or, waiting for a pass, when a pass resumes it: on them, or
 * where the pass's placement puts it then, `suspend`'s `resumeWhere`). A job's `operatorEvents` suspend it (holding its cores) `after`
 * seconds of run for `duration` seconds. Its record lists its `(suspend, resume)` periods.
 *
 * GPUs (DESIGN §16): a job with a `gpus` facet starts with its GPU ids beside its cores
 * (`startJob(job, cores, { gpus })`), checked by the capacity (`allocation.ts`) and by the progress
 * model that runs it (a DL job needs a rate where it runs).
 *
 * The pass clock (`passClock`, when decision points are): after every instant with a change while
 * jobs wait (`instant`, the default); after every single event or arrival (`event`); or in **rounds**
 * (`{ every: r }`, Gavel's round-based mechanism): a decision point at each round boundary only, even
 * with no job waiting (a round-based scheduler may preempt running jobs). A round lasts `r` seconds
 * and ends early at an instant when no job runs any more (they all ended); after a decision point
 * where no job was left running, the next round begins when the next job arrives. Arrivals and ends
 * within a round make no decision point.
 */
import { InputError } from '../core/errors.js';
import { type DiscreteEventEngine, ListenerTable } from '../core/engine.js';
import { EventLoop } from '../core/eventLoop.js';
import { commModel, networkVolume, type CommModel } from '../platform/communication.js';
import { JobNetwork } from '../platform/jobNetwork.js';
import { bandwidthRequest, memoryModel } from '../platform/memoryContention.js';
import type { ModelsConfig, Platform } from '../platform/platform.js';
import { hostVectorView } from '../platform/views.js';
import { taskMem, taskMemVol, taskOps, taskRuntime, type Job, withSubtime } from '../workload/job.js';
import { type ResizeCost, TABLE1_RESIZE_COST, validResize } from '../workload/malleability.js';
import { MalleableProgress } from './malleableProgress.js';
import { PLUGIN_KIND_BASE, type ProgressHost, type ProgressModel } from './progressModel.js';
import { Allocation, type IdlePowerAccounting } from './allocation.js';
import type { Capacity } from './capacity.js';
import { CountedCores } from './countedCores.js';
import { HostVectors } from './hostVectors.js';
import type { NodeFreeTree } from './nodeFreeTree.js';
import { PassRequests } from './passRequests.js';
import { type ResumePlacement, Suspensions } from './suspension.js';
import { TaskProgress } from './progress.js';
import {
  JobComm,
  KIND_JOB,
  KIND_KILL,
  KIND_PASS,
  KIND_RELEASE,
  KIND_RESUME,
  KIND_SUSPEND,
  KIND_TASK,
  NO_GPUS,
  PASS_REQUEST,
  rejectedRecord,
  RunningJob,
  RunningTask,
  type EventPayload,
  type JobRecord,
} from './running.js';
import { WaitingQueue } from './waitingQueue.js';
import type {
  DecisionMaker,
  ExecutionSemantics,
  ResizeDecider,
  ResizeDecision,
  SimulationListener,
  SimulatorOptions,
  StartOptions,
  UnfitJobHandling,
} from './simulatorOptions.js';

export { roundHalfEven } from './progress.js';
export type { IdlePowerAccounting } from './allocation.js';
export { RunningJob, RunningTask, type EndState, type JobRecord } from './running.js';
export { WaitingQueue } from './waitingQueue.js';
// every caller-facing type of the engine, for callers that import the engine alone
export type * from './simulatorOptions.js';

/**
 * Ranks of the engine's event kinds within an instant: operator suspensions and resumptions after the
 * ends and kills of their instant (every kind listed: a rank read past the array would leave V8's fast
 * path on every schedule). One table for every engine (`EventLoop` reads it once).
 */
const EVENT_RANKS: readonly number[] = Array.from({ length: 256 }, (_, k) => (k === KIND_SUSPEND || k === KIND_RESUME || k === KIND_PASS ? 1 : 0));

/** A resize the engine refuses (outside the job's limits, or beyond the free nodes). */
export class InvalidResizeError extends Error {}

/** Position of `n` in ascending `nodes` (binary search), or -1. */
function nodeIndex(nodes: Int32Array, n: number): number {
  let lo = 0;
  let hi = nodes.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = nodes[mid]!;
    if (v === n) return mid;
    if (v < n) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * The engine. Typical batch use:
 * ```ts
 * const sim = new ClusterSimulator(platform, workload.jobs)
 * while (sim.advance()) scheduler.schedule(sim)
 * ```
 * or, as every engine runs (`core/engine.ts`), with the scheduler attached: `sim.setScheduler(s);
 * sim.runUntil(Infinity)`.
 */
export class ClusterSimulator implements DiscreteEventEngine {
  readonly platform: Platform;
  readonly models: ModelsConfig;
  readonly enforceMemory: boolean;
  readonly walltimeKill: boolean;
  readonly unfit: UnfitJobHandling;
  readonly workloadName: string;
  readonly semantics: ExecutionSemantics;
  readonly idlePower: IdlePowerAccounting;

  /** Current time (s since the first submission). */
  now = 0;
  /** Jobs waiting, in arrival order (see `WaitingQueue`). */
  readonly queue = new WaitingQueue();
  /** Running jobs by slot (holes are null). */
  readonly runningBySlot: (RunningJob | null)[] = [];
  runningCount = 0;

  /** What the platform offers and who holds it (the capacity dimension, `capacity.ts`; option `capacity`). */
  readonly capacity: Capacity;
  /** The capacity as continuous CPU and memory vectors per host (`capacity: 'vectors'`), else null. */
  readonly hostVectors: HostVectors | null;
  /** The capacity as cores counted per node group (`capacity: 'counted'`), else null. */
  readonly counted: CountedCores | null;
  /** Task speeds and ends (see `progress.ts`). */
  readonly progress: TaskProgress;
  /** The allocation of cores (`capacity: 'cores'`), else null (see `allocation`). */
  private readonly alloc: Allocation | null;

  /** Per node: current link factor, and link load. */
  readonly nodeCommFactor: Float64Array;
  readonly nodeCommLoad: Float64Array;
  /** Per processor: sum of bandwidth requests of its running tasks (MB/s). */
  readonly procMemLoad: Float64Array;

  /** Energy so far (J), network volume so far (B). */
  energy = 0;
  networkVolume = 0;

  /** Counters. */
  jobsSubmitted = 0;
  jobsFinished = 0;
  jobsKilled = 0;
  jobsRejected = 0;
  /** Time of the last job end (finish or kill). */
  lastEnd = 0;

  private readonly comm: CommModel;
  /**
   * Task ends, job ends and walltime kills, in scheduling order within an instant; an event's stamp is the
   * time it was scheduled for, and it is stale once its task or job expects another time or has ended.
   */
  private readonly events = new EventLoop<EventPayload>({
    capacity: 64,
    ranks: EVENT_RANKS,
    isLive: (kind, e, stamp) =>
      kind >= PLUGIN_KIND_BASE
        ? !(e as RunningJob).ended && this.progressModels[(kind - PLUGIN_KIND_BASE) >> 3]!.isLive(kind & 7, e as RunningJob, stamp)
        : kind === KIND_KILL
          ? !(e as RunningJob).ended && (e as RunningJob).killAt === stamp
          : kind >= KIND_SUSPEND
            ? kind === KIND_PASS
              ? this.passRequests.has(stamp)
              : kind === KIND_RELEASE || (!(e as RunningJob).ended && (e as RunningJob).sus!.opStamp === stamp)
            : (e as RunningTask | RunningJob).eventTime === stamp && (kind === KIND_JOB ? !(e as RunningJob).ended : !(e as RunningTask).done),
  });
  /** Plugged-in progress models (`progressModel.ts`). */
  private readonly progressModels: ProgressModel[] = [];
  /** Malleable progress (`malleable: 'steps'`), else null. */
  private readonly steps: MalleableProgress | null;
  private readonly resizeCost: ResizeCost;
  private resizePolicy: ResizeDecider | null = null;
  /** A reconfiguration point waiting for the caller's decision (no resize policy attached). */
  private pointPending: RunningJob | null = null;
  private readonly eventClock: boolean;
  /** The round pass clock: its round length (s), 0 without; the next round boundary (Infinity: at the next arrival). */
  private readonly roundEvery: number;
  /** The `requested` pass clock: decision points only where a pass was requested (`requestPass`). */
  private readonly requestedClock: boolean;
  /** A pass was requested for the instant being run (`requestPass(now)`, or a request event). */
  private passNow = false;
  private nextRound = Number.POSITIVE_INFINITY;
  /** Jobs preempted back to the queue: what their next run takes over (a progress model's state, their first start) and the cores their last run held. */
  private readonly requeued = new Map<Job, { extension: unknown; firstStart: number; cpus: number }>();
  /** The pending pass requests (`requestPass`) and the hooks to run at their instants' ends. */
  private readonly passRequests = new PassRequests<ClusterSimulator>();
  /** The event clock: the event just handled freed resources (a job or task ended, a resize ended). */
  private freed = false;
  /** Jobs that ended with their nodes still `COMPLETING` (their `completing` facet): the run is not over before their release. */
  private releasesDue = 0;
  private readonly source: Iterator<Job>;
  private nextJob: Job | null = null;
  private origin = NaN;
  private readonly freeSlots: number[] = [];
  /** Admission rules beyond the capacity's (`addAdmissionRule`). */
  private readonly admissionRules: ((job: Job) => string | null)[] = [];
  /** The listeners' methods by event (`ListenerTable`). */
  private readonly listeners = new ListenerTable<ClusterSimulator, Job, RunningJob, JobRecord>();
  /** The suspended jobs and their transitions (`suspension.ts`). */
  private readonly suspensions = new Suspensions(this, {
    events: this.events,
    markFreed: () => {
      this.freed = true;
    },
    suspended: (rj, phase) => {
      for (const f of this.listeners.suspend) f(this, rj, phase);
    },
    resumed: (rj) => {
      for (const f of this.listeners.resume) f(this, rj);
    },
  });
  private stallOffered = false;
  /** `runUntil`: a decision point was reached and not decided yet. */
  private decisionDue = false;
  private scheduler: DecisionMaker | null = null;
  /** The attached scheduler's `pause`, or null. */
  private pauseHook: ((sim: ClusterSimulator) => boolean) | null = null;
  /** `advanceUpTo` returned because `pauseHook` asked. */
  private paused = false;
  private finishedFlag = false;
  /** IRMaSim semantics: jobs whose tasks all ended at `now`, released after the submissions at `now`. */
  private readonly endedAtNow: RunningJob[] = [];
  private endsPending = false;
  /** IRMaSim semantics: submission rank of each job (jobs end in that order at one instant). */
  private readonly arrival = new Map<Job, number>();
  /** IRMaSim semantics: jobs whose tasks all ran out, ended at the next step that is a task end. */
  private readonly drained: RunningJob[] = [];

  constructor(platform: Platform, jobs: Iterable<Job>, options: SimulatorOptions = {}) {
    this.platform = platform;
    this.models = { ...platform.models, ...(options.models ?? {}) };
    this.enforceMemory = options.enforceMemory ?? true;
    this.walltimeKill = options.walltimeKill ?? false;
    this.unfit = options.unfit ?? 'error';
    this.workloadName = options.workloadName ?? 'workload';
    this.semantics = options.semantics ?? 'clustergym';
    if (options.timeOrigin !== undefined) this.origin = options.timeOrigin;
    this.idlePower = options.idlePower ?? 'always';
    if (this.semantics === 'irmasim' && this.walltimeKill)
      throw new InputError('walltime kill is not part of the irmasim semantics (IRMaSim never kills a job)', this.workloadName);
    this.comm = commModel(this.models.comm);
    this.alloc = null;
    this.hostVectors = null;
    this.counted = null;
    if (options.capacity === 'vectors' || options.capacity === 'counted') {
      const what = options.capacity === 'vectors' ? 'the vector capacity' : 'the counted capacity';
      if (this.semantics === 'irmasim') throw new InputError(`${what} is not part of the irmasim semantics`, this.workloadName);
      if (options.malleable === 'steps') throw new InputError('malleable steps resize jobs by whole nodes of cores: use the core capacity', this.workloadName);
      if (options.capacity === 'vectors') this.capacity = this.hostVectors = new HostVectors(hostVectorView(platform));
      else {
        if (this.models.comm === 'flow')
          throw new InputError('the flow communication model routes between nodes: the counted capacity has none (use the core capacity)', this.workloadName);
        try {
          this.capacity = this.counted = new CountedCores(platform, this.enforceMemory);
        } catch (e) {
          if (e instanceof RangeError) throw new InputError(e.message, platform.name);
          throw e;
        }
      }
    } else this.capacity = this.alloc = new Allocation(platform, this.enforceMemory, this.idlePower);
    let network: JobNetwork<RunningJob> | null = null;
    if (this.models.comm === 'flow') {
      if (this.semantics === 'irmasim') throw new InputError('the flow communication model is not part of the irmasim semantics', this.workloadName);
      if (!platform.description.network)
        throw new InputError('the flow communication model needs a platform with a network (SimGrid XML, or a native platform with `network`)', platform.name);
      network = new JobNetwork<RunningJob>(platform);
    }
    this.progress = new TaskProgress(
      platform,
      this.models,
      memoryModel(this.models.memory),
      this.comm,
      this.alloc?.coreTask ?? [],
      this.events,
      this.semantics === 'irmasim',
      network,
    );
    this.nodeCommFactor = this.progress.nodeCommFactor;
    this.nodeCommLoad = this.progress.nodeCommLoad;
    this.procMemLoad = this.progress.procMemLoad;
    this.steps = null;
    if (options.malleable === 'steps') {
      if (this.semantics === 'irmasim') throw new InputError('malleable progress is not part of the irmasim semantics', this.workloadName);
      this.steps = new MalleableProgress();
      this.progressModels.push(this.steps);
    }
    for (const m of options.progress ?? []) this.progressModels.push(m);
    if (this.progressModels.length > 0 && this.semantics === 'irmasim')
      throw new InputError('plugged-in progress models are not part of the irmasim semantics', this.workloadName);
    for (let i = 0; i < this.progressModels.length; i++) this.progressModels[i]!.attach(this.hostFor(i));
    this.resizeCost = options.resizeCost ?? TABLE1_RESIZE_COST;
    this.eventClock = options.passClock === 'event';
    this.requestedClock = options.passClock === 'requested';
    if (this.requestedClock && this.semantics === 'irmasim')
      throw new InputError('the requested pass clock is not part of the irmasim semantics', this.workloadName);
    if (this.eventClock && this.semantics === 'irmasim') throw new InputError('the event pass clock is not part of the irmasim semantics', this.workloadName);
    const pc = options.passClock;
    this.roundEvery = typeof pc === 'object' ? pc.every : 0;
    if (typeof pc === 'object') {
      if (!(Number.isFinite(pc.every) && pc.every > 0))
        throw new InputError(`passClock.every: expected a round length in seconds > 0, found ${pc.every}`, this.workloadName);
      if (this.semantics === 'irmasim') throw new InputError('the round pass clock is not part of the irmasim semantics', this.workloadName);
    }
    this.source = jobs[Symbol.iterator]();
    this.pullNext();
  }

  /**
   * The capacity as an allocation of cores and memory (`allocation.ts`, the default capacity); its arrays
   * are also exposed below. Under `capacity: 'vectors'` or `'counted'` there are no cores to allocate: an error.
   */
  get allocation(): Allocation {
    if (this.alloc === null)
      throw new Error(
        this.counted !== null
          ? 'this engine runs the counted capacity (`capacity: "counted"`): it has no per-core allocation (coreOwner, coreTask, nodeFree, nodeFreeMem, procBusy, freeTree); read `counted` (free cores per node group)'
          : 'this engine runs the vector capacity (`capacity: "vectors"`): it has no per-core allocation (coreOwner, coreTask, nodeFree, nodeFreeMem, procBusy, freeTree); read `hostVectors`',
      );
    return this.alloc;
  }

  /** Per core: owner slot or -1 when free. */
  get coreOwner(): Int32Array {
    return this.allocation.coreOwner;
  }

  /** Per core: the task running there (tasks of jobs tracked per task). */
  get coreTask(): (RunningTask | null)[] {
    return this.allocation.coreTask;
  }

  /** Per node: free cores. */
  get nodeFree(): Int32Array {
    return this.allocation.nodeFree;
  }

  /** Per node group: free cores (either capacity that counts them: cores or counted). */
  get groupFree(): Int32Array {
    return this.counted !== null ? this.counted.groupFree : this.allocation.groupFree;
  }

  /** Per node: free memory (MB). */
  get nodeFreeMem(): Float64Array {
    return this.allocation.nodeFreeMem;
  }

  /** Per processor: busy (held) cores. */
  get procBusy(): Int32Array {
    return this.allocation.procBusy;
  }

  /** Free cores per node in platform order. */
  get freeTree(): NodeFreeTree {
    return this.allocation.freeTree;
  }

  /** Free cores in all. */
  get freeCores(): number {
    return this.capacity.freeCores;
  }

  /** Busy (held) cores in all. */
  get busyCores(): number {
    return this.capacity.busyCores;
  }

  /** Platform power now, W. */
  get power(): number {
    return this.capacity.power;
  }

  /**
   * Jobs waiting, in arrival order, as an array. Do not mutate; use `startJob`/`rejectJob`. The array
   * is a snapshot kept in step with arrivals; after a job leaves the queue the next read rebuilds it
   * (O(queue)), so hot loops over long queues should use `queue` instead.
   */
  get waiting(): Job[] {
    return this.queue.toArray();
  }

  /** Adds an observer. */
  addListener(l: SimulationListener): void {
    this.listeners.add(l);
  }

  /**
   * A free-core tree over the nodes in another order (position `i` holds node `order[i]`; `order` is a
   * permutation of the node ids), which the engine keeps up to date from now on, as it does
   * `freeTree`. Resource policies with a static node order use it to find "the first node in my order
   * with k free cores" in O(log N). Calls with the same `key` return the same tree.
   */
  freeTreeInOrder(key: string, order: Int32Array): NodeFreeTree {
    return this.allocation.freeTreeInOrder(key, order);
  }

  /** Whether every job has left the system and none is left to submit. */
  get finished(): boolean {
    return this.finishedFlag;
  }

  /** Original submit time of the first job (time 0 of the simulation), NaN before any job. */
  get timeOrigin(): number {
    return this.origin;
  }

  /** Rebased submit time of the next job still to be submitted, or Infinity. */
  get nextSubmitTime(): number {
    return this.nextJob ? this.nextJob.subtime : Infinity;
  }

  /** Time of the next event (completion or submission), Infinity if none. */
  nextEventTime(): number {
    if (this.semantics === 'irmasim') return Math.min(this.now + this.progress.nextStep(), this.nextSubmitTime);
    return Math.min(this.skipStale(), this.nextSubmitTime, this.nextRound);
  }

  /** The run is over: pending pass requests lapse. */
  private finish(): void {
    this.finishedFlag = true;
    this.passRequests.clear();
  }

  /** Whether the run is over (`finished`; the engine contract's name). */
  get done(): boolean {
    return this.finishedFlag;
  }

  /**
   * Attaches the decision maker that `runUntil` calls at each decision point (null: decisions are the
   * caller's, and `runUntil` stops at the first decision point).
   */
  setScheduler(scheduler: DecisionMaker | null): void {
    this.scheduler = scheduler;
    this.pauseHook = scheduler?.pause ? (sim) => scheduler.pause!(sim) : null;
  }

  /**
   * The engine contract's `runUntil` (`core/engine.ts`): runs every instant up to and including `t`, the
   * attached scheduler deciding at each decision point; without one, stops at the first decision point
   * (the caller decides, then calls again); it also stops where a reconfiguration point waits for the
   * caller (`pendingPoint`) or the scheduler's `pause` asks. The clock then moves to `t` when it is finite, except under
   * the irmasim semantics, whose clock only moves by IRMaSim's steps (splitting a step would change its
   * rounding): it stays at the last step before `t`. Returns `now`.
   */
  runUntil(t: number): number {
    for (;;) {
      // a reconfiguration point for the caller (no resize policy attached): stop there
      if (this.pointPending !== null) return this.now;
      if (this.decisionDue) {
        this.decisionDue = false;
        // no scheduler: the caller decides now, and the next call runs on
        if (this.scheduler === null) return this.now;
        this.scheduler.schedule(this);
        continue;
      }
      if (this.finishedFlag || !this.advanceUpTo(t)) break;
      if (this.paused) {
        // the scheduler's `pause`: a decision outside the engine, before the next event
        this.paused = false;
        return this.now;
      }
      if (this.pointPending === null) this.decisionDue = true;
    }
    if (this.semantics !== 'irmasim' && t < Infinity && t > this.now && !this.finishedFlag) this.advanceClock(t);
    return this.now;
  }

  /** Iterates over running jobs. */
  *running(): IterableIterator<RunningJob> {
    for (const r of this.runningBySlot) if (r) yield r;
  }

  /**
   * Runs the simulation up to the next decision point: a time at which jobs wait and something
   * changed (a job ended or arrived). Processes all events at that time (completions, then
   * submissions). Returns false when the simulation is over (no job waiting, running or to come).
   *
   * The caller may then start jobs with `startJob`; calling `advance` again moves time forward. (A
   * pause of the attached scheduler, `DecisionMaker.pause`, also returns true.)
   */
  advance(): boolean {
    const r = this.advanceUpTo(Infinity);
    this.paused = false;
    this.decisionDue = false;
    return r;
  }

  /** `advance`, but without running any instant after `limit` (false then, with `finished` still false). */
  private advanceUpTo(limit: number): boolean {
    if (this.finishedFlag) return false;
    this.queue.tidy();
    if (this.semantics === 'irmasim') return this.advanceIrmasim(limit);
    // jobs suspended without their cores resume before the next pass when the cores are free
    if (this.suspensions.waiting) this.suspensions.resumePreempted();
    if (this.roundEvery > 0) return this.advanceRounds(limit);
    for (;;) {
      if (this.pointPending !== null) return true;
      if (this.pauseHook?.(this)) {
        this.paused = true;
        return true;
      }
      const tEv = this.skipStale();
      const tSub = this.nextSubmitTime;
      const t = tEv < tSub ? tEv : tSub;
      if (t === Infinity) return this.nothingLeft();
      if (t > limit) return false;
      const changed = this.eventClock ? this.runOneEvent(t, tSub === t) : this.runInstant(t);
      if (this.suspensions.waiting) this.suspensions.resumePreempted();
      if (this.passRequests.hooksDue) this.passRequests.runHooks(this);
      if (this.pointPending !== null) {
        // a point for the caller: the pass the event calls for (if any) runs once it is decided
        if (changed && this.queue.length > 0) this.decisionDue = true;
        return true;
      }
      if (this.requestedClock) {
        const asked = this.passNow;
        this.passNow = false;
        if (asked && this.queue.length > 0) return true;
      } else if (changed && this.queue.length > 0) return true;
      if (this.queue.length === 0 && this.runningCount === 0 && !this.nextJob && this.releasesDue === 0) {
        this.finish();
        return false;
      }
    }
  }

  /**
   * `advanceUpTo` under the round pass clock (module comment): runs instants until a round boundary
   * (a decision point, true), the end (false, `finished`), or `limit` (false).
   */
  private advanceRounds(limit: number): boolean {
    // after a decision point that left no job running, the next round begins at the next arrival
    if (this.runningCount === 0) this.nextRound = Number.POSITIVE_INFINITY;
    for (;;) {
      if (this.pointPending !== null) return true;
      const tEv = this.skipStale();
      const tSub = this.nextSubmitTime;
      let t = tEv < tSub ? tEv : tSub;
      if (this.nextRound < t) t = this.nextRound;
      if (t === Infinity) {
        // jobs wait and nothing will change: one more decision point (`nothingLeft`), which starts a round
        const stalled = this.nothingLeft();
        if (stalled) this.nextRound = this.now + this.roundEvery;
        return stalled;
      }
      if (t > limit) return false;
      const wasRunning = this.runningCount > 0;
      const arrived = tSub === t;
      this.runInstant(t);
      if (this.suspensions.waiting) this.suspensions.resumePreempted();
      if (this.passRequests.hooksDue) this.passRequests.runHooks(this);
      if (this.pointPending !== null) return true;
      if (this.queue.length === 0 && this.runningCount === 0 && !this.nextJob && this.releasesDue === 0) {
        this.finish();
        this.nextRound = Number.POSITIVE_INFINITY;
        return false;
      }
      const boundary =
        t === this.nextRound ||
        (wasRunning && this.runningCount === 0 && this.queue.length > 0) ||
        (this.nextRound === Number.POSITIVE_INFINITY && arrived && this.queue.length > 0);
      if (this.runningCount === 0 && this.queue.length === 0) this.nextRound = Number.POSITIVE_INFINITY;
      if (boundary) {
        this.nextRound = t + this.roundEvery;
        return true;
      }
    }
  }

  /**
   * Moves the clock to `t` and runs what happens then: the events of `t` (job ends first), a flush of
   * the progress model when any ran, then the submissions due at `t`. Whether anything happened.
   */
  private runInstant(t: number): boolean {
    this.advanceClock(t);
    this.passNow = false;
    let changed = false;
    const ev = this.events;
    while (ev.nextAt(t)) {
      this.handle(ev.kind, ev.payload!);
      changed = true;
      // a reconfiguration point the caller decides: the rest of the instant waits
      if (this.pointPending !== null) return changed;
    }
    if (changed) this.progress.flush(this.now);
    while (this.nextJob && this.nextJob.subtime === t) {
      const job = this.nextJob;
      this.pullNext();
      this.submit(job);
      changed = true;
    }
    return changed;
  }

  /**
   * The event pass clock: moves the clock to `t` and runs ONE thing that happens then, an arrival first
   * (`arrival`: one is due at `t`), else the next event. Whether it calls for a scheduling pass (anything
   * but a reconfiguration point, which is a resize decision).
   */
  private runOneEvent(t: number, arrival: boolean): boolean {
    this.advanceClock(t);
    this.passNow = false;
    if (arrival) {
      const job = this.nextJob!;
      this.pullNext();
      this.submit(job);
      return true;
    }
    const ev = this.events;
    ev.next();
    this.freed = false;
    this.handle(ev.kind, ev.payload!);
    this.progress.flush(this.now);
    return this.freed;
  }

  /**
   * Nothing runs and nothing will arrive: the end, or, when jobs wait, one more decision point for the
   * caller; if it still starts nothing, the jobs would wait forever (an error).
   */
  private nothingLeft(): boolean {
    if (this.queue.length > 0) {
      if (this.stallOffered)
        throw new Error(
          `simulation stalled at t=${this.now}: ${this.queue.length} jobs wait, nothing runs and nothing is left to arrive, and the scheduler started nothing`,
        );
      this.stallOffered = true;
      return true;
    }
    this.finish();
    return false;
  }

  /**
   * `advance()` under the irmasim semantics: IRMaSim's `simulate_trajectory` loop. Each step moves time
   * by `delta = min(next task end, next submission - now)` (`now += delta`, as IRMaSim accumulates
   * it) and takes `round(rate * delta)` operations from every running task. A step at a submission
   * time submits the jobs due (a decision point); a step at a task end then ends, in submission order,
   * the jobs whose tasks have all run out, frees their cores and updates the speeds of their
   * processors (a second decision point, also when no job ended).
   */
  private advanceIrmasim(limit: number): boolean {
    for (;;) {
      if (this.endsPending) {
        this.endsPending = false;
        this.releaseEndedJobs();
        if (this.queue.length > 0) return true;
        if (this.runningCount === 0 && !this.nextJob) {
          this.finish();
          return false;
        }
        continue;
      }
      const dPlat = this.progress.nextStep();
      const dQueue = this.nextJob ? this.nextJob.subtime - this.now : Infinity;
      const delta = dPlat < dQueue ? dPlat : dQueue;
      if (delta === Infinity) return this.nothingLeft();
      if (this.now + delta > limit) return false;
      if (delta !== 0) {
        const from = this.now;
        const to = from + delta;
        this.energy += this.power * delta;
        for (const f of this.listeners.advance) f(this, from, to);
        this.now = to;
        this.progress.step(delta, to, this.drained);
      }
      let submitted = false;
      if (delta === dQueue)
        while (this.nextJob && this.nextJob.subtime <= this.now) {
          const job = this.nextJob;
          this.pullNext();
          this.submit(job);
          submitted = true;
        }
      if (delta === dPlat) {
        for (const rj of this.drained) this.endedAtNow.push(rj);
        this.drained.length = 0;
        this.endsPending = true;
      }
      if (submitted && this.queue.length > 0) return true;
    }
  }

  /**
   * Whether the simulation is stuck: jobs wait, nothing runs, nothing is left to arrive. A caller
   * that leaves it so would loop forever; schedulers use it to detect a bug or a policy that
   * refuses to run anything.
   */
  get stalled(): boolean {
    return this.queue.length > 0 && this.runningCount === 0 && !this.nextJob && this.skipStale() === Infinity;
  }

  /** Whether `job` fits the platform when it is empty (under the placement constraints and the admission rules). */
  canEverFit(job: Job): boolean {
    return this.unfitReason(job) === null;
  }

  /** Why `job` can never fit the platform (its capacity, then the admission rules), or null when it can. */
  unfitReason(job: Job): string | null {
    const reason = this.capacity.unfitReason(job);
    if (reason !== null || this.admissionRules.length === 0) return reason;
    for (const rule of this.admissionRules) {
      const why = rule(job);
      if (why !== null) return why;
    }
    return null;
  }

  /**
   * Adds a rule that refuses jobs at submission beyond what the capacity refuses: a scheduler's own model
   * of where a job may run (Slurm's counted node groups, `src/scheduling/slurmMainPass.ts`). A refused job is
   * handled as `unfit` says, before any listener hears of it. Add rules before the run.
   */
  addAdmissionRule(rule: (job: Job) => string | null): void {
    this.admissionRules.push(rule);
  }

  /**
   * Whether `cores` is a valid placement for `job` now: right count, all free, the shape rules of
   * its type (one node for `seq`; exactly `nodes` nodes with at most `ntasks_per_node` each), and
   * node memory. Returns null when valid, else the reason.
   */
  placementError(job: Job, cores: ArrayLike<number>): string | null {
    return this.capacity.placementError(job, cores);
  }

  /**
   * Starts a waiting job on `cores` (task `t` on `cores[t]`). Throws when the job is not waiting or
   * the placement is invalid (see `placementError`); the state is unchanged then. See `StartOptions`
   * for two shortcuts schedulers use on long queues.
   */
  startJob(job: Job, cores: ArrayLike<number>, options: StartOptions = {}): RunningJob {
    const hint = options.queuePosition;
    const qi = hint !== undefined && this.queue.at(hint) === job ? hint : this.queue.indexOf(job);
    if (qi < 0) throw new Error(`job ${job.id} is not waiting`);
    const err = this.capacity.placementError(job, cores);
    if (err) throw new Error(`cannot start job ${job.id}: ${err}`);
    const model = this.progressModels.length > 0 ? this.modelFor(job) : null;
    let gpus = NO_GPUS;
    if (job.gpus !== undefined || (options.gpus !== undefined && options.gpus.length > 0)) {
      const given = options.gpus ?? NO_GPUS;
      const gerr = this.capacity.gpuPlacementError(job, given) ?? model?.placementError?.(job, given) ?? null;
      if (gerr) throw new Error(`cannot start job ${job.id}: ${gerr}`);
      gpus = Int32Array.from(given);
    }
    if (job.operatorEvents !== undefined && job.operatorEvents.length > 0 && model !== null && model.suspend === undefined)
      throw new InputError(
        `${job.source}: job ${job.id} has operator events, but the ${model.name} progress model runs it: suspending such jobs is not modelled`,
        this.workloadName,
      );
    const waitingSlot = this.queue.removeAt(qi);
    const rj = this.launch(job, options.transfer && cores instanceof Int32Array ? cores : Int32Array.from(cores), gpus, model, waitingSlot);
    // (the slot stays the job's while the listeners of its start run: they read it, `RunningJob.waitingSlot`)
    this.queue.freeSlot(waitingSlot);
    return rj;
  }

  /** The plugged-in progress model that runs `job` (the first that `runs` it), or null for the built-in ones. */
  private modelFor(job: Job): ProgressModel | null {
    const pm = this.progressModels;
    for (let i = 0; i < pm.length; i++) if (pm[i]!.runs(job)) return pm[i]!;
    return null;
  }

  /**
   * Preempts a running job (see the module comment): it stops now and goes back to the end of the
   * waiting queue, keeping what its progress model keeps; its cores and GPUs are freed. Not part of
   * the irmasim semantics.
   */
  preempt(running: RunningJob): void {
    if (running.ended) throw new Error(`job ${running.job.id} is not running`);
    if (this.semantics === 'irmasim') throw new Error('preemption is not part of the irmasim semantics');
    this.stopTasks(running);
    this.releaseRun(running);
    this.requeued.set(running.job, { extension: running.extension, firstStart: running.firstStart, cpus: running.cores.length });
    this.queue.push(running.job);
    for (const f of this.listeners.requeue) f(this, running);
  }

  // ---------------------------------------------------------------- suspension (suspension.ts)

  /**
   * Suspends a running job now (module comment, "Suspension"; `Suspensions.suspend`): with `hold` it keeps
   * its cores (`Suspended`), without it gives them up (`Preempted`) and resumes on them before the next
   * pass once they are free; or, `resumeByPass`, when a pass resumes it (`resumeAtPass`: Slurm's main
   * scheduler resumes preempted jobs at its start), on its cores or, given `resumeWhere`, where that
   * placement puts it then (Slurm's select plugin under whole-node allocation).
   */
  suspend(rj: RunningJob, hold = true, resumeByPass = false, resumeWhere: ResumePlacement | null = null): void {
    this.suspensions.suspend(rj, hold, resumeByPass, resumeWhere);
  }

  /**
   * Resumes the jobs suspended to wait for a pass (`suspend(rj, false, true)`) whose cores are free now (or
   * that their `resumeWhere` places now), in the order they were suspended.
   */
  resumeAtPass(): void {
    if (this.suspensions.waiting) this.suspensions.resumePreempted(true);
  }

  /** Resumes a suspended job now (`Suspensions.resume`). */
  resume(rj: RunningJob): void {
    this.suspensions.resume(rj);
  }

  /** Running jobs suspended now (holding their cores or not). */
  get suspendedCount(): number {
    return this.suspensions.count;
  }

  /**
   * The placement `place` finds for the waiting `job` if the running `victims` held nothing (a preemption
   * pass's question), or null; nothing changes (`Suspensions.placementWithout`).
   */
  placementWithout(job: Job, victims: readonly RunningJob[], place: (sim: ClusterSimulator, job: Job) => Int32Array | null): Int32Array | null {
    return this.suspensions.placementWithout(job, victims, (j) => place(this, j));
  }

  /**
   * Asks for a decision point at time `t` (now, or later), whether or not anything else happens then:
   * the timer of a scheduler whose passes follow a clock of their own (Slurm's `PriorityCalcPeriod` ticks,
   * its periodic passes). At `t` the instant counts as a change, so the attached scheduler (or the caller)
   * decides when jobs wait. `t` = now asks for the instant being run (from a listener, while its events
   * happen; a request made from a pass itself lapses). `atInstantEnd` runs at the end of that instant,
   * after its events and before its decision point, whether jobs wait or not (a clock's own bookkeeping:
   * `SlurmPassClock`); one function once per instant. Requests at one time are one; they lapse when the
   * run is over. Not part of the irmasim semantics.
   */
  requestPass(t: number, atInstantEnd?: (sim: ClusterSimulator) => void): void {
    if (this.semantics === 'irmasim') throw new Error('pass requests are not part of the irmasim semantics');
    if (t === this.now) {
      // a pass at the instant being run (under the requested clock: its decision point)
      this.passNow = true;
      this.passRequests.atThisInstant(atInstantEnd);
      return;
    }
    if (!(t > this.now) || !Number.isFinite(t) || this.finishedFlag) return;
    if (this.passRequests.at(t, atInstantEnd)) this.events.schedule(t, KIND_PASS, PASS_REQUEST, t);
  }

  /**
   * Submits `job` now, whatever its `subtime` (dynamic submission: a caller that keeps its own
   * arrival timeline, such as the Batsim adapter, hands the engine a job when it decides to run it).
   * The job joins the waiting queue, or is handled as `unfit` says when it can never fit.
   */
  submitNow(job: Job): void {
    this.submit(withSubtime(job, this.now));
  }

  /**
   * Runs the events of the next event time when it is at most `limit` (job ends first, then the
   * submissions due then) and returns that time; otherwise moves the clock to `limit` (when it is
   * later than now and finite) and returns the new time. Unlike `advance`, it stops at every event
   * time, whether jobs wait or not, so a caller that drives the engine from outside sees every job
   * end as it happens. Not part of the irmasim semantics.
   */
  advanceUntil(limit: number): number {
    if (this.semantics === 'irmasim') throw new Error('advanceUntil is not part of the irmasim semantics');
    this.queue.tidy();
    const t = Math.min(this.skipStale(), this.nextSubmitTime);
    if (t > limit || t === Infinity) {
      if (limit > this.now && limit < Infinity) this.advanceClock(limit);
      return this.now;
    }
    this.runInstant(t);
    if (this.suspensions.waiting) this.suspensions.resumePreempted();
    if (this.passRequests.hooksDue) this.passRequests.runHooks(this);
    return this.now;
  }

  /**
   * Kills a running job now: its cores are freed and its record's state is `killed`, `cancelled` (its nodes do not stay
   * `COMPLETING`: a caller's kill, such as Slurm's `PreemptMode=CANCEL`, ends it outright, the model's rule, as the
   * retired Slurm engine's schedules have it: test/golden/slurmEngine.ts).
   */
  kill(running: RunningJob): void {
    if (running.ended) throw new Error(`job ${running.job.id} is not running`);
    running.cancelled = true;
    this.stopTasks(running);
    this.endJob(running, 'killed', false);
  }

  /**
   * Jobs `COMPLETING` on each node (a job's `completing` facet, on the core capacity: `Allocation.completingNodes`),
   * or null while no node is: no placement may use such a node.
   */
  get completingNodes(): Int32Array | null {
    return this.alloc === null ? null : this.alloc.completingNodes;
  }

  /**
   * What-if rollouts (envs/knownFuture.ts): the work of running job `running` becomes `factor` times
   * its total, what it has done so far kept; a task that has already done that much ends right after
   * now (a relative 1e-9 of its work later). Rigid jobs under the documented semantics only.
   */
  scaleRunningWork(running: RunningJob, factor: number): void {
    if (running.ended || running.model !== null || this.semantics === 'irmasim' || running.suspended)
      throw new Error(`job ${running.job.id}: only a running (not suspended) rigid job's work scales, under the documented semantics`);
    const now = this.now;
    if (running.tasks === null) {
      const d = running.eventTime - running.start;
      running.eventTime = Math.max(running.start + d * factor, now + d * 1e-9);
      this.events.schedule(running.eventTime, KIND_JOB, running, running.eventTime);
      // an end moved to or past the walltime arms the kill (a second event of the same kill is stale once it ran)
      if (running.needsKillEvent()) this.events.schedule(running.killAt, KIND_KILL, running, running.killAt);
      return;
    }
    for (const t of running.tasks) {
      if (t.done) continue;
      const total = t.tNominal * t.peakRate;
      t.remaining = Math.max(t.remaining - t.rate * (now - t.last) + (factor - 1) * total, total * 1e-9);
      t.last = now;
      this.progress.moveEnd(t, now + t.remaining / t.rate);
    }
  }

  /**
   * The CPUs waiting `job` counts for as Slurm counts them (its priority's size factor, its backfill's whole
   * nodes): its `ntasks`, or, once a run of it was requeued, the cores that run held (Slurm's `total_cpus`,
   * which `priority/multifactor` reads once it is set: another count than `ntasks` for a job that holds its
   * placement, `holdsItsPlacement`). O(1); no lookup while no job was requeued.
   */
  cpusOf(job: Job): number {
    if (this.requeued.size === 0) return job.ntasks;
    return this.requeued.get(job)?.cpus ?? job.ntasks;
  }

  /** Rejects a waiting job (it never runs; counted in `jobs_rejected`). */
  rejectJob(job: Job): void {
    const qi = this.queue.indexOf(job);
    if (qi < 0) throw new Error(`job ${job.id} is not waiting`);
    const waitingSlot = this.queue.removeAt(qi);
    this.requeued.delete(job);
    this.jobsRejected++;
    const rec = rejectedRecord(job, this.now);
    for (const f of this.listeners.reject) f(this, rec);
    this.queue.freeSlot(waitingSlot);
  }

  // ---------------------------------------------------------------- malleable jobs

  /**
   * Attaches the policy that decides every reconfiguration point of a malleable job (`malleable:
   * 'steps'`) when it is reached; null: the engine stops there (`advance` returns, `pendingPoint` is the
   * job) until the caller decides with `decideResize`.
   */
  setResizePolicy(policy: ResizeDecider | null): void {
    this.resizePolicy = policy;
  }

  /** The running malleable job whose reconfiguration point waits for `decideResize`, or null. */
  get pendingPoint(): RunningJob | null {
    return this.pointPending;
  }

  /**
   * Nodes a malleable job could expand onto now: nodes of its partition it does not hold with room for
   * `tasksPerNode` of its tasks (cores and memory), in platform order; at most `max` of them.
   */
  expansionNodes(rj: RunningJob, max = Number.POSITIVE_INFINITY): number[] {
    return Array.from(this.expansion.subarray(0, this.expansionCount(rj, max)));
  }

  /** Scratch of `expansionCount`: the nodes found. */
  private expansion = new Int32Array(64);

  /** How many nodes a malleable job could expand onto now (`expansionNodes`), at most `max`; they are left at the front of `this.expansion`. */
  expansionCount(rj: RunningJob, max = Number.POSITIVE_INFINITY): number {
    const run = rj.malleable!;
    const job = rj.job;
    const p = this.platform;
    const part = job.partition !== undefined ? p.partitions[p.partitionIndex(job.partition)] : undefined;
    const mem = this.enforceMemory ? job.mem * run.tasksPerNode : 0;
    const limit = Math.min(max, p.nodeCount);
    if (this.expansion.length < limit) this.expansion = new Int32Array(p.nodeCount);
    const out = this.expansion;
    const k = run.tasksPerNode;
    const tree = this.freeTree;
    const free = this.allocation.nodeFree;
    const whole = p.nodeCoreCount;
    const N = p.nodeCount;
    let count = 0;
    // free nodes come in runs: the next node is looked at before the tree is searched
    for (let n = tree.findFirst(0, k); n >= 0 && count < limit; n = n + 1 < N && free[n + 1]! >= k ? n + 1 : tree.findFirst(n + 1, k)) {
      if (part && part.nodeMask[n] === 0) continue;
      // a node with every core free is not the job's
      if (free[n] !== whole[n] && nodeIndex(rj.nodes, n) >= 0) continue;
      if (mem > this.nodeFreeMem[n]! + 1e-9) continue;
      out[count++] = n;
    }
    return count;
  }

  /**
   * Decides the pending reconfiguration point (`pendingPoint`): `size` (the job's current size for no
   * action) and optionally a waiting job the resize favours. Throws, changing nothing, when the size
   * breaks the job's limits (min, max, factor) or an expansion does not fit the free nodes.
   */
  decideResize(size: number, promote?: Job): void {
    const rj = this.pointPending;
    if (rj === null) throw new Error('no reconfiguration point is pending');
    this.applyResize(rj, { size, promote });
    this.pointPending = null;
  }

  private pointReached(rj: RunningJob): void {
    if (this.resizePolicy === null) {
      this.pointPending = rj;
      return;
    }
    try {
      this.applyResize(rj, this.resizePolicy(this, rj));
    } catch (e) {
      if (!(e instanceof InvalidResizeError)) throw e;
      this.invalidResizes++;
      this.applyResize(rj, { size: rj.malleable!.size });
    }
  }

  /** Resizes refused (and applied as no action) under an attached resize policy. */
  invalidResizes = 0;

  private applyResize(rj: RunningJob, d: ResizeDecision): void {
    const run = rj.malleable!;
    const steps = this.steps!;
    const cur = run.size;
    const size = d.size;
    if (size === cur) {
      steps.segment(rj, this.now, false);
      return;
    }
    const spec = run.work.spec;
    if (spec === null || !validResize(spec, cur, size))
      throw new InvalidResizeError(
        `job ${rj.job.id}: a resize ${cur} -> ${size} breaks ${spec ? `min ${spec.min}, max ${spec.max} or factor ${spec.factor}` : 'its rigidity'}`,
      );
    const cost = run.work.resizeCost ?? this.resizeCost;
    if (size > cur) {
      const add = this.expansionCount(rj, size - cur);
      if (add < size - cur) throw new InvalidResizeError(`job ${rj.job.id}: expanding ${cur} -> ${size} needs ${size - cur} more nodes, ${add} can take it`);
      this.takeNodes(rj, add);
      steps.setSize(rj, size, this.now);
      steps.beginResize(rj, size, cost.expand, this.now);
    } else steps.beginResize(rj, size, cost.shrink, this.now);
    if (d.promote !== undefined) this.scheduler?.promote?.(this, d.promote);
    for (const f of this.listeners.resize) f(this, rj, cur, size);
  }

  private resizeEnded(rj: RunningJob): void {
    this.freed = true;
    const run = rj.malleable!;
    if (run.target < run.size) this.dropNodes(rj, run.size - run.target);
    // node-seconds are summed up to the end of every resize, an expansion's too (the DMR engine's sums, bit for bit)
    this.steps!.setSize(rj, run.target, this.now);
    this.steps!.endResize(rj, this.now);
  }

  /**
   * A malleable job takes `tasksPerNode` cores on each of the first `count` nodes `expansionCount` found.
   * Those nodes are not the job's and come in ascending order: they are merged into its nodes, each with
   * `tasksPerNode` tasks.
   */
  private takeNodes(rj: RunningJob, count: number): void {
    const k = rj.malleable!.tasksPerNode;
    const had = rj.cores.length;
    const arena = this.allocation.arena;
    const all = arena.alloc(had + count * k);
    all.set(rj.cores);
    let i = had;
    const add = this.expansion;
    for (let a = 0; a < count; a++) {
      const n = add[a]!;
      const c0 = this.platform.nodeFirstCore[n]!;
      const cEnd = c0 + this.platform.nodeCoreCount[n]!;
      let got = 0;
      for (let c = c0; c < cEnd && got < k; c++)
        if (this.coreOwner[c] === -1) {
          all[i++] = c;
          got++;
        }
      if (got < k) throw new Error(`job ${rj.job.id}: node ${n} has fewer than ${k} free cores`);
    }
    this.capacity.move(rj.job, all, rj.slot, had);
    const old = rj.nodes;
    const oldPer = rj.perNode;
    const m = old.length;
    const distinct = m + count;
    let uniform = true;
    for (let x = 0; x < m && uniform; x++) uniform = oldPer[x] === k;
    const nodes = arena.alloc(distinct);
    const per = uniform ? this.uniformPerNode(k, distinct) : arena.alloc(distinct);
    for (let x = 0, a = 0, w = 0; w < distinct; w++)
      if (a === count || (x < m && old[x]! < add[a]!)) {
        nodes[w] = old[x]!;
        if (!uniform) per[w] = oldPer[x]!;
        x++;
      } else {
        nodes[w] = add[a]!;
        if (!uniform) per[w] = k;
        a++;
      }
    this.placeRun(rj, all, nodes, per);
  }

  /** Scratch of `dropNodes`: the tasks left on each of a job's nodes. */
  private tasksLeftOn = new Int32Array(64);

  /** A malleable job gives back its last `count` nodes' worth of cores (those it took last). */
  private dropNodes(rj: RunningJob, count: number): void {
    const k = rj.malleable!.tasksPerNode;
    const cores = rj.cores;
    const keep = cores.length - count * k;
    this.capacity.move(rj.job, cores, -1, keep);
    // the tasks left on each node: its tasks less those of the cores given back
    const old = rj.nodes;
    const m = old.length;
    if (this.tasksLeftOn.length < m) this.tasksLeftOn = new Int32Array(2 * m);
    const left = this.tasksLeftOn;
    left.set(rj.perNode);
    const coreNode = this.platform.coreNode;
    for (let c = keep; c < cores.length; c++) left[nodeIndex(old, coreNode[cores[c]!]!)]!--;
    let distinct = 0;
    let uniform = -1;
    for (let x = 0; x < m; x++) {
      const t = left[x]!;
      if (t === 0) continue;
      uniform = distinct === 0 || uniform === t ? t : 0;
      distinct++;
    }
    const arena = this.allocation.arena;
    const nodes = arena.alloc(distinct);
    const per = uniform > 0 ? this.uniformPerNode(uniform, distinct) : arena.alloc(distinct);
    for (let x = 0, w = 0; x < m; x++) {
      const t = left[x]!;
      if (t === 0) continue;
      nodes[w] = old[x]!;
      if (uniform <= 0) per[w] = t;
      w++;
    }
    // a view: a job's core array is never written once it is set
    this.placeRun(rj, cores.subarray(0, keep), nodes, per);
  }

  /** Shared `perNode` arrays of placements with `k` tasks on each of `count` nodes (never modified: `Capacity.lastPlacement`). */
  private readonly uniformPer = new Map<number, Int32Array>();

  private uniformPerNode(k: number, count: number): Int32Array {
    const key = k * 65_536 + count;
    let a = this.uniformPer.get(key);
    if (a === undefined) {
      if (k >= 65_536 || this.uniformPer.size > 4_096) return new Int32Array(count).fill(k);
      a = new Int32Array(count).fill(k);
      this.uniformPer.set(key, a);
    }
    return a;
  }

  /** Sets a running job's cores (in the order it took them), its nodes (ascending) and its tasks on each. */
  private placeRun(rj: RunningJob, cores: Int32Array, nodes: Int32Array, perNode: Int32Array): void {
    rj.cores = cores;
    rj.nodes = nodes;
    rj.perNode = perNode;
    rj.tasksLeft = cores.length;
  }

  /**
   * A running job stops holding anything (its end, or a preemption): its progress model stops, its
   * streams leave the network, its cores (those its tasks still hold) and GPUs are freed, its slot is
   * recycled.
   */
  private releaseRun(rj: RunningJob): void {
    this.freed = true;
    this.suspensions.leave(rj);
    const holds = rj.holding;
    rj.ended = true;
    rj.eventTime = Infinity;
    if (rj.model !== null) {
      rj.model.stop(rj);
      if (this.pointPending === rj) this.pointPending = null;
    }
    const net = this.progress.network;
    if (net !== null) {
      net.remove(rj, this.now);
      this.progress.flush(this.now);
    }
    const job = rj.job;
    // a job suspended without its cores gave its GPUs up with them
    if (holds && rj.gpus.length > 0) this.capacity.moveGpus(rj.gpus, -1);
    if (holds && (job.type !== 'seq' || !rj.tasks || this.semantics === 'irmasim')) {
      // a job without task objects never put any on its cores
      if (rj.tasks !== null) for (let t = 0; t < rj.cores.length; t++) this.coreTask[rj.cores[t]!] = null;
      this.capacity.move(job, rj.cores, -1);
    }
    this.runningBySlot[rj.slot] = null;
    this.freeSlots.push(rj.slot);
    this.runningCount--;
  }

  // ---------------------------------------------------------------- live mirrors

  /**
   * Live mirrors (`clustergym slurm-agent`): a simulator built with no jobs (and a `timeOrigin`) that
   * follows a real cluster instead of its own events. `liveAdvance(t)` moves the clock to `t`
   * (rebased seconds; energy and `onAdvance` as for any advance) without processing any event;
   * `liveSubmit(job)` queues a job at the current time (its `subtime` as the cluster reported it,
   * rebased here); `liveEnd(job)` ends a running job now, as finished. Jobs of a mirror carry
   * `runtime: Infinity` (the `delay` model), so they end only through `liveEnd`. Do not mix with
   * `advance()`.
   */
  liveAdvance(t: number): void {
    if (t > this.now) this.advanceClock(t);
  }

  /** Queues `job` now (see `liveAdvance`); returns the queued (rebased) job. */
  liveSubmit(job: Job): Job {
    if (Number.isNaN(this.origin)) this.origin = job.subtime;
    const rebased = this.origin !== 0 ? withSubtime(job, job.subtime - this.origin) : job;
    this.submit(rebased);
    return rebased;
  }

  /** Ends the running job of `job` now, as finished (see `liveAdvance`); false when it is not running. */
  liveEnd(job: Job): boolean {
    for (const rj of this.runningBySlot) {
      if (!rj || rj.job !== job) continue;
      this.stopTasks(rj);
      rj.tasksLeft = 0;
      this.endJob(rj, 'finished');
      return true;
    }
    return false;
  }

  // ---------------------------------------------------------------- the clock and the events

  private pullNext(): void {
    const r = this.source.next();
    if (r.done) {
      this.nextJob = null;
      return;
    }
    let job = r.value;
    if (Number.isNaN(this.origin)) this.origin = job.subtime;
    if (this.origin !== 0) job = withSubtime(job, job.subtime - this.origin);
    // time starts at the first submission: 0, unless an explicit origin puts it elsewhere
    if (this.nextJob === null && this.jobsSubmitted === 0 && job.subtime < this.now) this.now = job.subtime;
    if (this.nextJob && job.subtime < this.nextJob.subtime)
      throw new InputError(`jobs must be sorted by submission time; job ${job.id} submits before job ${this.nextJob.id}`, this.workloadName);
    this.nextJob = job;
  }

  /** Time of the earliest valid event, dropping stale ones. */
  private skipStale(): number {
    return this.events.peekTime();
  }

  private advanceClock(t: number): void {
    const from = this.now;
    if (t > from) {
      this.energy += this.power * (t - from);
      for (const f of this.listeners.advance) f(this, from, t);
      this.now = t;
    }
  }

  private handle(kind: number, e: EventPayload): void {
    if (kind === KIND_TASK) this.taskEnded(e as RunningTask);
    else if (kind === KIND_JOB) {
      const rj = e as RunningJob;
      rj.tasksLeft = 0;
      this.endJob(rj, 'finished');
    } else if (kind === KIND_KILL) this.killJob(e as RunningJob);
    else if (kind === KIND_SUSPEND) this.suspensions.operatorSuspend(e as RunningJob);
    else if (kind === KIND_RESUME) this.resume(e as RunningJob);
    else if (kind === KIND_RELEASE) this.release(e as RunningJob);
    else if (kind === KIND_PASS) {
      // a decision point: the instant counts as a change
      this.passRequests.fired(this.now);
      this.passNow = true;
      this.freed = true;
    } else this.progressModels[(kind - PLUGIN_KIND_BASE) >> 3]!.handle(kind & 7, e as RunningJob);
  }

  /** The engine as the `i`-th plugged-in progress model sees it. */
  private hostFor(i: number): ProgressHost {
    const sim = this;
    const base = PLUGIN_KIND_BASE + 8 * i;
    return {
      get now() {
        return sim.now;
      },
      platform: this.platform,
      schedule: (time, kind, rj, stamp) => this.events.schedule(time, base + kind, rj, stamp),
      complete: (rj) => {
        rj.tasksLeft = 0;
        this.endJob(rj, 'finished');
      },
      reconfigurationPoint: (rj) => this.pointReached(rj),
      resizeEnded: (rj) => this.resizeEnded(rj),
    };
  }

  // ---------------------------------------------------------------- the job lifecycle

  private submit(job: Job): void {
    this.jobsSubmitted++;
    if (this.alloc === null && (job.work !== 'delay' || (job.tasks !== null && job.type === 'seq')))
      throw new InputError(
        `${job.source}: job ${job.id} has ${job.work === 'delay' ? 'tasks of their own durations on one node' : 'ops work'}; the ${this.counted !== null ? 'counted' : 'vector'} capacity runs fixed durations of whole jobs (delay work)`,
        this.workloadName,
      );
    if (job.completing !== undefined && !(this.alloc !== null && this.semantics !== 'irmasim' && job.completing >= 0 && Number.isFinite(job.completing)))
      throw new InputError(
        `${job.source}: job ${job.id}: completing ${job.completing}: expected seconds >= 0 its nodes stay COMPLETING after its end, on the core capacity (nodes), under the documented semantics`,
        this.workloadName,
      );
    const reason = this.unfitReason(job);
    if (reason !== null) {
      if (this.unfit === 'error') throw new InputError(`${job.source}: job ${job.id} can never fit the platform: it ${reason}`, this.workloadName);
      this.jobsRejected++;
      const rec = rejectedRecord(job, this.now);
      for (const f of this.listeners.reject) f(this, rec);
      return;
    }
    this.queue.push(job);
    if (this.semantics === 'irmasim') this.arrival.set(job, this.jobsSubmitted);
    for (const f of this.listeners.submit) f(this, job);
  }

  private launch(job: Job, cores: Int32Array, gpus: Int32Array, model: ProgressModel | null, waitingSlot: number): RunningJob {
    const p = this.platform;
    const slot = this.freeSlots.length > 0 ? this.freeSlots.pop()! : this.runningBySlot.length;
    // distinct nodes (ascending) and tasks per node: the tally `placementError` just made
    const { nodes, perNode } = this.capacity.lastPlacement();
    const single = nodes.length === 1;
    this.stallOffered = false;
    const rj = new RunningJob(job, slot, this.now, cores, nodes, perNode);
    rj.waitingSlot = waitingSlot;
    if (slot === this.runningBySlot.length) this.runningBySlot.push(rj);
    else this.runningBySlot[slot] = rj;
    this.runningCount++;
    this.capacity.move(job, cores, slot);
    if (gpus.length > 0) {
      rj.gpus = gpus;
      this.capacity.moveGpus(gpus, slot);
    }
    if (this.requeued.size > 0) {
      const carried = this.requeued.get(job);
      if (carried !== undefined) {
        this.requeued.delete(job);
        rj.extension = carried.extension;
        rj.firstStart = carried.firstStart;
      }
    }

    const isMpi = job.type === 'mpi';
    if (isMpi && !single) this.networkVolume += networkVolume(job.commVol, perNode);

    const stepped = this.semantics === 'irmasim';
    if (model !== null) {
      rj.model = model;
      model.start(rj);
    } else if (job.work === 'delay' && (!job.tasks || isMpi) && !stepped) {
      // All tasks end together (MPI release waits for the longest task anyway).
      let d = job.runtime;
      if (job.tasks) for (let t = 0; t < job.ntasks; t++) d = Math.max(d, taskRuntime(job, t));
      rj.eventTime = this.now + d;
      this.events.schedule(rj.eventTime, KIND_JOB, rj, rj.eventTime);
    } else {
      const tasks: RunningTask[] = new Array(job.ntasks);
      const communicating = isMpi && !single && (job.commVol > 0 || job.tCompute < 1) && job.work === 'ops';
      if (communicating) rj.comm = new JobComm();
      for (let t = 0; t < job.ntasks; t++) {
        const c = cores[t]!;
        const proc = p.coreProc[c]!;
        const node = p.coreNode[c]!;
        let task: RunningTask;
        if (job.work === 'delay') {
          const d = taskRuntime(job, t);
          task = new RunningTask(rj, t, c, proc, node, 1, d, d, this.now);
          task.speed = 1;
          task.rate = 1;
          if (!stepped) {
            task.eventTime = this.now + d;
            this.events.schedule(task.eventTime, KIND_TASK, task, task.eventTime);
          }
        } else {
          const ops = taskOps(job, t);
          const peak = p.coreMops[c]! * 1e6;
          task = new RunningTask(rj, t, c, proc, node, peak, ops / peak, ops, this.now);
          task.y = bandwidthRequest(taskMemVol(job, t), ops, p.coreMops[c]!);
          if (communicating) {
            let here = 0;
            for (let k = 0; k < nodes.length; k++) if (nodes[k] === node) here = perNode[k]!;
            const remotePeers = job.ntasks - here;
            task.remote = remotePeers > 0;
            task.commLoad = this.comm.load(job.commVol * remotePeers, task.tNominal);
          }
          this.progress.enter(task);
        }
        tasks[t] = task;
        this.coreTask[c] = task;
        if (stepped) this.progress.stepped.push(task);
      }
      rj.tasks = tasks;
      const net = this.progress.network;
      if (net !== null && communicating) {
        let T = 0;
        for (const t of tasks) if (t.tNominal > T) T = t.tNominal;
        rj.comm!.free = net.add(rj, nodes, perNode, job.commVol, T, this.now);
      }
    }
    if (this.walltimeKill && job.reqTime > 0) {
      rj.killAt = this.now + job.reqTime;
      if (rj.needsKillEvent()) this.events.schedule(rj.killAt, KIND_KILL, rj, rj.killAt);
    }
    if (job.operatorEvents !== undefined && job.operatorEvents.length > 0) this.suspensions.scheduleOperatorEvent(rj);
    this.progress.flush(this.now);
    for (const f of this.listeners.start) f(this, rj);
    return rj;
  }

  private taskEnded(task: RunningTask): void {
    this.freed = true;
    task.done = true;
    task.endedAt = this.now;
    task.remaining = 0;
    task.eventTime = Infinity;
    const rj = task.job;
    rj.tasksLeft--;
    this.progress.leave(task);
    if (rj.job.type === 'seq') {
      this.coreTask[task.core] = null;
      this.capacity.releaseCore(task.core, taskMem(rj.job, task.index));
    }
    if (rj.tasksLeft === 0) this.endJob(rj, 'finished');
  }

  /** IRMaSim semantics: ends the jobs whose tasks all ended at `now`, in submission order, then updates speeds. */
  private releaseEndedJobs(): void {
    const ended = this.endedAtNow;
    if (ended.length > 1) ended.sort((a, b) => this.arrival.get(a.job)! - this.arrival.get(b.job)!);
    for (const rj of ended) {
      if (rj.tasks)
        for (const t of rj.tasks) {
          this.progress.leave(t);
          this.progress.unstep(t);
        }
      this.arrival.delete(rj.job);
      this.endJob(rj, 'finished');
    }
    ended.length = 0;
    this.progress.flush(this.now);
  }

  private killJob(rj: RunningJob): void {
    if (rj.ended) return;
    this.stopTasks(rj);
    this.endJob(rj, 'killed');
  }

  /**
   * Stops the job's unfinished tasks now (a kill, or a live end): they leave the progress model, a
   * sequential job's tasks free their cores and memory, and the progress model is flushed.
   */
  private stopTasks(rj: RunningJob): void {
    this.suspensions.leave(rj);
    // a job suspended without its cores gave them up already
    const holds = rj.holding;
    if (rj.tasks)
      for (const t of rj.tasks)
        if (!t.done) {
          t.done = true;
          t.endedAt = this.now;
          t.eventTime = Infinity;
          this.progress.leave(t);
          if (rj.job.type === 'seq' && holds) {
            this.coreTask[t.core] = null;
            this.capacity.releaseCore(t.core, taskMem(rj.job, t.index));
          }
        }
    this.progress.flush(this.now);
  }

  /** The running jobs' streams on the network under the `flow` communication model, else null. */
  get network(): JobNetwork<RunningJob> | null {
    return this.progress.network;
  }

  /**
   * A running job leaves the system (`state`): its cores are freed (those its tasks still hold), its
   * slot is recycled, the counters move and the listeners get its record. A job with a `completing` time
   * (`completes`: its own end, its work done or its time limit reached) leaves its nodes `COMPLETING` until
   * then (`release`).
   */
  private endJob(rj: RunningJob, state: 'finished' | 'killed', completes = true): void {
    this.releaseRun(rj);
    if (state === 'finished') this.jobsFinished++;
    else this.jobsKilled++;
    this.lastEnd = this.now;
    rj.finish = this.now;
    rj.state = state;
    const c = rj.job.completing;
    if (c !== undefined && c > 0 && completes) {
      rj.releaseAt = this.now + c;
      this.alloc!.markCompleting(rj.nodes, 1);
      this.releasesDue++;
      this.events.schedule(rj.releaseAt, KIND_RELEASE, rj, rj.releaseAt);
    }
    for (const f of this.listeners.end) f(this, rj, rj);
  }

  /**
   * The nodes of job `rj`, which ended, leave `COMPLETING` (its `completing` time after its end): placements
   * may use them again, and the listeners hear of it (`onRelease`: Slurm's clock asks for a pass then).
   */
  private release(rj: RunningJob): void {
    this.freed = true;
    this.alloc!.markCompleting(rj.nodes, -1);
    this.releasesDue--;
    for (const f of this.listeners.release) f(this, rj);
  }
}
