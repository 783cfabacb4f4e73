/**
 * The suspension lifecycle of the one engine (`ClusterSimulator.suspend` / `resume`, a job's
 * `operatorEvents`; the engine's module comment, "Suspension"; the rules in docs/model.md): a suspended
 * job makes no progress and its end, walltime kill and next operator event wait; holding its cores
 * (`Suspended`) they draw idle power, without them (`Preempted`) it resumes on the same cores as soon as
 * they are all free, before the next pass; or, waiting for a pass (`resumeByPass`: Slurm's main scheduler), on
 * the same cores, or where a placement of the pass's finds room for it then (`ResumePlacement`: Slurm's select
 * plugin under whole-node allocation, which gives a resumed job the nodes it would give it now). The engine hands
 * over its event loop, its freed mark and its listeners' calls (`SuspensionBridge`); everything else is its
 * public state (`SuspensionHost`). A job's end and walltime kill after a resumption are counted from its run
 * time in the Slurm model's arithmetic (`slurmLength`, `slurmAt`: the retired Slurm engine's times to the bit,
 * test/golden/slurmEngine.ts), unless its work was
 * moved otherwise.
 */
import { JobPhase } from '../core/engine.js';
import type { EventLoop } from '../core/eventLoop.js';
import { taskMem, type Job } from '../workload/job.js';
import { type EventPayload, type JobSuspension, KIND_JOB, KIND_KILL, KIND_RESUME, KIND_SUSPEND, type RunningJob, type RunningTask } from './running.js';
import type { Capacity } from './capacity.js';
import type { TaskProgress } from './progress.js';

/** The engine's public state the suspensions read and move (`ClusterSimulator` is one). */
export interface SuspensionHost {
  readonly now: number;
  readonly semantics: string;
  readonly pendingPoint: RunningJob | null;
  readonly coreTask: (RunningTask | null)[];
  readonly coreOwner: Int32Array;
  readonly nodeFreeMem: Float64Array;
  readonly enforceMemory: boolean;
  readonly progress: TaskProgress;
  readonly capacity: Capacity;
}

/**
 * Where a pass resumes a job suspended without its cores (`Suspensions.suspend`'s `resumeWhere`): its placement
 * found now (task `t` on `placement[t]`, a valid placement on the free units), or null to leave it waiting.
 */
export type ResumePlacement = (job: Job) => Int32Array | null;

/**
 * Whether running job `rj` can resume on another placement than its own (`Suspensions.suspend`'s `resumeWhere`):
 * a rigid job of one end event (no tasks of its own, no progress model) without GPUs, whose placement is
 * nothing but its cores.
 */
export function movableOnResume(rj: RunningJob): boolean {
  return rj.tasks === null && rj.model === null && rj.gpus.length === 0;
}

/**
 * The length of run (`length`: the job's run time for its end, its time limit for its walltime kill) an event at
 * `at` is counted from in the Slurm model's arithmetic, or NaN: when the current stretch began at `from` (its start,
 * or a resumption: an operator's when `byOperator`) after `ranBefore` seconds of run, and the event falls where
 * that arithmetic puts it then (`slurmAt`; at the start `from + length`). Its resumption then puts it where the
 * retired Slurm engine did, to the bit (`slurmAt`; test/golden/slurmEngine.ts), where `now + (at - suspension)`
 * may differ in the last bits; an event moved otherwise (its work scaled) is not so counted.
 */
function slurmLength(at: number, length: number, from: number, ranBefore: number, byOperator: boolean): number {
  return at === slurmAt(from, length, ranBefore, byOperator, Number.NaN) ? length : Number.NaN;
}

/**
 * Where the Slurm model puts an event `length` seconds of run after a job's start, resumed at `now` after `ran`
 * seconds of run (the retired Slurm engine's arithmetic, test/golden/slurmEngine.ts): `(now + length) - ran` after
 * an operator's resumption (`resume` of an operator's suspension), `now + (length - ran)` at a start or a
 * preempted job's resumption; `length` NaN (not so
 * counted): `now + left`.
 */
