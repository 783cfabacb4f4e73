/**
 * Slurm's main scheduler (`job_scheduler.c`, `_schedule`) as a pass of the one engine (the retired Slurm
 * engine's schedules to the bit: test/golden/slurmEngine.ts): it walks the first `default_queue_depth` waiting
 * jobs in priority order (a `PolicyScheduler`'s queue order) and starts each that fits now where it may run
 * (`within`):
 * - `group` (the Slurm preset's counted model): in one node group of its partition, the first
 *   in platform order whose free cores hold it (`slurmGroups.ts`); a job no group of its partition can ever
 *   hold is refused at submission, as slurmctld refuses a request no node set can hold (an admission rule of the engine);
 * - `partition` (the default: Slurm's select plugin on a heterogeneous partition): anywhere on its
 *   partition's nodes, as the policy's resource selection places it;
 * - `nodes` (the Slurm preset's whole-node allocation, `SlurmConfig.nodeSelect`): anywhere on its
 *   partition's nodes as Slurm's select plugin chooses them (`slurmSelect.ts`, in place of the policy's
 *   resource selection), and, as under `group`, refused at submission when no one group of its partition
 *   could hold it (the Slurm preset's rule for both its models, `SlurmGroups.refusal`).
 *
 * Once a job of a partition is left waiting, no later job of that partition starts in this pass, and the
 * groups of that partition are out of this pass for every partition ("Do not schedule more jobs in this
 * partition or on nodes in this partition"). With one partition this is the scheduler's own pass without
 * backfilling (the first job that does not fit stops the queue); with several, a blocked partition no
 * longer blocks the others, which is what a site's Slurm does.
 *
 * **Preemption** (`preempt`, Slurm's `PreemptType=preempt/partition_prio`; `within: "group"` or `"nodes"`):
 * a job that does not fit takes the cores of running jobs (not suspended) of lower-tier partitions whose
 * `preempt_mode` is not `off` (`preemptFor`). The candidates go lowest tier first,
 * then the last to start or resume, then the highest id (`preemptionOrder`):
 * - `group`: within one group of its partition, the first (in the partition's order, blocked or not) where
 *   its free cores and its candidates' (the jobs running in that group) hold the job; there they go until
 *   its free cores do;
 * - `nodes` (`preemptForNodes`): the candidates are the jobs holding a node of its
 *   partition; none goes unless the select plugin would place the job with all of them gone (on the whole
 *   partition, blocked groups too); then they go one at a time until the plugin places it outside the
 *   blocked groups, all of them if it never does (the job then waits).
 *
 * A victim is suspended without its cores until a main pass resumes it (`suspend`: the clock resumes it at
 * the start of the next pass, `ClusterSimulator.resumeAtPass`, under `group` when its instant has the victim's
 * cores free, under `nodes` where the select plugin places it then, on any of its partition's nodes: the model's
 * rule, the retired Slurm engine's schedules, test/golden/slurmEngine.ts; real Slurm gives a resumed job its own
 * nodes back), requeued (`requeue`) or ended (`cancel`).
 * Without `preempt`, preemption is a pass of its own after this one (`preemption.ts`).
 */
import { ScratchIndexList, ScratchList } from '../core/scratchList.js';
import type { ClusterSimulator } from '../execution/simulator.js';
import type { RunningJob } from '../execution/running.js';
import type { StartOptions } from '../execution/simulatorOptions.js';
import { movableOnResume, type ResumePlacement } from '../execution/suspension.js';
import type { Job } from '../workload/job.js';
import { lastRun } from './preemption.js';
import type { NodeFit, ResourcePolicy } from './placement.js';
import type { PolicyScheduler, Scheduler } from './scheduler.js';
import type { JobOrderSource } from './slurmBackfill.js';
import { SlurmGroups } from './slurmGroups.js';
import { SlurmNodeSelection } from './slurmSelect.js';

/** Slurm's `default_queue_depth`. */
export const DEFAULT_QUEUE_DEPTH = 100;

