/**
 * The cluster execution engine: a discrete-event simulation of jobs running on a compiled
 * `Platform` (DESIGN §2.3–§2.6). It knows nothing of scheduling policies nor of RL: a caller (a
 * batch scheduler, an environment) calls `advance()` to run to the next decision point and
 * `startJob(job, cores)` to place jobs there.
 *
 * Execution model. Between two events every running task progresses linearly at its current rate
 * (`mops * 1e6 * S` operations/s for the `ops` work model; `delay` tasks simply last `runtime`).
 * When a task starts or ends, only the processors and nodes it touches are marked dirty; their
 * tasks get new speed factors `S` (memory model × communication model, see
 * `platform/memoryContention.ts` and `platform/communication.ts`), their progress is brought up to
 * date and their finish events are rescheduled. Stale finish events are skipped when popped (lazy
 * invalidation: an event is valid when it is the time the task currently expects to end).
 *
 * Time. Time 0 is the first job's submission: every submit time is rebased by the first one.
 * Events at the same time are processed completions first, then submissions, each in sequence
 * order, and then form ONE decision point.
 *
 * Power and energy. A core is busy from the moment a job takes it until the job releases it (for an
 * MPI job, when its last task ends). The platform's power is a running sum updated when a
 * processor's busy count changes; energy integrates it over time, O(1) per event.
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
 */
import { InputError } from '../core/errors.js';
import { EventQueue } from '../core/eventQueue.js';
import { commModel, networkVolume, type CommModel } from '../platform/communication.js';
import { bandwidthRequest, memoryModel, type MemoryModel } from '../platform/memoryContention.js';
import type { ModelsConfig, Platform } from '../platform/platform.js';
import { processorPower } from '../platform/power.js';
import { nodeTaskShare, perNodeCores, taskMem, taskMemVol, taskOps, taskRuntime, type Job } from '../workload/job.js';
import { NodeFreeTree } from './nodeFreeTree.js';

/** Python's `round(x)` of a float: the nearest integer, halves to the even one (IRMaSim rounds operations so). */
export function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** What to do with a job that can never fit the platform. */
export type UnfitJobHandling = 'error' | 'reject';
/** Execution semantics: the documented model, or IRMaSim's simulator loop (see the module comment). */
export type ExecutionSemantics = 'clustergym' | 'irmasim';
/** When an idle processor draws `min_power * static_power`: always (documented), or once it has run a task (IRMaSim). */
export type IdlePowerAccounting = 'always' | 'after-first-task';

/** Options of a simulation run. */
export interface SimulatorOptions {
  /** Overrides of the platform's models. */
  models?: Partial<ModelsConfig> | undefined;
  /** Node memory is a placement constraint (default true). */
  enforceMemory?: boolean | undefined;
  /** Kill jobs still running at `start + req_time` (default false). */
  walltimeKill?: boolean | undefined;
  /** A job that can never fit: throw an `InputError` (default) or reject it (counted, never run). */
  unfit?: UnfitJobHandling | undefined;
  /** Name of the workload, used in error messages. */
  workloadName?: string | undefined;
  /** Execution semantics (default `clustergym`, the documented model). */
  semantics?: ExecutionSemantics | undefined;
  /** Idle-power accounting (default `always`). */
  idlePower?: IdlePowerAccounting | undefined;
  /**
   * Original submit time that becomes time 0 (default: the first job's, the earliest). IRMaSim rebases a
   * trajectory to its first job IN FILE ORDER; when that is not the earliest, time starts below 0.
   */
  timeOrigin?: number | undefined;
}

/** Shortcuts of `ClusterSimulator.startJob` (the checks are made all the same). */
export interface StartOptions {
  /**
   * Keep an `Int32Array` of cores as the job's (`RunningJob.cores`) instead of copying it: the caller
   * must not modify it afterwards (schedulers pass the fresh array a placement returned).
   */
  transfer?: boolean;
  /** The job's position in `queue` if the caller knows it (checked; else the queue is searched). */
  queuePosition?: number;
}

/** How a job left the system. */
export type EndState = 'finished' | 'killed' | 'rejected';

/** A job that left the system, as reported to listeners and metrics. */
export interface JobRecord {
  job: Job;
  /** Rebased submission time. */
  submit: number;
  start: number;
  finish: number;
  state: EndState;
  /** Core ids it ran on (empty when rejected). */
  cores: Int32Array;
  /** Distinct node ids it ran on, ascending. */
  nodes: Int32Array;
  /** Time each of `cores` was released (a seq job frees each core when its task ends; others at `finish`). */
  releases: Float64Array;
}

/**
 * The record of a job that ran. `releases` is computed on first use (most observers never read it, and
 * a per-job array costs a million allocations on a million-job run).
 */
class EndedJobRecord implements JobRecord {
  readonly job: Job;
  readonly submit: number;
  readonly start: number;
  readonly cores: Int32Array;
  readonly nodes: Int32Array;
  private rel: Float64Array | null = null;
  constructor(
    private readonly rj: RunningJob,
    readonly finish: number,
    readonly state: EndState,
  ) {
    this.job = rj.job;
    this.submit = rj.job.subtime;
    this.start = rj.start;
    this.cores = rj.cores;
    this.nodes = rj.nodes;
  }
  get releases(): Float64Array {
    if (!this.rel) {
      const rj = this.rj;
      const r = new Float64Array(rj.cores.length).fill(this.finish);
      if (rj.job.type === 'seq' && rj.tasks) for (let t = 0; t < rj.tasks.length; t++) r[t] = rj.tasks[t]!.endedAt;
      this.rel = r;
    }
    return this.rel;
  }
}