function slurmAt(now: number, length: number, ran: number, byOperator: boolean, left: number): number {
  if (length !== length) return now + left;
  return byOperator ? now + length - ran : now + (length - ran);
}

/**
 * Running job `rj`'s run time at `now` in the Slurm model's arithmetic: the stretches before the current one
 * summed (`JobSuspension.ran`), and the current one since it began (`from`; NaN: at its start).
 */
function slurmRan(rj: RunningJob, s: JobSuspension, now: number): number {
  return s.ran + (now - (s.from === s.from ? s.from : rj.start));
}

/** What the engine hands its suspensions of its own: its event loop, its "resources were freed" mark, its listeners. */
export interface SuspensionBridge {
  readonly events: EventLoop<EventPayload>;
  markFreed(): void;
  suspended(rj: RunningJob, phase: JobPhase.Suspended | JobPhase.Preempted): void;
  resumed(rj: RunningJob): void;
}

/** The suspended jobs of one engine and their transitions (the module comment). */
export class Suspensions {
  /** Jobs suspended without their cores (`suspend(rj, false)`), in suspension order: they resume as soon as their cores are free. */
  private readonly preempted: RunningJob[] = [];
  /** Running jobs suspended now (holding their cores or not). */
  count = 0;
  /** Jobs waiting for a pass that resume where a placement puts them then, not on their own cores (`suspend`'s `resumeWhere`). */
  private readonly resumeWhere = new Map<RunningJob, ResumePlacement>();

  constructor(
    private readonly sim: SuspensionHost,
    private readonly bridge: SuspensionBridge,
  ) {}

  /** Whether a job waits for its cores to resume (`resumePreempted` has work). */
  get waiting(): boolean {
    return this.preempted.length > 0;
  }