/** Where a job may run: within one node group of its partition, anywhere on its partition, or there as Slurm's select plugin chooses (the module comment). */
export type SlurmPlacementScope = 'group' | 'partition' | 'nodes';

/** Slurm's main scheduler over `policy`'s queue order and resource selection (see the module comment). */
export class SlurmMainPass implements Scheduler, JobOrderSource {
  readonly name: string;
  private groups: SlurmGroups | null = null;
  /** Slurm's select plugin (`within: "nodes"`), else null. */
  private readonly select: SlurmNodeSelection | null;
  /** Jobs started by the passes, and jobs they preempted. */
  started = 0;
  preempted = 0;
  /**
   * Told of each preemption, before it, with the time of the victim's next event (its end or its operator
   * suspension): Slurm's pass clock follows the retired Slurm engine's passes after a preemption
   * (`slurmPassClock.ts`, `SlurmPassClock.preempted`).
   */
  onPreempt: ((sim: ClusterSimulator, pendingAt: number) => void) | null = null;
  /** The options of the walk's starts, one object for every start (`startJob` reads them and keeps none). */
  private readonly startOptions: StartOptions = { transfer: true, gpus: undefined, queuePosition: undefined };
  /** The jobs a walk over several partitions reads (`inOrder`), and their waiting slots when the order keeps them. */
  private readonly walkJobs = new ScratchList<Job>();
  private readonly walkSlots = new ScratchIndexList();

  constructor(
    readonly policy: PolicyScheduler,
    readonly queueDepth = DEFAULT_QUEUE_DEPTH,
    readonly within: SlurmPlacementScope = 'partition',
    /** Preempt lower-tier jobs within the walk (the module comment). */
    readonly preempt = false,
  ) {
    if (!(Number.isInteger(queueDepth) && queueDepth >= 1)) throw new RangeError(`slurm main pass: queue depth must be an integer >= 1, found ${queueDepth}`);
    if (preempt && within === 'partition')
      throw new RangeError(
        'slurm main pass: preemption within the walk needs within: "group" or "nodes" (jobs within one node group, or placed by the select plugin)',
      );
    if (policy.backfill !== 'none')
      throw new RangeError(`slurm main pass: ${policy.name} backfills; Slurm's backfill is a scheduler of its own (pass_clock.slurm.backfill)`);
    this.select = within === 'nodes' ? new SlurmNodeSelection() : null;
    this.name = `${policy.name}+slurm-main`;
  }

  /** The resource selection of its starts: the policy's, or Slurm's select plugin under `within: "nodes"`. */
  get resources(): ResourcePolicy {
    return this.select ?? this.policy.resources;
  }
  get fit(): NodeFit {
    return this.policy.fit;
  }
  inOrder(sim: ClusterSimulator, k: number, into: ScratchList<Job>, slots?: ScratchIndexList): void {
    this.policy.inOrder(sim, k, into, slots);
  }
  attach(sim: ClusterSimulator): void {
    this.policy.attach(sim);
    this.groupsFor(sim);
  }

