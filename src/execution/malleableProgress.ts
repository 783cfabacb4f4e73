/**
 * Malleable progress, the engine's third progress model (DESIGN §10.1, §15; beside the rate model of
 * `progress.ts` and fixed durations): iterative MPI jobs that the resource manager expands and shrinks
 * while they run (seed 002, the DMR API). The job's work is `steps` iterations of an application whose
 * step time depends on its size (`src/workload/malleability.ts`: Amdahl's law or a table of step times).
 *
 * **Size** is a node count: a job of size `n` holds `n` nodes with `tasksPerNode` of its tasks (cores) on
 * each (the job's `ntasks / nodes` at submission; a DMR job has one per node).
 *
 * **Step time on unequal cores.** The speed-up model gives `d(n)` on the platform's fastest cores (the
 * reference speed is the platform's largest core speed). A step of a bulk-synchronous code waits for its
 * slowest rank, so on the job's actual cores a step lasts
 *
 *     d(n) x scale,   scale = reference speed / slowest speed among the job's cores,
 *
 * recomputed when its nodes change. On a homogeneous platform `scale` is exactly 1, and every time below
 * is bit for bit the retired DMR engine's (the golden schedules of test/golden it wrote).
 *
 * **Reconfiguration points** are step boundaries no closer than `inhibit` seconds to the previous point:
 * running at size `n` from an anchor (a time `t` and a count of steps done there), the next point is
 * after `k = max(1, ceil(inhibit / d - 1e-9))` steps (a rigid iterative job, `spec: null`, has none),
 * at `anchor + (steps done + k - anchor steps) x d`, unless the job ends first, at `anchor + (steps -
 * anchor steps) x d`. Times are computed from the anchor, so points without a resize leave the end time
 * that of the same job run rigidly.
 *
 * **Resize** (decided at a point, by the engine's resize policy): the job makes no progress for the
 * resize cost (expand or shrink); an expansion holds its new nodes from the decision, a shrink keeps
 * its surplus nodes until the cost is over. The job then runs on from a new anchor at its new size.
 *
 * Events (in the engine's `EventLoop`, stamped with the run's version, stale once it moved on): a point,
 * the end of a resize, the end of the job.
 */
import type { Job } from '../workload/job.js';
import { type MalleableWork, stepTime } from '../workload/malleability.js';
import type { ProgressHost, ProgressModel } from './progressModel.js';
import type { RunningJob } from './running.js';

/** Event kinds of malleable progress (local to the model). */
const POINT = 0;
const RESIZED = 1;
const END = 2;

/** The malleable state of a running job. */
export class MalleableRun {
  /** Nodes held now (during a shrink, the old size until the cost is over). */
  size: number;
  /** Size the job progresses at (after the current resize). */
  target: number;
  stepsDone = 0;
  /** Steps between the anchor's last point and the next point. */
  segSteps = 0;
  anchorT: number;
  anchorSteps = 0;
  /** Expected end at the current size and speed (perfect estimate). */
  estEnd = 0;
  /** End of the current resize (valid while `resizing`). */
  resizeEnd = 0;
  /** Time of the next point, or -1 when the next event is the job's end. */
  nextPoint = -1;
  /** Version: events stamped with an older one are stale. */
  ver = 0;
  resizing = false;
  expands = 0;
  shrinks = 0;
  /** Node-seconds held so far (up to `sizeSince`). */
  nodeSeconds = 0;
  sizeSince: number;
  /** Step-time multiplier for its cores (module comment). */
  scale = 1;
  /** Suspended without its nodes (no node-seconds accrue). */
  released = false;
  constructor(
    readonly work: MalleableWork,
    size: number,
    readonly tasksPerNode: number,
    now: number,
  ) {
    this.size = size;
    this.target = size;
    this.anchorT = now;
    this.sizeSince = now;
  }
  /** Duration of one step at the size it progresses at. */
  stepDuration(): number {
    return stepTime(this.work.speedup, this.target) * this.scale;
  }
}

/** Moves malleable jobs forward (see the module comment): the engine's progress model of jobs with a `malleable` facet. */
export class MalleableProgress implements ProgressModel {
  readonly name = 'malleable steps';
  private host!: ProgressHost;
  private coreMops!: Float64Array;
  /** The reference speed: the platform's fastest core (MOPS). */
  private refMops = 0;
  /** Every core runs at the reference speed (every scale is 1). */
  private uniform = false;

  attach(host: ProgressHost): void {
    this.host = host;
    this.coreMops = host.platform.coreMops;
    let ref = 0;
    let slowest = Number.POSITIVE_INFINITY;
    for (const m of this.coreMops) {
      if (m > ref) ref = m;
      if (m < slowest) slowest = m;
    }
    this.refMops = ref;
    this.uniform = slowest === ref;
  }

  runs(job: Job): boolean {
    return job.malleable !== undefined;
  }

  isLive(_kind: number, rj: RunningJob, stamp: number): boolean {
    return rj.malleable !== null && rj.malleable.ver === stamp;
  }

