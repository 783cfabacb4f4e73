/**
 * The malleable-job simulator (DESIGN §10.1): the model of model.ts on the event core
 * (`EventQueue`), a homogeneous platform of `nodes` nodes allocated whole (a job holds a number of
 * nodes; nodes are interchangeable, so the free count is the whole allocation state), and FCFS with
 * EASY backfilling underneath (Slurm's backfill, seed §7.2).
 *
 * Events: arrival, reconfiguration point, end of a resize, end of a job. At a reconfiguration
 * point the simulation stops (`next()` returns the point) until the caller decides (`decide`):
 * `simulate` asks a `ResizePolicy`, the Malleable-v0 environment asks an agent.
 *
 * Scheduling (after every arrival, job end and shrink end): the queue is in priority order (FCFS,
 * except that a job promoted by a §4.3 shrink goes to the head). Jobs start from the head while
 * they fit (a malleable job starts at `max`). When the head does not fit it gets a reservation at
 * the shadow time, the earliest time the nodes freed by running jobs (at their current sizes and
 * speeds: the model's own remaining times, perfect estimates) and by ongoing shrinks cover it;
 * a later job starts now if it fits and either ends (at its start size) before the shadow time or
 * uses no more than the nodes left over at the shadow time. A backfilled malleable job that is
 * later shrunk runs longer than estimated, as in Slurm.
 *
 * **Queue points** (option `queuePoints`, used by Malleable-v0; off in `simulate`): issue 14 asks
 * the agent also "when a queued job could start if someone shrank". The DMR runtime only acts at a
 * job's reconfiguration points (synchronous mode: `dmr_check_status` is called there, §5.1), so the
 * model is a shrink *request* that takes effect at the job's next point: when the head of the queue
 * `h` (size `need`) does not fit in the free nodes, let `pledged` be the nodes already promised
 * (surplus of ongoing shrinks, `cur - r` of jobs with a request `r`) and the candidates the running
 * malleable jobs (not resizing, no request, whose next event is a point and not their end, with an
 * allowed size below their size, not yet offered for this head); when `free + pledged < need <=
 * free + pledged + sum over candidates (cur - smallest allowed size)`, the simulation stops at a
 * queue point for the candidate whose next point comes first. The answer is the current size
 * (decline; the job is not offered again while `h` heads the queue) or an allowed size below it
 * (a request). At the job's next point the request is applied as that point's decision without
 * asking (a shrink at Table 1's cost; `h`, if still queued, gets the highest priority as in §4.3)
 * and the point is not offered. Offers repeat until the pledges cover `need` or no candidate is left,
 * so there are at most (running jobs) queue points per head. Declining every queue point leaves the
 * run exactly as without them.
 *
 * Metrics: per job wait `start - submit`, execution `finish - start`, completion `finish - submit`;
 * makespan `last finish - first submission`; allocation rate = allocated node-seconds / (nodes *
 * makespan) (Table 4's "resource utilization rate"); counts of expands, shrinks and no-actions and
 * the time spent resizing.
 */
import { type DiscreteEventEngine, type EngineListener, JobPhase } from '../core/engine.js';
import { EventLoop } from '../core/eventLoop.js';
import { allowedSizes, type MJob, type MWorkload, type ResizeCost, stepTime, TABLE1_COST, validResize } from './model.js';
import type { PointContext, ResizePolicy } from './policy.js';

/** Event kinds (an instant's events are processed in scheduling order: every kind ranks the same). */
const ARRIVE = 0;
const POINT = 1;
const RESIZED = 2;
const FINISH = 3;

/** One resize (a row of resizes.csv). */
export interface ResizeRecord {
  time: number;
  job: string;
  from: number;
  to: number;
  cost: number;
}

/** Per-job outcome (a row of jobs.csv). */
export interface MJobResult {
  id: string;
  app: string;
  malleable: boolean;
  submit: number;
  start: number;
  finish: number;
  /** Size at start (`max` for a malleable job) and at the end. */
  startSize: number;
  endSize: number;
  expands: number;
  shrinks: number;
  /** Node-seconds allocated. */
  nodeSeconds: number;
}