  /**
   * Suspends a running job now (module comment, "Suspension"): its work stops where it is (its end,
   * walltime and next operator events wait), and with `hold` (an operator's `scontrol suspend`,
   * `JobPhase.Suspended`) it keeps its cores, which draw idle power; without (`PreemptMode=SUSPEND`,
   * `JobPhase.Preempted`) it gives them up, and the engine resumes it on the same cores as soon as they
   * are all free again, before the next scheduling pass; with `resumeByPass`, at the next pass that finds
   * them free (`resumePreempted(true)`), or, with `resumeWhere` too, at the next pass where `resumeWhere`
   * places it (then on that placement: other cores, maybe other nodes; a job `movableOnResume` only). A job's
   * GPUs go with its cores: held, they draw
   * their idle power; given up, the job resumes when its cores and its GPUs are all free. Not part of the
   * irmasim semantics; refused for a job whose progress model cannot suspend or whose reconfiguration
   * point awaits its decision.
   */
  suspend(rj: RunningJob, hold = true, resumeByPass = false, resumeWhere: ResumePlacement | null = null): void {
    if (rj.ended) throw new Error(`job ${rj.job.id} is not running`);
    if (rj.suspended) throw new Error(`job ${rj.job.id} is suspended already`);
    if (this.sim.semantics === 'irmasim') throw new Error('suspension is not part of the irmasim semantics');
    if (rj.model !== null && rj.model.suspend === undefined) throw new Error(`job ${rj.job.id}: the ${rj.model.name} progress model does not suspend jobs`);
    if (this.sim.pendingPoint === rj) throw new Error(`job ${rj.job.id}: its reconfiguration point awaits a decision`);
    if (!hold && rj.gpus.length > 0 && rj.job.type === 'seq' && rj.tasks !== null)
      throw new Error(`job ${rj.job.id}: a sequential job with GPUs gives its cores back one task at a time; suspending it without its cores is not modelled`);
    if (resumeWhere !== null && (hold || !resumeByPass || !movableOnResume(rj)))
      throw new Error(
        `job ${rj.job.id}: only a job suspended without its cores to wait for a pass, of one end event (no tasks, no progress model) and without GPUs, resumes on another placement`,
      );
    const now = this.sim.now;
    const s = rj.suspension();
    s.at = now;
    s.holding = hold;
    s.resumeByPass = !hold && resumeByPass;
    if (s.periods === null) s.periods = [];
    s.periods.push(now);
    s.opStamp++; // a pending operator suspension waits for the run to go on
    // the run time of this stretch, counted in the Slurm model's arithmetic (`slurmLength`)
    const from = s.from === s.from ? s.from : rj.start;
    const ranBefore = s.ran;
    s.ran = slurmRan(rj, s, now);
    if (rj.model !== null) rj.model.suspend!(rj, hold);
    else if (rj.tasks === null) {
      s.endLeft = rj.eventTime - now;
      s.endLength = slurmLength(rj.eventTime, rj.job.runtime, from, ranBefore, s.byOperator);
      rj.eventTime = Infinity;
    } else
      for (const t of rj.tasks) {
        if (t.done) continue;
        // off its core: the contention loops (progress.ts) see the tasks on cores only
        this.sim.coreTask[t.core] = null;
        this.sim.progress.suspend(t, now);
      }
    const net = this.sim.progress.network;
    if (net !== null && rj.comm !== null) net.remove(rj, now);
    this.sim.progress.flush(now);
    if (rj.killAt < Infinity) {
      s.killLeft = rj.killAt - now;
      s.killLength = slurmLength(rj.killAt, rj.job.reqTime, from, ranBefore, s.byOperator);
      rj.killAt = Infinity;
    }
    if (hold) {
      this.sim.capacity.pause(rj.job, this.heldCores(rj), true);
      if (rj.gpus.length > 0) this.sim.capacity.pauseGpus(rj.gpus, true);
    } else {
      this.giveUp(rj);
      this.preempted.push(rj);
      if (resumeWhere !== null) this.resumeWhere.set(rj, resumeWhere);
      this.bridge.markFreed();
    }
    this.count++;
    this.bridge.suspended(rj, hold ? JobPhase.Suspended : JobPhase.Preempted);
  }

  /**
   * Resumes a suspended job now: a job that gave its cores up takes them again (refused while one is
   * not free); its work goes on where it stopped, its end, walltime (run time only counts) and next
   * operator event move by the time it was suspended.
   */
  resume(rj: RunningJob): void {
    const s = rj.sus;
    if (rj.ended || s === null || s.at !== s.at) throw new Error(`job ${rj.job.id} is not suspended`);
    const now = this.sim.now;
    // (an operator's resumption: the job held its cores)
    const byOperator = s.holding;
    if (!s.holding) {
      if (!this.canRetake(rj)) throw new Error(`job ${rj.job.id}: its cores or GPUs are not all free`);
      this.retake(rj);
      this.preempted.splice(this.preempted.indexOf(rj), 1);
      if (this.resumeWhere.size > 0) this.resumeWhere.delete(rj);
      s.holding = true;
      s.resumeByPass = false;
    } else this.unpause(rj);
    const d = now - s.at;
    s.time += d;
    s.at = Number.NaN;
    s.from = now;
    s.byOperator = byOperator;
    s.periods!.push(now);
    this.count--;
    if (rj.model !== null) rj.model.resume!(rj, d);
    else if (rj.tasks === null) {
      rj.eventTime = slurmAt(now, s.endLength, s.ran, byOperator, s.endLeft);
      s.endLeft = Infinity;
      this.bridge.events.schedule(rj.eventTime, KIND_JOB, rj, rj.eventTime);
    } else
      for (const t of rj.tasks) {
        if (t.done) continue;
        this.sim.coreTask[t.core] = t;
        this.sim.progress.resume(t, now);
      }
    const net = this.sim.progress.network;
    if (net !== null && rj.comm !== null) {
      let T = 0;
      for (const t of rj.tasks!) if (t.tNominal > T) T = t.tNominal;
      rj.comm.free = net.add(rj, rj.nodes, rj.perNode, rj.job.commVol, T, now);
    }
    this.sim.progress.flush(now);
    if (s.killLeft < Infinity) {
      rj.killAt = slurmAt(now, s.killLength, s.ran, byOperator, s.killLeft);
      s.killLeft = Infinity;
      if (rj.needsKillEvent()) this.bridge.events.schedule(rj.killAt, KIND_KILL, rj, rj.killAt);
    }
    this.scheduleOperatorEvent(rj);
    this.bridge.resumed(rj);
  }

