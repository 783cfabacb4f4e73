/**
 * The counted capacity (`capacity: 'counted'`; DESIGN §15, issue 42): free cores counted per node group,
 * as Slurm's counted model and the Slurm engine count them, with no core, node or processor of its own.
 *
 * A node group is `count` identical nodes (`Platform.groupNodeCount`, `nodeCoreCount` of its first node), so
 * it holds `count x cores` cores. The unit of a placement is a group index: task `t` on unit `g` runs on some
 * core of group `g`, which one is not modelled. A placement is valid when every task's group exists, is in
 * the job's partition, and each group has the cores its tasks take free now:
 *
 *     for every group g:  #{t : placement[t] = g} <= groupFree[g]
 *
 * Taking a placement subtracts these counts from `groupFree`, releasing it adds them back: O(tasks) with no
 * per-core state, where the core capacity (`allocation.ts`) writes every core, node, processor and free-core
 * tree it touches. A running job's `nodes` under this capacity are its distinct groups and `perNode` the
 * tasks on each (job records list the groups).
 *
 * **GPUs** are counted the same way: a group of nodes with GPUs holds `count x gpus per node` of its one
 * type; a job's GPUs (`Job.gpus`, in total) are placed as a group per GPU, valid when they are in a group of
 * its cores, of its type (any when it names none) and free there. They draw their type's idle power always
 * and its busy power while held (a sum over GPUs, whatever the packing).
 *
 * What it cannot answer it refuses, at construction or at submission (`unfitReason`), naming the rule:
 * - **processor power**: which nodes are idle depends on a packing the count does not have, so a platform
 *   whose processors draw power runs on the core capacity;
 * - **memory** (jobs with `mem` when memory is enforced), **`cpus_per_task`** other than 1, exact **node
 *   counts** (`nodes`), GPUs per node, and `seq` jobs of more than one task (one node's cores): the shapes
 *   a count of cores cannot guarantee;
 * - **partitions** that hold part of a group (a group is counted whole).
 *
 * `idleNodes` is the packed count `sum_g floor(groupFree[g] / coresPerNode[g])`: the nodes left empty if
 * every group's jobs were packed onto the fewest nodes (what Slurm's counted view can say).
 */
import { coversAllNodes, partitionRefusal } from '../platform/partitions.js';
import type { Platform } from '../platform/platform.js';
import type { Job } from '../workload/job.js';
import type { Capacity } from './capacity.js';

/** Cores counted per node group (see the module comment). */
export class CountedCores implements Capacity {
  /** Per group: free cores. */
  readonly groupFree: Int32Array;
  /** Per group: cores of one of its nodes. */
  readonly coresPerNode: Int32Array;
  /** Per group: all its cores. */
  readonly groupCores: Int32Array;
  freeCores: number;
  busyCores = 0;
  /** Per group: its GPUs, their type (an index into `Platform.gpuTypes`, -1: none) and how many are free. */
  readonly groupGpus: Int32Array;
  readonly groupGpuType: Int32Array;
  readonly groupFreeGpus: Int32Array;
  busyGpus = 0;
  /** The GPUs' power now (W): every GPU's idle power, and its type's busy power over it while held. */
  power = 0;
  /** Per partition that leaves groups out: which groups it holds (null: it holds every group). */
  private readonly partitionGroups: (Uint8Array | null)[];
  private readonly anyRestricted: boolean;
  // the last accepted placement's tally (groups ascending, tasks on each), and scratch counts per group
  private readonly scratch: Int32Array;
  private lastGroups: Int32Array = new Int32Array(0);
  private lastCounts: Int32Array = new Int32Array(0);
  /** Shared one-group answers: the group's `[g]`, and `[count]` arrays by count (never modified). */
  private readonly single: Int32Array[];
  /** Shared answers by size: `[k]` (a placement on one group), and per group the placement of `k` tasks there (`uniform`). */
  private readonly countArrays: (Int32Array | undefined)[] = [];
  private readonly uniformArrays: (Int32Array | undefined)[][] = [];
  /** Per group: an array of its index, of which `uniform`'s placements are views. */
  private readonly groupUnits: (Int32Array | undefined)[] = [];
  private readonly answer: { nodes: Int32Array; perNode: Int32Array } = { nodes: new Int32Array(0), perNode: new Int32Array(0) };

