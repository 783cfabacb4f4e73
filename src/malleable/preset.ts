/**
 * The DMR preset of the one engine (seed 002; DESIGN §10.1, §15): the malleable-job model run on
 * `ClusterSimulator` (src/execution/simulator.ts) with the dimensions the DMR model needs:
 * - **capacity**: a homogeneous platform of `nodes` one-core nodes (`homogeneousPlatform`), allocated
 *   whole (the DMR model's interchangeable nodes: the free count is the idle nodes);
 * - **progress**: malleable steps (`malleable: 'steps'`, src/execution/malleableProgress.ts): `steps`
 *   iterations whose step time depends on the size, reconfiguration points past the inhibitor, resizes
 *   costing `cost` (Table 1 by default) with no progress;
 * - **passes**: FCFS with EASY backfilling on node counts, a §4.3 shrink's queued job promoted to the head
 *   (`DmrScheduler`, src/scheduling/dmr.ts), after every arrival, job end and resize end (the event
 *   pass clock, `passClock: 'event'`);
 * - **resize decisions** at reconfiguration points: a `ResizePolicy` (`dmr`, `never` or a learned one;
 *   `dmrResizeDecider`) decides each point as it is reached, or, without one, the caller does
 *   (`next()` returns the point's context, `decide()` answers it: the Malleable-v0 environment).
 *
 * Time 0 is the first submission (`time`, and every time of the results); the engine itself runs in the
 * workload's time (`timeOrigin: 0`), so that every computed time is bit for bit the DMR engine's.
 *
 * **Queue points** (option `queuePoints`, used by Malleable-v0; off in `simulate`): issue 14 asks the
 * agent also "when a queued job could start if someone shrank". The DMR runtime only acts at a job's
 * reconfiguration points (synchronous mode: `dmr_check_status` is called there, §5.1), so the model is
 * a shrink *request* that takes effect at the job's next point: when the head of the queue `h` (size
 * `need`) does not fit in the free nodes, let `pledged` be the nodes already promised (surplus of ongoing
 * shrinks, `cur - r` of jobs with a request `r`) and the candidates the running malleable jobs (not
 * resizing, no request, whose next event is a point and not their end, with an allowed size below
 * their size, not yet offered for this head); when `free + pledged < need <= free + pledged + sum over
 * candidates (cur - smallest allowed size)`, the run stops at a queue point for the candidate whose
 * next point comes first (the first submitted on a tie). The answer is the current size (decline; the job is not
 * offered again while `h` heads the queue) or an allowed size below it (a request). At the job's next
 * point the request is applied as that point's decision without asking (a shrink at the resize cost;
 * `h`, if still queued, gets the highest priority as in §4.3) and the point is not offered. Offers repeat
 * until the pledges cover `need` or no candidate is left, so there are at most (running jobs) queue
 * points per head. Declining every queue point leaves the run exactly as without them. The check runs
 * before every event of the engine (the scheduler's `pause`, `DecisionMaker.pause`); with a policy it
 * answers the queue points too (`kind: 'queue'`), without one the run stops there.
 *
 * **Metrics**: per job wait `start - submit`, execution `finish - start`, completion `finish - submit`;
 * makespan `last event - first submission`; allocation rate = allocated node-seconds / (nodes *
 * makespan) (Table 4's "resource utilization rate"); counts of expands, shrinks and no-actions, refused
 * decisions, the time spent resizing, queue points and requests, events (arrivals, points, resize ends,
 * job ends); the integrals over time of the queued and of the queued-or-running jobs (the rewards of
 * Malleable-v0); with `timeline`, the allocated fraction and queue length after every instant at which
 * either changed (`TimelineRecorder`'s rows).
 */