  /**
   * `within: 'group'` or `'nodes'`: jobs no group of their partition can hold are refused at submission; under
   * `'nodes'`, also node requests the select plugin cannot give as the job's tasks (`SlurmNodeSelection.refusal`).
   */
  prepare(sim: ClusterSimulator): void {
    if (this.within === 'partition') return;
    const groups = this.groupsFor(sim);
    const select = this.select;
    sim.addAdmissionRule(select === null ? (job) => groups.refusal(job) : (job) => groups.refusal(job) ?? select.refusal(sim, job));
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
        const o = this.startOptions;
        o.gpus = groups.gpusFor(job, cores);
        o.queuePosition = this.policy.firstQueuePosition();
        sim.startJob(job, cores, o);
        this.started++;
      }
      return;
    }
    const slots = this.walkSlots;
    const jobs = this.walkJobs;
    this.policy.inOrder(sim, this.queueDepth, jobs, slots);
    const known = slots.length === jobs.length;
    // per partition, whether a job of it was left waiting; per group, whether a blocked partition holds it
    const blocked = parts > 1 ? new Uint8Array(parts) : null;
    const off = parts > 1 ? new Uint8Array(sim.platform.groupCount) : null;
    for (let h = 0; h < jobs.length; h++) {
      const job = jobs.at(h);
      const part = blocked === null ? 0 : groups.partitionOf(job);
      if (blocked?.[part]) continue;
      let cores = this.placeNow(sim, groups, job, off);
      if (cores === null && this.preempt) cores = this.select !== null ? this.preemptForNodes(sim, groups, job, off) : this.preemptFor(sim, groups, job);
      if (cores !== null) {
        sim.startJob(job, cores, { transfer: true, gpus: groups.gpusFor(job, cores), queuePosition: known ? sim.queue.positionOf(slots.at(h)) : undefined });
        this.started++;
        continue;
      }
      if (blocked === null) return; // one partition: the first job left waiting ends the pass
      blocked[part] = 1;
      for (const g of groups.groupsOf(job)) off![g] = 1;
    }
  }

  /**
   * Preempts lower-tier jobs so that `job` fits within one group of its partition (the module comment);
   * returns its placement there, or null (and preempts nothing) when no group would hold it.
   */
  private preemptFor(sim: ClusterSimulator, groups: SlurmGroups, job: Job): Int32Array | null {
    const parts = sim.platform.partitions;
    const mine = groups.partitionOf(job);
    if (mine < 0) return null;
    const tier = parts[mine]!.priorityTier;
    const need = job.ntasks;
    const needGpus = job.gpus?.count ?? 0;
    const counted = sim.counted;
    const nodeGroup = sim.platform.nodeGroup;
    for (const g of groups.groupsOf(job)) {
      const cands: RunningJob[] = [];
      let avail = sim.groupFree[g]!;
      let availGpus = counted?.groupFreeGpus[g] ?? 0;
      for (const rj of sim.running()) {
        if (rj.suspended) continue;
        // (a running job's nodes are its group on the counted capacity, node ids on the cores one)
        if ((counted !== null ? rj.nodes[0]! : nodeGroup[rj.nodes[0]!]!) !== g) continue;
        const q = groups.partitionOf(rj.job);
        if (q < 0 || parts[q]!.priorityTier >= tier || parts[q]!.preemptMode === 'off') continue;
        cands.push(rj);
        avail += rj.cores.length;
        availGpus += rj.gpus.length;
      }
      if (avail < need || (needGpus > 0 && !(counted !== null && counted.gpuTypeFits(job, g) && availGpus >= needGpus))) continue;
      preemptionOrder(sim, groups, cands);
      for (const rj of cands) {
        if (sim.groupFree[g]! >= need && (needGpus === 0 || counted!.groupFreeGpus[g]! >= needGpus)) break;
        this.preemptOne(sim, groups, rj);
      }
      return groups.place(job, g, this.policy.resources, this.policy.fit);
    }
    return null;
  }

  /**
   * Preempts lower-tier jobs so that the select plugin places `job` (`within: "nodes"`; the module comment):
   * the candidates hold a node of its partition; none goes unless the job would fit with all of them gone;
   * then they go until it is placed outside the groups `off` marks. Its placement, or null (after preempting
   * every candidate when the blocked groups keep it out).
   */
  private preemptForNodes(sim: ClusterSimulator, groups: SlurmGroups, job: Job, off: Uint8Array | null): Int32Array | null {
    const parts = sim.platform.partitions;
    const mine = groups.partitionOf(job);
    if (mine < 0) return null;
    const tier = parts[mine]!.priorityTier;
    const inPart = parts[mine]!.nodeMask;
    const cands: RunningJob[] = [];
    for (const rj of sim.running()) {
      if (rj.suspended) continue;
      const q = groups.partitionOf(rj.job);
      if (q < 0 || parts[q]!.priorityTier >= tier || parts[q]!.preemptMode === 'off') continue;
      const nodes = rj.nodes;
      for (let k = 0; k < nodes.length; k++)
        if (inPart[nodes[k]!] === 1) {
          cands.push(rj);
          break;
        }
    }
    const select = this.select!;
    if (cands.length === 0 || sim.placementWithout(job, cands, (s, j) => select.place(s, j, this.policy.fit)) === null) return null;
    preemptionOrder(sim, groups, cands);
    for (const rj of cands) {
      this.preemptOne(sim, groups, rj);
      const cores = this.placeNow(sim, groups, job, off);
      if (cores !== null) return cores;
    }
    return null;
  }

  /**
   * Preempts running job `rj` by its partition's `preempt_mode` (the pass clock told first): suspended
   * without its cores until a main pass resumes it (under `within: "nodes"` where the select plugin places it
   * then), requeued, or ended.
   */
  private preemptOne(sim: ClusterSimulator, groups: SlurmGroups, rj: RunningJob): void {
    const mode = sim.platform.partitions[groups.partitionOf(rj.job)]!.preemptMode;
    this.onPreempt?.(sim, nextEventAt(sim, rj));
    if (mode === 'suspend') sim.suspend(rj, false, true, this.resumeWhere(sim, rj));
    else if (mode === 'requeue') sim.preempt(rj);
    else sim.kill(rj);
    this.preempted++;
  }

  /**
   * Where job `rj`, preempted by suspension, resumes: under `within: "nodes"` where the select plugin places it
   * then (on any node of its partition: the model's rule, the module comment), else on its own cores (null; also
   * a job that cannot move, `movableOnResume`: tasks of its own or a progress model, which no Slurm job has).
   */
  private resumeWhere(sim: ClusterSimulator, rj: RunningJob): ResumePlacement | null {
    const select = this.select;
    if (select === null || !movableOnResume(rj)) return null;
    const fit = this.policy.fit;
    return (job) => select.place(sim, job, fit);
  }

  /** Where `job` starts now under `within`, outside the groups `off` marks (null: none), or null. */
  private placeNow(sim: ClusterSimulator, groups: SlurmGroups, job: Job, off: Uint8Array | null): Int32Array | null {
    if (this.within !== 'group') return groups.placeOutside(job, off, this.resources, this.policy.fit);
    const free = sim.groupFree;
    const gs = groups.groupsOf(job);
    // (an indexed walk: a `for of` here made an iterator per job the walk reads)
    for (let i = 0; i < gs.length; i++) {
      const g = gs[i]!;
      if (free[g]! < job.ntasks || off?.[g]) continue;
      const cores = groups.place(job, g, this.policy.resources, this.policy.fit);
      if (cores !== null) return cores;
    }
    return null;
  }
}

