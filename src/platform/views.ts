/**
 * Views of a platform for code that wants node counts or host vectors, and platforms built from them.
 *
 * - **Node groups** (`nodeGroupView`): per group its nodes, cores per node and cores, and the partitions
 *   over groups, with the fields and defaults of the Slurm model's `SlurmPlatform`
 *   (src/slurm/platform.ts; a partition's `max_nodes` defaults to its largest group there). Built the
 *   other way by `platformFromNodeGroups` from a `SlurmPlatformSpec`-shaped object, which
 *   `parsePlatform` also reads as a platform file (`data/platforms/slurm-raijin.json`):
 *
 *   ```json
 *   { "groups": [{ "name": "raijin", "count": 3600, "cores": 16 }],
 *     "partitions": [{ "name": "normal", "groups": ["raijin"], "max_time": 172800 }] }
 *   ```
 *
 *   Its nodes have one processor of `cores` cores at 1 GHz x 1 operation per cycle, no power figures,
 *   a group's `memory_mb` MB of memory (absent: 1024 GB) and are named `<group>0`, `<group>1`, ...;
 *   a group may carry `gpus` (`gpus.ts`: a slurm.conf's `Gres=gpu:TYPE:N`, `src/slurm/gres.ts`).
 * - **Host vectors** (`hostVectorView`): per host its CPU and memory capacity, what the vector capacity
 *   (src/execution/hostVectors.ts, the fairness preset's) reads, memory in MB. Built the other way by
 *   `platformFromHostGroups` from its `HostGroup`s (`{count, cpus, memory, name_prefix}`: `cpus` whole
 *   cores, `memory` in MB; hosts named `<name_prefix>0`, ..., default prefix `g<i>-`).
 */
import { z } from 'zod';
import { InputError, inputErrorFromIssues, jsonPath } from '../core/errors.js';
import { GpuSchema } from './gpus.js';
import { ruleNaming } from './nodeGroups.js';
import { type Partition, PartitionSchema } from './partitions.js';
import {
  DEFAULT_COMM_BW,
  DEFAULT_MODELS,
  DEFAULT_NODE_MEMORY_GB,
  MB_PER_GB,
  type NodeGroupDescription,
  Platform,
  type PlatformDescription,
  type ProcessorDescription,
} from './platform.js';

/** A node-group platform (the Slurm model's format, `SlurmPlatformSpec`; `partitions` optional here: one implicit `all`). */
export const NodeGroupSpecSchema = z
  .object({
    groups: z
      .array(
        z
          .object({
            name: z.string().min(1),
            count: z.number().int().positive(),
            cores: z.number().int().positive(),
            memory_mb: z.number().positive().finite().optional(),
            gpus: GpuSchema.optional(),
          })
          .strict(),
      )
      .min(1),
    partitions: z.array(PartitionSchema).optional(),
  })
  .strict();

/** A node-group platform as written. */
export type NodeGroupSpec = z.input<typeof NodeGroupSpecSchema>;

/** A group of identical hosts (the fairness preset's configuration, seed 001 Figure 4.10). */
export const HostGroupSchema = z
  .object({
    count: z.number().int().positive(),
    cpus: z.number().positive(),
    memory: z.number().positive(),
    name_prefix: z.string().optional(),
  })
  .strict();

/** A host group. */
export type HostGroup = z.input<typeof HostGroupSchema>;

/** The host groups of a cluster. */
export const HostGroupsSchema = z.array(HostGroupSchema).min(1);

/** A plain processor of `cores` cores: 1 GHz x 1 operation per cycle, no power, no contention. */
function plainProcessor(cores: number): ProcessorDescription {
  return { cores, clock_rate: 1, dpflops_per_cycle: 1, static_power: 0, dynamic_power: 0, min_power: 0, contention: null };
}