/** A point of the allocated-nodes timeline (Figure 6): the state after an instant at which the allocation or the queue changed. */
export interface TimelinePoint {
  time: number;
  allocated: number;
  /** Jobs running (including resizing) and queued. */
  running: number;
  queue: number;
}

/** Outcome of a run. */
export interface MRunResult {
  jobs: MJobResult[];
  resizes: ResizeRecord[];
  timeline: TimelinePoint[];
  makespan: number;
  /** Allocated node-seconds / (nodes * makespan). */
  allocation: number;
  meanWait: number;
  meanExecution: number;
  meanCompletion: number;
  expands: number;
  shrinks: number;
  noActions: number;
  /** Decisions refused (outside min/max/factor or beyond the free nodes); applied as no-action. */
  invalidResizes: number;
  /** Time spent resizing, summed over jobs (s). */
  resizeTime: number;
  /** Queue points offered (0 unless `queuePoints`). */
  queuePoints: number;
  /** Shrink requests made at queue points (each applied at the job's next point). */
  shrinkRequests: number;
  /** Events processed. */
  events: number;
}

/** Options of a simulation. */
export interface SimOptions {
  /** Resize costs (default Table 1). */
  cost?: ResizeCost;
  /** Record the allocated-nodes timeline (default false). */
  timeline?: boolean;
  /** Stop at queue points too (module comment; default false). */
  queuePoints?: boolean;
}

/** A resize the engine refused. */
export class InvalidResizeError extends Error {}

/** The state of one job's run in the simulator. */
class JobRun {
  phase = JobPhase.None;
  size = 0;
  /** Size the job progresses at after the current resize. */
  target = 0;
  stepsDone = 0;
  segSteps = 0;
  start = -1;
  finish = -1;
  estEnd = 0;
  resizeEnd = 0;
  ver = 0;
  expands = 0;
  shrinks = 0;
  nodeSeconds = 0;
  sizeSince = 0;
  anchorT = 0;
  anchorSteps = 0;
  /** Time of the next point, or -1 when the next event is the job's end. */
  nextPoint = -1;
  /** Size requested at a queue point for the next point (0: none) and the head that triggered it. */
  request = 0;
  requestFor = -1;
  /** Queue-point epoch in which the job was last offered. */
  offered = -1;
  constructor(readonly job: MJob) {}
}

/** Observers of a malleable run: the engine listener of `core/engine.ts` (jobs as `MJob`, records as `MJobResult`). */
export type MalleableListener = EngineListener<MalleableSim, MJob, MJob, MJobResult>;

/**
 * The simulator; drive it with `next()` / `decide()`, or attach a policy (`setPolicy`) and run it as
 * every engine runs (`runUntil`, `core/engine.ts`), or use `simulate`.
 */
export class MalleableSim implements DiscreteEventEngine {
  readonly nodes: number;
  private readonly jobs: JobRun[];
  /** Arrivals, reconfiguration points, resize ends and job ends; an event's stamp is its job's version. */
  private readonly events: EventLoop<number>;
  private readonly listeners: MalleableListener[] = [];
  private policy: ResizePolicy | null = null;
  private readonly cost: ResizeCost;
  private readonly recordTimeline: boolean;
  private queue: number[] = [];
  /** `queuedSizes()` cached until the queue changes (a point asks for it; rebuilding it per point is O(queue)). */
  private sizesCache: number[] | null = null;
  private sizesSum = 0;
  /** Jobs running or resizing (indices), so that scheduling walks at most `nodes` jobs, not the workload. */
  private active: number[] = [];
  private free: number;
  private running = 0;
  /** The clock, in the workload's time (the contract's `now` is rebased to the first submission). */
  private clock = 0;
  private area = 0;
  private waitArea = 0;
  private inSystemArea = 0;
  private lastT = 0;
  private done_ = 0;
  private pending = -1;
  /** Whether the pending decision is a queue point (else a reconfiguration point). */
  private pendingQueue = false;
  private readonly queuePointsOn: boolean;
  /** The head the queue-point offers are about, and the epoch of those offers. */
  private qHead = -1;
  private qEpoch = 0;
  private queuePointCount = 0;
  private requestCount = 0;
  private readonly t0: number;
  readonly resizes: ResizeRecord[] = [];
  readonly timeline: TimelinePoint[] = [];
  private noActions = 0;
  private invalid = 0;
  private resizeTime = 0;
  private eventCount = 0;