import { objectList } from '../core/arrays.js';
import { InvalidResizeError } from '../execution/simulator.js';
import { ClusterSimulator, type DecisionMaker, type JobRecord, type ResizeDecider, type RunningJob, type SimulationListener } from '../execution/simulator.js';
import { TimelineRecorder, type TimelineRow } from '../metrics/writers.js';
import { homogeneousPlatform } from '../platform/homogeneous.js';
import type { Platform } from '../platform/platform.js';
import { DmrScheduler, dmrResizeDecider } from '../scheduling/dmr.js';
import type { PointContext, ResizePolicy } from '../scheduling/resizePolicy.js';
import type { Job } from '../workload/job.js';
import { allowedSizes, type MalleableSpec, stepTime, validResize } from '../workload/malleability.js';
import { type MJob, type MJobResult, type MRunResult, type MWorkload, type ResizeCost, type ResizeRecord, TABLE1_COST } from './model.js';
import { malleableJobs } from './workload.js';

export { InvalidResizeError } from '../execution/simulator.js';

/** Options of the preset. */
export interface DmrOptions {
  /** Resize costs (default Table 1). */
  cost?: ResizeCost;
  /** Record the timeline (default false). */
  timeline?: boolean;
  /** Stop at queue points too (module comment; default false). */
  queuePoints?: boolean;
  /** The policy deciding every point (and queue point) as it is reached; none (default): the caller decides. */
  policy?: ResizePolicy | null;
}

/** The allowed sizes of a rigid job. */
const NO_SIZES: readonly number[] = Object.freeze([]);

/** One platform per node count (platforms are read-only; building one per episode costs more than a short run). */
const PLATFORMS = new Map<number, Platform>();

function platformOf(nodes: number): Platform {
  let p = PLATFORMS.get(nodes);
  if (p === undefined) {
    p = homogeneousPlatform(nodes, 1);
    PLATFORMS.set(nodes, p);
  }
  return p;
}

/**
 * A run of the DMR model on the one engine (the module comment): `engine` is the `ClusterSimulator`,
 * `scheduler` its DMR passes. Drive it with `next()` / `decide()` (the caller decides the points), or
 * give it a policy and run the engine (`engine.runUntil(Infinity)`), or use `simulate`.
 */
export class DmrSim implements DecisionMaker, SimulationListener {
  readonly engine: ClusterSimulator;
  readonly scheduler: DmrScheduler;
  readonly nodes: number;
  readonly resizes: ResizeRecord[] = objectList();
  private readonly workload: MWorkload;
  /** Workload position of each of the engine's jobs. */
  private readonly rank = new Map<Job, number>();
  /**
   * Per running job, by its engine slot (`RunningJob.slot`, reused once it ends): its workload position;
   * with queue points, its smallest allowed size, the epoch it was last offered in, and its shrink
   * request (size, 0 for none, and the head it is for).
   */
  private slotRank = new Int32Array(64);
  private slotSmallest = new Int32Array(64);
  private slotOffered = new Int32Array(64);
  private slotRequest = new Int32Array(64);
  private readonly slotHead: (Job | null)[] = [];
  /** Per running job, by its slot: its allowed sizes, ascending (none for a rigid job). */
  private readonly slotSizes: (readonly number[])[] = [];
  /** Requests not carried out yet. */
  private pendingRequests = 0;
  private readonly ended: (MJobResult | undefined)[];
  private readonly t0: number;
  private readonly cost: ResizeCost;
  private readonly policy: ResizePolicy | null;
  private area = 0;
  private waitArea = 0;
  private inSystemArea = 0;
  private lastT: number;
  /** Points decided (no-action or resize), queue points offered, requests, refused decisions outside the engine. */
  private points = 0;
  private queuePointCount = 0;
  private requestCount = 0;
  private invalid = 0;
  private resizeTime = 0;
  private readonly queuePointsOn: boolean;
  /** The running job of the pending queue point, or null. */
  private offer: RunningJob | null = null;
  /** The head the queue-point offers are about, and the epoch of those offers. */
  private qHead: Job | null = null;
  private qEpoch = 0;
  readonly timeline: TimelineRow[] = [];
  private readonly recorder: TimelineRecorder | null = null;