  /** The cores a running job holds now: all of them, except a `seq` job's whose tasks ended (they were freed then). */
  private heldCores(rj: RunningJob): Int32Array {
    if (rj.job.type !== 'seq' || rj.tasks === null) return rj.cores;
    const held: number[] = [];
    for (const t of rj.tasks) if (!t.done) held.push(t.core);
    return Int32Array.from(held);
  }

  /** A suspended job that kept its cores and GPUs has them draw busy power again. */
  private unpause(rj: RunningJob): void {
    this.sim.capacity.pause(rj.job, this.heldCores(rj), false);
    if (rj.gpus.length > 0) this.sim.capacity.pauseGpus(rj.gpus, false);
  }

  /** A job suspended without its cores gives them up (those it holds), and its GPUs. */
  private giveUp(rj: RunningJob): void {
    const job = rj.job;
    if (rj.gpus.length > 0) this.sim.capacity.moveGpus(rj.gpus, -1);
    if (job.type === 'seq' && rj.tasks !== null) {
      for (const t of rj.tasks)
        if (!t.done) {
          this.sim.coreTask[t.core] = null;
          this.sim.capacity.releaseCore(t.core, taskMem(job, t.index));
        }
    } else {
      if (rj.tasks !== null) for (let i = 0; i < rj.cores.length; i++) this.sim.coreTask[rj.cores[i]!] = null;
      this.sim.capacity.move(job, rj.cores, -1);
    }
  }

  /** Whether the cores a preempted job gave up are all free again (and their nodes' memory for its tasks), and its GPUs. */
  private canRetake(rj: RunningJob): boolean {
    const job = rj.job;
    if (job.type === 'seq' && rj.tasks !== null) {
      const mem = this.sim.nodeFreeMem;
      const need = new Map<number, number>();
      for (const t of rj.tasks) {
        if (t.done) continue;
        if (this.sim.coreOwner[t.core] !== -1) return false;
        need.set(t.node, (need.get(t.node) ?? 0) + taskMem(job, t.index));
      }
      if (this.sim.enforceMemory) for (const [n, m] of need) if (m > mem[n]! + 1e-9) return false;
      return true;
    }
    // (its GPUs are checked against the cores just accepted)
    return this.sim.capacity.placementError(job, rj.cores) === null && (rj.gpus.length === 0 || this.sim.capacity.gpuPlacementError(job, rj.gpus) === null);
  }

  /** A preempted job takes its cores again (`canRetake` holds). */
  private retake(rj: RunningJob): void {
    const job = rj.job;
    if (rj.gpus.length > 0) this.sim.capacity.moveGpus(rj.gpus, rj.slot);
    if (job.type === 'seq' && rj.tasks !== null) {
      for (const t of rj.tasks)
        if (!t.done) {
          this.sim.capacity.takeCore(t.core, taskMem(job, t.index), rj.slot);
          this.sim.coreTask[t.core] = t;
        }
    } else {
      this.sim.capacity.move(job, rj.cores, rj.slot);
      if (rj.tasks !== null) for (const t of rj.tasks) this.sim.coreTask[t.core] = t;
    }
  }