  constructor(
    readonly platform: Platform,
    readonly enforceMemory: boolean,
  ) {
    const G = platform.groupCount;
    if (platform.processorsDrawPower)
      throw new RangeError(
        `the counted capacity has no nodes to draw power: platform ${platform.name} gives its processors power (run it on the core capacity, capacity "cores")`,
      );
    this.coresPerNode = Int32Array.from({ length: G }, (_, g) => platform.nodeCoreCount[platform.groupFirstNode[g]!]!);
    this.groupCores = Int32Array.from({ length: G }, (_, g) => this.coresPerNode[g]! * platform.groupNodeCount[g]!);
    this.groupFree = Int32Array.from(this.groupCores);
    this.freeCores = this.groupCores.reduce((a, b) => a + b, 0);
    this.groupGpus = Int32Array.from({ length: G }, (_, g) => platform.nodeGpuCount[platform.groupFirstNode[g]!]! * platform.groupNodeCount[g]!);
    this.groupGpuType = Int32Array.from({ length: G }, (_, g) => (this.groupGpus[g]! > 0 ? platform.nodeGpuType[platform.groupFirstNode[g]!]! : -1));
    this.groupFreeGpus = Int32Array.from(this.groupGpus);
    for (let g = 0; g < G; g++) if (this.groupGpus[g]! > 0) this.power += this.groupGpus[g]! * platform.gpuTypeSpecs[this.groupGpuType[g]!]!.idlePower;
    this.partitionGroups = platform.partitions.map((q) => {
      if (coversAllNodes(q, platform.nodeCount)) return null;
      const held = new Uint8Array(G);
      for (let g = 0; g < G; g++) {
        const first = platform.groupFirstNode[g]!;
        const n = platform.groupNodeCount[g]!;
        let inside = 0;
        for (let x = first; x < first + n; x++) inside += q.nodeMask[x]!;
        if (inside !== 0 && inside !== n)
          throw new RangeError(
            `the counted capacity counts whole node groups: partition ${q.name} holds ${inside} of group ${platform.groupNames[g]}'s ${n} nodes`,
          );
        held[g] = inside === n ? 1 : 0;
      }
      return held;
    });
    this.anyRestricted = this.partitionGroups.some((m) => m !== null);
    this.scratch = new Int32Array(G);
    this.single = Array.from({ length: G }, (_, g) => Int32Array.of(g));
  }

  /** Nodes left empty with every group packed (see the module comment). */
  get idleNodes(): number {
    let n = 0;
    for (let g = 0; g < this.groupFree.length; g++) n += Math.floor(this.groupFree[g]! / this.coresPerNode[g]!);
    return n;
  }

  /**
   * The groups `job` may use (its partition's: a mask over groups), or null when it may use every group
   * (or names no known partition: `unfitReason` says so).
   */
  groupMask(job: Job): Uint8Array | null {
    if (!this.anyRestricted && job.partition === undefined) return null;
    const p = this.platform;
    const i = p.partitionOf(job);
    return typeof i === 'string' ? null : this.partitionGroups[i]!;
  }

  /** Whether group `g` has GPUs of `job`'s type (any type when it names none; true for a job without GPUs). */
  gpuTypeFits(job: Job, g: number): boolean {
    const want = job.gpus;
    if (want === undefined || want.count === 0) return true;
    const t = this.groupGpuType[g]!;
    return t >= 0 && (want.type === undefined || this.platform.gpuTypes[t] === want.type);
  }

