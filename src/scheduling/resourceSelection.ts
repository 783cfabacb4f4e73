/**
 * Resource selection (DESIGN §4, IRMaSim's names): the order in which a policy prefers nodes, and
 * cores inside a node. The placement rules themselves (one node for `seq`, exact nodes, spilling,
 * memory, node fit) are shared, in `placement.ts`.
 *
 * IRMaSim sorts the free cores (policy pairs of its `Environment`) or the viable nodes (its
 * `Heuristic` manager) by a key, with Python's stable sort, so resources with equal keys keep platform
 * order. The keys, and how clustergym orders nodes by them:
 *
 * | name          | IRMaSim key                                         | node order here (ties: platform order)            | kind    |
 * |---------------|-----------------------------------------------------|---------------------------------------------------|---------|
 * | `first`       | resource id                                         | node id                                           | static  |
 * | `random`      | a shuffle of the viable resources                   | a fresh shuffle of the candidate nodes            | dynamic |
 * | `high_gflops` | `-mops_per_core` of the core's processor            | fastest core of the node, descending              | static  |
 * | `high_cores`  | `-idle cores` of the core's node                    | free cores, descending                            | dynamic |
 * | `high_mem`    | `-current_memory` of the core's node                | free memory, descending                           | dynamic |
 * | `high_mem_bw` | requested memory bandwidth of the core's processor  | bandwidth in use on the node, ascending           | dynamic |
 * | `low_power`   | `static_power + dynamic_power` of the core          | cheapest busy core `static/cores + dynamic`, asc. | static  |
 *
 * Inside a node, cores go by the same key at processor level (the fastest, the cheapest or the least
 * loaded processor first; core id order among equals), which only matters on nodes with unlike
 * processors. An `mpi` job spilling over nodes fills nodes one after the other in the node order;
 * IRMaSim's core-level sort interleaves only when nodes mix unlike processors.
 *
 * Notes on fidelity. `high_mem`: IRMaSim's documentation says "the node with the most current memory
 * capacity", but its modelV1 `Node.current_memory` counts memory IN USE, so its code prefers the
 * fullest node; we follow the documented intent (most free memory). `high_mem_bw`: the bandwidth in
 * use is the sum of the memory-bandwidth requests `y` of the running `ops` tasks on the node's
 * processors, as the memory-contention model keeps it (`procMemLoad`); under memory model `none`, or
 * with `delay` jobs only, it is 0 everywhere and the order is the platform order. `low_power`:
 * IRMaSim's `Heuristic` sorts by `-max_power_consumption` (the most power-hungry node first), which
 * contradicts the name; we follow its `Environment` (the cheapest core first).
 *
 * Cost. Static orders are computed once per simulator: a node permutation whose free-core tree the
 * engine keeps up to date (`ClusterSimulator.freeTreeInOrder`), so finding a node is O(log N).
 * Dynamic orders are computed per placement over the CANDIDATE nodes only — nodes with at least as
 * many free cores as the job needs on one node (found through the free-core tree) — and sorted,
 * O(F log F) for F candidates; no placement sorts the whole platform.
 */
import type { Rng } from '../core/rng.js';
import type { ClusterSimulator } from '../execution/simulator.js';
import type { Platform } from '../platform/platform.js';
import { nodeShares, type Job } from '../workload/job.js';
import {
  firstPolicy,
  ListOrder,
  placeInOrder,
  takeFreeCores,
  takeFreeCoresInOrder,
  TreeOrder,
  type CoreTaker,
  type NodeFit,
  type PlacementLimit,
  type ResourcePolicy,
} from './placement.js';

/** Names of the resource-selection policies. */
export const RESOURCE_SELECTION_NAMES = ['first', 'random', 'high_gflops', 'high_cores', 'high_mem', 'high_mem_bw', 'low_power'] as const;
/** A resource-selection name. */
export type ResourceSelectionName = (typeof RESOURCE_SELECTION_NAMES)[number];

/** Stable permutation of `0..n-1` by ascending `key`. */
function stableOrder(n: number, key: (i: number) => number): Int32Array {
  const keys = new Float64Array(n);
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    keys[i] = key(i);
    idx[i] = i;
  }
  idx.sort((a, b) => keys[a]! - keys[b]! || a - b);
  return idx;
}

