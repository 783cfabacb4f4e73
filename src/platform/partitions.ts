/**
 * Partitions: named sets of nodes with Slurm's partition limits (`man slurm.conf`, PartitionName), the
 * semantics of the Slurm model's partitions (src/slurm/platform.ts) on any platform.
 *
 * ```json
 * "partitions": [
 *   { "name": "normal", "groups": ["raijin"], "max_time": 172800, "default": true },
 *   { "name": "debug", "nodes": ["raijin0", "raijin1"], "max_time": 3600, "max_nodes": 2,
 *     "allow_accounts": ["staff"], "priority_tier": 2, "preempt_mode": "suspend" } ]
 * ```
 *
 * A partition holds the nodes of its `clusters` (by name), its `groups` (node groups, by name) and its
 * `nodes` (by name); a node may be in several partitions. Its limits:
 * - `max_time` (`MaxTime`, s; default unlimited): a job asking for more is refused at submission;
 * - `max_nodes` (`MaxNodes`; default unlimited): the most nodes one job may use;
 * - `allow_users` (user names; Slurm's `AllowGroups` reduced to users, as the Slurm model's user ids
 *   written as strings) and `allow_accounts` (`AllowAccounts`); absent = everyone;
 * - `priority_tier` (`PriorityTier`, default 1): higher tiers are scheduled first and, with
 *   `preempt_mode`, preempt lower ones; `priority_job_factor` (`PriorityJobFactor`, default 1: the
 *   multifactor priority's partition factor);
 * - `preempt_mode` (`PreemptMode` of the jobs running in it when a higher tier needs their nodes:
 *   `off` (default), `suspend`, `requeue`, `cancel`);
 * - `default` (`Default=YES`): the partition of jobs that name none; without one, the first partition.
 *
 * A platform with no partitions has one implicit partition, `all`, of all its nodes, without limits.
 * A partition compiles to its node list (ascending ids), a node mask and the groups it touches.
 */
import { z } from 'zod';
import { InputError, didYouMean, jsonPath } from '../core/errors.js';

/** Slurm's `PreemptMode` values modelled. */
export const PREEMPT_MODES = ['off', 'suspend', 'requeue', 'cancel'] as const;
/** How the jobs of a partition are preempted. */
export type PreemptMode = (typeof PREEMPT_MODES)[number];

/** Name of the implicit partition of a platform that defines none. */
export const IMPLICIT_PARTITION = 'all';

/** A partition in a platform file (validated with zod; user ids given as numbers become strings). */
export const PartitionSchema = z
  .object({
    name: z.string().min(1),
    clusters: z.array(z.string().min(1)).optional(),
    groups: z.array(z.string().min(1)).optional(),
    nodes: z.array(z.string().min(1)).optional(),
    max_time: z.number().positive().optional(),
    max_nodes: z.number().int().positive().optional(),
    allow_users: z
      .array(z.union([z.string().min(1), z.number().int().nonnegative()]))
      .transform((us) => us.map(String))
      .optional(),
    allow_accounts: z.array(z.string().min(1)).optional(),
    priority_tier: z.number().int().nonnegative().optional(),
    priority_job_factor: z.number().int().nonnegative().optional(),
    preempt_mode: z.enum(PREEMPT_MODES).optional(),
    default: z.boolean().optional(),
  })
  .strict();

/** A partition as described (the platform file's fields, absent ones at their defaults). */
export type PartitionDescription = z.output<typeof PartitionSchema>;

/** A partition, compiled. */
export interface Partition {
  readonly name: string;
  /** Its nodes, ascending ids. */
  readonly nodes: Int32Array;
  /** Per node of the platform: 1 when the node is in this partition. */
  readonly nodeMask: Uint8Array;
  /** The groups it touches: those named in `groups`, in that order, then the groups of its `nodes`, ascending. */
  readonly groups: readonly number[];
  /** `MaxTime`, s (Infinity: unlimited). */
  readonly maxTime: number;
  /** `MaxNodes` (Infinity: unlimited). */
  readonly maxNodes: number;
  /** Allowed users and accounts, or null for everyone. */
  readonly allowUsers: ReadonlySet<string> | null;
  readonly allowAccounts: ReadonlySet<string> | null;
  readonly priorityTier: number;
  readonly priorityJobFactor: number;
  readonly preemptMode: PreemptMode;
  /** `Default=YES` as written (the platform's `defaultPartition` resolves the default). */
  readonly isDefault: boolean;
}

