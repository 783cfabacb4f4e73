/**
 * The compiled platform: the tree platform > clusters > node groups > nodes > processors > cores
 * flattened into dense typed arrays indexed by stable integer ids (cores `0..coreCount-1` in platform
 * order, likewise processors, nodes and groups). The simulator, the schedulers and the observation
 * builders read these arrays directly; nothing walks an object tree on the hot path.
 *
 * A node group (`nodeGroups.ts`) is `count` identical nodes described once; the platform keeps one
 * description per group, never one per node. Each node has a resource vector (cores, memory in MB,
 * GPUs; `resources.ts` sums them), power states (`powerStates.ts`, per group) and belongs to partitions
 * (`partitions.ts`). `views.ts` shows a platform as node counts per group (the Slurm model's view) or
 * as CPU and memory vectors per host (the fairness preset's), and builds platforms from those.
 */

import { compileGpuTypes, type GpuDescription, type GpuTypeSpec } from './gpus.js';
import type { ZoneDescription } from './network.js';
import { type NodeNaming, nodeNameOf } from './nodeGroups.js';
import { compilePartitions, defaultPartitionIndex, type Partition, type PartitionDescription, type PartitionRequest, requestPartition } from './partitions.js';
import { nodePowerStates, type PowerStateDescription, type PState } from './powerStates.js';

export type { GpuDescription } from './gpus.js';
export type { PowerStateDescription } from './powerStates.js';

/** IRMaSim modelV1 memory-contention coefficients of a processor. */
export interface ContentionCoefficients {
  b: number;
  c: number;
  da: number;
  db: number;
  dc: number;
  dd: number;
}

/** Memory-contention model: IRMaSim's modelV1 or none. */
export type MemoryModelName = 'irmasim-v1' | 'none';
/** Communication-contention model (DESIGN §2.3). */
export type CommModelName = 'step' | 'shared' | 'flow';

/** The models a platform is simulated with; overridable from the CLI and the env config. */
export interface ModelsConfig {
  memory: MemoryModelName;
  comm: CommModelName;
  /** Speed factor of communication under the `step` model when a node's link is saturated. */
  comm_penalty: number;
}

export const DEFAULT_MODELS: ModelsConfig = { memory: 'irmasim-v1', comm: 'shared', comm_penalty: 0.8 };
/** Default node link bandwidth, bytes/s (1 Gb/s Ethernet). */
export const DEFAULT_COMM_BW = 125e6;
/** Memory of a node whose source does not give one, GB (SimGrid hosts, trace and node-group platforms). */
export const DEFAULT_NODE_MEMORY_GB = 1024;
/** MB per GB used to compare task memory (MB) with node capacity (GB). */
export const MB_PER_GB = 1024;

/** One processor as described in a platform file (after defaults). */
export interface ProcessorDescription {
  cores: number;
  clock_rate: number;
  dpflops_per_cycle: number;
  static_power: number;
  dynamic_power: number;
  min_power: number;
  contention: ContentionCoefficients | null;
  type?: string | undefined;
}

/** One node as described in a platform file: the template every node of its group shares. */
export interface NodeDescription {
  type?: string | undefined;
  memory_gb: number;
  comm_bw: number;
  processors: ProcessorDescription[];
  /** GPUs of the node (absent: none). */
  gpus?: GpuDescription | undefined;
  /** SimGrid hosts: every power state (the processors describe the current one, `pstate`). */
  pstates?: PowerStateDescription[] | undefined;
  /** Index of the current power state in `pstates`. */
  pstate?: number | undefined;
  /** SimGrid's `wattage_off`: power of the host when switched off, W. */
  wattage_off?: number | undefined;
  /** Free-form properties (SimGrid `<prop>`), e.g. Batsim's `role`. */
  properties?: Record<string, string> | undefined;
}

/** A node group: `count` identical nodes described once (`nodeGroups.ts`); a node alone is a group of one. */
export interface NodeGroupDescription extends NodeDescription {
  /** The group's name (the file's `group`, else its `id`, else `implicitGroupName`). */
  name: string;
  /** Number of nodes. */
  count: number;
  /** How its nodes are named. */
  naming: NodeNaming;
}

/** A cluster as described in a platform file: its node groups, in platform order. */
export interface ClusterDescription {
  name: string;
  groups: NodeGroupDescription[];
}

/** The whole platform description, format-independent (every loader produces it). */
export interface PlatformDescription {
  name: string;
  models: ModelsConfig;
  clusters: ClusterDescription[];
  /** The interconnect (network zones, links, routes); absent: nodes are linked by their `comm_bw` only. */
  network?: ZoneDescription | undefined;
  /** Partitions (`partitions.ts`); absent or empty: one implicit partition of all nodes. */
  partitions?: PartitionDescription[] | undefined;
}