  constructor(workload: MWorkload, options: DmrOptions = {}) {
    this.workload = workload;
    this.nodes = workload.nodes;
    this.cost = options.cost ?? TABLE1_COST;
    this.policy = options.policy ?? null;
    this.queuePointsOn = options.queuePoints ?? false;
    const jobs = malleableJobs(workload).jobs;
    for (let i = 0; i < jobs.length; i++) this.rank.set(jobs[i]!, i);
    this.ended = new Array(jobs.length);
    this.t0 = workload.jobs.reduce((m, j) => Math.min(m, j.subtime), workload.jobs.length > 0 ? Number.POSITIVE_INFINITY : 0);
    this.lastT = this.t0;
    const engine = new ClusterSimulator(platformOf(workload.nodes), jobs, {
      malleable: 'steps',
      passClock: 'event',
      resizeCost: this.cost,
      timeOrigin: 0,
      workloadName: 'malleable workload',
    });
    this.engine = engine;
    const dmr = new DmrScheduler();
    dmr.attach(engine);
    this.scheduler = dmr;
    // the run's own listener and, with queue points, decision maker: methods, not closures made per run, so
    // that the engine's call sites keep one target from run to run
    engine.setScheduler(this.queuePointsOn ? this : dmr);
    if (this.policy !== null) engine.setResizePolicy(this.decider(dmrResizeDecider(dmr, this.policy, this.t0)));
    engine.addListener(this);
    if (options.timeline) {
      // a row when the allocated fraction or the queue changed (the zero state before the first row)
      let u = 0;
      let q = 0;
      const recorder = new TimelineRecorder((row) => {
        if (row.utilisation === u && row.queue === q) return;
        u = row.utilisation;
        q = row.queue;
        this.timeline.push({ ...row, time: row.time - this.t0 });
      });
      engine.addListener(recorder);
      this.recorder = recorder;
    }
  }

  private growSlots(slot: number): void {
    const grow = (a: Int32Array) => {
      const b = new Int32Array(Math.max(2 * a.length, slot + 1));
      b.set(a);
      return b;
    };
    this.slotRank = grow(this.slotRank);
    this.slotSmallest = grow(this.slotSmallest);
    this.slotOffered = grow(this.slotOffered);
    this.slotRequest = grow(this.slotRequest);
  }

  // ---------------------------------------------------------------- the engine's listener and decision maker

  /** A job starts: its workload position and, with queue points, its smallest size and a clean slate of offers. */
  onStart(_e: ClusterSimulator, rj: RunningJob): void {
    const slot = rj.slot;
    if (slot >= this.slotRank.length) this.growSlots(slot);
    this.slotRank[slot] = this.rank.get(rj.job)!;
    const spec = rj.malleable!.work.spec;
    const sizes = spec === null ? NO_SIZES : allowedSizes(spec);
    this.slotSizes[slot] = sizes;
    if (this.queuePointsOn) {
      this.slotSmallest[slot] = spec === null ? 0 : sizes[0]!;
      this.slotOffered[slot] = 0;
      this.slotRequest[slot] = 0;
      this.slotHead[slot] = null;
    }
  }

  /** The clock moves: the allocated node-seconds and the integrals of the queued and of the queued-or-running jobs. */
  onAdvance(e: ClusterSimulator, from: number, to: number): void {
    const dt = to - from;
    const queued = e.queue.length;
    this.area += (this.nodes - e.allocation.idleNodes) * dt;
    this.waitArea += queued * dt;
    this.inSystemArea += (queued + e.runningCount) * dt;
    this.lastT = to;
  }

  /** A resize begins: its record. */
  onResize(e: ClusterSimulator, rj: RunningJob, from: number, to: number): void {
    const c = to > from ? this.cost.expand : this.cost.shrink;
    this.resizes.push({ time: e.now - this.t0, job: rj.job.id, from, to, cost: c });
    this.resizeTime += c;
  }

  /** A job ends: its result. */
  onEnd(_e: ClusterSimulator, rec: JobRecord, running: RunningJob | null): void {
    const rj = running!;
    const slot = rj.slot;
    const i = this.slotRank[slot]!;
    const m = rj.malleable!;
    if (this.slotRequest[slot] !== 0) {
      // (a job with a request reaches its point before its end; kept in step all the same)
      this.slotRequest[slot] = 0;
      this.pendingRequests--;
    }
    const j = this.workload.jobs[i]!;
    this.ended[i] = {
      id: j.id,
      app: j.app.name,
      malleable: j.malleable !== null,
      submit: j.subtime - this.t0,
      start: rec.start - this.t0,
      finish: rec.finish - this.t0,
      startSize: j.nodes,
      endSize: m.target || j.nodes,
      expands: m.expands,
      shrinks: m.shrinks,
      nodeSeconds: m.nodeSeconds,
    };
  }

