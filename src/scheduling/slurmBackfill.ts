/**
 * Slurm's backfill scheduler (`sched/backfill`) on the one engine: the counted pass of
 * `countedBackfill.ts` over the engine's running jobs and its queue in a scheduler's order, run by
 * `SlurmPassClock` every `bf_interval` seconds while jobs wait (after the main pass of that instant), as
 * the Slurm engine runs it (`src/slurm/engine.ts`, `backfillPass`).
 *
 * What the pass reads of the one engine:
 * - **groups**: the platform's node groups as Slurm counts them (`slurmGroups.ts`): a job may run on the
 *   groups its partition's nodes touch, and a backfill start places it within one group;
 * - **free cores** per group (`ClusterSimulator.groupFree`), taken at the start of each pass and kept as
 *   the pass starts jobs;
 * - **holdings**: every running job and every job suspended on its cores, by group (a job the main pass
 *   spread over several groups counts on each), expected to end at its time limit (`reqTime`) counted in
 *   run time; a job suspended by an operator event resumes at the event's end first (the Slurm engine's
 *   `timeLeft`);
 * - **the queue**: the first `bf_max_job_test` waiting jobs in the scheduler's order (`JobOrderSource`),
 *   each asking for one core per task and its `reqTime`.
 *
 * A start the count allows but the resource selection cannot place (memory, a node-shape rule) is left
 * waiting, its buckets held for the rest of the pass. GPU jobs are not backfilled here (the policy schedulers this pass serves place no GPUs).
 */
import type { ClusterSimulator, RunningJob } from '../execution/simulator.js';
import type { Job } from '../workload/job.js';
import { CountedBackfill, type CountedBackfillSettings, type CountedBackfillView } from './countedBackfill.js';
import type { NodeFit, ResourcePolicy } from './placement.js';
import { SlurmGroups } from './slurmGroups.js';

/** A scheduler whose queue order the backfill pass walks, and whose resource selection places its starts. */
export interface JobOrderSource {
  /** The first `k` waiting jobs in its order now. */
  inOrder(sim: ClusterSimulator, k: number): Job[];
  readonly resources: ResourcePolicy;
  readonly fit: NodeFit;
}

/** Whether `s` has a queue order and a resource selection (a `PolicyScheduler`). */
export function isJobOrderSource(s: object): s is JobOrderSource {
  return typeof (s as Partial<JobOrderSource>).inOrder === 'function' && (s as Partial<JobOrderSource>).resources !== undefined;
}

/** The backfill scheduler's settings: the pass's, and its timer (slurm.conf's names). */
export interface SlurmBackfillSettings extends CountedBackfillSettings {
  /** bf_interval (s): the time between passes. */
  interval: number;
  /** Passes on the grid `k x interval` (slurmctld's own timer) instead of `interval` after a job came to an empty queue. */
  grid: boolean;
  /** bf_max_job_test: waiting jobs tested per pass. */
  maxJobTest: number;
}

/** Slurm 16.05's defaults (the Slurm engine's `DEFAULT_SLURM`). */
export const DEFAULT_SLURM_BACKFILL: SlurmBackfillSettings = {
  interval: 30,
  window: 1440 * 60,
  resolution: 60,
  maxJobTest: 100,
  grid: false,
  slurmRounding: false,
  reserveIdle: 'none',
};

/** Seconds until running job `rj` is expected to end by its time limit (an operator-suspended job resumes first), at least 0. */
export function expectedTimeLeft(rj: RunningJob, now: number): number {
  let left = rj.job.reqTime - rj.ranFor(now);
  if (rj.suspendedAt === rj.suspendedAt) {
    const ev = rj.job.operatorEvents?.[rj.opNext - 1];
    if (ev !== undefined) left += Math.max(0, rj.suspendedAt + ev.duration - now);
  }
  return Math.max(0, left);
}

/** Slurm's backfill pass on the one engine (see the module comment). */
export class SlurmBackfill implements CountedBackfillView {
  private readonly counted = new CountedBackfill();
  private sim!: ClusterSimulator;
  private jobs: Job[] = [];
  private free = new Float64Array(0);
  private groups!: SlurmGroups;
  /** Passes run, and jobs they started. */
  passes = 0;
  started = 0;