  constructor(workload: MWorkload, options: SimOptions = {}) {
    this.nodes = workload.nodes;
    this.free = workload.nodes;
    this.cost = options.cost ?? TABLE1_COST;
    this.recordTimeline = options.timeline ?? false;
    this.queuePointsOn = options.queuePoints ?? false;
    this.jobs = workload.jobs.map((j) => new JobRun(j));
    this.events = new EventLoop<number>({ capacity: 256, isLive: (_kind, i, stamp) => this.jobs[i]!.ver === stamp });
    this.t0 = workload.jobs.reduce((m, j) => Math.min(m, j.subtime), workload.jobs.length > 0 ? Infinity : 0);
    this.clock = this.t0;
    this.lastT = this.t0;
    this.jobs.forEach((j, i) => {
      if (j.job.nodes > this.nodes) throw new InvalidResizeError(`job ${j.job.id} needs ${j.job.nodes} nodes, the platform has ${this.nodes}`);
      this.events.schedule(j.job.subtime, ARRIVE, i, 0);
    });
  }

  /** Simulated time (s since the first submission). */
  get time(): number {
    return this.clock - this.t0;
  }

  /** The engine contract's clock: simulated time (s since the first submission), as `time`. */
  get now(): number {
    return this.clock - this.t0;
  }

  /** Time of the next event (s since the first submission), Infinity when none. */
  nextEventTime(): number {
    return this.events.peekTime() - this.t0;
  }

  /** Whether every job has finished (and no point is pending). */
  get done(): boolean {
    return this.done_ === this.jobs.length && this.pending < 0;
  }

  /** Adds an observer (submissions, starts, resizes, ends). */
  addListener(l: MalleableListener): void {
    this.listeners.push(l);
  }

  /** Attaches the policy that `runUntil` asks at every point (null: the caller decides). */
  setPolicy(policy: ResizePolicy | null): void {
    this.policy = policy;
  }

  /**
   * The engine contract's `runUntil` (`core/engine.ts`): processes every event up to and including `t`
   * (s since the first submission), the attached policy deciding each point; without one, stops at the
   * first point (decide it, then call again). The clock then moves to `t` when finite. Returns `now`.
   */
  runUntil(t: number): number {
    const limit = t + this.t0;
    for (;;) {
      if (this.pending >= 0) {
        if (this.policy === null) return this.now;
        this.decideWith(this.policy);
        continue;
      }
      if (!this.proceed(limit)) break;
    }
    if (limit < Infinity && limit > this.clock && !this.over) this.advanceTo(limit);
    return this.now;
  }

  /** Free nodes. */
  get freeNodes(): number {
    return this.free;
  }

  /** Jobs waiting / running (including resizing). */
  get queueLength(): number {
    return this.queue.length;
  }
  get runningJobs(): number {
    return this.running;
  }

  /** Integral over time of the number of queued jobs (= the summed waiting time so far, s). */
  get waitIntegral(): number {
    return this.waitArea;
  }

  /** Integral over time of the number of jobs queued or running (= the summed completion time so far, s). */
  get inSystemIntegral(): number {
    return this.inSystemArea;
  }

  /** Jobs in the workload. */
  get jobCount(): number {
    return this.jobs.length;
  }

  /**
   * The queue position a §4.3 shrink of the pending job to `size` promotes: the first queued job
   * that does not fit in the free nodes now but does after the shrink; -1 when none (or not a shrink).
   */
  promotionFor(size: number): number {
    if (this.pending < 0 || this.pendingQueue) return -1;
    const cur = this.jobs[this.pending]!.size;
    if (size >= cur) return -1;
    for (let i = 0; i < this.queue.length; i++) {
      const need = this.jobs[this.queue[i]!]!.job.nodes;
      if (need > this.free && need <= this.free + cur - size) return i;
    }
    return -1;
  }

