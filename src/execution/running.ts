/**
 * Running jobs and their tasks, the events the engine schedules for them, and the records of jobs
 * that left the system. The engine (`simulator.ts`) owns their lifecycle; `progress.ts` moves their
 * work forward; `allocation.ts` holds their cores.
 */
import type { Job } from '../workload/job.js';
import type { MalleableRun } from './malleableProgress.js';
import type { ProgressModel } from './progressModel.js';

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
  /**
   * Seconds of its run during which its progress was limited by communication: some task of it had a
   * communication factor `S_comm` below its uncontended one (1; under `flow` its latency charge:
   * `progress.ts`); 0 for jobs that do not communicate.
   */
  commTime: number;
  /** GPU ids it last ran on (empty or absent without GPUs, and when rejected). */
  gpus?: Int32Array | undefined;
  /**
   * Its suspensions, as flat `(suspend, resume)` pairs of times (sigsleep's `suspend_period`s; an open
   * last period has no resume), absent or null when it never was (`ClusterSimulator.suspend`).
   */
  suspensions?: readonly number[] | null | undefined;
  /**
   * When its nodes leave `COMPLETING` after its end (its `completing` facet; `ClusterSimulator`'s release),
   * absent or NaN when they do not stay.
   */
  releaseAt?: number | undefined;
  /**
   * A `killed` job that a caller killed (`ClusterSimulator.kill`: Slurm's `PreemptMode=CANCEL`, an operator)
   * rather than its walltime; absent or false otherwise.
   */
  cancelled?: boolean | undefined;
}

/** No GPU (the GPU placement of a job without GPUs). */
export const NO_GPUS: Int32Array = new Int32Array(0);

/** The record of a job that never ran (rejected at `now`). */
export function rejectedRecord(job: Job, now: number): JobRecord {
  return {
    job,
    submit: job.subtime,
    start: now,
    finish: now,
    state: 'rejected',
    cores: new Int32Array(0),
    nodes: new Int32Array(0),
    releases: new Float64Array(0),
    commTime: 0,
    gpus: NO_GPUS,
  };
}

/**
 * Kinds of events (the engine's `EventLoop` kinds): a task ends, a job (of uniform delay tasks) ends, a
 * job reaches its walltime; an operator suspends a job, and resumes it (these two rank after the others
 * within an instant: a job whose work ends at the instant of its suspension ends).
 */
export const KIND_TASK = 0;
export const KIND_JOB = 1;
export const KIND_KILL = 2;
export const KIND_SUSPEND = 3;
export const KIND_RESUME = 4;
/** A scheduler asked for a decision point at this time (`ClusterSimulator.requestPass`); ranks with the suspensions. */
export const KIND_PASS = 5;
/** The nodes of a job that ended leave `COMPLETING` (its `completing` facet; the payload: its record). Ranks with the ends. */
export const KIND_RELEASE = 6;

/** The payload of a pass request (`KIND_PASS`): its time is the event's stamp. */
export const PASS_REQUEST = { passRequest: true } as const;