/**
 * Sorts preemption candidates into the order Slurm preempts them in (docs/slurm.md, "Job lifecycle"): lowest partition
 * tier first, then the last to start or resume (`lastRun`), then the highest id.
 */
function preemptionOrder(sim: ClusterSimulator, groups: SlurmGroups, cands: RunningJob[]): void {
  const parts = sim.platform.partitions;
  const tierOf = (rj: RunningJob) => parts[groups.partitionOf(rj.job)]!.priorityTier;
  cands.sort((a, b) => tierOf(a) - tierOf(b) || lastRun(b) - lastRun(a) || compareIds(b.job.id, a.job.id));
}

/** Job ids in Slurm's order: numerically when both are numbers (the Slurm preset's), else as strings. */
function compareIds(a: string, b: string): number {
  const x = Number(a);
  const y = Number(b);
  if (Number.isFinite(x) && Number.isFinite(y) && x !== y) return x - y;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * When running job `rj`'s next event comes: its operator suspension when that comes strictly before its end,
 * else its end (its fixed end, or its time limit's kill, whichever is first). The retired Slurm engine kept one
 * such event per running job, whose stale copy after a preemption `SlurmPassClock` follows (`preempted`).
 */
function nextEventAt(sim: ClusterSimulator, rj: RunningJob): number {
  const end = Math.min(rj.eventTime, rj.killAt);
  const ev = rj.job.operatorEvents?.[rj.sus === null ? 0 : rj.sus.opNext];
  if (ev === undefined) return end;
  const op = sim.now + Math.max(0, ev.after - rj.ranFor(sim.now));
  return op < end ? op : end;
}