  unfitReason(job: Job): string | null {
    if (job.gpus?.perNode === true) return 'asks for GPUs on each node; the counted capacity counts GPUs per node group, not per node';
    if (job.gpus?.dl !== undefined) return 'has deep-learning work; the counted capacity runs fixed durations';
    if (job.cpusPerTask !== undefined && job.cpusPerTask !== 1)
      return `asks for ${job.cpusPerTask} cores per task; the counted capacity runs one task per core`;
    if (this.enforceMemory && (job.mem > 0 || job.tasks?.some((t) => t.mem > 0)))
      return 'asks for memory; the counted capacity counts cores only (run it on the core capacity, or without enforcing memory)';
    if (job.type === 'seq') {
      if (job.ntasks > 1) return `is a seq job of ${job.ntasks} tasks on one node; the counted capacity does not know nodes`;
    } else if (job.nodes > 0) return `asks for exactly ${job.nodes} nodes; the counted capacity counts cores, not nodes`;
    const p = this.platform;
    let mask: Uint8Array | null = null;
    let where = 'the platform';
    if (this.anyRestricted || job.partition !== undefined) {
      const i = p.partitionOf(job);
      if (typeof i === 'string') return i;
      const q = p.partitions[i]!;
      const refusal = partitionRefusal(q, job);
      if (refusal !== null) return refusal;
      mask = this.partitionGroups[i]!;
      if (mask !== null) where = `partition ${q.name}`;
    }
    let capacity = 0;
    for (let g = 0; g < this.groupCores.length; g++) if (mask === null || mask[g]) capacity += this.groupCores[g]!;
    if (capacity < job.ntasks) return `needs ${job.ntasks} cores; ${where} offers ${capacity}`;
    const n = job.gpus?.count ?? 0;
    if (n > 0) {
      let most = 0;
      for (let g = 0; g < this.groupGpus.length; g++) if ((mask === null || mask[g]) && this.gpuTypeFits(job, g)) most = Math.max(most, this.groupGpus[g]!);
      if (most < n) return `needs ${n} GPUs${job.gpus!.type !== undefined ? ` of type ${job.gpus!.type}` : ''} in one node group; ${where} has at most ${most}`;
    }
    return null;
  }

  placementError(job: Job, placement: ArrayLike<number>): string | null {
    const k = placement.length;
    if (k !== job.ntasks) return `expected ${job.ntasks} tasks' groups, got ${k}`;
    const G = this.groupFree.length;
    const mask = this.groupMask(job);
    const g0 = placement[0]!;
    // (a placement `uniform` gave is on one group: no need to look at its tasks)
    let one = placement === this.uniformArrays[g0]?.[k];
    if (!one) {
      one = true;
      for (let t = 1; t < k; t++)
        if (placement[t] !== g0) {
          one = false;
          break;
        }
    }
    if (one) {
      if (!(Number.isInteger(g0) && g0 >= 0 && g0 < G)) return `group ${g0} does not exist`;
      if (mask !== null && !mask[g0]) return `group ${this.platform.groupNames[g0]} is not in the job's partition`;
      if (k > this.groupFree[g0]!) return `group ${this.platform.groupNames[g0]} has ${this.groupFree[g0]} cores free; the job puts ${k} tasks there`;
      this.lastGroups = this.single[g0]!;
      this.lastCounts = this.countArray(k);
      return null;
    }
    const s = this.scratch;
    s.fill(0);
    for (let t = 0; t < k; t++) {
      const g = placement[t]!;
      if (!(Number.isInteger(g) && g >= 0 && g < G)) return `group ${g} does not exist`;
      s[g]!++;
    }
    let distinct = 0;
    for (let g = 0; g < G; g++) {
      if (s[g] === 0) continue;
      if (mask !== null && !mask[g]) return `group ${this.platform.groupNames[g]} is not in the job's partition`;
      if (s[g]! > this.groupFree[g]!) return `group ${this.platform.groupNames[g]} has ${this.groupFree[g]} cores free; the job puts ${s[g]} tasks there`;
      distinct++;
    }
    const groups = new Int32Array(distinct);
    const counts = new Int32Array(distinct);
    for (let g = 0, i = 0; g < G; g++)
      if (s[g]! > 0) {
        groups[i] = g;
        counts[i++] = s[g]!;
      }
    this.lastGroups = groups;
    this.lastCounts = counts;
    return null;
  }

  private countArray(k: number): Int32Array {
    const arrays = this.countArrays;
    let a = arrays[k];
    if (a === undefined) {
      a = Int32Array.of(k);
      // (kept dense, filled up to `k`, as `uniform`'s: written far past its end it turns into a dictionary, slow to read at every start)
      while (arrays.length <= k) arrays.push(undefined);
      arrays[k] = a;
    }
    return a;
  }

  lastPlacement(): { nodes: Int32Array; perNode: Int32Array } {
    this.answer.nodes = this.lastGroups;
    this.answer.perNode = this.lastCounts;
    return this.answer;
  }

  move(_job: Job, placement: Int32Array, owner: number, from = 0): void {
    const k = placement.length;
    const sign = owner >= 0 ? -1 : 1;
    let t = from;
    // a placement `uniform` gave is on one group: no need to walk its tasks
    if (t < k && placement === this.uniformArrays[placement[0]!]?.[k]) {
      this.groupFree[placement[0]!]! += sign * (k - t);
      t = k;
    }
    while (t < k) {
      const g = placement[t]!;
      const start = t;
      while (t < k && placement[t] === g) t++;
      this.groupFree[g]! += sign * (t - start);
    }
    const n = k - from;
    this.freeCores += sign * n;
    this.busyCores -= sign * n;
  }