/** A task of a running job (only jobs that need per-task tracking have them). */
export class RunningTask {
  /** Remaining operations (ops model) or seconds at speed 1 (delay model). */
  remaining: number;
  /** Current progress rate (operations/s, or 1 for delay). */
  rate = 0;
  /** Time `remaining` was last brought up to date. */
  last: number;
  /** Time this task currently expects to end (its valid event time), Infinity when none. */
  eventTime = Infinity;
  /** The handle of its pending end event in the engine's `EventLoop` (for `reschedule`), -1 before the first. */
  eventHandle = -1;
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
  /** Counted in its job's `comm.limitedTasks` (its `sComm < job.comm.free` while it ran). */
  commLimited = false;
  done = false;
  /** Its job is suspended: the task holds its core and makes no progress (`remaining` is kept). */
  suspended = false;
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

/**
 * The communication state of a running job whose tasks communicate across nodes (`RunningJob.comm`,
 * created at its start; null for every other job): its link factor, and the time its progress was limited
 * by communication (`progress.ts`).
 */
export class JobComm {
  /** Smallest link factor over the job's nodes (shared comm model). */
  factor = 1;
  /**
   * Its communication factor when nothing throttles it: 1, except under the `flow` model, where the
   * streams' latency charge lowers it (`JobNetwork.add`). A task counts as limited by communication
   * (`time`) while its factor is below this.
   */
  free = 1;
  /** Running tasks whose communication factor is below `free` now, and since when that count is positive (NaN when 0). */
  limitedTasks = 0;
  limitedSince = Number.NaN;
  /** Seconds so far during which `limitedTasks > 0` (the record's `commTime`). */
  time = 0;
}

/**
 * The suspension state of a running job (`RunningJob.sus`, created at its first suspension or when its
 * first operator event is scheduled; null for every other job): whether it is suspended now, for how long
 * it was, its periods, what its end and walltime have left while it is, and its operator events
 * (`suspension.ts`).
 */
export class JobSuspension {
  /** Since when it is suspended (NaN while it runs), and whether it holds its cores then. */
  at = Number.NaN;
  holding = true;
  /** Suspended without its cores: whether it waits for a pass to resume it (`ClusterSimulator.resumeAtPass`) rather than for its cores alone. */
  resumeByPass = false;
  /** Seconds it was suspended before its current period. */
  time = 0;
  /** `(suspend, resume)` times (the record's `suspensions`), null before the first. */
  periods: number[] | null = null;
  /** While suspended: the walltime left, and a job-level end's work left (s). */
  killLeft = Infinity;
  endLeft = Infinity;
  /**
   * The Slurm model's count of run time (`suspension.ts`, `slurmRan`, `slurmLength`, `slurmAt`: the retired Slurm
   * engine's arithmetic, whose times test/golden/slurmEngine.ts keeps): the run time before the current
   * stretch, summed stretch by stretch; when that stretch began (NaN: at the job's start) and whether an
   * operator's resumption began it; while suspended, the lengths of run the end and the walltime kill are
   * counted from (NaN: not so counted).
   */
  ran = 0;
  from = Number.NaN;
  byOperator = false;
  endLength = Number.NaN;
  killLength = Number.NaN;
  /** Next operator event of its job (`job.operatorEvents`), and the stamp of its pending one. */
  opNext = 0;
  opStamp = 0;
}

/**
 * What a few running jobs keep beyond the common case (`RunningJob.extra`, created on first need): a
 * plugged-in progress model's state, its first run's start when it was preempted back to the queue and
 * started again, its record's `releases` once computed, when its nodes leave `COMPLETING`, and whether a caller
 * killed it.
 */
export class RunningJobExtra {
  /** Malleable progress state (`malleableProgress.ts`), null for a job that runs as a rigid job. */
  malleable: MalleableRun | null = null;
  /** The state of another plugged-in progress model. */
  extension: unknown = undefined;
  /** Its record's `releases`, null before their first use. */
  releases: Float64Array | null = null;
  /** When its nodes leave `COMPLETING` (`RunningJob.releaseAt`), NaN when they do not stay. */
  releaseAt = Number.NaN;
  /** Killed by a caller, not by its walltime (`RunningJob.cancelled`). */
  cancelled = false;
  constructor(
    /** Its first start (`RunningJob.firstStart`). */
    public firstStart: number,
  ) {}
}

/**
 * A job that is running, and, once it ended (`ended`), its own record (`JobRecord`: `finish` and `state`
 * are set then; `releases` is computed on first use): the engine hands the running job itself to the
 * listeners' `onEnd` rather than a copy, which a million-job run would allocate a million times.
 *
 * It is created at every start, and it outlives its run as the record, so it holds only what every job
 * needs; what most jobs never use lives in sub-objects created when a job first needs them: its
 * communication (`comm`), its suspensions (`sus`), a plugged-in model's state and the rest (`extra`).
 * Their public views (`commTime`, `suspensions`, `suspended`, `holding`, `malleable`, `extension`, `firstStart`
 * ...) are accessors on the prototype: they cost a job nothing (V8 boxes every double field of an object in
 * a heap number of its own, so a field the job never uses still costs it 24 bytes).
 */
export class RunningJob implements JobRecord {
  /** Tasks (null for delay jobs with uniform tasks, which end all at once). */
  tasks: RunningTask[] | null = null;
  tasksLeft: number;
  /** Job-level end time (delay jobs with uniform tasks), else Infinity. */
  eventTime = Infinity;
  /** Tasks placed on each of `nodes` (a malleable job's placement changes when it is resized). */
  perNode: Int32Array;
  /** The plugged-in progress model that runs it (`progressModel.ts`), null for the built-in ones. */
  model: ProgressModel | null = null;
  /** Its communication state when some task has peers on other nodes and the job communicates, else null. */
  comm: JobComm | null = null;
  /** Its suspension state, null until it is first suspended or an operator event of its is scheduled. */
  sus: JobSuspension | null = null;
  /** A plugged-in model's state, its first run's start after a preemption, its releases; null until needed. */
  extra: RunningJobExtra | null = null;
  ended = false;
  /** GPU ids it holds (`NO_GPUS` without GPUs), given at its start. */
  gpus: Int32Array = NO_GPUS;
  /** Time it left the system (NaN while it runs). */
  finish = Number.NaN;
  /** How it left (valid once `ended`). */
  state: EndState = 'finished';
  /**
   * Walltime kill time (its event's stamp), Infinity when none is pending (none, or suspended). A job whose
   * fixed end (`eventTime`, no tasks nor progress model) comes strictly before it has no kill event in the
   * loop (`needsKillEvent`): its end event ends it first, and an end moved later arms the kill then.
   */
  killAt = Infinity;
  /**
   * The waiting slot it held until its start (`WaitingQueue`): the listeners of its start read it to drop
   * what they kept for it while it waited (a later arrival takes the slot once they ran).
   */
  waitingSlot = -1;