  /** Jobs finished. */
  get finished(): number {
    return this.done_;
  }

  /** Whether every job has finished. */
  get over(): boolean {
    return this.done_ === this.jobs.length;
  }

  /** The job of the pending reconfiguration point, or null. */
  get pendingJob(): MJob | null {
    return this.pending >= 0 ? this.jobs[this.pending]!.job : null;
  }

  /** Whether the pending decision is a queue point (see the module comment). */
  get atQueuePoint(): boolean {
    return this.pending >= 0 && this.pendingQueue;
  }

  /** Progress of the pending job (fraction of its steps done, mid-step at a queue point), or 0. */
  get pendingProgress(): number {
    if (this.pending < 0) return 0;
    const s = this.jobs[this.pending]!;
    if (!this.pendingQueue) return s.stepsDone / s.job.steps;
    return Math.min(1, (s.anchorSteps + (this.clock - s.anchorT) / stepTime(s.job.app, s.size)) / s.job.steps);
  }

  /** The job at the head of the queue, or null. */
  get headJob(): MJob | null {
    return this.queue.length > 0 ? this.jobs[this.queue[0]!]!.job : null;
  }

  /** Sizes of the queued jobs in priority order (a copy). */
  queuedSizes(): number[] {
    return [...this.cachedSizes()];
  }

  /** Nodes the queued jobs request, summed (cached with the sizes). */
  get queuedNodes(): number {
    this.cachedSizes();
    return this.sizesSum;
  }

  private cachedSizes(): readonly number[] {
    if (this.sizesCache === null) {
      this.sizesCache = this.queue.map((i) => this.jobs[i]!.job.nodes);
      this.sizesSum = this.sizesCache.reduce((a, b) => a + b, 0);
    }
    return this.sizesCache;
  }

  /** What a policy sees at the pending point (throws without one). */
  context(): PointContext {
    if (this.pending < 0) throw new Error('no pending reconfiguration point');
    const s = this.jobs[this.pending]!;
    return {
      time: this.time,
      free: this.free,
      size: s.size,
      spec: s.job.malleable!,
      queue: this.cachedSizes(),
      kind: this.pendingQueue ? 'queue' : 'point',
    };
  }

  /**
   * Runs until the next reconfiguration point (returns its context) or the end (returns null).
   * A pending point must be decided first.
   */
  next(): PointContext | null {
    if (this.pending >= 0) return this.context();
    return this.proceed(Infinity) ? this.context() : null;
  }

  /**
   * Processes events up to `limit` (the workload's time) until a point is pending (true) or none is
   * left before `limit` (false).
   */
  private proceed(limit: number): boolean {
    const ev = this.events;
    for (;;) {
      if (this.queuePointsOn && this.offerQueuePoint()) return true;
      const t = ev.peekTime();
      if (t === Infinity || t > limit) return false;
      ev.next();
      const i = ev.payload!;
      const s = this.jobs[i]!;
      this.advanceTo(t);
      this.eventCount++;
      if (ev.kind === ARRIVE) {
        s.phase = JobPhase.Waiting;
        this.queue.push(i);
        this.sizesCache = null;
        for (const l of this.listeners) l.onSubmit?.(this, s.job);
        this.schedule();
      } else if (ev.kind === POINT) {
        s.stepsDone += s.segSteps;
        this.pending = i;
        this.pendingQueue = false;
        if (s.request > 0) {
          // a request made at a queue point: the answer of this point (§4.3 priority for its head)
          const size = s.request;
          const h = s.requestFor;
          s.request = 0;
          s.requestFor = -1;
          const at = this.jobs[h]!.phase === JobPhase.Waiting ? this.queue.indexOf(h) : -1;
          this.decide(size, at);
          continue;
        }
        return true;
      } else if (ev.kind === RESIZED) {
        this.setSize(s, s.target);
        s.phase = JobPhase.Running;
        this.segment(i, this.clock, true);
        this.schedule();
      } else {
        s.stepsDone = s.job.steps;
        this.setSize(s, 0);
        s.phase = JobPhase.Completed;
        s.finish = this.clock;
        this.running--;
        this.removeActive(i);
        this.done_++;
        if (this.listeners.length > 0) {
          const rec = this.jobResult(s);
          for (const l of this.listeners) l.onEnd?.(this, rec, s.job);
        }
        this.schedule();
      }
    }
  }

