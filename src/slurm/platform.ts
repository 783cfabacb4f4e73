/**
 * Slurm platforms in a few lines (seed 004 §3.1, DESIGN §10.4): node groups with a count and partitions
 * over them, instead of one entry per node.
 *
 * ```json
 * { "groups": [{ "name": "raijin", "count": 3600, "cores": 16 }],
 *   "partitions": [{ "name": "normal", "groups": ["raijin"], "max_time": 172800, "max_nodes": 3600 }] }
 * ```
 *
 * A group is `count` identical nodes of `cores` cores (the seed's emulated Raijin is one group: 3,600
 * x 16 = 57,600 cores) and, when memory is a consumable resource, `memory_mb` MB each (absent: not
 * consumable), and `cpus` per node when a group counts whole nodes (`cores` 1: the CPUs behind them,
 * for Slurm 22.05's job size factor), and `gpus` per node (`{count, type}`, a slurm.conf's `Gres=gpu:TYPE:N`). A partition is a set of groups with Slurm's partition limits: `max_time`
 * (`MaxTime`, s; a job asking for more is refused at submission), `max_nodes` (`MaxNodes`: a job's
 * nodes are `ceil(cores / cores per node)`), `allow_users` (`AllowAccounts`/`AllowGroups` reduced to
 * user ids; absent = everyone), `priority_tier` (`PriorityTier`: the scheduler looks at higher tiers
 * first, and with `preempt_mode` it preempts lower tiers), `priority_job_factor` (`PriorityJobFactor`,
 * the multifactor partition factor) and `preempt_mode` (`PreemptMode` of the jobs running in it when a
 * higher tier needs their cores: `off`, `suspend`, `requeue`, `cancel`).
 *
 * Cores are consumable per core (`select/cons_res`, `CR_Core`) and, by default, counted per group: a
 * job runs on `cores` cores of one group of its partition; with the engine's `nodeSelect` jobs run on
 * specific nodes (Slurm's select plugin: src/scheduling/slurmSelect.ts), with memory when `memory_mb` is given. Loading is a zod parse plus a few typed arrays: milliseconds for any count.
 */
import { z } from 'zod';
import { InputError, didYouMean, inputErrorFromIssues } from '../core/errors.js';
import { readJsonFile } from '../core/json.js';

/** Slurm's `PreemptMode` values modelled. */
export const PREEMPT_MODES = ['off', 'suspend', 'requeue', 'cancel'] as const;
/** How jobs of a partition are preempted. */
export type PreemptMode = (typeof PREEMPT_MODES)[number];

const GroupSchema = z
  .object({
    name: z.string().min(1),
    count: z.number().int().positive(),
    cores: z.number().int().positive(),
    memory_mb: z.number().positive().optional(),
    cpus: z.number().int().positive().optional(),
    /** GPUs per node (`Gres=gpu:TYPE:N`; issue 45). */
    gpus: z
      .object({ count: z.number().int().positive(), type: z.string().min(1) })
      .strict()
      .optional(),
  })
  .strict();

const PartitionSchema = z
  .object({
    name: z.string().min(1),
    groups: z.array(z.string().min(1)).min(1),
    max_time: z.number().positive().default(Number.POSITIVE_INFINITY),
    max_nodes: z.number().int().positive().optional(),
    allow_users: z.array(z.number().int().nonnegative()).optional(),
    priority_tier: z.number().int().nonnegative().default(1),
    priority_job_factor: z.number().int().nonnegative().default(1),
    preempt_mode: z.enum(PREEMPT_MODES).default('off'),
  })
  .strict();

/** The JSON format of a Slurm platform (validated with zod). */
export const SlurmPlatformSchema = z
  .object({
    groups: z.array(GroupSchema).min(1),
    partitions: z.array(PartitionSchema).min(1),
  })
  .strict();

/** A platform description as written (before validation of names). */
export type SlurmPlatformSpec = z.input<typeof SlurmPlatformSchema>;

/** A partition, resolved. */
export interface Partition {
  readonly name: string;
  /** Indices of its groups. */
  readonly groups: readonly number[];
  readonly maxTime: number;
  readonly maxNodes: number;
  /** Allowed user ids, or null for everyone. */
  readonly allowUsers: ReadonlySet<number> | null;
  readonly priorityTier: number;
  readonly priorityJobFactor: number;
  readonly preemptMode: PreemptMode;
}

/** A loaded platform: groups as typed arrays, partitions resolved to group indices. */
export class SlurmPlatform {
  readonly groupNames: readonly string[];
  /** Nodes per group. */
  readonly nodes: Int32Array;
  /** Cores per node of each group. */
  readonly coresPerNode: Int32Array;
  /** Memory per node of each group (MB; Infinity: not a consumable resource). */
  readonly memoryPerNode: Float64Array;
  /** Cores of each group (`nodes x coresPerNode`). */
  readonly groupCores: Float64Array;
  readonly partitions: readonly Partition[];
  /** Total cores. */
  readonly totalCores: number;
  /** Nodes, and CPUs in all (a group of whole nodes counts its `cpus` per node, else its cores). */
  readonly nodeCount: number;
  readonly totalCpus: number;
  /** Largest `priority_job_factor` (the partition factor's normaliser). */
  readonly maxPartitionFactor: number;
  /** The GPU types of the groups, in order of first appearance (issue 45). */
  readonly gpuTypes: readonly string[];
  /** GPUs per node of each group (0 without), and their type (an index into `gpuTypes`, -1 without). */
  readonly gpusPerNode: Int32Array;
  readonly groupGpuType: Int32Array;