/** Observers of a simulation (metrics collectors, reward functions, timelines). */
export interface SimulationListener {
  /** Time moves from `from` to `to` (called before the events at `to` are processed). */
  onAdvance?(sim: ClusterSimulator, from: number, to: number): void;
  onJobSubmitted?(sim: ClusterSimulator, job: Job): void;
  onJobStarted?(sim: ClusterSimulator, job: RunningJob): void;
  onJobEnded?(sim: ClusterSimulator, record: JobRecord, running: RunningJob | null): void;
}

const KIND_TASK = 0;
const KIND_JOB = 1;
const KIND_KILL = 2;

/** A task of a running job (only jobs that need per-task tracking have them). */
export class RunningTask {
  readonly kind = KIND_TASK;
  /** Remaining operations (ops model) or seconds at speed 1 (delay model). */
  remaining: number;
  /** Current progress rate (operations/s, or 1 for delay). */
  rate = 0;
  /** Time `remaining` was last brought up to date. */
  last: number;
  /** Time this task currently expects to end (its valid event time), Infinity when none. */
  eventTime = Infinity;
  /** Current speed factors. */
  sMem = 1;
  sComm = 1;
  speed = NaN;
  /** Bandwidth request y (MB/s), memory model. */
  y = 0;
  /** Load on the node's link (comm model), 0 when it has no remote peer. */
  commLoad = 0;
  /** Has peers on other nodes. */
  remote = false;
  done = false;
  /** Time the task ended (NaN while it runs). */
  endedAt = NaN;
  constructor(
    readonly job: RunningJob,
    readonly index: number,
    readonly core: number,
    readonly proc: number,
    readonly node: number,
    /** Speed of the core at S = 1 (operations/s); 1 for delay tasks. */
    readonly peakRate: number,
    /** Uncontended duration, s. */
    readonly tNominal: number,
    work: number,
    now: number,
  ) {
    this.remaining = work;
    this.last = now;
  }
}

/** A job that is running. */
export class RunningJob {
  readonly kind = KIND_JOB;
  /** Tasks (null for delay jobs with uniform tasks, which end all at once). */
  tasks: RunningTask[] | null = null;
  tasksLeft: number;
  /** Job-level end time (delay jobs with uniform tasks), else Infinity. */
  eventTime = Infinity;
  /** Tasks placed on each of `nodes`. */
  readonly perNode: Int32Array;
  /** Whether some task has peers on other nodes and the job communicates. */
  communicating = false;
  /** Smallest link factor over the job's nodes (shared comm model). */
  commFactor = 1;
  killMarker: { kind: number; job: RunningJob } | null = null;
  ended = false;
  constructor(
    readonly job: Job,
    readonly slot: number,
    readonly start: number,
    readonly cores: Int32Array,
    readonly nodes: Int32Array,
    perNode: Int32Array,
  ) {
    this.tasksLeft = job.ntasks;
    this.perNode = perNode;
  }
  /** Expected end from the user's estimate: `start + req_time`. */
  get expectedEnd(): number {
    return this.start + this.job.reqTime;
  }
}

type EventPayload = RunningTask | RunningJob | { kind: number; job: RunningJob };

/** Distinct node shapes, for O(types) "can this job ever fit" checks. */
interface NodeClass {
  cores: number;
  memMb: number;
  count: number;
}

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
  private next = new Int32Array(1024);
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

/**
 * The engine. Typical batch use:
 * ```ts
 * const sim = new ClusterSimulator(platform, workload.jobs)
 * while (sim.advance()) scheduler.schedule(sim)
 * ```
 */
export class ClusterSimulator {
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

  /**
   * Jobs waiting, in arrival order, as an array. Do not mutate; use `startJob`/`rejectJob`. The array
   * is a snapshot kept in step with arrivals; after a job leaves the queue the next read rebuilds it
   * (O(queue)), so hot loops over long queues should use `queue` instead.
   */
  get waiting(): Job[] {
    return this.queue.toArray();
  }
  /** Running jobs by slot (holes are null). */
  readonly runningBySlot: (RunningJob | null)[] = [];
  runningCount = 0;

  /** Per core: owner slot or -1 when free. */
  readonly coreOwner: Int32Array;
  /** Per core: the task running there (tasks of jobs tracked per task). */
  readonly coreTask: (RunningTask | null)[];
  /** Per node: free cores, free memory (MB). */
  readonly nodeFree: Int32Array;
  readonly nodeFreeMem: Float64Array;
  /** Per processor: busy (held) cores. */
  readonly procBusy: Int32Array;
  /** Per node: current link factor, and link load. */
  readonly nodeCommFactor: Float64Array;
  readonly nodeCommLoad: Float64Array;
  /** Per processor: sum of bandwidth requests of its running tasks (MB/s). */
  readonly procMemLoad: Float64Array;
  /** Free cores per node in platform order. */
  readonly freeTree: NodeFreeTree;
  /** Free-core trees over other node orders (see `freeTreeInOrder`), kept in step with `freeTree`. */
  private readonly orderedTrees: { key: string; pos: Int32Array; tree: NodeFreeTree }[] = [];
  freeCores: number;
  busyCores = 0;