  handle(kind: number, rj: RunningJob): void {
    if (kind === POINT) {
      const s = rj.malleable!;
      s.stepsDone += s.segSteps;
      this.host.reconfigurationPoint(rj);
    } else if (kind === RESIZED) this.host.resizeEnded(rj);
    else this.host.complete(rj);
  }

  stop(rj: RunningJob): void {
    const s = rj.malleable!;
    if (s.released) s.sizeSince = this.host.now;
    this.setSize(rj, 0, this.host.now);
    s.ver++;
  }

  /**
   * `rj` is suspended: its pending event (point, resize end or end) goes stale; without its nodes (`hold`
   * false) it holds no node-seconds until it resumes.
   */
  suspend(rj: RunningJob, hold: boolean): void {
    const s = rj.malleable!;
    s.ver++;
    if (!hold) this.setSize(rj, s.size, this.host.now);
    s.released = !hold;
  }

  /** `rj` resumes after `pausedFor` seconds: its step clock, resize and end move by that; its pending event again. */
  resume(rj: RunningJob, pausedFor: number): void {
    const s = rj.malleable!;
    const now = this.host.now;
    if (s.released) {
      s.sizeSince = now;
      s.released = false;
    }
    s.anchorT += pausedFor;
    s.estEnd += pausedFor;
    s.ver++;
    if (s.resizing) {
      s.resizeEnd += pausedFor;
      this.host.schedule(s.resizeEnd, RESIZED, rj, s.ver);
    } else if (s.nextPoint >= 0) {
      s.nextPoint += pausedFor;
      this.host.schedule(s.nextPoint, POINT, rj, s.ver);
    } else this.host.schedule(s.estEnd, END, rj, s.ver);
  }

  /** A malleable job starts now on its cores: its run state and its first point (or end). */
  start(rj: RunningJob): void {
    const job = rj.job;
    const now = this.host.now;
    const nodes = rj.nodes.length;
    const run = new MalleableRun(job.malleable!, nodes, Math.max(1, Math.round(job.ntasks / Math.max(1, job.nodes))), now);
    rj.malleable = run;
    run.scale = this.scaleOf(rj.cores);
    this.segment(rj, now, true);
  }

  /** The step-time multiplier of a job on `cores`: reference speed / slowest core (1 on the fastest). */
  scaleOf(cores: ArrayLike<number>): number {
    if (this.uniform) return 1;
    let slowest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < cores.length; i++) {
      const m = this.coreMops[cores[i]!]!;
      if (m < slowest) slowest = m;
    }
    return slowest === this.refMops || !(slowest > 0) ? 1 : this.refMops / slowest;
  }

  /**
   * Schedules the next point or the end of `rj`, at a step boundary, from its anchor (re-anchored at `t`
   * when `reanchor`: after a start or a resize).
   */
  segment(rj: RunningJob, t: number, reanchor: boolean): void {
    const s = rj.malleable!;
    if (reanchor) {
      s.anchorT = t;
      s.anchorSteps = s.stepsDone;
    }
    const d = stepTime(s.work.speedup, s.size) * s.scale;
    const steps = s.work.steps;
    const remaining = steps - s.stepsDone;
    s.estEnd = s.anchorT + (steps - s.anchorSteps) * d;
    s.target = s.size;
    s.ver++;
    const spec = s.work.spec;
    const k = spec ? Math.max(1, Math.ceil(spec.inhibit / d - 1e-9)) : remaining;
    if (k >= remaining) {
      s.nextPoint = -1;
      this.host.schedule(s.estEnd, END, rj, s.ver);
    } else {
      s.segSteps = k;
      s.nextPoint = s.anchorT + (s.stepsDone + k - s.anchorSteps) * d;
      this.host.schedule(s.nextPoint, POINT, rj, s.ver);
    }
  }

  /** Changes the nodes held (accounting node-seconds); `size` 0 at the end. */
  setSize(rj: RunningJob, size: number, now: number): void {
    const s = rj.malleable!;
    s.nodeSeconds += s.size * (now - s.sizeSince);
    s.sizeSince = now;
    s.size = size;
  }

  /**
   * A resize to `size` begins now and lasts `cost` (the caller has taken an expansion's nodes and set the
   * size held; a shrink keeps its nodes until `endResize`).
   */
  beginResize(rj: RunningJob, size: number, cost: number, now: number): void {
    const s = rj.malleable!;
    if (size > s.target) s.expands++;
    else s.shrinks++;
    s.target = size;
    s.resizing = true;
    s.resizeEnd = now + cost;
    s.estEnd = s.resizeEnd + (s.work.steps - s.stepsDone) * stepTime(s.work.speedup, size) * s.scale;
    s.ver++;
    this.host.schedule(s.resizeEnd, RESIZED, rj, s.ver);
  }

  /** The resize is over (the caller has released a shrink's surplus nodes): the job runs on from now at its size. */
  endResize(rj: RunningJob, now: number): void {
    const s = rj.malleable!;
    s.resizing = false;
    s.scale = this.scaleOf(rj.cores);
    this.segment(rj, now, true);
  }
}
