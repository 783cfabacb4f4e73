/**
 * Jobs on specific nodes (`nodeSelect`): what each node has free (`NodeMap`: units, which are CPUs, or
 * whole nodes of one unit on a whole-node platform, memory, and GPUs: issue 45), what each running job holds there, and
 * which nodes a job gets, as Slurm 22.05's select plugin chooses them without topology, node weights or
 * GRES placement (`evalNodes`: cons_tres `choose_nodes` and `_eval_nodes`, then the job's tasks' CPUs on each
 * node, `dist_tasks`; `pickNodes`, the whole-node case), and which requests it can never place (`refusal`).
 * GPUs (`--gres=gpu[:TYPE]:N`, N on each node of the job) only make a node usable or not: a node is usable
 * by a GPU job when it has N GPUs of the job's type free (`NodeMap.gpusFor`: `usableGpus`, `usableUnits`).
 *
 * Node order is the platform's: groups in order, the nodes of a group consecutive (slurm.conf order when
 * each group's nodes are consecutive there, as on the measured clusters). A job's candidate nodes are
 * those of its partition's groups, in that order; consecutive runs of usable nodes do not cross a node
 * outside the partition. The selection itself is written once, as pure functions, in
 * src/scheduling/nodeSelection.ts (the one engine's Slurm selection uses it too).
 */
import type { JobShape } from './config.js';
import {
  evalNodes,
  giveBack,
  type NodeAlloc,
  type NodeRequest,
  allocOf,
  neverPlaced,
  nodeRequestOf,
  usableGpus,
  usableUnits,
} from '../scheduling/nodeSelection.js';

export { allocOf, evalNodes, type NodeAlloc, type NodeRequest, pickNodes, usableUnits } from '../scheduling/nodeSelection.js';
import type { SlurmPlatform } from './platform.js';

/** Which nodes hold what (see the module comment). */
export class NodeMap {
  /** First node of each group, and the node count at the end (`base[G]`). */
  readonly base: Int32Array;
  /** The group of each node. */
  readonly groupOf: Int32Array;
  /** Units (CPUs, or 1 for a whole node) and memory (MB; Infinity: not consumable) of each node. */
  readonly cap: Int32Array;
  readonly memCap: Float64Array;
  /** Units and memory free on each node now. */
  readonly free: Int32Array;
  readonly memFree: Float64Array;
  /** GPUs of each node, their type (index into the platform's `gpuTypes`, -1: none) and GPUs free now. */
  readonly gpuCap: Int32Array;
  readonly gpuTypeOf: Int32Array;
  readonly gpuFree: Int32Array;
  /** Jobs on each node. */
  readonly jobsOn: Int32Array;
  /** The slot holding each node whole (-1: none). */
  readonly slotOn: Int32Array;
  /** What each running slot holds. */
  readonly held = new Map<number, NodeAlloc>();
  /** Per partition: its nodes (ascending). */
  readonly partitionNodes: Int32Array[];

  /** Nodes as the platform's groups give them (a whole-node platform's groups are nodes of one unit). */
  constructor(platform: SlurmPlatform) {
    const G = platform.groupNames.length;
    this.base = new Int32Array(G + 1);
    for (let g = 0; g < G; g++) this.base[g + 1] = this.base[g]! + platform.nodes[g]!;
    const N = this.base[G]!;
    this.groupOf = new Int32Array(N);
    this.cap = new Int32Array(N);
    this.memCap = new Float64Array(N);
    this.gpuCap = new Int32Array(N);
    this.gpuTypeOf = new Int32Array(N);
    for (let g = 0; g < G; g++)
      for (let x = this.base[g]!; x < this.base[g + 1]!; x++) {
        this.groupOf[x] = g;
        this.cap[x] = platform.coresPerNode[g]!;
        this.memCap[x] = platform.memoryPerNode[g]!;
        this.gpuCap[x] = platform.gpusPerNode[g]!;
        this.gpuTypeOf[x] = platform.groupGpuType[g]!;
      }
    this.free = Int32Array.from(this.cap);
    this.memFree = Float64Array.from(this.memCap);
    this.gpuFree = Int32Array.from(this.gpuCap);
    this.jobsOn = new Int32Array(N);
    this.slotOn = new Int32Array(N).fill(-1);
    this.partitionNodes = platform.partitions.map((p) => {
      const xs: number[] = [];
      for (const g of [...p.groups].sort((a, b) => a - b)) for (let x = this.base[g]!; x < this.base[g + 1]!; x++) xs.push(x);
      return Int32Array.from(xs);
    });
  }

  /** Whether node `x` runs nothing. */
  idle(x: number): boolean {
    return this.jobsOn[x] === 0;
  }