  /** Platform power now (W), energy so far (J), network volume so far (B). */
  power = 0;
  energy = 0;
  networkVolume = 0;

  /** Counters. */
  jobsSubmitted = 0;
  jobsFinished = 0;
  jobsKilled = 0;
  jobsRejected = 0;
  /** Time of the last job end (finish or kill). */
  lastEnd = 0;

  private readonly memModel: MemoryModel;
  private readonly comm: CommModel;
  private readonly events = new EventQueue<EventPayload>();
  private readonly source: Iterator<Job>;
  private nextJob: Job | null = null;
  private origin = NaN;
  private readonly freeSlots: number[] = [];
  private readonly listeners: SimulationListener[] = [];
  private readonly nodeClasses: NodeClass[];

  // dirty sets for contention updates
  private readonly procDirty: Uint8Array;
  private readonly nodeDirty: Uint8Array;
  private readonly dirtyProcs: number[] = [];
  private readonly dirtyNodes: number[] = [];
  private readonly dirtyTasks: RunningTask[] = [];
  private stallOffered = false;
  /** IRMaSim semantics: jobs whose tasks all ended at `now`, released after the submissions at `now`. */
  private readonly endedAtNow: RunningJob[] = [];
  private endsPending = false;
  /** IRMaSim semantics: submission rank of each job (jobs end in that order at one instant). */
  private readonly arrival = new Map<Job, number>();
  /** IRMaSim semantics: the tasks of the running jobs (stepped together), and jobs whose tasks all ran out. */
  private readonly steppedTasks: RunningTask[] = [];
  private readonly drained: RunningJob[] = [];
  /** `after-first-task` idle power: processors that have run a task. */
  private readonly procUsed: Uint8Array | null;
  // scratch of placement checks (no allocation per start): marks by generation, per-node tallies
  private scratchGen = 0;
  /** Distinct nodes found by the last `placementError` (its tally is in the scratch arrays). */
  private lastTally = -1;
  private readonly coreMark: Int32Array;
  private readonly nodeMark: Int32Array;
  private readonly scratchNodes: Int32Array;
  private readonly scratchCount: Int32Array;
  private readonly scratchMem: Float64Array;

