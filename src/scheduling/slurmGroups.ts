/**
 * Slurm's counted view of a platform on the one engine: a job runs within one node group of its
 * partition, and what a pass asks of a group is its free cores (`ClusterSimulator.groupFree`), as the
 * Slurm engine counts cores per group. The main pass (`slurmMainPass.ts`) and the backfill pass
 * (`slurmBackfill.ts`) share it.
 *
 * - **a job's groups**: the node groups of its partition, in the order the partition names them (then the
 *   groups its named nodes touch, ascending: `Partition.groups`), the order the Slurm engine tries them in;
 * - **a start on group `g`**: the scheduler's resource selection places the job on `g`'s nodes only (a
 *   placement limit of no cores elsewhere); counted cores that the selection cannot place (memory, a
 *   node-shape rule) leave the job waiting. Under the counted capacity (`countedCores.ts`, the Slurm
 *   preset's) there are no nodes to select: the placement is the group itself, one unit per task.
 */
import type { ClusterSimulator } from '../execution/simulator.js';
import type { Job } from '../workload/job.js';
import { type NodeFit, type PlacementLimit, type ResourcePolicy, takeFreeGpus } from './placement.js';

/** A platform's groups as Slurm counts them, for one engine (caches per partition). */
export class SlurmGroups {
  private readonly all: number[];
  private readonly limits: PlacementLimit[];
  /** `admitted`'s bound by partition index + 1 (the first: a job of no partition known), on first need. */
  private readonly bounds: (number | undefined)[] = [];

  constructor(readonly sim: ClusterSimulator) {
    const p = sim.platform;
    this.all = Array.from({ length: p.groupCount }, (_, g) => g);
    const nodeGroup = p.nodeGroup;
    this.limits = this.all.map((g) => ({
      cores: (x: number) => (nodeGroup[x] === g ? Number.POSITIVE_INFINITY : 0),
      mem: (x: number) => (nodeGroup[x] === g ? Number.POSITIVE_INFINITY : 0),
    }));
  }

  /** The groups `job` may run on (see the module comment). */
  groupsOf(job: Job): readonly number[] {
    const i = this.partitionOf(job);
    return i >= 0 ? this.sim.platform.partitions[i]!.groups : this.all;
  }

  /** The index of `job`'s partition in `Platform.partitions` (its own, else the default), or -1 when it names none known. */
  partitionOf(job: Job): number {
    const i = this.sim.platform.partitionOf(job);
    return typeof i === 'number' ? i : -1;
  }

  /**
   * Why `job` can never run within one node group of its partition (Slurm's counted model; the Slurm engine
   * refuses it at submission), or null: some group has its cores, on at most the partition's `MaxNodes`
   * nodes of that group.
   */
  refusal(job: Job): string | null {
    const p = this.sim.platform;
    const part = this.partitionOf(job);
    // (a job without GPUs up to its partition's bound is held by some group: no walk of the groups per submission)
    if (job.gpus === undefined && job.ntasks <= this.admitted(part)) return null;
    const maxNodes = part >= 0 ? p.partitions[part]!.maxNodes : Number.POSITIVE_INFINITY;
    let largest = 0;
    const counted = this.sim.counted;
    const gpus = job.gpus?.count ?? 0;
    for (const g of this.groupsOf(job)) {
      const perNode = p.nodeCoreCount[p.groupFirstNode[g]!]!;
      const cores = perNode * p.groupNodeCount[g]!;
      const gpusFit = gpus === 0 || counted === null || (counted.gpuTypeFits(job, g) && counted.groupGpus[g]! >= gpus);
      if (job.ntasks <= cores && Math.ceil(job.ntasks / perNode) <= maxNodes && gpusFit) return null;
      if (gpusFit) largest = Math.max(largest, cores);
    }
    const what = gpus > 0 ? ` and ${gpus} GPUs${job.gpus!.type !== undefined ? ` of type ${job.gpus!.type}` : ''}` : '';
    return `asks for ${job.ntasks} cores${what}, more than one node group of its partition holds (at most ${largest} cores${what === '' ? '' : ' in a group with those GPUs'}${Number.isFinite(maxNodes) ? ` on ${maxNodes} nodes` : ''}; Slurm's counted model runs a job within one group)`;
  }