/** What compiling partitions needs of a platform: group and node names, the groups' node ranges. */
export interface PartitionTarget {
  readonly nodeCount: number;
  readonly groupNames: readonly string[];
  readonly groupFirstNode: Int32Array;
  readonly groupNodeCount: Int32Array;
  readonly nodeGroup: Int32Array;
  readonly nodeName: readonly string[];
  readonly clusterNames: readonly string[];
  readonly nodeCluster: Int32Array;
}

/** Index of each name in `names`; -2 for a name used more than once. */
function nameIndex(names: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  names.forEach((n, i) => {
    m.set(n, m.has(n) ? -2 : i);
  });
  return m;
}

/**
 * Compiles `partitions` on platform `t` (an implicit `all` when there are none); errors name
 * `$.partitions[i]...` in file `where`: an unknown or ambiguous group or node, a partition with no node,
 * a duplicate name, two default partitions.
 */
export function compilePartitions(partitions: readonly PartitionDescription[] | undefined, t: PartitionTarget, where?: string): Partition[] {
  const fail = (path: (string | number)[], message: string): never => {
    throw new InputError(`${jsonPath(['partitions', ...path])}: ${message}`, where);
  };
  if (!partitions || partitions.length === 0) return [compileOne({ name: IMPLICIT_PARTITION }, t, null, null, fail, 0)];
  const groupIndex = nameIndex(t.groupNames);
  let nodeIndex: Map<string, number> | null = null;
  const seen = new Set<string>();
  let defaults = 0;
  return partitions.map((q, i) => {
    if (seen.has(q.name)) fail([i, 'name'], `duplicate partition ${JSON.stringify(q.name)}`);
    seen.add(q.name);
    if (q.default && defaults++ > 0) fail([i, 'default'], 'a second default partition; at most one partition has `default: true`');
    if (q.nodes) nodeIndex ??= nameIndex(t.nodeName);
    return compileOne(q, t, groupIndex, nodeIndex, fail, i);
  });
}