  constructor(
    /** The platform as written (the one engine's preset reads it: `preset.ts`). */
    readonly spec: SlurmPlatformSpec,
    where = 'platform',
  ) {
    const parsed = SlurmPlatformSchema.safeParse(spec);
    if (!parsed.success) throw inputErrorFromIssues(where, parsed.error.issues);
    const p = parsed.data;
    const names = p.groups.map((g) => g.name);
    const seen = new Set<string>();
    for (const [i, n] of names.entries()) {
      if (seen.has(n)) throw new InputError(`$.groups[${i}].name: duplicate group ${JSON.stringify(n)}`, where);
      seen.add(n);
    }
    this.groupNames = names;
    this.nodes = Int32Array.from(p.groups, (g) => g.count);
    this.coresPerNode = Int32Array.from(p.groups, (g) => g.cores);
    this.memoryPerNode = Float64Array.from(p.groups, (g) => g.memory_mb ?? Number.POSITIVE_INFINITY);
    this.groupCores = Float64Array.from(p.groups, (g) => g.count * g.cores);
    this.totalCores = this.groupCores.reduce((a, b) => a + b, 0);
    this.nodeCount = p.groups.reduce((a, g) => a + g.count, 0);
    this.totalCpus = p.groups.reduce((a, g) => a + g.count * (g.cpus ?? g.cores), 0);
    this.gpuTypes = [...new Set(p.groups.flatMap((g) => (g.gpus ? [g.gpus.type] : [])))];
    this.gpusPerNode = Int32Array.from(p.groups, (g) => g.gpus?.count ?? 0);
    this.groupGpuType = Int32Array.from(p.groups, (g) => (g.gpus ? this.gpuTypes.indexOf(g.gpus.type) : -1));
    const pnames = new Set<string>();
    this.partitions = p.partitions.map((q, i) => {
      if (pnames.has(q.name)) throw new InputError(`$.partitions[${i}].name: duplicate partition ${JSON.stringify(q.name)}`, where);
      pnames.add(q.name);
      const groups = q.groups.map((g, j) => {
        const k = names.indexOf(g);
        if (k < 0) throw new InputError(`$.partitions[${i}].groups[${j}]: unknown group ${JSON.stringify(g)}${didYouMean(g, names)}`, where);
        return k;
      });
      const maxNodesAll = groups.reduce((a, g) => Math.max(a, this.nodes[g]!), 0);
      return {
        name: q.name,
        groups,
        maxTime: q.max_time,
        maxNodes: q.max_nodes ?? maxNodesAll,
        allowUsers: q.allow_users ? new Set(q.allow_users) : null,
        priorityTier: q.priority_tier,
        priorityJobFactor: q.priority_job_factor,
        preemptMode: q.preempt_mode,
      };
    });
    this.maxPartitionFactor = Math.max(1, ...this.partitions.map((q) => q.priorityJobFactor));
  }

  /** Index of the partition named `name`; an `InputError` with a suggestion when there is none. */
  partitionIndex(name: string): number {
    const i = this.partitions.findIndex((q) => q.name === name);
    if (i < 0) {
      const all = this.partitions.map((q) => q.name);
      throw new InputError(`unknown partition ${JSON.stringify(name)}${didYouMean(name, all)}`);
    }
    return i;
  }

  /**
   * Why a job of `cores` cores, `timeLimit` s, user `user` cannot run in partition `part` (Slurm
   * refuses it at submission), or null when it can: time above `MaxTime`, more nodes than `MaxNodes`
   * or than the largest group, a user not allowed.
   */
  refusal(part: number, cores: number, timeLimit: number, user: number): string | null {
    const q = this.partitions[part]!;
    if (timeLimit > q.maxTime) return `time limit ${timeLimit} s above the partition's max_time ${q.maxTime} s`;
    if (q.allowUsers && !q.allowUsers.has(user)) return `user ${user} not allowed in partition ${q.name}`;
    let fits = false;
    for (const g of q.groups) {
      const nodes = Math.ceil(cores / this.coresPerNode[g]!);
      if (cores <= this.groupCores[g]! && nodes <= q.maxNodes) fits = true;
    }
    return fits ? null : `${cores} cores exceed the partition's groups or max_nodes ${q.maxNodes}`;
  }
}

/** The seed's emulated Raijin (§3.1): 3,600 nodes x 16 cores, one partition `normal` (48 h limit). */
export const RAIJIN_PLATFORM: SlurmPlatformSpec = {
  groups: [{ name: 'raijin', count: 3600, cores: 16 }],
  partitions: [{ name: 'normal', groups: ['raijin'], max_time: 48 * 3600 }],
};

/** Loads a platform file (JSON): errors name the file and the JSON path. */
export function loadSlurmPlatform(file: string): SlurmPlatform {
  return new SlurmPlatform(readJsonFile(file) as SlurmPlatformSpec, file);
}