  constructor(
    readonly order: JobOrderSource,
    readonly settings: SlurmBackfillSettings,
  ) {
    const s = settings;
    if (!(s.interval > 0)) throw new RangeError(`backfill: bf_interval must be > 0, found ${s.interval}`);
    if (!(Number.isInteger(s.maxJobTest) && s.maxJobTest >= 0))
      throw new RangeError(`backfill: bf_max_job_test must be an integer >= 0, found ${s.maxJobTest}`);
    if (!(s.window > 0 && s.resolution > 0)) throw new RangeError(`backfill: bf_window and bf_resolution must be > 0, found ${s.window} and ${s.resolution}`);
  }

  /** The time of the pass after one at `now`: on the grid, or `interval` later. */
  nextPassAfter(now: number): number {
    const I = this.settings.interval;
    return this.settings.grid ? (Math.floor(now / I + 1e-9) + 1) * I : now + I;
  }

  /** One pass over `sim`'s queue now; returns the jobs it started. */
  pass(sim: ClusterSimulator): number {
    this.passes++;
    if (sim.queue.length === 0) return 0;
    this.bind(sim);
    this.jobs = this.order.inOrder(sim, this.settings.maxJobTest);
    const handles = this.jobs.map((_, i) => i);
    const n = this.counted.pass(this, this.settings, handles, handles.length);
    this.started += n;
    return n;
  }

  private bind(sim: ClusterSimulator): void {
    if (this.sim !== sim) {
      this.sim = sim;
      this.free = new Float64Array(sim.platform.groupCount);
      this.groups = new SlurmGroups(sim);
    }
    this.free.set(sim.groupFree);
  }

  get now(): number {
    return this.sim.now;
  }
  get groupCount(): number {
    return this.sim.platform.groupCount;
  }
  get hasGpus(): boolean {
    return false;
  }
  freeCores(g: number): number {
    return this.free[g]!;
  }
  freeGpus(): number {
    return 0;
  }
  groupGpus(): number {
    return 0;
  }
  forEachHolding(hold: (group: number, cores: number, gpus: number, timeLeft: number) => void): void {
    const sim = this.sim;
    const now = sim.now;
    // a running job's nodes are node ids (the core capacity) or its groups themselves (the counted capacity)
    const nodeGroup = sim.counted !== null ? null : sim.platform.nodeGroup;
    const slots = sim.runningBySlot;
    for (let i = 0; i < slots.length; i++) {
      const rj = slots[i];
      if (rj == null || rj.finish === rj.finish || (rj.suspendedAt === rj.suspendedAt && !rj.holding)) continue;
      const left = expectedTimeLeft(rj, now);
      const nodes = rj.nodes;
      const held = rj.job.type === 'seq' ? rj.tasksLeft : rj.cores.length;
      if (nodeGroup === null) {
        if (nodes.length === 1) hold(nodes[0]!, held, 0, left);
        else for (let k = 0; k < nodes.length; k++) hold(nodes[k]!, rj.perNode[k]!, 0, left);
        continue;
      }
      const g0 = nodeGroup[nodes[0]!]!;
      if (g0 === nodeGroup[nodes[nodes.length - 1]!]) hold(g0, held, 0, left);
      else for (let k = 0; k < nodes.length; k++) hold(nodeGroup[nodes[k]!]!, rj.perNode[k]!, 0, left);
    }
  }
  cores(h: number): number {
    return this.jobs[h]!.ntasks;
  }
  gpus(): number {
    return 0;
  }
  timeLimit(h: number): number {
    return this.jobs[h]!.reqTime;
  }
  groupsOf(h: number): readonly number[] {
    const job = this.jobs[h]!;
    return job.gpus !== undefined ? [] : this.groups.groupsOf(job);
  }
  gpuFits(): boolean {
    return true;
  }
  start(h: number, g: number): boolean {
    const job = this.jobs[h]!;
    const cores = this.groups.place(job, g, this.order.resources, this.order.fit);
    if (cores === null) return false;
    this.sim.startJob(job, cores, { transfer: true });
    this.free[g]! -= job.ntasks;
    return true;
  }
}