  private finishedFlag = false;

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
    if (this.semantics === 'irmasim' && this.walltimeKill) throw new InputError('walltime kill is not part of the irmasim semantics (IRMaSim never kills a job)', this.workloadName);
    this.memModel = memoryModel(this.models.memory);
    this.comm = commModel(this.models.comm);
    const C = platform.coreCount;
    const N = platform.nodeCount;
    const P = platform.procCount;
    this.coreOwner = new Int32Array(C).fill(-1);
    this.coreTask = new Array<RunningTask | null>(C).fill(null);
    this.nodeFree = Int32Array.from(platform.nodeCoreCount);
    this.nodeFreeMem = Float64Array.from(platform.nodeMemoryMb);
    this.procBusy = new Int32Array(P);
    this.nodeCommFactor = new Float64Array(N).fill(1);
    this.nodeCommLoad = new Float64Array(N);
    this.procMemLoad = new Float64Array(P);
    this.freeTree = new NodeFreeTree(this.nodeFree);
    this.coreMark = new Int32Array(C);
    this.nodeMark = new Int32Array(N);
    this.scratchNodes = new Int32Array(N);
    this.scratchCount = new Int32Array(N);
    this.scratchMem = new Float64Array(N);
    this.freeCores = C;
    this.procDirty = new Uint8Array(P);
    this.nodeDirty = new Uint8Array(N);
    this.procUsed = this.idlePower === 'after-first-task' ? new Uint8Array(P) : null;
    this.power = this.idlePowerNow();
    const classes = new Map<string, NodeClass>();
    for (let n = 0; n < N; n++) {
      const key = `${platform.nodeCoreCount[n]}/${platform.nodeMemoryMb[n]}`;
      const c = classes.get(key);
      if (c) c.count++;
      else classes.set(key, { cores: platform.nodeCoreCount[n]!, memMb: platform.nodeMemoryMb[n]!, count: 1 });
    }
    this.nodeClasses = [...classes.values()];
    this.source = jobs[Symbol.iterator]();
    this.pullNext();
  }

  /** Adds an observer. */
  addListener(l: SimulationListener): void {
    this.listeners.push(l);
  }

  /**
   * A free-core tree over the nodes in another order (position `i` holds node `order[i]`; `order` is a
   * permutation of the node ids), which the engine keeps up to date from now on, as it does
   * `freeTree`. Resource policies with a static node order use it to find "the first node in my order
   * with k free cores" in O(log N). Calls with the same `key` return the same tree.
   */
  freeTreeInOrder(key: string, order: Int32Array): NodeFreeTree {
    const have = this.orderedTrees.find((o) => o.key === key);
    if (have) return have.tree;
    const N = this.platform.nodeCount;
    if (order.length !== N) throw new Error(`freeTreeInOrder(${key}): the order has ${order.length} nodes, the platform ${N}`);
    const pos = new Int32Array(N).fill(-1);
    for (let i = 0; i < N; i++) {
      const n = order[i]!;
      if (!(n >= 0 && n < N) || pos[n] !== -1) throw new Error(`freeTreeInOrder(${key}): not a permutation of the node ids`);
      pos[n] = i;
    }
    const tree = new NodeFreeTree(Int32Array.from(order, (n) => this.nodeFree[n]!));
    this.orderedTrees.push({ key, pos, tree });
    return tree;
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
  get nextEventTime(): number {
    if (this.semantics === 'irmasim') {
      let d = Infinity;
      for (const t of this.steppedTasks) if (t.remaining / t.rate > 0) d = Math.min(d, t.remaining / t.rate);
      return Math.min(this.now + d, this.nextSubmitTime);
    }
    return Math.min(this.skipStale(), this.nextSubmitTime);
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
   * The caller may then start jobs with `startJob`; calling `advance` again moves time forward.
   */
  advance(): boolean {
    if (this.finishedFlag) return false;
    this.queue.tidy();
    if (this.semantics === 'irmasim') return this.advanceIrmasim();
    for (;;) {
      const tEv = this.skipStale();
      const tSub = this.nextSubmitTime;
      const t = tEv < tSub ? tEv : tSub;
      if (t === Infinity) {
        if (this.queue.length > 0) {
          // Nothing runs and nothing will arrive. Give the caller one more decision point; if it
          // still starts nothing, the jobs would wait forever.
          if (this.stallOffered)
            throw new Error(
              `simulation stalled at t=${this.now}: ${this.queue.length} jobs wait, nothing runs and nothing is left to arrive, and the scheduler started nothing`,
            );
          this.stallOffered = true;
          return true;
        }
        this.finishedFlag = true;
        return false;
      }
      this.advanceClock(t);
      let changed = false;
      while (this.skipStale() === t) {
        this.handle(this.events.pop());
        changed = true;
      }
      if (changed) this.flushContention();
      while (this.nextJob && this.nextJob.subtime === t) {
        const job = this.nextJob;
        this.pullNext();
        this.submit(job);
        changed = true;
      }
      if (changed && this.queue.length > 0) return true;
      if (this.queue.length === 0 && this.runningCount === 0 && !this.nextJob) {
        this.finishedFlag = true;
        return false;
      }
    }
  }

  /**
   * `advance()` under the irmasim semantics: IRMaSim's `simulate_trajectory` loop. Each step moves time
   * by `delta = min(next task end, next submission - now)` (`now += delta`, as IRMaSim accumulates
   * it) and takes `round(rate * delta)` operations from every running task. A step at a submission
   * time submits the jobs due (a decision point); a step at a task end then ends, in submission order,
   * the jobs whose tasks have all run out, frees their cores and updates the speeds of their
   * processors (a second decision point, also when no job ended).
   */
  private advanceIrmasim(): boolean {
    for (;;) {
      if (this.endsPending) {
        this.endsPending = false;
        this.releaseEndedJobs();
        if (this.queue.length > 0) return true;
        if (this.runningCount === 0 && !this.nextJob) {
          this.finishedFlag = true;
          return false;
        }
        continue;
      }
      const tasks = this.steppedTasks;
      let dPlat = Infinity;
      for (let i = 0; i < tasks.length; i++) {
        const t = tasks[i]!;
        const d = t.remaining / t.rate;
        if (d > 0 && d < dPlat) dPlat = d;
      }
      const dQueue = this.nextJob ? this.nextJob.subtime - this.now : Infinity;
      const delta = dPlat < dQueue ? dPlat : dQueue;
      if (delta === Infinity) {
        if (this.queue.length > 0) {
          if (this.stallOffered)
            throw new Error(
              `simulation stalled at t=${this.now}: ${this.queue.length} jobs wait, nothing runs and nothing is left to arrive, and the scheduler started nothing`,
            );
          this.stallOffered = true;
          return true;
        }
        this.finishedFlag = true;
        return false;
      }
      if (delta !== 0) {
        const from = this.now;
        const to = from + delta;
        this.energy += this.power * delta;
        for (const l of this.listeners) l.onAdvance?.(this, from, to);
        this.now = to;
        for (let i = 0; i < tasks.length; i++) {
          const t = tasks[i]!;
          t.remaining -= t.job.job.work === 'ops' ? roundHalfEven(t.rate * delta) : t.rate * delta;
          if (t.remaining <= 0 && !t.done) {
            // out of work: no longer counted in its processor's contention, but its core stays held
            t.done = true;
            t.endedAt = to;
            if (--t.job.tasksLeft === 0) this.drained.push(t.job);
          }
        }
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

  /** Whether `job` fits the platform when it is empty (under the placement constraints). */
  canEverFit(job: Job): boolean {
    return this.unfitReason(job) === null;
  }

  /** Why `job` can never fit the platform, or null when it can. */
  unfitReason(job: Job): string | null {
    const mem = this.enforceMemory ? job.mem : 0;
    if (job.tasks && this.enforceMemory) {
      // heterogeneous tasks: check with the largest task memory (conservative for seq, exact enough otherwise)
      let total = 0;
      for (const t of job.tasks) total += t.mem;
      if (job.type === 'seq') {
        if (!this.nodeClasses.some((c) => c.cores >= job.ntasks && c.memMb >= total))
          return `needs one node with ${job.ntasks} cores and ${total} MB of memory; the largest node has ${this.platform.maxNodeCores} cores and ${this.platform.maxNodeMemoryMb} MB`;
        return null;
      }
    }
    if (job.type === 'seq') {
      if (!this.nodeClasses.some((c) => c.cores >= job.ntasks && c.memMb >= mem * job.ntasks))
        return `needs one node with ${job.ntasks} cores${mem > 0 ? ` and ${mem * job.ntasks} MB of memory` : ''}; the largest node has ${this.platform.maxNodeCores} cores and ${this.platform.maxNodeMemoryMb} MB`;
      return null;
    }
    if (job.nodes > 0) {
      const per = perNodeCores(job);
      if (job.nodes > job.ntasks) return `cannot spread ${job.ntasks} tasks over exactly ${job.nodes} nodes`;
      const most = nodeTaskShare(job, 0);
      let ok = 0;
      for (const c of this.nodeClasses) if (c.cores >= per && c.memMb >= mem * most) ok += c.count;
      if (ok < job.nodes) return `needs ${job.nodes} nodes with ${per} cores${mem > 0 ? ` and ${mem * most} MB` : ''} each; the platform has ${ok}`;
      return null;
    }
    let capacity = 0;
    for (const c of this.nodeClasses) capacity += c.count * (mem > 0 ? Math.min(c.cores, Math.floor(c.memMb / mem)) : c.cores);
    if (capacity < job.ntasks) return `needs ${job.ntasks} cores${mem > 0 ? ` with ${mem} MB each` : ''}; the platform offers ${capacity}`;
    return null;
  }

  /**
   * Whether `cores` is a valid placement for `job` now: right count, all free, the shape rules of
   * its type (one node for `seq`; exactly `nodes` nodes with `ntasks_per_node` each when set), and
   * node memory. Returns null when valid, else the reason.
   */
  placementError(job: Job, cores: ArrayLike<number>): string | null {
    if (cores.length !== job.ntasks) return `expected ${job.ntasks} cores, got ${cores.length}`;
    const p = this.platform;
    const owner = this.coreOwner;
    for (let t = 0; t < cores.length; t++) {
      const c = cores[t]!;
      if (owner[c] === -1) continue; // exists (typed-array read of an index in range) and is free
      if (!(c >= 0 && c < p.coreCount) || !Number.isInteger(c)) return `core ${c} does not exist`;
      return `core ${c} is busy`;
    }
    const nt = this.tallyNodes(job, cores);
    this.lastTally = nt;
    if (nt < 0) return 'a core is given twice';
    const touched = this.scratchNodes;
    if (job.type === 'seq' && nt !== 1) return `a seq job runs on one node; the placement spans ${nt}`;
    if (job.type === 'mpi' && job.nodes > 0) {
      if (nt !== job.nodes) return `the job asks for exactly ${job.nodes} nodes; the placement spans ${nt}`;
      const per = perNodeCores(job);
      for (let i = 0; i < nt; i++) {
        const n = touched[i]!;
        const k = this.scratchCount[n]!;
        if (k > per) return `node ${n} gets ${k} tasks; the job asks for at most ${per} per node`;
      }
    }
    if (this.enforceMemory)
      for (let i = 0; i < nt; i++) {
        const n = touched[i]!;
        const m = this.scratchMem[n]!;
        if (m > this.nodeFreeMem[n]! + 1e-9) return `node ${n} has ${this.nodeFreeMem[n]} MB free; the job's tasks there need ${m} MB`;
      }
    return null;
  }

  /**
   * Tallies the distinct nodes of a placement without allocating: fills `scratchNodes[0..k)` with
   * them (first-seen order) and, per node, `scratchCount` (tasks) and `scratchMem` (MB). Returns k, or
   * -1 when a core is given twice. Cores must exist.
   */
  private tallyNodes(job: Job, cores: ArrayLike<number>): number {
    if (++this.scratchGen >= 0x7fffffff) {
      this.scratchGen = 1;
      this.coreMark.fill(0);
      this.nodeMark.fill(0);
    }
    const gen = this.scratchGen;
    const coreNode = this.platform.coreNode;
    let nt = 0;
    for (let t = 0; t < cores.length; t++) {
      const c = cores[t]!;
      if (this.coreMark[c] === gen) return -1;
      this.coreMark[c] = gen;
      const n = coreNode[c]!;
      if (this.nodeMark[n] !== gen) {
        this.nodeMark[n] = gen;
        this.scratchCount[n] = 0;
        this.scratchMem[n] = 0;
        this.scratchNodes[nt++] = n;
      }
      this.scratchCount[n]!++;
      this.scratchMem[n]! += taskMem(job, t);
    }
    return nt;
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
    const err = this.placementError(job, cores);
    if (err) throw new Error(`cannot start job ${job.id}: ${err}`);
    this.queue.removeAt(qi);
    return this.launch(job, options.transfer && cores instanceof Int32Array ? cores : Int32Array.from(cores));
  }

  /** Rejects a waiting job (it never runs; counted in `jobs_rejected`). */
  rejectJob(job: Job): void {
    const qi = this.queue.indexOf(job);
    if (qi < 0) throw new Error(`job ${job.id} is not waiting`);
    this.queue.removeAt(qi);
    this.jobsRejected++;
    const rec: JobRecord = { job, submit: job.subtime, start: this.now, finish: this.now, state: 'rejected', cores: new Int32Array(0), nodes: new Int32Array(0), releases: new Float64Array(0) };
    for (const l of this.listeners) l.onJobEnded?.(this, rec, null);
  }

  // ---------------------------------------------------------------- internals

  private pullNext(): void {
    const r = this.source.next();
    if (r.done) {
      this.nextJob = null;
      return;
    }
    let job = r.value;
    if (Number.isNaN(this.origin)) this.origin = job.subtime;
    if (this.origin !== 0) job = { ...job, subtime: job.subtime - this.origin };
    // time starts at the first submission: 0, unless an explicit origin puts it elsewhere
    if (this.nextJob === null && this.jobsSubmitted === 0 && job.subtime < this.now) this.now = job.subtime;
    if (this.nextJob && job.subtime < this.nextJob.subtime)
      throw new InputError(`jobs must be sorted by submission time; job ${job.id} submits before job ${this.nextJob.id}`, this.workloadName);
    this.nextJob = job;
  }

  private submit(job: Job): void {
    this.jobsSubmitted++;
    const reason = this.unfitReason(job);
    if (reason !== null) {
      if (this.unfit === 'error') throw new InputError(`${job.source}: job ${job.id} can never fit the platform: it ${reason}`, this.workloadName);
      this.jobsRejected++;
      const rec: JobRecord = { job, submit: job.subtime, start: this.now, finish: this.now, state: 'rejected', cores: new Int32Array(0), nodes: new Int32Array(0), releases: new Float64Array(0) };
      for (const l of this.listeners) l.onJobEnded?.(this, rec, null);
      return;
    }
    this.queue.push(job);
    if (this.semantics === 'irmasim') this.arrival.set(job, this.jobsSubmitted);
    for (const l of this.listeners) l.onJobSubmitted?.(this, job);
  }

  /** Time of the earliest valid event, dropping stale ones. */
  private skipStale(): number {
    for (;;) {
      const t = this.events.peekTime();
      if (t === Infinity) return t;
      const e = this.events.peek()!;
      if (e.kind === KIND_KILL) {
        if (!(e as { job: RunningJob }).job.ended) return t;
      } else if ((e as RunningTask | RunningJob).eventTime === t) {
        if (e.kind === KIND_JOB ? !(e as RunningJob).ended : !(e as RunningTask).done) return t;
      }
      this.events.pop();
    }
  }

  private advanceClock(t: number): void {
    const from = this.now;
    if (t > from) {
      this.energy += this.power * (t - from);
      for (const l of this.listeners) l.onAdvance?.(this, from, t);
      this.now = t;
    }
  }

  private handle(e: EventPayload): void {
    if (e.kind === KIND_TASK) this.taskEnded(e as RunningTask);
    else if (e.kind === KIND_JOB) {
      const rj = e as RunningJob;
      rj.tasksLeft = 0;
      this.endJob(rj, 'finished');
    } else this.killJob((e as { job: RunningJob }).job);
  }

  private taskEnded(task: RunningTask): void {
    task.done = true;
    task.endedAt = this.now;
    task.remaining = 0;
    task.eventTime = Infinity;
    const rj = task.job;
    rj.tasksLeft--;
    this.leaveContention(task);
    if (rj.job.type === 'seq') {
      this.coreTask[task.core] = null;
      this.releaseCore(task.core, taskMem(rj.job, task.index));
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
          this.leaveContention(t);
          const i = this.steppedTasks.indexOf(t);
          this.steppedTasks[i] = this.steppedTasks[this.steppedTasks.length - 1]!;
          this.steppedTasks.pop();
        }
      this.arrival.delete(rj.job);
      this.endJob(rj, 'finished');
    }
    ended.length = 0;
    this.flushContention();
  }

  private killJob(rj: RunningJob): void {
    if (rj.ended) return;
    if (rj.tasks)
      for (const t of rj.tasks)
        if (!t.done) {
          t.done = true;
          t.endedAt = this.now;
          t.eventTime = Infinity;
          this.leaveContention(t);
          if (rj.job.type === 'seq') {
            this.coreTask[t.core] = null;
            this.releaseCore(t.core, taskMem(rj.job, t.index));
          }
        }
    this.flushContention();
    this.endJob(rj, 'killed');
  }

  private endJob(rj: RunningJob, state: 'finished' | 'killed'): void {
    rj.ended = true;
    rj.eventTime = Infinity;
    const job = rj.job;
    if (job.type !== 'seq' || !rj.tasks || this.semantics === 'irmasim') {
      for (let t = 0; t < rj.cores.length; t++) this.coreTask[rj.cores[t]!] = null;
      this.moveCores(job, rj.cores, -1);
    }
    this.runningBySlot[rj.slot] = null;
    this.freeSlots.push(rj.slot);
    this.runningCount--;
    if (state === 'finished') this.jobsFinished++;
    else this.jobsKilled++;
    this.lastEnd = this.now;
    const rec: JobRecord = new EndedJobRecord(rj, this.now, state);
    for (const l of this.listeners) l.onJobEnded?.(this, rec, rj);
  }

  /**
   * Takes all the cores of a placement for `owner` (a slot), or releases them (`owner` -1), batched
   * over runs of consecutive cores on the same node and processor (placements list a node's cores
   * together): one free-tree update per run and one power update per processor run, the same result
   * as core by core without the per-core tree walks.
   */
  private moveCores(job: Job, cores: Int32Array, owner: number): void {
    const p = this.platform;
    const take = owner >= 0;
    const k = cores.length;
    const memEach = job.tasks ? -1 : job.mem;
    let node = -1;
    let nodeCount = 0;
    let nodeMem = 0;
    let proc = -1;
    let procCount = 0;
    for (let t = 0; t <= k; t++) {
      const c = t < k ? cores[t]! : -1;
      const n = t < k ? p.coreNode[c]! : -1;
      const q = t < k ? p.coreProc[c]! : -1;
      if (n !== node) {
        if (node >= 0) {
          if (take) {
            this.nodeFree[node]! -= nodeCount;
            this.nodeFreeMem[node]! -= nodeMem;
          } else {
            this.nodeFree[node]! += nodeCount;
            this.nodeFreeMem[node]! += nodeMem;
            if (this.nodeFree[node] === p.nodeCoreCount[node]) this.nodeFreeMem[node] = p.nodeMemoryMb[node]!; // no drift
          }
          const f = this.nodeFree[node]!;
          this.freeTree.update(node, f);
          for (let j = 0; j < this.orderedTrees.length; j++) {
            const o = this.orderedTrees[j]!;
            o.tree.update(o.pos[node]!, f);
          }
        }
        node = n;
        nodeCount = 0;
        nodeMem = 0;
      }
      if (q !== proc) {
        if (proc >= 0) {
          const b = this.procBusy[proc]!;
          const b2 = take ? b + procCount : b - procCount;
          const before = this.procPowerNow(proc, b);
          if (this.procUsed) this.procUsed[proc] = 1;
          this.power += this.procPowerNow(proc, b2) - before;
          this.procBusy[proc] = b2;
        }
        proc = q;
        procCount = 0;
      }
      if (t === k) break;
      this.coreOwner[c] = owner;
      nodeCount++;
      nodeMem += memEach >= 0 ? memEach : job.tasks![t]!.mem;
      procCount++;
    }
    this.freeCores += take ? -k : k;
    this.busyCores += take ? k : -k;
    if (!take && this.busyCores === 0) this.power = this.idlePowerNow();
  }

  private releaseCore(c: number, mem: number): void {
    const p = this.platform;
    this.coreOwner[c] = -1;
    const n = p.coreNode[c]!;
    this.nodeFree[n]!++;
    this.nodeFreeMem[n]! += mem;
    if (this.nodeFree[n] === p.nodeCoreCount[n]) this.nodeFreeMem[n] = p.nodeMemoryMb[n]!; // no drift
    this.freeTree.update(n, this.nodeFree[n]!);
    for (let i = 0; i < this.orderedTrees.length; i++) {
      const o = this.orderedTrees[i]!;
      o.tree.update(o.pos[n]!, this.nodeFree[n]!);
    }
    this.freeCores++;
    this.busyCores--;
    const proc = p.coreProc[c]!;
    const b = this.procBusy[proc]!;
    this.power += this.procPowerNow(proc, b - 1) - this.procPowerNow(proc, b);
    this.procBusy[proc] = b - 1;
    if (this.busyCores === 0) this.power = this.idlePowerNow();
  }

  /** Power of processor `proc` with `busy` busy cores under the idle-power accounting in use. */
  private procPowerNow(proc: number, busy: number): number {
    if (this.procUsed && this.procUsed[proc] === 0) return 0;
    const p = this.platform;
    return processorPower(busy, p.procStaticPower[proc]!, p.procDynamicPower[proc]!, p.procMinPower[proc]!);
  }

  /** Power of the platform when no core is busy (exact, to reset the running sum's drift). */
  private idlePowerNow(): number {
    let w = 0;
    for (let q = 0; q < this.platform.procCount; q++) w += this.procPowerNow(q, 0);
    return w;
  }

  private launch(job: Job, cores: Int32Array): RunningJob {
    const p = this.platform;
    const slot = this.freeSlots.length > 0 ? this.freeSlots.pop()! : this.runningBySlot.length;
    // distinct nodes (ascending) and tasks per node: the tally `placementError` just made
    const nt = this.lastTally;
    const single = nt === 1;
    const nodes = this.scratchNodes.slice(0, nt);
    if (!single) nodes.sort();
    const perNode = new Int32Array(nt);
    for (let i = 0; i < nt; i++) perNode[i] = this.scratchCount[nodes[i]!]!;
    this.stallOffered = false;
    const rj = new RunningJob(job, slot, this.now, cores, nodes, perNode);
    if (slot === this.runningBySlot.length) this.runningBySlot.push(rj);
    else this.runningBySlot[slot] = rj;
    this.runningCount++;
    this.moveCores(job, cores, slot);

    const isMpi = job.type === 'mpi';
    if (isMpi && !single) this.networkVolume += networkVolume(job.commVol, perNode);

    const stepped = this.semantics === 'irmasim';
    if (job.work === 'delay' && (!job.tasks || isMpi) && !stepped) {
      // All tasks end together (MPI release waits for the longest task anyway).
      let d = job.runtime;
      if (job.tasks) for (let t = 0; t < job.ntasks; t++) d = Math.max(d, taskRuntime(job, t));
      rj.eventTime = this.now + d;
      this.events.push(rj.eventTime, rj);
    } else {
      const tasks: RunningTask[] = new Array(job.ntasks);
      const communicating = isMpi && !single && (job.commVol > 0 || job.tCompute < 1) && job.work === 'ops';
      rj.communicating = communicating;
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
            this.events.push(task.eventTime, task);
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
          this.enterContention(task);
        }
        tasks[t] = task;
        this.coreTask[c] = task;
        if (stepped) this.steppedTasks.push(task);
      }
      rj.tasks = tasks;
    }
    if (this.walltimeKill && job.reqTime > 0) {
      rj.killMarker = { kind: KIND_KILL, job: rj };
      this.events.push(this.now + job.reqTime, rj.killMarker);
    }
    this.flushContention();
    for (const l of this.listeners) l.onJobStarted?.(this, rj);
    return rj;
  }

  private markProc(proc: number): void {
    if (this.procDirty[proc] === 0) {
      this.procDirty[proc] = 1;
      this.dirtyProcs.push(proc);
    }
  }

  private markNode(node: number): void {
    if (this.nodeDirty[node] === 0) {
      this.nodeDirty[node] = 1;
      this.dirtyNodes.push(node);
    }
  }

  private enterContention(task: RunningTask): void {
    this.dirtyTasks.push(task);
    this.procMemLoad[task.proc]! += task.y;
    this.markProc(task.proc);
    if (task.remote) this.markNode(task.node);
  }

  private leaveContention(task: RunningTask): void {
    if (task.job.job.work === 'delay') return;
    this.markProc(task.proc);
    if (task.remote) this.markNode(task.node);
  }

  /** Recomputes speed factors of everything a batch of starts/ends touched, and reschedules. */
  private flushContention(): void {
    const p = this.platform;
    const now = this.now;
    // communication: node loads and factors, then the jobs on changed nodes
    if (this.dirtyNodes.length > 0) {
      const jobs = new Set<RunningJob>();
      for (const n of this.dirtyNodes) {
        this.nodeDirty[n] = 0;
        let load = 0;
        const c0 = p.nodeFirstCore[n]!;
        const c1 = c0 + p.nodeCoreCount[n]!;
        for (let c = c0; c < c1; c++) {
          const t = this.coreTask[c];
          if (t && t.remote && !t.done) {
            load += t.commLoad;
            jobs.add(t.job);
          }
        }
        this.nodeCommLoad[n] = load;
        this.nodeCommFactor[n] = this.comm.nodeFactor(load, p.nodeCommBw[n]!, this.models.comm_penalty);
      }
      this.dirtyNodes.length = 0;
      for (const rj of jobs) {
        if (this.comm.acrossJobNodes) {
          let f = 1;
          for (let k = 0; k < rj.nodes.length; k++) f = Math.min(f, this.nodeCommFactor[rj.nodes[k]!]!);
          rj.commFactor = f;
        }
        for (const t of rj.tasks!) if (t.remote && !t.done) this.dirtyTasks.push(t);
      }
    }
    // memory: per processor
    for (const proc of this.dirtyProcs) {
      this.procDirty[proc] = 0;
      const k = p.procContention[proc]!;
      const c0 = p.procFirstCore[proc]!;
      const c1 = c0 + p.procCoreCount[proc]!;
      let x = 0;
      let busy = 0;
      for (let c = c0; c < c1; c++) {
        const t = this.coreTask[c];
        if (t && !t.done && t.job.job.work === 'ops') {
          x += t.y;
          busy++;
        }
      }
      this.procMemLoad[proc] = x;
      for (let c = c0; c < c1; c++) {
        const t = this.coreTask[c];
        if (t && !t.done && t.job.job.work === 'ops') {
          t.sMem = this.memModel.speedFactor(k, t.y, x, busy - 1);
          this.dirtyTasks.push(t);
        }
      }
    }
    this.dirtyProcs.length = 0;
    // apply
    for (const t of this.dirtyTasks) {
      if (t.done) continue;
      const rj = t.job;
      let s = t.sMem;
      if (t.remote) {
        t.sComm = this.comm.acrossJobNodes ? rj.commFactor : this.nodeCommFactor[t.node]!;
        s = this.comm.combine(rj.job.tCompute, t.sMem, t.sComm);
      }
      if (s === t.speed) continue;
      if (this.semantics === 'irmasim') {
        // stepping keeps `remaining`; only the rate changes
        t.speed = s;
        t.rate = t.peakRate * s;
        continue;
      }
      // bring progress up to date, then reschedule
      if (t.speed === t.speed) t.remaining -= t.rate * (now - t.last);
      if (t.remaining < 0) t.remaining = 0;
      t.last = now;
      t.speed = s;
      t.rate = t.peakRate * s;
      t.eventTime = now + t.remaining / t.rate;
      this.events.push(t.eventTime, t);
    }
    this.dirtyTasks.length = 0;
  }
}