  /**
   * A suspended job leaves (killed, requeued, ended by a live mirror): held cores draw busy power again
   * for their release; a job that gave its cores up (`holding` false after this) releases nothing. Its
   * open suspension period stays open in its record.
   */
  leave(rj: RunningJob): void {
    const s = rj.sus;
    if (s === null || s.at !== s.at) return;
    this.count--;
    if (s.holding) this.unpause(rj);
    else {
      this.preempted.splice(this.preempted.indexOf(rj), 1);
      if (this.resumeWhere.size > 0) this.resumeWhere.delete(rj);
    }
    s.at = Number.NaN;
  }

  /**
   * The placement `place` finds for the waiting `job` if the running `victims` held nothing (a preemption
   * pass's question: would preempting them let it start?), or null. Nothing changes: the victims' cores
   * are released for the search and taken back at the same instant (no time passes; no listener hears it).
   */
  placementWithout(job: Job, victims: readonly RunningJob[], place: (job: Job) => Int32Array | null): Int32Array | null {
    for (const v of victims) if (v.ended || v.suspended) throw new Error(`job ${v.job.id} is not running (suspended jobs are no victims)`);
    for (const v of victims) this.giveUp(v);
    try {
      return place(job);
    } finally {
      for (const v of victims) this.retake(v);
    }
  }

  /**
   * Resumes the preempted jobs whose cores are free again, in the order they were suspended: those that
   * resume as soon as their cores are free, or (`byPass`) those that wait for a pass (Slurm's main scheduler
   * resumes them first, `ClusterSimulator.resumeAtPass`), each on its own cores or where its `resumeWhere`
   * places it now (the jobs resumed before it in this walk hold theirs already).
   */
  resumePreempted(byPass = false): void {
    for (let i = 0; i < this.preempted.length; ) {
      const rj = this.preempted[i]!;
      if (rj.sus!.resumeByPass !== byPass) i++;
      else if (this.resumeWhere.size > 0 && this.resumeWhere.has(rj)) {
        const placement = this.resumeWhere.get(rj)!(rj.job);
        if (placement === null) i++;
        else {
          this.moveTo(rj, placement);
          this.resume(rj);
        }
      } else if (this.canRetake(rj)) this.resume(rj);
      else i++;
    }
  }

  /**
   * A job suspended without its cores (a rigid job of one end event, `suspend`'s `resumeWhere`) is given
   * `placement` instead of the cores it gave up: its cores, nodes and tasks on each become the placement's
   * (checked valid now: the capacity's tally), which `resume` then takes.
   */
  private moveTo(rj: RunningJob, placement: Int32Array): void {
    const err = this.sim.capacity.placementError(rj.job, placement);
    if (err !== null) throw new Error(`job ${rj.job.id} cannot resume there: ${err}`);
    const { nodes, perNode } = this.sim.capacity.lastPlacement();
    rj.cores = placement;
    rj.nodes = nodes;
    rj.perNode = perNode;
  }

  /** Schedules the job's next operator suspension (`job.operatorEvents`), `after` seconds of run from its start. */
  scheduleOperatorEvent(rj: RunningJob): void {
    const ops = rj.job.operatorEvents;
    if (ops === undefined || ops.length <= (rj.sus === null ? 0 : rj.sus.opNext)) return;
    const s = rj.suspension();
    const ev = ops[s.opNext]!;
    // (its run so far in the Slurm model's arithmetic: at a resumption, the stretches summed)
    const at = this.sim.now + Math.max(0, ev.after - slurmRan(rj, s, this.sim.now));
    this.bridge.events.schedule(at, KIND_SUSPEND, rj, ++s.opStamp);
  }

  operatorSuspend(rj: RunningJob): void {
    const s = rj.sus!; // (its event was scheduled with its stamp)
    const ev = rj.job.operatorEvents![s.opNext++]!;
    this.suspend(rj, true);
    this.bridge.events.schedule(this.sim.now + ev.duration, KIND_RESUME, rj, ++s.opStamp);
  }
}
