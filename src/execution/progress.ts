/**
 * Task progress and contention: how fast each running task goes, and when it ends.
 *
 * Between two events a running task progresses linearly at `rate = mops * 1e6 * S` operations/s
 * (`delay` tasks: 1 s/s), `S` its speed factor (DESIGN §2.3): memory contention per processor
 * (`platform/memoryContention.ts`) combined with communication contention per node
 * (`platform/communication.ts`). When a task starts or ends, `enter`/`leave` mark only the processor
 * and the node it touches; `flush` recomputes the factors of the tasks there, brings their progress up
 * to date and moves their finish events in the engine's event loop (`EventLoop.reschedule`: no stale
 * event is left behind, so the heap holds the running tasks' ends, not their history). Nothing walks
 * the whole platform per event.
 *
 * Communication time: a job's `commTime` sums the intervals during which at least one of its running
 * tasks has `S_comm` below its job's `comm.free` (1, or under `flow` the job's uncontended factor with its
 * latency charge): its progress is then limited by communication, under every model: `step`, `shared`,
 * `flow`. It is bookkeeping only: no factor, rate or event depends on it.
 *
 * Under the irmasim semantics the engine steps time instead (`step`): every running task loses
 * `round(rate * delta)` operations per step, IRMaSim's integer bookkeeping, and `flush` only sets the
 * new rates. A model of progress that is not "rate times time" (a malleable job's iterations, a task
 * suspended or time-sliced) plugs in here: it decides `remaining`, `rate` and the finish event.
 */
import { ScratchIndexList, ScratchList } from '../core/scratchList.js';
import type { EventLoop } from '../core/eventLoop.js';
import type { CommModel } from '../platform/communication.js';
import type { JobNetwork } from '../platform/jobNetwork.js';
import type { MemoryModel } from '../platform/memoryContention.js';
import type { ModelsConfig, Platform } from '../platform/platform.js';
import { type EventPayload, KIND_TASK, type RunningJob, type RunningTask } from './running.js';

/** Python's `round(x)` of a float: the nearest integer, halves to the even one (IRMaSim rounds operations so). */
export function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * `task` starts (`on`) or stops being limited by communication at `now`: its job's count of such tasks
 * moves, and the job's `commTime` accumulates the time that count was positive.
 */
function commLimit(task: RunningTask, on: boolean, now: number): void {
  const c = task.job.comm!; // only tasks with remote peers, of communicating jobs, are limited
  task.commLimited = on;
  if (on) {
    if (c.limitedTasks++ === 0) c.limitedSince = now;
  } else if (--c.limitedTasks === 0) {
    c.time += now - c.limitedSince;
    c.limitedSince = Number.NaN;
  }
}

/** Speed factors and progress of the running tasks (see the module comment). */
export class TaskProgress {
  /** Per node: current link factor, and link load. */
  readonly nodeCommFactor: Float64Array;
  readonly nodeCommLoad: Float64Array;
  /** Per processor: sum of bandwidth requests of its running tasks as of its last update (MB/s). */
  readonly procMemLoad: Float64Array;
  /** Stepped semantics: the tasks of the running jobs. */
  readonly stepped: RunningTask[] = [];
  private readonly procDirty: Uint8Array;
  private readonly nodeDirty: Uint8Array;
  /** What the next `flush` updates (kept from flush to flush: no allocation per event). */
  private readonly dirtyProcs = new ScratchIndexList();
  private readonly dirtyNodes = new ScratchIndexList();
  private readonly dirtyTasks = new ScratchList<RunningTask>();

  constructor(
    private readonly platform: Platform,
    private readonly models: ModelsConfig,
    private readonly memModel: MemoryModel,
    private readonly comm: CommModel,
    /** The allocation's core -> task map (read only here). */
    private readonly coreTask: readonly (RunningTask | null)[],
    private readonly events: EventLoop<EventPayload>,
    /** Stepped (irmasim) semantics: `flush` sets rates only; `step` moves the work. */
    private readonly steppedSemantics: boolean,
    /** The `flow` communication model: the running jobs' streams on the network (null otherwise). */
    readonly network: JobNetwork<RunningJob> | null = null,
  ) {
    const N = platform.nodeCount;
    const P = platform.procCount;
    this.nodeCommFactor = new Float64Array(N).fill(1);
    this.nodeCommLoad = new Float64Array(N);
    this.procMemLoad = new Float64Array(P);
    this.procDirty = new Uint8Array(P);
    this.nodeDirty = new Uint8Array(N);
  }

  /** Stepped semantics: the time to the next task end (IRMaSim's `get_next_step`), Infinity if none. */
  nextStep(): number {
    let d = Infinity;
    const tasks = this.stepped;
    for (let i = 0; i < tasks.length; i++) {
      const t = tasks[i]!;
      const x = t.remaining / t.rate;
      if (x > 0 && x < d) d = x;
    }
    return d;
  }

  /**
   * Stepped semantics: moves every running task `delta` seconds forward (`round(rate * delta)`
   * operations, or `delta` seconds of a `delay` task) to time `to`; a task out of work stops counting in
   * its processor's contention (its core stays held) and `drained` receives its job when it was the
   * job's last.
   */
  step(delta: number, to: number, drained: RunningJob[]): void {
    const tasks = this.stepped;
    for (let i = 0; i < tasks.length; i++) {
      const t = tasks[i]!;
      t.remaining -= t.job.job.work === 'ops' ? roundHalfEven(t.rate * delta) : t.rate * delta;
      if (t.remaining <= 0 && !t.done) {
        t.done = true;
        t.endedAt = to;
        if (t.commLimited) commLimit(t, false, to);
        if (--t.job.tasksLeft === 0) drained.push(t.job);
      }
    }
  }