  /** The DMR passes (the engine's decision maker with queue points). */
  schedule(sim: ClusterSimulator): void {
    this.scheduler.schedule(sim);
  }

  promote(sim: ClusterSimulator, job: Job): void {
    this.scheduler.promote(sim, job);
  }

  /** Before each event (queue points on): offers the queue points due (the module comment); true when one waits for the caller. */
  pause(): boolean {
    return this.pauseForQueuePoint();
  }

  /** Takes `rj`'s shrink request (made at a queue point) for its point, or null. */
  private takeRequest(rj: RunningJob): { size: number; promote: Job } | null {
    if (this.pendingRequests === 0) return null;
    const size = this.slotRequest[rj.slot]!;
    if (size === 0) return null;
    this.slotRequest[rj.slot] = 0;
    this.pendingRequests--;
    return { size, promote: this.slotHead[rj.slot]! };
  }

  /** The engine's resize decider: a pending request first (queue points), else `base`; counts the points. */
  private decider(base: ResizeDecider): ResizeDecider {
    return (sim, rj) => {
      this.points++;
      return this.takeRequest(rj) ?? base(sim, rj);
    };
  }

  /** Simulated time (s since the first submission). */
  get time(): number {
    return this.engine.now - this.t0;
  }

  /** Free nodes. */
  get freeNodes(): number {
    return this.engine.allocation.idleNodes;
  }

  /** Jobs waiting / running (including resizing). */
  get queueLength(): number {
    return this.engine.queue.length;
  }
  get runningJobs(): number {
    return this.engine.runningCount;
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
    return this.workload.jobs.length;
  }

  /** Jobs finished. */
  get finished(): number {
    return this.engine.jobsFinished;
  }

  /** Whether every job has finished. */
  get over(): boolean {
    return this.engine.finished;
  }

  /** Whether every job has finished and no decision is pending. */
  get done(): boolean {
    return this.engine.finished && this.offer === null && this.engine.pendingPoint === null;
  }

  /** The running job whose decision is pending (a point or a queue point), or null. */
  private get pendingRun(): RunningJob | null {
    return this.offer ?? this.engine.pendingPoint;
  }

  /** The job of the pending decision, or null. */
  get pendingJob(): MJob | null {
    const rj = this.pendingRun;
    return rj === null ? null : this.workload.jobs[this.slotRank[rj.slot]!]!;
  }

  /** The allowed sizes of the job of the pending decision, ascending (none without one, or for a rigid job). */
  get pendingSizes(): readonly number[] {
    const rj = this.pendingRun;
    return rj === null ? NO_SIZES : this.slotSizes[rj.slot]!;
  }

  /** Whether the pending decision is a queue point (see the module comment). */
  get atQueuePoint(): boolean {
    return this.offer !== null;
  }

  /** Progress of the pending job (fraction of its steps done, mid-step at a queue point), or 0. */
  get pendingProgress(): number {
    const rj = this.pendingRun;
    if (rj === null) return 0;
    const s = rj.malleable!;
    if (this.offer === null) return s.stepsDone / s.work.steps;
    return Math.min(1, (s.anchorSteps + (this.engine.now - s.anchorT) / (stepTime(s.work.speedup, s.size) * s.scale)) / s.work.steps);
  }

  /**
   * The queue position a §4.3 shrink of the pending job to `size` promotes: the first queued job
   * that does not fit in the free nodes now but does after the shrink; -1 when none (or not a shrink).
   */
  promotionFor(size: number): number {
    const rj = this.engine.pendingPoint;
    if (rj === null || this.offer !== null) return -1;
    const cur = rj.malleable!.size;
    if (size >= cur) return -1;
    const free = this.freeNodes;
    const q = this.scheduler.queuedSizes();
    for (let i = 0; i < q.length; i++) {
      const need = q[i]!;
      if (need > free && need <= free + cur - size) return i;
    }
    return -1;
  }