/** Processors of `node`, ordered by ascending `key` (stable), as a core preference list, or null when all keys are equal. */
function coresByProcKey(p: Platform, node: number, key: (proc: number) => number): Int32Array | null {
  const p0 = p.nodeFirstProc[node]!;
  const np = p.nodeProcCount[node]!;
  let same = true;
  for (let q = 1; q < np; q++) if (key(p0 + q) !== key(p0)) same = false;
  if (same) return null;
  const procs = stableOrder(np, (i) => key(p0 + i));
  const out = new Int32Array(p.nodeCoreCount[node]!);
  let k = 0;
  for (const i of procs) {
    const proc = p0 + i;
    const c0 = p.procFirstCore[proc]!;
    for (let c = c0; c < c0 + p.procCoreCount[proc]!; c++) out[k++] = c;
  }
  return out;
}

/**
 * A policy with a static order: nodes by ascending `nodeKey`, cores inside a node by ascending
 * `procKey` of their processor. The permutation and a free-core tree over it are built once per
 * simulator.
 */
export class StaticOrderPolicy implements ResourcePolicy {
  private readonly state = new WeakMap<ClusterSimulator, { order: TreeOrder; take: CoreTaker }>();
  constructor(
    readonly name: string,
    private readonly nodeKey: (p: Platform, node: number) => number,
    private readonly procKey: (p: Platform, proc: number) => number,
  ) {}

  /** The node order of this policy on `sim` (built on first use). */
  orderFor(sim: ClusterSimulator): { order: TreeOrder; take: CoreTaker } {
    let s = this.state.get(sim);
    if (!s) {
      const p = sim.platform;
      const perm = stableOrder(p.nodeCount, (n) => this.nodeKey(p, n));
      const order = new TreeOrder(sim.freeTreeInOrder(this.name, perm), perm);
      const coreOrders = Array.from({ length: p.nodeCount }, (_, n) => coresByProcKey(p, n, (q) => this.procKey(p, q)));
      const take: CoreTaker = coreOrders.some((c) => c !== null)
        ? (s2, node, k, out, at) => {
            const co = coreOrders[node];
            return co ? takeFreeCoresInOrder(s2, co, k, out, at) : takeFreeCores(s2, node, k, out, at);
          }
        : takeFreeCores;
      s = { order, take };
      this.state.set(sim, s);
    }
    return s;
  }

  place(sim: ClusterSimulator, job: Job, fit: NodeFit, limit?: PlacementLimit | null): Int32Array | null {
    if (job.ntasks > sim.freeCores) return null;
    const s = this.orderFor(sim);
    return placeInOrder(sim, job, fit, s.order, limit, s.take);
  }
}

/** Free cores a node needs to be a candidate for `job` (its smallest share on one node). */
export function minShare(job: Job): number {
  if (job.type === 'seq') return job.ntasks;
  if (job.nodes > 0) {
    const [per, last] = nodeShares(job);
    return Math.min(per, last);
  }
  return 1;
}

/** Nodes with at least `k` free cores, in platform order (through the free-core tree). */
export function candidateNodes(sim: ClusterSimulator, k: number): number[] {
  const out: number[] = [];
  const tree = sim.freeTree;
  for (let n = tree.findFirst(0, k); n >= 0; n = tree.findFirst(n + 1, k)) out.push(n);
  return out;
}

/**
 * A policy whose order depends on the state: at each placement, the candidate nodes (enough free
 * cores for the job's smallest share) are sorted by ascending `nodeKey` (stable: platform order among
 * equals); inside a node, cores follow `procKey` of their processor.
 */
export class DynamicOrderPolicy implements ResourcePolicy {
  constructor(
    readonly name: string,
    private readonly nodeKey: (sim: ClusterSimulator, node: number) => number,
    private readonly procKey: ((sim: ClusterSimulator, proc: number) => number) | null = null,
  ) {}

