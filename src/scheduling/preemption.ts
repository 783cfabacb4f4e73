/**
 * Partition-priority preemption on the one engine (Slurm's `PreemptType=preempt/partition_prio`; the
 * Slurm preset's rule, docs/slurm.md "Job lifecycle"), as a pass after a scheduler's own:
 *
 * A waiting job whose partition has a higher `PriorityTier` than some running job's, and that the
 * scheduler's pass left waiting, may take the cores of running jobs of lower-tier partitions whose
 * `preempt_mode` is not `off`. The victims are taken lowest tier first, then the most recently started,
 * and only as many as the job needs: the shortest such prefix after which a placement exists
 * (`ClusterSimulator.placementWithout`); none when even all of them would not do. Each victim then goes
 * as its partition says: `suspend` (it gives its cores up and resumes on them as soon as they are all
 * free again, before the next pass: `ClusterSimulator.suspend(rj, false)`), `requeue` (back to the queue,
 * its next run from scratch: `preempt`) or `cancel` (it ends, `killed`). The waiting jobs are tried by
 * tier, highest first, and in queue order within a tier; the preemptor starts on the cores the
 * resource selection finds (`platform`: nodes by id, cores by id, within its partition).
 *
 * Unlike the Slurm preset's counted capacity, which counts cores per node group (`slurmMainPass.ts`'s
 * preemption), the victims may be anywhere on the
 * preemptor's partition's nodes (the one engine places per core); the rest is the same rule, and the
 * hand-computed scenarios of docs/slurm.md give the same times on both (`test/scheduling/preemption.test.ts`).
 */
import type { ClusterSimulator, RunningJob } from '../execution/simulator.js';
import type { Partition } from '../platform/partitions.js';
import type { Job } from '../workload/job.js';
import { type ResourcePolicy, platformPolicy } from './placement.js';
import type { Scheduler } from './scheduler.js';

/** The partition a job runs in (its own, else the platform's default), or null on a platform without partitions. */
function partitionOf(sim: ClusterSimulator, job: Job): Partition | null {
  const p = sim.platform;
  if (p.partitions.length === 0) return null;
  const i = job.partition !== undefined ? p.partitionIndex(job.partition) : p.defaultPartition;
  return i >= 0 ? p.partitions[i]! : null;
}

/** When `rj` last started running: its start, or its last resumption. */
export function lastRun(rj: RunningJob): number {
  const p = rj.suspensions;
  return p !== null && p.length > 0 && p.length % 2 === 0 ? p[p.length - 1]! : rj.start;
}

/** `inner`'s pass, then partition-priority preemption (the module comment). */
export class PartitionPreemption implements Scheduler {
  readonly name: string;

  constructor(
    readonly inner: Scheduler,
    private readonly policy: ResourcePolicy = platformPolicy,
  ) {
    this.name = `${inner.name}+preempt`;
  }

  /** Binds the inner scheduler (a clock that runs the passes itself binds it at the first submission). */
  attach(sim: ClusterSimulator): void {
    this.inner.attach?.(sim);
  }

  prepare(sim: ClusterSimulator): void {
    this.inner.prepare?.(sim);
  }

  schedule(sim: ClusterSimulator): void {
    this.inner.schedule(sim);
    const parts = sim.platform.partitions;
    if (parts.length === 0 || sim.queue.length === 0 || !parts.some((q) => q.preemptMode !== 'off')) return;
    const waiting = sim.queue.toArray().map((job, i) => ({ job, i, tier: partitionOf(sim, job)?.priorityTier ?? 0 }));
    waiting.sort((a, b) => b.tier - a.tier || a.i - b.i);
    for (const w of waiting) {
      const victims = this.victimsFor(sim, w.job, w.tier);
      if (victims.length === 0) continue;
      let cores: Int32Array | null = null;
      let k = 0;
      for (k = 1; k <= victims.length && cores === null; k++)
        cores = sim.placementWithout(w.job, victims.slice(0, k), (s, job) => this.policy.place(s, job, 'first_fit'));
      if (cores === null) continue;
      for (const v of victims.slice(0, k - 1)) {
        const mode = partitionOf(sim, v.job)!.preemptMode;
        if (mode === 'suspend') sim.suspend(v, false);
        else if (mode === 'requeue') sim.preempt(v);
        else sim.kill(v);
      }
      sim.startJob(w.job, cores);
    }
  }

  /** Running jobs `job` (of priority tier `tier`) may preempt, in the order they are taken (the module comment). */
  private victimsFor(sim: ClusterSimulator, job: Job, tier: number): RunningJob[] {
    const mine = partitionOf(sim, job);
    const out: { rj: RunningJob; tier: number }[] = [];
    for (const rj of sim.running()) {
      if (rj.suspended) continue;
      const part = partitionOf(sim, rj.job);
      if (part === null || part.priorityTier >= tier || part.preemptMode === 'off') continue;
      // only a victim on the preemptor's nodes frees anything it can use
      if (mine !== null && !rj.nodes.some((n) => mine.nodeMask[n] === 1)) continue;
      out.push({ rj, tier: part.priorityTier });
    }
    // Slurm's order: lowest tier, then the last to start or resume, then the last submitted
    out.sort((a, b) => a.tier - b.tier || lastRun(b.rj) - lastRun(a.rj) || b.rj.job.subtime - a.rj.job.subtime || b.rj.slot - a.rj.slot);
    return out.map((o) => o.rj);
  }
}