  /** The job at the head of the queue, or null. */
  get headJob(): MJob | null {
    const h = this.scheduler.queued(0);
    return h === undefined ? null : this.workload.jobs[this.rank.get(h)!]!;
  }

  /** Sizes of the queued jobs in priority order (a copy). */
  queuedSizes(): number[] {
    return [...this.scheduler.queuedSizes()];
  }

  /** Nodes the queued jobs request, summed. */
  get queuedNodes(): number {
    return this.scheduler.queuedNodes;
  }

  /** What a policy sees at the pending decision (throws without one). */
  context(): PointContext {
    const rj = this.pendingRun;
    if (rj === null) throw new Error('no pending reconfiguration point');
    const s = rj.malleable!;
    return {
      time: this.time,
      free: this.freeNodes,
      size: s.size,
      spec: s.work.spec as MalleableSpec,
      queue: this.scheduler.queuedSizes(),
      kind: this.offer !== null ? 'queue' : 'point',
    };
  }

  /**
   * Runs until the next decision (returns its context: a reconfiguration point, or a queue point) or
   * the end (returns null). A pending decision must be answered first.
   */
  next(): PointContext | null {
    const engine = this.engine;
    for (;;) {
      if (this.offer !== null || engine.pendingPoint !== null) return this.context();
      if (engine.finished) return null;
      engine.runUntil(Number.POSITIVE_INFINITY);
      const rj = engine.pendingPoint;
      const r = rj === null ? null : this.takeRequest(rj);
      if (r !== null) {
        // a request made at a queue point: the answer of this point
        engine.decideResize(r.size, r.promote);
        this.points++;
        continue;
      }
      if (rj === null && this.offer === null && !engine.finished) throw new Error('the DMR run stopped with no decision pending');
    }
  }

  /**
   * Decides the pending decision: `size` (= the current size for no-action), and optionally the queue
   * position to promote to the head. Throws `InvalidResizeError` (and changes nothing) for a size
   * outside min/max/factor or an expansion beyond the free nodes. At a queue point (`atQueuePoint`)
   * `size` below the current size is a shrink request for the job's next point (`promote` is ignored:
   * the head that caused it is promoted then), the current size declines, anything else throws.
   */
  decide(size: number, promote = -1): void {
    const offer = this.offer;
    if (offer !== null) {
      const s = offer.malleable!;
      const cur = s.size;
      if (size !== cur && (size > cur || !validResize(s.work.spec!, cur, size)))
        throw new InvalidResizeError(`job ${offer.job.id}: at a queue point only a shrink to an allowed size below ${cur} can be requested, not ${size}`);
      this.offer = null;
      if (size !== cur) {
        this.slotRequest[offer.slot] = size;
        this.slotHead[offer.slot] = this.qHead;
        this.pendingRequests++;
        this.requestCount++;
      }
      return;
    }
    if (this.engine.pendingPoint === null) throw new Error('no pending reconfiguration point');
    if (promote >= this.scheduler.waitingCount) throw new InvalidResizeError(`no queued job at position ${promote}`);
    this.engine.decideResize(size, promote >= 0 ? this.scheduler.queued(promote) : undefined);
    this.points++;
  }

  /** Decides the pending decision with `policy` (refused decisions count as invalid and become no-action). */
  decideWith(policy: ResizePolicy): void {
    const d = policy(this.context());
    try {
      this.decide(d.size, d.promote);
    } catch (e) {
      if (!(e instanceof InvalidResizeError)) throw e;
      this.invalid++;
      this.decide(this.pendingRun!.malleable!.size);
    }
  }

  /** The scheduler's `pause`: offers queue points (the module comment) until none is due; true when one waits for the caller. */
  private pauseForQueuePoint(): boolean {
    for (;;) {
      const rj = this.offerQueuePoint();
      if (rj === null) return false;
      this.offer = rj;
      if (this.policy === null) return true;
      this.decideWith(this.policy);
    }
  }