  place(sim: ClusterSimulator, job: Job, fit: NodeFit, limit?: PlacementLimit | null): Int32Array | null {
    if (job.ntasks > sim.freeCores) return null;
    const cand = candidateNodes(sim, minShare(job));
    if (cand.length === 0) return null;
    const keys = new Float64Array(cand.length);
    for (let i = 0; i < cand.length; i++) keys[i] = this.nodeKey(sim, cand[i]!);
    const idx = stableOrder(cand.length, (i) => keys[i]!);
    const nodes = Int32Array.from(idx, (i) => cand[i]!);
    const pk = this.procKey;
    const take: CoreTaker = pk
      ? (s, node, k, out, at) => {
          const co = coresByProcKey(s.platform, node, (q) => pk(s, q));
          return co ? takeFreeCoresInOrder(s, co, k, out, at) : takeFreeCores(s, node, k, out, at);
        }
      : takeFreeCores;
    return placeInOrder(sim, job, fit, new ListOrder(sim, nodes), limit, take);
  }
}

/** Random: the candidate nodes in a fresh random order (seeded stream), cores by id. */
export class RandomPolicy implements ResourcePolicy {
  readonly name = 'random';
  constructor(private readonly rng: Rng) {}
  place(sim: ClusterSimulator, job: Job, fit: NodeFit, limit?: PlacementLimit | null): Int32Array | null {
    if (job.ntasks > sim.freeCores) return null;
    const cand = candidateNodes(sim, minShare(job));
    if (cand.length === 0) return null;
    this.rng.shuffle(cand);
    return placeInOrder(sim, job, fit, new ListOrder(sim, cand), limit);
  }
}

/** Fastest core of a node (mops). */
function nodeMaxMops(p: Platform, node: number): number {
  let m = 0;
  const p0 = p.nodeFirstProc[node]!;
  for (let q = p0; q < p0 + p.nodeProcCount[node]!; q++) m = Math.max(m, p.procMops[q]!);
  return m;
}

/** Power of one busy core of a processor: `static_power / cores + dynamic_power`. */
export function busyCorePower(p: Platform, proc: number): number {
  return p.procStaticPower[proc]! / p.procCoreCount[proc]! + p.procDynamicPower[proc]!;
}

function nodeMinCorePower(p: Platform, node: number): number {
  let m = Infinity;
  const p0 = p.nodeFirstProc[node]!;
  for (let q = p0; q < p0 + p.nodeProcCount[node]!; q++) m = Math.min(m, busyCorePower(p, q));
  return m;
}

/** Memory bandwidth in use on a node: sum of its processors' requests (MB/s). */
export function nodeMemBandwidth(sim: ClusterSimulator, node: number): number {
  const p = sim.platform;
  let s = 0;
  const p0 = p.nodeFirstProc[node]!;
  for (let q = p0; q < p0 + p.nodeProcCount[node]!; q++) s += sim.procMemLoad[q]!;
  return s;
}

/** `high_gflops`: the fastest nodes (and processors) first. */
export const highGflopsPolicy = new StaticOrderPolicy(
  'high_gflops',
  (p, n) => -nodeMaxMops(p, n),
  (p, q) => -p.procMops[q]!,
);
/** `low_power`: the nodes (and processors) whose busy core draws the least power first. */
export const lowPowerPolicy = new StaticOrderPolicy('low_power', nodeMinCorePower, busyCorePower);
/** `high_cores`: the nodes with the most free cores first. */
export const highCoresPolicy = new DynamicOrderPolicy('high_cores', (sim, n) => -sim.nodeFree[n]!);
/** `high_mem`: the nodes with the most free memory first. */
export const highMemPolicy = new DynamicOrderPolicy('high_mem', (sim, n) => -sim.nodeFreeMem[n]!);
/** `high_mem_bw`: the nodes (and processors) with the least memory bandwidth in use first. */
export const highMemBwPolicy = new DynamicOrderPolicy('high_mem_bw', nodeMemBandwidth, (sim, q) => sim.procMemLoad[q]!);

/** The resource-selection policy `name`; `rng` serves `random`. */
export function makeResourcePolicy(name: ResourceSelectionName, rng: Rng): ResourcePolicy {
  switch (name) {
    case 'first':
      return firstPolicy;
    case 'random':
      return new RandomPolicy(rng);
    case 'high_gflops':
      return highGflopsPolicy;
    case 'high_cores':
      return highCoresPolicy;
    case 'high_mem':
      return highMemPolicy;
    case 'high_mem_bw':
      return highMemBwPolicy;
    case 'low_power':
      return lowPowerPolicy;
  }
}

/** Whether `name` is a resource-selection name. */
export function isResourceSelection(name: string): name is ResourceSelectionName {
  return (RESOURCE_SELECTION_NAMES as readonly string[]).includes(name);
}