  /** Whether the walltime kill at `killAt` needs an event of its own: its end is not a fixed time strictly before (see `killAt`). */
  needsKillEvent(): boolean {
    return this.killAt < Infinity && !(this.model === null && this.tasks === null && this.eventTime < this.killAt);
  }
  constructor(
    readonly job: Job,
    readonly slot: number,
    readonly start: number,
    public cores: Int32Array,
    public nodes: Int32Array,
    perNode: Int32Array,
  ) {
    this.tasksLeft = job.ntasks;
    this.perNode = perNode;
  }
  /** Its suspension state, created on first use. */
  suspension(): JobSuspension {
    if (this.sus === null) this.sus = new JobSuspension();
    return this.sus;
  }
  /** Its `extra` state, created on first use. */
  private extras(): RunningJobExtra {
    if (this.extra === null) this.extra = new RunningJobExtra(this.start);
    return this.extra;
  }
  /** Whether it is suspended now. */
  get suspended(): boolean {
    const s = this.sus;
    return s !== null && s.at === s.at;
  }
  /** Since when it is suspended (NaN while it runs). */
  get suspendedAt(): number {
    return this.sus === null ? Number.NaN : this.sus.at;
  }
  /** Whether it holds its cores: always while it runs; while suspended, unless it gave them up (and after, once it left so). */
  get holding(): boolean {
    return this.sus === null || this.sus.holding;
  }
  /** Seconds it was suspended, the current period not counted. */
  get suspendedTime(): number {
    return this.sus === null ? 0 : this.sus.time;
  }
  /** Its suspensions, as flat `(suspend, resume)` pairs (`JobRecord.suspensions`), null when it never was. */
  get suspensions(): number[] | null {
    return this.sus === null ? null : this.sus.periods;
  }
  /** Whether some task has peers on other nodes and the job communicates (`comm` is set). */
  get communicating(): boolean {
    return this.comm !== null;
  }
  /** Seconds of its run during which its progress was limited by communication (`JobRecord.commTime`). */
  get commTime(): number {
    return this.comm === null ? 0 : this.comm.time;
  }
  /** Malleable progress state (`malleableProgress.ts`), null for a job that runs as a rigid job. */
  get malleable(): MalleableRun | null {
    return this.extra === null ? null : this.extra.malleable;
  }
  set malleable(run: MalleableRun | null) {
    this.extras().malleable = run;
  }
  /** The state of another plugged-in progress model (handed to the job's next run after a preemption). */
  get extension(): unknown {
    return this.extra === null ? undefined : this.extra.extension;
  }
  set extension(state: unknown) {
    this.extras().extension = state;
  }
  /** Its first start: `start`, or, for a job preempted back to the queue and started again, its first run's. */
  get firstStart(): number {
    return this.extra === null ? this.start : this.extra.firstStart;
  }
  set firstStart(t: number) {
    this.extras().firstStart = t;
  }
  /**
   * When its nodes leave `COMPLETING` (set at its end when it has a `completing` time), NaN when they do not stay
   * (kept in `extra`: most jobs have none, and a number field would cost every job a heap number).
   */
  get releaseAt(): number {
    return this.extra === null ? Number.NaN : this.extra.releaseAt;
  }
  set releaseAt(t: number) {
    this.extras().releaseAt = t;
  }
  /** Whether a caller killed it (`ClusterSimulator.kill`) rather than its walltime (kept in `extra`: few jobs are). */
  get cancelled(): boolean {
    return this.extra !== null && this.extra.cancelled;
  }
  set cancelled(c: boolean) {
    this.extras().cancelled = c;
  }
  /** Rebased submission time. */
  get submit(): number {
    return this.job.subtime;
  }
  /** Time each of `cores` was released (a seq job frees each core when its task ends; others at `finish`). */
  get releases(): Float64Array {
    const x = this.extras();
    if (x.releases === null) {
      const r = new Float64Array(this.cores.length).fill(this.finish);
      if (this.job.type === 'seq' && this.tasks) for (let t = 0; t < this.tasks.length; t++) r[t] = this.tasks[t]!.endedAt;
      x.releases = r;
    }
    return x.releases;
  }
  /** Seconds it has run by `now` since its start (time suspended not counted). */
  ranFor(now: number): number {
    const s = this.sus;
    if (s === null) return now - this.start;
    const open = s.at === s.at ? now - s.at : 0;
    return now - this.start - s.time - open;
  }
  /** Expected end from the user's estimate: `start + req_time` (plus the time it was suspended). */
  get expectedEnd(): number {
    return this.start + this.job.reqTime + this.suspendedTime;
  }
  /** The fraction of its work done at `now` (its slowest task's; a delay job's elapsed share of its runtime). */
  workDone(now: number): number {
    let done = 1;
    if (this.tasks) {
      for (const t of this.tasks) {
        const total = t.tNominal * t.peakRate;
        const left = t.done ? 0 : Math.max(0, t.remaining - t.rate * (now - t.last));
        if (total > 0) done = Math.min(done, 1 - left / total);
      }
    } else {
      const d = this.job.runtime;
      done = d > 0 ? Math.min(1, this.ranFor(now) / d) : 1;
    }
    return done;
  }
}

/** What the engine's event loop holds: a task (its end), a job (its end, its walltime kill, an operator event), a pass request. */
export type EventPayload = RunningTask | RunningJob | typeof PASS_REQUEST;