function compileOne(
  q: PartitionDescription,
  t: PartitionTarget,
  groupIndex: Map<string, number> | null,
  nodeIndex: Map<string, number> | null,
  fail: (path: (string | number)[], message: string) => never,
  i: number,
): Partition {
  const mask = new Uint8Array(t.nodeCount);
  const groups: number[] = [];
  const inGroups = new Uint8Array(t.groupNames.length);
  if (groupIndex === null) mask.fill(1);
  q.groups?.forEach((g, j) => {
    const k = groupIndex!.get(g) ?? -1;
    if (k === -1) fail([i, 'groups', j], `unknown group ${JSON.stringify(g)}${didYouMean(g, t.groupNames)}`);
    if (k === -2) fail([i, 'groups', j], `${JSON.stringify(g)} names several groups; give the groups distinct ids`);
    if (!inGroups[k]) groups.push(k);
    inGroups[k] = 1;
    mask.fill(1, t.groupFirstNode[k]!, t.groupFirstNode[k]! + t.groupNodeCount[k]!);
  });
  q.clusters?.forEach((c, j) => {
    const k = t.clusterNames.indexOf(c);
    if (k < 0) fail([i, 'clusters', j], `unknown cluster ${JSON.stringify(c)}${didYouMean(c, t.clusterNames)}`);
    if (t.clusterNames.indexOf(c, k + 1) >= 0) fail([i, 'clusters', j], `${JSON.stringify(c)} names several clusters; give the clusters distinct ids`);
    for (let n = 0; n < t.nodeCount; n++) if (t.nodeCluster[n] === k) mask[n] = 1;
  });
  q.nodes?.forEach((n, j) => {
    const k = nodeIndex!.get(n) ?? -1;
    if (k === -1) fail([i, 'nodes', j], `unknown node ${JSON.stringify(n)}${t.nodeName.length <= 10_000 ? didYouMean(n, t.nodeName) : ''}`);
    if (k === -2) fail([i, 'nodes', j], `${JSON.stringify(n)} names several nodes; a partition needs unique node names`);
    mask[k] = 1;
  });
  let count = 0;
  for (let n = 0; n < t.nodeCount; n++) count += mask[n]!;
  if (count === 0) fail([i], `partition ${JSON.stringify(q.name)} has no node: give \`clusters\`, \`groups\` or \`nodes\``);
  const nodes = new Int32Array(count);
  let w = 0;
  for (let n = 0; n < t.nodeCount; n++) if (mask[n]) nodes[w++] = n;
  for (const n of nodes) {
    const g = t.nodeGroup[n]!;
    if (!inGroups[g]) {
      inGroups[g] = 2;
      groups.push(g);
    }
  }
  return {
    name: q.name,
    nodes,
    nodeMask: mask,
    groups,
    maxTime: q.max_time ?? Number.POSITIVE_INFINITY,
    maxNodes: q.max_nodes ?? Number.POSITIVE_INFINITY,
    allowUsers: q.allow_users ? new Set(q.allow_users) : null,
    allowAccounts: q.allow_accounts ? new Set(q.allow_accounts) : null,
    priorityTier: q.priority_tier ?? 1,
    priorityJobFactor: q.priority_job_factor ?? 1,
    preemptMode: q.preempt_mode ?? 'off',
    isDefault: q.default ?? false,
  };
}

/** Index of the default partition: the first with `default: true`, else the first. */
export function defaultPartitionIndex(partitions: readonly Partition[]): number {
  const i = partitions.findIndex((q) => q.isDefault);
  return i < 0 ? 0 : i;
}

/** What a partition's limits look at of a job (the engine's `Job` has these fields). */
export interface PartitionRequest {
  partition?: string | undefined;
  user?: string | undefined;
  account?: string | undefined;
  /** Requested time (s). */
  reqTime: number;
  /** Exact node count (0: any). */
  nodes: number;
}

/**
 * The index of the partition a job runs in: its `partition` (by name), else the default partition; a
 * string saying why when it names none of them.
 */
export function requestPartition(partitions: readonly Partition[], defaultIndex: number, job: PartitionRequest): number | string {
  if (job.partition === undefined) return defaultIndex;
  const i = partitions.findIndex((q) => q.name === job.partition);
  if (i >= 0) return i;
  return `asks for partition ${JSON.stringify(job.partition)}, which the platform does not have (it has ${partitions.map((q) => q.name).join(', ')})`;
}

/**
 * Why partition `q`'s limits refuse `job` at submission (Slurm refuses such a job: `MaxTime`, `MaxNodes`,
 * `AllowAccounts`/`AllowGroups`), or null.
 */
export function partitionRefusal(q: Partition, job: PartitionRequest): string | null {
  if (job.reqTime > q.maxTime) return `asks for ${job.reqTime} s in partition ${q.name}, whose MaxTime is ${q.maxTime} s`;
  if (job.nodes > q.maxNodes) return `asks for ${job.nodes} nodes in partition ${q.name}, whose MaxNodes is ${q.maxNodes}`;
  if (q.allowUsers !== null && !(job.user !== undefined && q.allowUsers.has(job.user)))
    return `user ${job.user === undefined ? '(none)' : JSON.stringify(job.user)} is not allowed in partition ${q.name}`;
  if (q.allowAccounts !== null && !(job.account !== undefined && q.allowAccounts.has(job.account)))
    return `account ${job.account === undefined ? '(none)' : JSON.stringify(job.account)} is not allowed in partition ${q.name}`;
  return null;
}

/** Whether partition `q` holds every node of the platform (then it restricts no placement). */
export function coversAllNodes(q: Partition, nodeCount: number): boolean {
  return q.nodes.length === nodeCount;
}