  /**
   * Decides the pending point: `size` (= the current size for no-action), and optionally the queue
   * position to promote to the head. Throws `InvalidResizeError` (and changes nothing) for a size
   * outside min/max/factor or an expansion beyond the free nodes. At a queue point (`atQueuePoint`)
   * `size` below the current size is a shrink request for the job's next point (`promote` is ignored:
   * the head that caused it is promoted then), the current size declines, anything else throws.
   */
  decide(size: number, promote = -1): void {
    if (this.pending < 0) throw new Error('no pending reconfiguration point');
    const i = this.pending;
    const s = this.jobs[i]!;
    const spec = s.job.malleable!;
    const cur = s.size;
    if (this.pendingQueue) {
      if (size !== cur && (size > cur || !validResize(spec, cur, size)))
        throw new InvalidResizeError(`job ${s.job.id}: at a queue point only a shrink to an allowed size below ${cur} can be requested, not ${size}`);
      this.pending = -1;
      this.pendingQueue = false;
      if (size !== cur) {
        s.request = size;
        s.requestFor = this.qHead;
        this.requestCount++;
      }
      return;
    }
    if (size !== cur) {
      if (!validResize(spec, cur, size))
        throw new InvalidResizeError(`job ${s.job.id}: a resize ${cur} -> ${size} breaks min ${spec.min}, max ${spec.max} or factor ${spec.factor}`);
      if (size - cur > this.free)
        throw new InvalidResizeError(`job ${s.job.id}: expanding ${cur} -> ${size} needs ${size - cur} free nodes, ${this.free} are free`);
    }
    if (promote >= this.queue.length) throw new InvalidResizeError(`no queued job at position ${promote}`);
    this.pending = -1;
    if (size === cur) {
      this.noActions++;
      this.segment(i, this.clock, false);
      return;
    }
    if (promote > 0) {
      const [j] = this.queue.splice(promote, 1);
      this.queue.unshift(j!);
      this.sizesCache = null;
    }
    const expand = size > cur;
    const c = expand ? this.cost.expand : this.cost.shrink;
    this.resizes.push({ time: this.time, job: s.job.id, from: cur, to: size, cost: c });
    for (const l of this.listeners) l.onResize?.(this, s.job, cur, size);
    this.resizeTime += c;
    if (expand) {
      s.expands++;
      this.setSize(s, size);
    } else s.shrinks++;
    s.target = size;
    s.phase = JobPhase.Resizing;
    s.resizeEnd = this.clock + c;
    s.estEnd = s.resizeEnd + (s.job.steps - s.stepsDone) * stepTime(s.job.app, size);
    s.ver++;
    this.events.schedule(s.resizeEnd, RESIZED, i, s.ver);
  }

  /** Decides the pending point with `policy` (refused decisions count as invalid and become no-action). */
  decideWith(policy: ResizePolicy): void {
    const d = policy(this.context());
    try {
      this.decide(d.size, d.promote);
    } catch (e) {
      if (!(e instanceof InvalidResizeError)) throw e;
      this.invalid++;
      this.decide(this.jobs[this.pending]!.size);
    }
  }

