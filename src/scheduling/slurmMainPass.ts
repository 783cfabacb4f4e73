/**
 * Slurm's main scheduler (`job_scheduler.c`, `_schedule`) as a pass of the one engine, the rules of the
 * Slurm engine's `schedule` (`src/slurm/engine.ts`): it walks the first `default_queue_depth` waiting
 * jobs in priority order (a `PolicyScheduler`'s queue order) and starts each that fits now where it may run
 * (`within`):
 * - `group` (the Slurm engine's counted model, the preset's): in one node group of its partition, the first
 *   in platform order whose free cores hold it (`slurmGroups.ts`); a job no group of its partition can ever
 *   hold is refused at submission, as the Slurm engine refuses it (an admission rule of the engine);
 * - `partition` (the default: Slurm's select plugin on a heterogeneous partition): anywhere on its
 *   partition's nodes, as the policy's resource selection places it.
 *
 * Once a job of a partition is left waiting, no later job of that partition starts in this pass, and the
 * groups of that partition are out of this pass for every partition ("Do not schedule more jobs in this
 * partition or on nodes in this partition"). With one partition this is the scheduler's own pass without
 * backfilling (the first job that does not fit stops the queue); with several, a blocked partition no
 * longer blocks the others, which is what a site's Slurm does.
 *
 * Preemption is a pass of its own after this one (`preemption.ts`), not inside the walk as in Slurm.
 */
import type { ClusterSimulator } from '../execution/simulator.js';
import type { Job } from '../workload/job.js';
import type { NodeFit, ResourcePolicy } from './placement.js';
import type { PolicyScheduler, Scheduler } from './scheduler.js';
import type { JobOrderSource } from './slurmBackfill.js';
import { SlurmGroups } from './slurmGroups.js';

/** Slurm's `default_queue_depth`. */
export const DEFAULT_QUEUE_DEPTH = 100;

/** Slurm's main scheduler over `policy`'s queue order and resource selection (see the module comment). */
/** Where a job may run: within one node group of its partition, or anywhere on its partition (the module comment). */
export type SlurmPlacementScope = 'group' | 'partition';

export class SlurmMainPass implements Scheduler, JobOrderSource {
  readonly name: string;
  private groups: SlurmGroups | null = null;
  /** Jobs started by the passes. */
  started = 0;

  constructor(
    readonly policy: PolicyScheduler,
    readonly queueDepth = DEFAULT_QUEUE_DEPTH,
    readonly within: SlurmPlacementScope = 'partition',
  ) {
    if (!(Number.isInteger(queueDepth) && queueDepth >= 1)) throw new RangeError(`slurm main pass: queue depth must be an integer >= 1, found ${queueDepth}`);
    if (policy.backfill !== 'none')
      throw new RangeError(`slurm main pass: ${policy.name} backfills; Slurm's backfill is a scheduler of its own (pass_clock.slurm.backfill)`);
    this.name = `${policy.name}+slurm-main`;
  }

  get resources(): ResourcePolicy {
    return this.policy.resources;
  }
  get fit(): NodeFit {
    return this.policy.fit;
  }
  inOrder(sim: ClusterSimulator, k: number): Job[] {
    return this.policy.inOrder(sim, k);
  }
  attach(sim: ClusterSimulator): void {
    this.policy.attach(sim);
    this.groupsFor(sim);
  }

  /** `within: 'group'`: jobs no group of their partition can hold are refused at submission. */
  prepare(sim: ClusterSimulator): void {
    if (this.within !== 'group') return;
    const groups = this.groupsFor(sim);
    sim.addAdmissionRule((job) => groups.refusal(job));
  }

  private groupsFor(sim: ClusterSimulator): SlurmGroups {
    if (this.groups?.sim !== sim) this.groups = new SlurmGroups(sim);
    return this.groups;
  }

  schedule(sim: ClusterSimulator): void {
    if (sim.queue.length === 0) return;
    this.attach(sim);
    const groups = this.groups!;
    const parts = sim.platform.partitions.length;
    if (parts === 1 && this.policy.selection.kind !== 'dynamic') {
      // one partition: the first job left waiting ends the pass, so a kept order (arrival, static keys,
      // keys of the epoch) is read one job at a time (a started job leaves it) instead of as `queue_depth` jobs
      for (let i = 0; i < this.queueDepth; i++) {
        const job = this.policy.firstInOrder(sim);
        if (job === undefined) return;
        const cores = this.placeNow(sim, groups, job, null);
        if (cores === null) return;
        sim.startJob(job, cores, { transfer: true, gpus: groups.gpusFor(job, cores) });
        this.started++;
      }
      return;
    }
    const jobs = this.policy.inOrder(sim, this.queueDepth);
    // per partition, whether a job of it was left waiting; per group, whether a blocked partition holds it
    const blocked = parts > 1 ? new Uint8Array(parts) : null;
    const off = parts > 1 ? new Uint8Array(sim.platform.groupCount) : null;
    for (const job of jobs) {
      const part = blocked === null ? 0 : groups.partitionOf(job);
      if (blocked?.[part]) continue;
      const cores = this.placeNow(sim, groups, job, off);
      if (cores !== null) {
        sim.startJob(job, cores, { transfer: true, gpus: groups.gpusFor(job, cores) });
        this.started++;
        continue;
      }
      if (blocked === null) return; // one partition: the first job left waiting ends the pass
      blocked[part] = 1;
      for (const g of groups.groupsOf(job)) off![g] = 1;
    }
  }

  /** Where `job` starts now under `within`, outside the groups `off` marks (null: none), or null. */
  private placeNow(sim: ClusterSimulator, groups: SlurmGroups, job: Job, off: Uint8Array | null): Int32Array | null {
    if (this.within === 'partition') return groups.placeOutside(job, off, this.policy.resources, this.policy.fit);
    const free = sim.groupFree;
    for (const g of groups.groupsOf(job)) {
      if (free[g]! < job.ntasks || off?.[g]) continue;
      const cores = groups.place(job, g, this.policy.resources, this.policy.fit);
      if (cores !== null) return cores;
    }
    return null;
  }
}