  /** Gives slot `s` the allocation `a` (its units and memory must be free, its nodes not held whole). */
  assign(s: number, a: NodeAlloc, id: (slot: number) => number): void {
    for (let i = 0; i < a.nodes.length; i++) {
      const x = a.nodes[i]!;
      if (this.slotOn[x]! >= 0) throw new Error(`nodeSelect: job ${id(s)} given node ${x}, which job ${id(this.slotOn[x]!)} holds`);
      if (a.whole && this.jobsOn[x]! > 0) throw new Error(`nodeSelect: job ${id(s)} given node ${x} whole, which runs another job`);
      if (this.free[x]! < a.units[i]!) throw new Error(`nodeSelect: job ${id(s)} given ${a.units[i]} units of node ${x}, which has ${this.free[x]} free`);
      if (this.gpuFree[x]! < a.gpus[i]!) throw new Error(`nodeSelect: job ${id(s)} given ${a.gpus[i]} GPUs of node ${x}, which has ${this.gpuFree[x]} free`);
      this.free[x]! -= a.units[i]!;
      this.memFree[x]! -= a.mem[i]!;
      this.gpuFree[x]! -= a.gpus[i]!;
      this.jobsOn[x]! += 1;
      if (a.whole) this.slotOn[x] = s;
    }
    this.held.set(s, a);
  }

  /**
   * What a job of `units` units in partition `part` asks of the nodes: its `shape`, or by default whole nodes
   * (`units` of them) when the partition's nodes are one unit each (a whole-node platform), else `units`
   * units anywhere; with `gpus` GPUs (of type `gpuType`, -1: any) on each of its nodes.
   */
  request(units: number, part: number, shape: JobShape, gpus = 0, gpuType = -1): NodeRequest {
    return nodeRequestOf(
      units,
      this.partitionNodes[part]!.every((x) => this.cap[x] === 1),
      shape,
      gpus,
      gpuType,
    );
  }

  /** GPUs of node `x` that `req` may use when `free` of them are free: `free`, or 0 when they are not of its type or it asks for none. */
  gpusFor(req: NodeRequest, x: number, free: number): number {
    return usableGpus(req, this.gpuTypeOf[x]!, free);
  }

  /**
   * Where the select plugin would put `req` now among the nodes of partition `part` (but those of groups `off` and
   * the nodes with `offNodes[x] > 0`), or null.
   */
  fit(req: NodeRequest, part: number, off: Uint8Array | null = null, offNodes: Int32Array | null = null): NodeAlloc | null {
    const P = this.partitionNodes[part]!;
    const avail = Int32Array.from(P, (x) =>
      off?.[this.groupOf[x]!] || (offNodes !== null && offNodes[x]! > 0)
        ? 0
        : usableUnits(req, this.cap[x]!, this.free[x]!, this.memFree[x]!, this.jobsOn[x] === 0, this.gpusFor(req, x, this.gpuFree[x]!)),
    );
    const pick = evalNodes(avail, req);
    return pick === null ? null : allocOf(req, pick, P, this);
  }

  /** Why the select plugin can never place `req` among the nodes of partition `part` (all idle), or null (`neverPlaced`). */
  refusal(req: NodeRequest, part: number): string | null {
    const P = this.partitionNodes[part]!;
    return neverPlaced(
      Int32Array.from(P, (x) => usableUnits(req, this.cap[x]!, this.cap[x]!, this.memCap[x]!, true, this.gpusFor(req, x, this.gpuCap[x]!))),
      req,
    );
  }

  /** Whether `req` would fit among the nodes of partition `part` with the jobs of `slots` gone. */
  fitsWithout(req: NodeRequest, part: number, slots: readonly number[]): boolean {
    const P = this.partitionNodes[part]!;
    const at = new Map<number, number>();
    for (let i = 0; i < P.length; i++) at.set(P[i]!, i);
    const free = Int32Array.from(P, (x) => this.free[x]!);
    const mem = Float64Array.from(P, (x) => this.memFree[x]!);
    const jobs = Int32Array.from(P, (x) => this.jobsOn[x]!);
    const gpus = Int32Array.from(P, (x) => this.gpuFree[x]!);
    for (const s of slots) giveBack(this.held.get(s)!, at, free, mem, jobs, gpus);
    return (
      evalNodes(
        Int32Array.from(P, (x, i) => usableUnits(req, this.cap[x]!, free[i]!, mem[i]!, jobs[i] === 0, this.gpusFor(req, x, gpus[i]!))),
        req,
      ) !== null
    );
  }

  /** Frees what slot `s` holds (if anything). */
  release(s: number): void {
    const a = this.held.get(s);
    if (a === undefined) return;
    for (let i = 0; i < a.nodes.length; i++) {
      const x = a.nodes[i]!;
      this.free[x]! += a.units[i]!;
      this.memFree[x]! += a.mem[i]!;
      this.gpuFree[x]! += a.gpus[i]!;
      this.jobsOn[x]! -= 1;
      if (this.slotOn[x] === s) this.slotOn[x] = -1;
    }
    this.held.delete(s);
  }
}

/** Whole nodes `nodes` (global indices) of a whole-node platform (one unit each) as an allocation. */
export function wholeAlloc(nodes: Int32Array, nm: NodeMap): NodeAlloc {
  return {
    nodes,
    units: Int32Array.from(nodes, (x) => nm.cap[x]!),
    mem: Float64Array.from(nodes, (x) => (Number.isFinite(nm.memCap[x]!) ? nm.memCap[x]! : 0)),
    gpus: Int32Array.from(nodes, (x) => nm.gpuCap[x]!),
    whole: true,
  };
}