  /**
   * Sets a queue point pending when the module comment's condition holds (returns whether it did).
   * Walks the running jobs like the EASY reservation does; only when the head does not fit.
   */
  private offerQueuePoint(): boolean {
    if (this.queue.length === 0) return false;
    const h = this.queue[0]!;
    const need = this.jobs[h]!.job.nodes;
    if (need <= this.free) return false;
    if (h !== this.qHead) {
      this.qHead = h;
      this.qEpoch++;
    }
    let pledged = 0;
    let potential = 0;
    let best = -1;
    let bestAt = Infinity;
    for (const i of this.active) {
      const s = this.jobs[i]!;
      if (s.phase === JobPhase.Resizing) {
        if (s.target < s.size) pledged += s.size - s.target;
        continue;
      }
      if (s.phase !== JobPhase.Running || s.job.malleable === null) continue;
      if (s.request > 0) {
        pledged += s.size - s.request;
        continue;
      }
      if (s.nextPoint < 0 || s.offered === this.qEpoch) continue;
      const smallest = allowedSizes(s.job.malleable)[0]!;
      if (smallest >= s.size) continue;
      potential += s.size - smallest;
      if (s.nextPoint < bestAt || (s.nextPoint === bestAt && i < best)) {
        best = i;
        bestAt = s.nextPoint;
      }
    }
    if (best < 0 || this.free + pledged >= need || this.free + pledged + potential < need) return false;
    this.jobs[best]!.offered = this.qEpoch;
    this.pending = best;
    this.pendingQueue = true;
    this.queuePointCount++;
    return true;
  }

  /** The results (call when `over`). */
  result(): MRunResult {
    if (this.recordTimeline && this.over) this.timelinePoint();
    const jobs: MJobResult[] = this.jobs.map((s) => this.jobResult(s));
    const n = Math.max(1, jobs.length);
    const makespan = this.lastT - this.t0;
    const sum = (f: (j: MJobResult) => number) => jobs.reduce((a, j) => a + f(j), 0) / n;
    return {
      jobs,
      resizes: this.resizes,
      timeline: this.timeline,
      makespan,
      allocation: makespan > 0 ? this.area / (this.nodes * makespan) : 0,
      meanWait: sum((j) => j.start - j.submit),
      meanExecution: sum((j) => j.finish - j.start),
      meanCompletion: sum((j) => j.finish - j.submit),
      expands: jobs.reduce((a, j) => a + j.expands, 0),
      shrinks: jobs.reduce((a, j) => a + j.shrinks, 0),
      noActions: this.noActions,
      invalidResizes: this.invalid,
      resizeTime: this.resizeTime,
      queuePoints: this.queuePointCount,
      shrinkRequests: this.requestCount,
      events: this.eventCount,
    };
  }

  /** The record of job `s` (its row of jobs.csv). */
  private jobResult(s: JobRun): MJobResult {
    return {
      id: s.job.id,
      app: s.job.app.name,
      malleable: s.job.malleable !== null,
      submit: s.job.subtime - this.t0,
      start: s.start - this.t0,
      finish: s.finish - this.t0,
      startSize: s.job.nodes,
      endSize: s.target || s.job.nodes,
      expands: s.expands,
      shrinks: s.shrinks,
      nodeSeconds: s.nodeSeconds,
    };
  }

  /** A timeline point for the state since the last instant, when the allocation or the queue changed (the zero state before the first). */
  private timelinePoint(): void {
    const allocated = this.nodes - this.free;
    const last = this.timeline[this.timeline.length - 1];
    if ((last?.allocated ?? 0) === allocated && (last?.queue ?? 0) === this.queue.length) return;
    this.timeline.push({ time: this.lastT - this.t0, allocated, running: this.running, queue: this.queue.length });
  }

  private advanceTo(t: number): void {
    if (t > this.lastT) {
      if (this.recordTimeline) this.timelinePoint();
      const dt = t - this.lastT;
      this.area += (this.nodes - this.free) * dt;
      this.waitArea += this.queue.length * dt;
      this.inSystemArea += (this.queue.length + this.running) * dt;
      this.lastT = t;
    }
    this.clock = t;
  }

  /** Changes the nodes `s` holds (0 at its end), keeping the free count, node-seconds and timeline. */
  private setSize(s: JobRun, size: number): void {
    s.nodeSeconds += s.size * (this.clock - s.sizeSince);
    s.sizeSince = this.clock;
    this.free += s.size - size;
    if (this.free < 0 || this.free > this.nodes) throw new Error(`node accounting broken: ${this.free} free of ${this.nodes}`);
    s.size = size;
  }