/** A group of `count` plain nodes named `prefix0, prefix1, ...`. */
function plainGroup(name: string, prefix: string, count: number, cores: number, memoryGb: number): NodeGroupDescription {
  return { name, count, naming: ruleNaming(prefix, 0, '', count), memory_gb: memoryGb, comm_bw: DEFAULT_COMM_BW, processors: [plainProcessor(cores)] };
}

/** Whether parsed JSON is a node-group platform: `groups` and no `clusters` (nor IRMaSim's `platform`). */
export function isNodeGroupSpec(data: unknown): data is NodeGroupSpec {
  return data !== null && typeof data === 'object' && 'groups' in data && !('clusters' in data) && !('platform' in data);
}

/**
 * The description of a node-group platform (`where` names it in errors). With `memoryAbsent: 'unlimited'`
 * a group without `memory_mb` has unlimited memory (Infinity MB: memory is not a consumable resource there,
 * as in the Slurm model's `SlurmPlatform.memoryPerNode`; the Slurm preset's platform) rather than
 * the default 1024 GB.
 */
export function nodeGroupSpecDescription(
  spec: unknown,
  where: string,
  name = 'platform',
  memoryAbsent: 'default' | 'unlimited' = 'default',
): PlatformDescription {
  const r = NodeGroupSpecSchema.safeParse(spec);
  if (!r.success) throw inputErrorFromIssues(where, r.error.issues);
  const seen = new Set<string>();
  r.data.groups.forEach((g, i) => {
    if (seen.has(g.name)) throw new InputError(`${jsonPath(['groups', i, 'name'])}: duplicate group ${JSON.stringify(g.name)}`, where);
    seen.add(g.name);
  });
  const groups = r.data.groups.map((g) => {
    const absent = memoryAbsent === 'unlimited' ? Number.POSITIVE_INFINITY : DEFAULT_NODE_MEMORY_GB;
    const group = plainGroup(g.name, g.name, g.count, g.cores, g.memory_mb !== undefined ? g.memory_mb / MB_PER_GB : absent);
    if (g.gpus !== undefined) group.gpus = g.gpus;
    return group;
  });
  const desc: PlatformDescription = { name, models: { ...DEFAULT_MODELS }, clusters: [{ name: 'cluster0', groups }] };
  if (r.data.partitions !== undefined) desc.partitions = r.data.partitions;
  return desc;
}

/** A platform from a node-group platform (a `SlurmPlatformSpec`: `{groups, partitions}`; `memoryAbsent`: `nodeGroupSpecDescription`'s). */
export function platformFromNodeGroups(spec: NodeGroupSpec, where = 'platform', memoryAbsent: 'default' | 'unlimited' = 'default'): Platform {
  return Platform.fromDescription(nodeGroupSpecDescription(spec, where, 'platform', memoryAbsent), undefined, where);
}

/** A platform from the fairness preset's host groups (`cpus` whole cores, `memory` in MB). */
export function platformFromHostGroups(hostGroups: readonly HostGroup[], where = 'hosts'): Platform {
  const r = HostGroupsSchema.safeParse(hostGroups);
  if (!r.success) throw inputErrorFromIssues(where, r.error.issues);
  const groups = r.data.map((g, i) => {
    if (!Number.isInteger(g.cpus)) throw new InputError(`${jsonPath([i, 'cpus'])}: a platform's nodes have whole cores; found ${g.cpus}`, where);
    const prefix = g.name_prefix ?? `g${i}-`;
    return plainGroup(prefix, prefix, g.count, g.cpus, g.memory / MB_PER_GB);
  });
  return Platform.fromDescription({ name: 'hosts', models: { ...DEFAULT_MODELS, memory: 'none' }, clusters: [{ name: 'cluster0', groups }] }, undefined, where);
}

/**
 * A partition over whole node groups (the Slurm model's `Partition`, src/slurm/platform.ts, user names as strings): a
 * platform partition's limits, its groups, and `maxNodes` the partition's largest group when unlimited.
 */