  /**
   * The most cores a job without GPUs of partition `part` (-1: none known) may ask for and be held by one group of
   * it (`refusal`): the largest over its groups of the group's cores, and of its `MaxNodes` nodes' cores there.
   */
  private admitted(part: number): number {
    const i = part + 1;
    let bound = this.bounds[i];
    if (bound === undefined) {
      const p = this.sim.platform;
      const maxNodes = part >= 0 ? p.partitions[part]!.maxNodes : Number.POSITIVE_INFINITY;
      bound = 0;
      for (const g of part >= 0 ? p.partitions[part]!.groups : this.all) {
        const perNode = p.nodeCoreCount[p.groupFirstNode[g]!]!;
        bound = Math.max(bound, Math.min(perNode * p.groupNodeCount[g]!, perNode * maxNodes));
      }
      while (this.bounds.length <= i) this.bounds.push(undefined);
      this.bounds[i] = bound;
    }
    return bound;
  }

  /**
   * The GPUs of `job` placed beside its `cores`, or undefined when it asks for none: on the counted capacity,
   * its count in their group; on the core capacity, a request on each node (Slurm's select plugin's,
   * `slurmSelect.ts`) its count on each node of its cores (in their order), the node's free GPUs in id order
   * (the selection chose nodes that have them). A request in total is not placed on the core capacity here.
   */
  gpusFor(job: Job, cores: Int32Array): Int32Array | undefined {
    const g = job.gpus;
    const n = g?.count ?? 0;
    if (n === 0) return undefined;
    const counted = this.sim.counted;
    if (counted !== null) return counted.uniform(cores[0]!, n);
    if (!g!.perNode) return undefined;
    const coreNode = this.sim.platform.coreNode;
    const nodes: number[] = [];
    for (let i = 0; i < cores.length; i++) {
      const x = coreNode[cores[i]!]!;
      if (nodes[nodes.length - 1] !== x && !nodes.includes(x)) nodes.push(x);
    }
    const out = new Int32Array(nodes.length * n);
    for (let k = 0; k < nodes.length; k++)
      if (takeFreeGpus(this.sim, nodes[k]!, n, out, k * n) < n) throw new Error(`job ${job.id}: node ${nodes[k]} has fewer than ${n} GPUs free`);
    return out;
  }

  /** Cores for `job` anywhere on its partition but the groups `off` marks (null: none), by `resources`. */
  placeOutside(job: Job, off: Uint8Array | null, resources: ResourcePolicy, fit: NodeFit): Int32Array | null {
    const counted = this.sim.counted;
    if (counted !== null) {
      if (job.gpus === undefined) return counted.place(job, this.groupsOf(job), off);
      // a job with GPUs stays within one group (its GPUs beside its cores)
      for (const g of this.groupsOf(job))
        if (!off?.[g]) {
          const cores = this.place(job, g, resources, fit);
          if (cores !== null) return cores;
        }
      return null;
    }
    if (off === null || !off.includes(1)) return resources.place(this.sim, job, fit);
    const nodeGroup = this.sim.platform.nodeGroup;
    const limit: PlacementLimit = {
      cores: (x) => (off[nodeGroup[x]!] ? 0 : Number.POSITIVE_INFINITY),
      mem: (x) => (off[nodeGroup[x]!] ? 0 : Number.POSITIVE_INFINITY),
    };
    return resources.place(this.sim, job, fit, limit);
  }

  /** Cores for `job` on group `g`'s nodes by `resources` (null when it cannot place it there). */
  place(job: Job, g: number, resources: ResourcePolicy, fit: NodeFit): Int32Array | null {
    const counted = this.sim.counted;
    if (counted !== null) {
      const gpus = job.gpus?.count ?? 0;
      if (job.ntasks > counted.groupFree[g]! || (gpus > 0 && !(counted.gpuTypeFits(job, g) && counted.groupFreeGpus[g]! >= gpus))) return null;
      return counted.uniform(g, job.ntasks);
    }
    return resources.place(this.sim, job, fit, this.all.length === 1 ? null : this.limits[g]!);
  }
}