  gpuPlacementError(job: Job, gpus: ArrayLike<number>): string | null {
    const n = job.gpus?.count ?? 0;
    if (gpus.length !== n) return `expected ${n} GPUs' groups, got ${gpus.length}`;
    if (n === 0) return null;
    const groups = this.lastGroups;
    const s = this.scratch;
    s.fill(0);
    for (let i = 0; i < n; i++) {
      const g = gpus[i]!;
      if (!groups.includes(g)) return `GPU group ${g} is not a group of the job's cores`;
      if (!this.gpuTypeFits(job, g)) return `group ${this.platform.groupNames[g]} has no GPUs of type ${job.gpus!.type}`;
      s[g]!++;
    }
    for (const g of groups)
      if (s[g]! > this.groupFreeGpus[g]!) return `group ${this.platform.groupNames[g]} has ${this.groupFreeGpus[g]} GPUs free; the job takes ${s[g]} there`;
    return null;
  }

  moveGpus(gpus: Int32Array, owner: number): void {
    const sign = owner >= 0 ? -1 : 1;
    const specs = this.platform.gpuTypeSpecs;
    for (let i = 0; i < gpus.length; i++) {
      const g = gpus[i]!;
      this.groupFreeGpus[g]! += sign;
      const t = specs[this.groupGpuType[g]!]!;
      this.power -= sign * (t.busyPower - t.idlePower);
    }
    this.busyGpus -= sign * gpus.length;
  }

  /** No power to stop drawing (see the module comment): nothing changes. */
  pause(): void {}

  /** Held GPUs (a group each) stop drawing their busy power (`paused`), or draw it again: only the power moves. */
  pauseGpus(gpus: Int32Array, paused: boolean): void {
    const specs = this.platform.gpuTypeSpecs;
    for (let i = 0; i < gpus.length; i++) {
      const t = specs[this.groupGpuType[gpus[i]!]!]!;
      this.power += (paused ? -1 : 1) * (t.busyPower - t.idlePower);
    }
  }

  takeCore(unit: number): void {
    this.groupFree[unit]!--;
    this.freeCores--;
    this.busyCores++;
  }

  releaseCore(unit: number): void {
    this.groupFree[unit]!++;
    this.freeCores++;
    this.busyCores--;
  }

  /**
   * The placement of `k` tasks all on group `g`: one shared array per group and size (placements are never
   * modified once given, `Capacity.lastPlacement`), so that starts allocate nothing.
   */
  uniform(g: number, k: number): Int32Array {
    let byK = this.uniformArrays[g];
    if (byK === undefined) {
      byK = [];
      this.uniformArrays[g] = byK;
    }
    let a = byK[k];
    if (a === undefined) {
      // a view of `k` units of the group's one array of its index (a run of jobs of thousands of sizes makes
      // thousands of views, not thousands of arrays of their sizes to fill)
      let units = this.groupUnits[g];
      if (units === undefined || units.length < k) {
        units = new Int32Array(Math.max(k, this.groupCores[g]!, this.groupGpus[g]!)).fill(g);
        this.groupUnits[g] = units;
      }
      a = units.subarray(0, k);
      // (kept dense, filled up to `k`: an array written far past its end turns into a dictionary, slow to read)
      while (byK.length <= k) byK.push(undefined);
      byK[k] = a;
    }
    return a;
  }

  /**
   * A placement of `job`'s tasks on the groups of `order` that `off` does not mark (null: none), taking
   * each group's free cores in turn (`within: 'group'` callers give one group), or null when they hold too
   * few. Partition masks are the caller's (it passes the job's groups).
   */
  place(job: Job, order: readonly number[], off: Uint8Array | null = null): Int32Array | null {
    const n = job.ntasks;
    let have = 0;
    for (const g of order) if (off === null || !off[g]) have += this.groupFree[g]!;
    if (have < n) return null;
    const out = new Int32Array(n);
    let at = 0;
    for (const g of order) {
      if (off?.[g]) continue;
      const take = Math.min(this.groupFree[g]!, n - at);
      out.fill(g, at, at + take);
      at += take;
      if (at === n) break;
    }
    return out;
  }
}