export type GroupPartition = Pick<Partition, 'name' | 'groups' | 'maxTime' | 'maxNodes' | 'allowUsers' | 'priorityTier' | 'priorityJobFactor' | 'preemptMode'>;

/** A platform as node counts per group (the fields of the Slurm model's `SlurmPlatform`). */
export interface NodeGroupView {
  readonly groupNames: readonly string[];
  /** Nodes per group. */
  readonly nodes: Int32Array;
  /** Cores per node of each group. */
  readonly coresPerNode: Int32Array;
  /** Cores of each group (`nodes x coresPerNode`). */
  readonly groupCores: Float64Array;
  readonly partitions: readonly GroupPartition[];
  /** Total cores. */
  readonly totalCores: number;
  /** Largest `priority_job_factor` (the partition factor's normaliser), at least 1. */
  readonly maxPartitionFactor: number;
  /** Index of the default partition. */
  readonly defaultPartition: number;
}

/**
 * The node-group view of `p`. A partition must hold whole groups: one that holds only some nodes of a
 * group is an `InputError` naming both.
 */
export function nodeGroupView(p: Platform): NodeGroupView {
  const nodes = p.groupNodeCount.slice();
  const coresPerNode = Int32Array.from(p.groupFirstNode, (n) => p.nodeCoreCount[n]!);
  const groupCores = Float64Array.from(nodes, (n, g) => n * coresPerNode[g]!);
  const partitions = p.partitions.map((q): GroupPartition => {
    for (const g of q.groups) {
      let inside = 0;
      for (let n = p.groupFirstNode[g]!; n < p.groupFirstNode[g]! + nodes[g]!; n++) inside += q.nodeMask[n]!;
      if (inside !== nodes[g])
        throw new InputError(
          `partition ${JSON.stringify(q.name)} holds ${inside} of the ${nodes[g]} nodes of group ${JSON.stringify(p.groupNames[g])}; the node-group view counts whole groups`,
        );
    }
    const largest = q.groups.reduce((a, g) => Math.max(a, nodes[g]!), 0);
    return {
      name: q.name,
      groups: q.groups,
      maxTime: q.maxTime,
      maxNodes: Number.isFinite(q.maxNodes) ? q.maxNodes : largest,
      allowUsers: q.allowUsers,
      priorityTier: q.priorityTier,
      priorityJobFactor: q.priorityJobFactor,
      preemptMode: q.preemptMode,
    };
  });
  return {
    groupNames: p.groupNames,
    nodes,
    coresPerNode,
    groupCores,
    partitions,
    totalCores: groupCores.reduce((a, b) => a + b, 0),
    maxPartitionFactor: Math.max(1, ...partitions.map((q) => q.priorityJobFactor)),
    defaultPartition: p.defaultPartition,
  };
}

/** A platform as CPU and memory capacities per host (what the vector capacity, `HostVectors`, reads). */
export interface HostVectorView {
  /** Number of hosts (nodes). */
  readonly count: number;
  /** Cores per host. */
  readonly cpuCap: Float64Array;
  /** Memory per host, MB. */
  readonly memCap: Float64Array;
  readonly names: readonly string[];
  /** Group index of each host. */
  readonly group: Int32Array;
  /** Cluster totals (summed host by host). */
  readonly totalCpu: number;
  readonly totalMem: number;
}

/** The host-vector view of `p`. */
export function hostVectorView(p: Platform): HostVectorView {
  const cpuCap = Float64Array.from(p.nodeCoreCount);
  const memCap = p.nodeMemoryMb.slice();
  let totalCpu = 0;
  let totalMem = 0;
  for (let h = 0; h < p.nodeCount; h++) {
    totalCpu += cpuCap[h]!;
    totalMem += memCap[h]!;
  }
  return { count: p.nodeCount, cpuCap, memCap, names: p.nodeName, group: p.nodeGroup.slice(), totalCpu, totalMem };
}