/** Core speed in millions of operations per second: `clock_rate * dpflops_per_cycle * 1e3`. */
export function processorMops(p: { clock_rate: number; dpflops_per_cycle: number }): number {
  return p.clock_rate * p.dpflops_per_cycle * 1e3;
}

/** A platform compiled to dense arrays. Construct with `Platform.fromDescription`. */
export class Platform {
  readonly name: string;
  readonly models: ModelsConfig;
  readonly description: PlatformDescription;

  readonly clusterNames: string[];
  readonly nodeCount: number;
  readonly procCount: number;
  readonly coreCount: number;

  /** Per node: its cluster index, first core id, number of cores, first processor id, number of processors. */
  readonly nodeCluster: Int32Array;
  readonly nodeFirstCore: Int32Array;
  readonly nodeCoreCount: Int32Array;
  readonly nodeFirstProc: Int32Array;
  readonly nodeProcCount: Int32Array;
  /**
   * Per node: memory capacity in MB (Infinity: not a consumable resource, no job's memory ever binds there:
   * a Slurm group without `memory_mb` under the Slurm preset, `platformFromNodeGroups`), link bandwidth in
   * bytes/s, peak speed (sum of core mops).
   */
  readonly nodeMemoryMb: Float64Array;
  readonly nodeCommBw: Float64Array;
  readonly nodeMops: Float64Array;
  readonly nodeName: string[];
  readonly nodeType: (string | undefined)[];
  /** Per node: its GPUs and their type (an index into `gpuTypes`, -1 without GPUs). */
  readonly nodeGpuCount: Int32Array;
  readonly nodeGpuType: Int32Array;
  /** Per node: the id of its first GPU (GPU ids are dense over the platform, a node's consecutive); per GPU: its node. */
  readonly nodeFirstGpu: Int32Array;
  readonly gpuNode: Int32Array;
  /** GPU types, in order of first appearance. */
  readonly gpuTypes: string[];
  /** Per GPU type (as `gpuTypes`): its count, memory and power (`gpus.ts`). */
  readonly gpuTypeSpecs: readonly GpuTypeSpec[];

  /** Node groups (`nodeGroups.ts`): per node its group; per group its name, cluster, first node and node count. */
  readonly groupCount: number;
  readonly nodeGroup: Int32Array;
  readonly groupNames: string[];
  readonly groupCluster: Int32Array;
  readonly groupFirstNode: Int32Array;
  readonly groupNodeCount: Int32Array;
  /** Per group: its description (the template of its nodes). */
  readonly groups: readonly NodeGroupDescription[];

  /** Per processor: its node, first core, core count, core speed (mops), power figures, contention coefficients. */
  readonly procNode: Int32Array;
  readonly procFirstCore: Int32Array;
  readonly procCoreCount: Int32Array;
  readonly procMops: Float64Array;
  /** Per processor: clock rate, GHz. */
  readonly procClockRate: Float64Array;
  readonly procStaticPower: Float64Array;
  readonly procDynamicPower: Float64Array;
  readonly procMinPower: Float64Array;
  readonly procContention: (ContentionCoefficients | null)[];

  /** Per core: its node, its processor, its speed (mops). */
  readonly coreNode: Int32Array;
  readonly coreProc: Int32Array;
  readonly coreMops: Float64Array;

  /** Largest number of cores, memory (MB) and GPUs of one node. */
  readonly maxNodeCores: number;
  readonly maxNodeMemoryMb: number;
  readonly maxNodeGpus: number;
  /** Total memory (MB) and GPUs. */
  readonly totalMemoryMb: number;
  readonly gpuCount: number;

  /** Partitions (`partitions.ts`; one implicit `all` when the description has none) and the default one. */
  readonly partitions: readonly Partition[];
  readonly defaultPartition: number;
  /** Partition index by name. */
  private readonly partitionByName: ReadonlyMap<string, number>;
  /** The partition `partitionOf` found by name last, and its index. */
  private lastPartitionName: string | undefined = undefined;
  private lastPartitionIndex = -1;
  /** Whether some processor draws power (static, dynamic or idle): a platform without power figures says no. */
  readonly processorsDrawPower: boolean;

  /** Per group: its power states, computed on first use (`powerStates`). */
  private readonly groupPStates: (readonly PState[] | undefined)[];

