/**
 * The compiled platform: the tree platform > clusters > nodes > processors > cores flattened into
 * dense typed arrays indexed by stable integer ids (cores `0..coreCount-1` in platform order,
 * likewise processors and nodes). The simulator, the schedulers and the observation builders read
 * these arrays directly; nothing walks an object tree on the hot path.
 */

import type { ZoneDescription } from './network.js';

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

/**
 * One power state of a SimGrid host: its speed (flop/s per core) and, when the platform gives them
 * (`wattage_per_state`), its power when idle, with one core busy ("epsilon") and with all cores busy, W.
 */
export interface PowerStateDescription {
  speed: number;
  idle?: number | undefined;
  epsilon?: number | undefined;
  all_cores?: number | undefined;
}

/** One node as described in a platform file (after expansion of counts). */
export interface NodeDescription {
  /** Path segment of this node, e.g. `node3` or the id given in the file. */
  name: string;
  type?: string | undefined;
  memory_gb: number;
  comm_bw: number;
  processors: ProcessorDescription[];
  /** SimGrid hosts: every power state (the processors describe the current one, `pstate`). */
  pstates?: PowerStateDescription[] | undefined;
  /** Index of the current power state in `pstates`. */
  pstate?: number | undefined;
  /** SimGrid's `wattage_off`: power of the host when switched off, W. */
  wattage_off?: number | undefined;
  /** Free-form properties (SimGrid `<prop>`), e.g. Batsim's `role`. */
  properties?: Record<string, string> | undefined;
}

/** A cluster as described in a platform file. */
export interface ClusterDescription {
  name: string;
  nodes: NodeDescription[];
}

/** The whole platform description, format-independent (every loader produces it). */
export interface PlatformDescription {
  name: string;
  models: ModelsConfig;
  clusters: ClusterDescription[];
  /** The interconnect (network zones, links, routes); absent: nodes are linked by their `comm_bw` only. */
  network?: ZoneDescription | undefined;
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
  /** Per node: memory capacity in MB, link bandwidth in bytes/s, peak speed (sum of core mops). */
  readonly nodeMemoryMb: Float64Array;
  readonly nodeCommBw: Float64Array;
  readonly nodeMops: Float64Array;
  readonly nodeName: string[];
  readonly nodeType: (string | undefined)[];

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

  /** Largest number of cores of one node, and total memory. */
  readonly maxNodeCores: number;
  readonly maxNodeMemoryMb: number;

  private constructor(d: PlatformDescription) {
    this.description = d;
    this.name = d.name;
    this.models = { ...d.models };
    this.clusterNames = d.clusters.map((c) => c.name);
    let nN = 0;
    let nP = 0;
    let nC = 0;
    for (const c of d.clusters)
      for (const n of c.nodes) {
        nN++;
        for (const p of n.processors) {
          nP++;
          nC += p.cores;
        }
      }
    this.nodeCount = nN;
    this.procCount = nP;
    this.coreCount = nC;
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
    let maxCores = 0;
    let maxMem = 0;
    d.clusters.forEach((c, ci) => {
      for (const n of c.nodes) {
        this.nodeCluster[node] = ci;
        this.nodeFirstCore[node] = core;
        this.nodeFirstProc[node] = proc;
        this.nodeMemoryMb[node] = n.memory_gb * MB_PER_GB;
        this.nodeCommBw[node] = n.comm_bw;
        this.nodeName.push(n.name);
        this.nodeType.push(n.type);
        let nodeCores = 0;
        let nodeMops = 0;
        for (const p of n.processors) {
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
          for (let k = 0; k < p.cores; k++) {
            this.coreNode[core] = node;
            this.coreProc[core] = proc;
            this.coreMops[core] = mops;
            core++;
          }
          nodeCores += p.cores;
          nodeMops += mops * p.cores;
          proc++;
        }
        this.nodeCoreCount[node] = nodeCores;
        this.nodeProcCount[node] = n.processors.length;
        this.nodeMops[node] = nodeMops;
        if (nodeCores > maxCores) maxCores = nodeCores;
        if (n.memory_gb * MB_PER_GB > maxMem) maxMem = n.memory_gb * MB_PER_GB;
        node++;
      }
    });
    this.maxNodeCores = maxCores;
    this.maxNodeMemoryMb = maxMem;
  }

  /** Compiles a description; `models` (partial) overrides the description's models. */
  static fromDescription(d: PlatformDescription, models?: Partial<ModelsConfig>): Platform {
    return new Platform(models ? { ...d, models: { ...d.models, ...models } } : d);
  }

  /** A copy of this platform simulated with other models. */
  withModels(models: Partial<ModelsConfig>): Platform {
    return Platform.fromDescription(this.description, { ...this.models, ...models });
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

  /** Total peak power (all cores busy), W. */
  maxPower(): number {
    let w = 0;
    for (let p = 0; p < this.procCount; p++) w += this.procStaticPower[p]! + this.procDynamicPower[p]! * this.procCoreCount[p]!;
    return w;
  }
}