  /**
   * Schedules the next point or the end of job `i`, at a step boundary. Times are computed from the
   * job's anchor (the time and step count when it last changed speed), so that points without a
   * resize leave its end time bit-for-bit that of the same job run rigidly.
   */
  private segment(i: number, t: number, reanchor: boolean): void {
    const s = this.jobs[i]!;
    if (reanchor) {
      s.anchorT = t;
      s.anchorSteps = s.stepsDone;
    }
    const d = stepTime(s.job.app, s.size);
    const remaining = s.job.steps - s.stepsDone;
    s.estEnd = s.anchorT + (s.job.steps - s.anchorSteps) * d;
    s.target = s.size;
    s.ver++;
    const spec = s.job.malleable;
    const k = spec ? Math.max(1, Math.ceil(spec.inhibit / d - 1e-9)) : remaining;
    if (k >= remaining) {
      s.nextPoint = -1;
      this.events.schedule(s.estEnd, FINISH, i, s.ver);
    } else {
      s.segSteps = k;
      s.nextPoint = s.anchorT + (s.stepsDone + k - s.anchorSteps) * d;
      this.events.schedule(s.nextPoint, POINT, i, s.ver);
    }
  }

  private removeActive(i: number): void {
    const at = this.active.indexOf(i);
    if (at >= 0) this.active.splice(at, 1);
  }

  private startJob(i: number): void {
    const s = this.jobs[i]!;
    s.phase = JobPhase.Running;
    s.start = this.clock;
    this.running++;
    this.active.push(i);
    s.sizeSince = this.clock;
    this.setSize(s, s.job.nodes);
    this.segment(i, this.clock, true);
    for (const l of this.listeners) l.onStart?.(this, s.job);
  }

  /** FCFS + EASY backfilling over the queue (module comment). */
  private schedule(): void {
    const q = this.queue;
    this.sizesCache = null;
    let h = 0;
    while (h < q.length && this.jobs[q[h]!]!.job.nodes <= this.free) this.startJob(q[h++]!);
    if (h > 0) q.splice(0, h);
    if (q.length <= 1 || this.free === 0) return;
    // reservation for the head
    const need = this.jobs[q[0]!]!.job.nodes;
    const releases: [number, number][] = [];
    for (const a of this.active) {
      const s = this.jobs[a]!;
      if (s.phase === JobPhase.Running) releases.push([s.estEnd, s.size]);
      else if (s.phase === JobPhase.Resizing) {
        releases.push([s.estEnd, s.target]);
        if (s.target < s.size) releases.push([s.resizeEnd, s.size - s.target]);
      }
    }
    releases.sort((a, b) => a[0] - b[0]);
    let avail = this.free;
    let shadow = Infinity;
    for (const [t, n] of releases) {
      // every release at the shadow time counts towards the extra nodes, whatever their order
      if (avail >= need && t > shadow) break;
      avail += n;
      if (avail >= need && shadow === Infinity) shadow = t;
    }
    let extra = avail - need;
    const keep: number[] = [q[0]!];
    for (let k = 1; k < q.length; k++) {
      const i = q[k]!;
      const j = this.jobs[i]!.job;
      if (j.nodes <= this.free) {
        const end = this.clock + j.steps * stepTime(j.app, j.nodes);
        if (end <= shadow) {
          this.startJob(i);
          continue;
        }
        if (j.nodes <= extra) {
          extra -= j.nodes;
          this.startJob(i);
          continue;
        }
      }
      keep.push(i);
    }
    this.queue = keep;
  }
}

/** Runs `workload` to the end, answering every reconfiguration point with `policy`. */
export function simulate(workload: MWorkload, policy: ResizePolicy, options: SimOptions = {}): MRunResult {
  const sim = new MalleableSim(workload, options);
  while (sim.next() !== null) sim.decideWith(policy);
  return sim.result();
}