  private constructor(d: PlatformDescription, where?: string) {
    this.description = d;
    this.name = d.name;
    this.models = { ...d.models };
    this.clusterNames = d.clusters.map((c) => c.name);
    this.groups = d.clusters.flatMap((c) => c.groups);
    let nN = 0;
    let nP = 0;
    let nC = 0;
    for (const g of this.groups) {
      nN += g.count;
      nP += g.count * g.processors.length;
      for (const p of g.processors) nC += g.count * p.cores;
    }
    const nG = this.groups.length;
    this.nodeCount = nN;
    this.procCount = nP;
    this.coreCount = nC;
    this.groupCount = nG;
    this.nodeCluster = new Int32Array(nN);
    this.nodeFirstCore = new Int32Array(nN);
    this.nodeCoreCount = new Int32Array(nN);
    this.nodeFirstProc = new Int32Array(nN);
    this.nodeProcCount = new Int32Array(nN);
    this.nodeMemoryMb = new Float64Array(nN);
    this.nodeCommBw = new Float64Array(nN);
    this.nodeMops = new Float64Array(nN);
    this.nodeName = [];
    this.nodeType = [];
    this.nodeGpuCount = new Int32Array(nN);
    this.nodeGpuType = new Int32Array(nN);
    this.nodeFirstGpu = new Int32Array(nN);
    this.gpuTypeSpecs = compileGpuTypes(this.groups, where);
    this.gpuTypes = this.gpuTypeSpecs.map((t) => t.name);
    this.nodeGroup = new Int32Array(nN);
    this.groupNames = this.groups.map((g) => g.name);
    this.groupCluster = new Int32Array(nG);
    this.groupFirstNode = new Int32Array(nG);
    this.groupNodeCount = new Int32Array(nG);
    this.groupPStates = new Array<readonly PState[] | undefined>(nG).fill(undefined);
    this.procNode = new Int32Array(nP);
    this.procFirstCore = new Int32Array(nP);
    this.procCoreCount = new Int32Array(nP);
    this.procMops = new Float64Array(nP);
    this.procClockRate = new Float64Array(nP);
    this.procStaticPower = new Float64Array(nP);
    this.procDynamicPower = new Float64Array(nP);
    this.procMinPower = new Float64Array(nP);
    this.procContention = [];
    this.coreNode = new Int32Array(nC);
    this.coreProc = new Int32Array(nC);
    this.coreMops = new Float64Array(nC);
    let node = 0;
    let proc = 0;
    let core = 0;
    let group = 0;
    let maxCores = 0;
    let maxMem = 0;
    let maxGpus = 0;
    let totalMem = 0;
    let gpus = 0;
    d.clusters.forEach((c, ci) => {
      for (const g of c.groups) {
        this.groupCluster[group] = ci;
        this.groupFirstNode[group] = node;
        this.groupNodeCount[group] = g.count;
        const memoryMb = g.memory_gb * MB_PER_GB;
        const gpuCount = g.gpus?.count ?? 0;
        const gpuType = g.gpus && gpuCount > 0 ? this.gpuTypes.indexOf(g.gpus.type) : -1;
        for (let k = 0; k < g.count; k++) {
          this.nodeGroup[node] = group;
          this.nodeCluster[node] = ci;
          this.nodeFirstCore[node] = core;
          this.nodeFirstProc[node] = proc;
          this.nodeMemoryMb[node] = memoryMb;
          this.nodeCommBw[node] = g.comm_bw;
          this.nodeGpuCount[node] = gpuCount;
          this.nodeGpuType[node] = gpuType;
          this.nodeFirstGpu[node] = gpus;
          this.nodeName.push(nodeNameOf(g.naming, k));
          this.nodeType.push(g.type);
          let nodeCores = 0;
          let nodeMops = 0;
          for (const p of g.processors) {
            const mops = processorMops(p);
            this.procNode[proc] = node;
            this.procFirstCore[proc] = core;
            this.procCoreCount[proc] = p.cores;
            this.procMops[proc] = mops;
            this.procClockRate[proc] = p.clock_rate;
            this.procStaticPower[proc] = p.static_power;
            this.procDynamicPower[proc] = p.dynamic_power;
            this.procMinPower[proc] = p.min_power;
            this.procContention.push(p.contention);
            this.coreNode.fill(node, core, core + p.cores);
            this.coreProc.fill(proc, core, core + p.cores);
            this.coreMops.fill(mops, core, core + p.cores);
            core += p.cores;
            nodeCores += p.cores;
            nodeMops += mops * p.cores;
            proc++;
          }
          this.nodeCoreCount[node] = nodeCores;
          this.nodeProcCount[node] = g.processors.length;
          this.nodeMops[node] = nodeMops;
          if (nodeCores > maxCores) maxCores = nodeCores;
          if (memoryMb > maxMem) maxMem = memoryMb;
          if (gpuCount > maxGpus) maxGpus = gpuCount;
          totalMem += memoryMb;
          gpus += gpuCount;
          node++;
        }
        group++;
      }
    });
    this.maxNodeCores = maxCores;
    this.maxNodeMemoryMb = maxMem;
    this.maxNodeGpus = maxGpus;
    this.totalMemoryMb = totalMem;
    this.gpuCount = gpus;
    this.gpuNode = new Int32Array(gpus);
    for (let n = 0; n < node; n++) this.gpuNode.fill(n, this.nodeFirstGpu[n]!, this.nodeFirstGpu[n]! + this.nodeGpuCount[n]!);
    this.partitions = compilePartitions(d.partitions, this, where);
    this.defaultPartition = defaultPartitionIndex(this.partitions);
    this.partitionByName = new Map(this.partitions.map((q, i) => [q.name, i]));
    let powered = false;
    for (let q = 0; q < nP && !powered; q++) powered = this.procStaticPower[q] !== 0 || this.procDynamicPower[q] !== 0 || this.procMinPower[q] !== 0;
    this.processorsDrawPower = powered;
  }