  /** Stepped semantics: `task`'s job ended; it is stepped no more. */
  unstep(task: RunningTask): void {
    const i = this.stepped.indexOf(task);
    this.stepped[i] = this.stepped[this.stepped.length - 1]!;
    this.stepped.pop();
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

  /** `task` (an `ops` task) starts: its processor (and node, when it communicates) must be updated. */
  enter(task: RunningTask): void {
    this.dirtyTasks.push(task);
    this.procMemLoad[task.proc]! += task.y;
    this.markProc(task.proc);
    if (task.remote) this.markNode(task.node);
  }

  /** `task` ended (or its job did) at `task.endedAt`: its processor and node must be updated. */
  leave(task: RunningTask): void {
    if (task.job.job.work === 'delay') return;
    if (task.commLimited) commLimit(task, false, task.endedAt);
    this.markProc(task.proc);
    if (task.remote) this.markNode(task.node);
  }

  /**
   * `task`'s job is suspended at `now`: its progress is brought up to date and kept (a `delay` task: the
   * seconds it has left), its end event goes stale, and its rate is 0 until `resume`. The caller takes it
   * off its core (`coreTask`), so an `ops` task stops counting in its processor's and node's contention:
   * the loops below see only the tasks on cores (no test of their own, which would cost the hot path).
   */
  suspend(task: RunningTask, now: number): void {
    if (task.job.job.work === 'delay') task.remaining = task.eventTime - now;
    else if (task.speed === task.speed) task.remaining -= task.rate * (now - task.last);
    if (task.remaining < 0) task.remaining = 0;
    task.last = now;
    task.suspended = true;
    task.eventTime = Infinity;
    if (task.job.job.work === 'delay') return;
    task.speed = Number.NaN;
    task.rate = 0;
    if (task.commLimited) commLimit(task, false, now);
    this.markProc(task.proc);
    if (task.remote) this.markNode(task.node);
  }

  /**
   * `task`'s job resumes at `now` (the caller puts it back on its core): a `delay` task's end is its seconds
   * left from now; an `ops` task counts in contention again and `flush` gives it its rate and end.
   */
  resume(task: RunningTask, now: number): void {
    task.suspended = false;
    task.last = now;
    if (task.job.job.work === 'delay') this.moveEnd(task, now + task.remaining);
    else this.enter(task);
  }

  /** Moves `task`'s pending end to `time` (no stale event left behind), or schedules its first one. */
  moveEnd(task: RunningTask, time: number): void {
    task.eventTime = time;
    if (!this.events.reschedule(task.eventHandle, KIND_TASK, task, time, time)) task.eventHandle = this.events.schedule(time, KIND_TASK, task, time);
  }

  /**
   * Recomputes the speed factors of everything the starts and ends since the last flush touched, at
   * time `now`; under the documented model, brings their progress up to date and schedules their new
   * finish events.
   */
  flush(now: number): void {
    // nothing touched since the last flush (most events of a run without `ops` tasks)
    if (this.dirtyTasks.length === 0 && this.dirtyProcs.length === 0 && this.dirtyNodes.length === 0 && this.network === null) return;
    const p = this.platform;
    // communication: node loads and factors, then the jobs on changed nodes
    if (this.dirtyNodes.length > 0) {
      const jobs = new Set<RunningJob>();
      for (let i = 0; i < this.dirtyNodes.length; i++) {
        const n = this.dirtyNodes.at(i);
        this.nodeDirty[n] = 0;
        let load = 0;
        const c0 = p.nodeFirstCore[n]!;
        const c1 = c0 + p.nodeCoreCount[n]!;
        for (let c = c0; c < c1; c++) {
          const t = this.coreTask[c];
          if (t?.remote && !t.done) {
            load += t.commLoad;
            jobs.add(t.job);
          }
        }
        this.nodeCommLoad[n] = load;
        this.nodeCommFactor[n] = this.comm.nodeFactor(load, p.nodeCommBw[n]!, this.models.comm_penalty);
      }
      this.dirtyNodes.clear();
      for (const rj of jobs) {
        if (this.comm.acrossJobNodes && this.network === null) {
          let f = 1;
          for (let k = 0; k < rj.nodes.length; k++) f = Math.min(f, this.nodeCommFactor[rj.nodes[k]!]!);
          rj.comm!.factor = f; // (only communicating jobs have remote tasks)
        }
        for (const t of rj.tasks!) if (t.remote && !t.done) this.dirtyTasks.push(t);
      }
    }
    // flow model: the jobs whose streams' shares changed
    if (this.network !== null)
      for (const [rj, f] of this.network.changed()) {
        rj.comm!.factor = f; // (the network holds communicating jobs only)
        if (rj.tasks) for (const t of rj.tasks) if (t.remote && !t.done) this.dirtyTasks.push(t);
      }
    // memory: per processor
    for (let i = 0; i < this.dirtyProcs.length; i++) {
      const proc = this.dirtyProcs.at(i);
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
    this.dirtyProcs.clear();
    // apply
    for (let i = 0; i < this.dirtyTasks.length; i++) {
      const t = this.dirtyTasks.at(i);
      if (t.done) continue;
      const rj = t.job;
      let s = t.sMem;
      if (t.remote) {
        const c = rj.comm!; // a remote task's job communicates
        t.sComm = this.comm.acrossJobNodes ? c.factor : this.nodeCommFactor[t.node]!;
        if (t.sComm < c.free !== t.commLimited) commLimit(t, !t.commLimited, now);
        s = this.comm.combine(rj.job.tCompute, t.sMem, t.sComm);
      }
      if (s === t.speed) continue;
      if (this.steppedSemantics) {
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
      this.moveEnd(t, now + t.remaining / t.rate);
    }
    this.dirtyTasks.clear();
  }
}