  /** The running job a queue point is due for (marked offered), or null (the module comment's condition). */
  private offerQueuePoint(): RunningJob | null {
    const dmr = this.scheduler;
    const h = dmr.queued(0);
    if (h === undefined) return null;
    const need = dmr.queuedSize(0);
    const free = this.freeNodes;
    if (need <= free) return null;
    if (h !== this.qHead) {
      this.qHead = h;
      this.qEpoch++;
    }
    const epoch = this.qEpoch;
    const requests = this.slotRequest;
    const offered = this.slotOffered;
    const smallestOf = this.slotSmallest;
    const rankOf = this.slotRank;
    const running = dmr.running;
    let pledged = 0;
    let potential = 0;
    let best: RunningJob | null = null;
    let bestAt = Number.POSITIVE_INFINITY;
    let bestRank = Number.POSITIVE_INFINITY;
    for (let i = 0; i < running.length; i++) {
      const rj = running[i]!;
      const s = rj.malleable!;
      if (s.resizing) {
        if (s.target < s.size) pledged += s.size - s.target;
        continue;
      }
      if (s.work.spec === null) continue;
      const slot = rj.slot;
      const r = requests[slot]!;
      if (r > 0) {
        pledged += s.size - r;
        continue;
      }
      const at = s.nextPoint;
      if (at < 0 || offered[slot] === epoch) continue;
      const smallest = smallestOf[slot]!;
      if (smallest >= s.size) continue;
      potential += s.size - smallest;
      const rank = rankOf[slot]!;
      if (at < bestAt || (at === bestAt && rank < bestRank)) {
        best = rj;
        bestAt = at;
        bestRank = rank;
      }
    }
    if (best === null || free + pledged >= need || free + pledged + potential < need) return null;
    offered[best.slot] = epoch;
    this.queuePointCount++;
    return best;
  }

  /** The results (call when `over`). */
  result(): MRunResult {
    if (this.recorder !== null && this.engine.finished) this.recorder.finish(this.engine);
    const jobs: MJobResult[] = this.workload.jobs.map(
      (j, i) =>
        this.ended[i] ?? {
          id: j.id,
          app: j.app.name,
          malleable: j.malleable !== null,
          submit: j.subtime - this.t0,
          start: Number.NaN,
          finish: Number.NaN,
          startSize: j.nodes,
          endSize: j.nodes,
          expands: 0,
          shrinks: 0,
          nodeSeconds: 0,
        },
    );
    const n = Math.max(1, jobs.length);
    const makespan = this.lastT - this.t0;
    const sum = (f: (j: MJobResult) => number) => jobs.reduce((a, j) => a + f(j), 0) / n;
    const expands = jobs.reduce((a, j) => a + j.expands, 0);
    const shrinks = jobs.reduce((a, j) => a + j.shrinks, 0);
    const e = this.engine;
    return {
      jobs,
      resizes: this.resizes,
      timeline: this.timeline,
      makespan,
      allocation: makespan > 0 ? this.area / (this.nodes * makespan) : 0,
      meanWait: sum((j) => j.start - j.submit),
      meanExecution: sum((j) => j.finish - j.start),
      meanCompletion: sum((j) => j.finish - j.submit),
      expands,
      shrinks,
      noActions: this.points - this.resizes.length,
      invalidResizes: this.invalid + e.invalidResizes,
      resizeTime: this.resizeTime,
      queuePoints: this.queuePointCount,
      shrinkRequests: this.requestCount,
      events: e.jobsSubmitted + this.points + this.resizes.length + e.jobsFinished,
    };
  }
}

/** The DMR preset of the one engine on `workload` (the module comment). */
export function dmrPreset(workload: MWorkload, options: DmrOptions = {}): DmrSim {
  return new DmrSim(workload, options);
}

/** Runs `workload` to the end, answering every reconfiguration point with `policy`. */
export function simulate(workload: MWorkload, policy: ResizePolicy, options: Omit<DmrOptions, 'policy'> = {}): MRunResult {
  const sim = dmrPreset(workload, { ...options, policy });
  sim.engine.runUntil(Number.POSITIVE_INFINITY);
  return sim.result();
}