  /**
   * Compiles a description; `models` (partial) overrides the description's models. `where` (the file)
   * names the description in errors (partitions naming unknown groups or nodes).
   */
  static fromDescription(d: PlatformDescription, models?: Partial<ModelsConfig>, where?: string): Platform {
    return new Platform(models ? { ...d, models: { ...d.models, ...models } } : d, where);
  }

  /** A copy of this platform simulated with other models. */
  withModels(models: Partial<ModelsConfig>): Platform {
    return Platform.fromDescription(this.description, { ...this.models, ...models });
  }

  /** The description of node `node` (its group's template). */
  nodeDescription(node: number): NodeGroupDescription {
    return this.groups[this.nodeGroup[node]!]!;
  }

  /** Index of the partition named `name`, or -1. */
  partitionIndex(name: string): number {
    return this.partitionByName.get(name) ?? -1;
  }

  /**
   * The index of the partition `job` runs in: its `partition` (by name), else the default one; a sentence
   * saying why when it names none of them (`requestPartition` over this platform's partitions).
   */
  partitionOf(job: PartitionRequest): number | string {
    const name = job.partition;
    if (name === undefined) return this.defaultPartition;
    // (most jobs name the partition the last one named: no lookup by name)
    if (name === this.lastPartitionName) return this.lastPartitionIndex;
    const i = this.partitionByName.get(name);
    if (i === undefined) return requestPartition(this.partitions, this.defaultPartition, job);
    this.lastPartitionName = name;
    this.lastPartitionIndex = i;
    return i;
  }

  /**
   * The power states of node `node` (`powerStates.ts`): its SimGrid power states with Batsim's
   * `sleep_pstates`, else one compute state from its processors; the same array for every node of a
   * group. An `InputError` names the node when its `sleep_pstates` is malformed.
   */
  powerStates(node: number): readonly PState[] {
    const g = this.nodeGroup[node]!;
    let states = this.groupPStates[g];
    if (states === undefined) {
      states = nodePowerStates(this.groups[g]!, this.nodeName[node]!, this.coreMops[this.nodeFirstCore[node]!]! * 1e6);
      this.groupPStates[g] = states;
    }
    return states;
  }

  /** The power state node `node` starts in (SimGrid's `pstate`, default 0). */
  initialPState(node: number): number {
    return this.nodeDescription(node).pstate ?? 0;
  }

  /** Dotted path of a node: `platform.cluster0.node3`. */
  nodePath(node: number): string {
    return `platform.${this.clusterNames[this.nodeCluster[node]!]}.${this.nodeName[node]}`;
  }

  /** Dotted path of a processor: `platform.cluster0.node3.processor1`. */
  procPath(proc: number): string {
    const node = this.procNode[proc]!;
    return `${this.nodePath(node)}.processor${proc - this.nodeFirstProc[node]!}`;
  }

  /** Dotted path of a core: `platform.cluster0.node3.processor0.core5` (core index within its processor). */
  corePath(core: number): string {
    const proc = this.coreProc[core]!;
    return `${this.procPath(proc)}.core${core - this.procFirstCore[proc]!}`;
  }

  /** Total peak power (all cores and GPUs busy), W. */
  maxPower(): number {
    let w = 0;
    for (let p = 0; p < this.procCount; p++) w += this.procStaticPower[p]! + this.procDynamicPower[p]! * this.procCoreCount[p]!;
    for (const t of this.gpuTypeSpecs) w += t.busyPower * t.count;
    return w;
  }

  /** Index of the GPU type named `name` in `gpuTypes`, or -1. */
  gpuTypeIndex(name: string): number {
    return this.gpuTypes.indexOf(name);
  }
}
