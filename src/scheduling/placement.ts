/**
 * Placement: which cores a job gets (DESIGN §4). A `ResourcePolicy` returns the cores of a valid
 * placement for a waiting job on the simulator's current free state, or null when the job does not
 * fit now. Every policy shares the placement rules below and differs only in the ORDER in which it
 * prefers nodes (and, inside a node, cores); see `resourceSelection.ts` for the orders.
 *
 * Placement rules by job shape:
 * - `seq`: all tasks on one node; the node is chosen by the node fit: `first_fit` takes the first
 *   node in the policy's order with enough free cores and memory; `best_fit` the one with the fewest
 *   free cores that still fit (ties: the policy's order);
 * - `mpi` with `nodes` (IRMaSim's layout): the first `nodes` nodes in the policy's order that have
 *   `ntasks_per_node` free cores (`perNodeCores`) and memory for their tasks; tasks are dealt
 *   round-robin over them (task `t` on the `t mod nodes`-th), so 7 tasks on 3 nodes go 3, 2, 2;
 * - `mpi` otherwise: free cores in the policy's order, spilling over nodes (as many as fit on a node,
 *   memory permitting, before the next).
 *
 * No placement uses a node still `COMPLETING` after a job (`ClusterSimulator.completingNodes`, a job's
 * `completing` facet): the orders skip it.
 *
 * A placement may be LIMITED (`PlacementLimit`): at most `cores(n)` cores and `mem(n)` MB on node
 * `n`. Backfilling uses limits so that a job started now leaves alone the resources a reservation
 * needs later (EASY: the head job's nodes at its shadow time; conservative: every reservation).
 *
 * Finding nodes never walks the whole platform: a policy exposes its order as a `NodeOrder`, a cursor
 * "first position >= p whose node has >= k free cores", answered by a free-core segment tree
 * (`NodeFreeTree`) for static orders and by a scan of the nodes that have free cores for orders that
 * depend on the state.
 */
import type { ClusterSimulator } from '../execution/simulator.js';
import type { NodeFreeTree } from '../execution/nodeFreeTree.js';
import { holdsNodeMemory, nodeMemOf, nodeTaskShare, perNodeCores, taskMem, type Job } from '../workload/job.js';

/** How a `seq` job picks its node among those that fit. */
export type NodeFit = 'first_fit' | 'best_fit';
/** The node fits. */
export const NODE_FITS: readonly NodeFit[] = ['first_fit', 'best_fit'];

/** Upper bounds on what one placement may take on each node (on top of what is free). */
export interface PlacementLimit {
  /** Most cores the job may take on `node`. */
  cores(node: number): number;
  /** Most memory (MB) the job may take on `node`. */
  mem(node: number): number;
}

/** A resource-selection policy. */
export interface ResourcePolicy {
  readonly name: string;
  /**
   * Cores for `job` now (task t on cores[t]), or null when it does not fit (within `limit` when
   * given). A policy finds a placement whenever one exists under the rules of the module comment.
   */
  place(sim: ClusterSimulator, job: Job, fit: NodeFit, limit?: PlacementLimit | null): Int32Array | null;
}

/** Nodes in a policy's order, as a cursor over positions. */
export interface NodeOrder {
  /** First position `>= from` whose node has at least `k` free cores, or -1. */
  next(from: number, k: number): number;
  /** The node at position `p`. */
  node(p: number): number;
}

/** A static order kept in a free-core tree: position `p` holds node `perm[p]` (identity when null). */
export class TreeOrder implements NodeOrder {
  constructor(
    readonly tree: NodeFreeTree,
    readonly perm: Int32Array | null,
  ) {}
  next(from: number, k: number): number {
    return this.tree.findFirst(from, k);
  }
  node(p: number): number {
    return this.perm ? this.perm[p]! : p;
  }
}

/**
 * An order restricted to the nodes `mask` selects (a job's partition; null: every node) and not `closed`
 * (`closed[n] > 0`: a node `COMPLETING`, `ClusterSimulator.completingNodes`; null: none).
 */
export class MaskedOrder implements NodeOrder {
  constructor(
    readonly inner: NodeOrder,
    readonly mask: Uint8Array | null,
    readonly closed: ArrayLike<number> | null = null,
  ) {}
  next(from: number, k: number): number {
    let p = this.inner.next(from, k);
    while (p >= 0 && !this.open(this.inner.node(p))) p = this.inner.next(p + 1, k);
    return p;
  }
  private open(n: number): boolean {
    return (this.mask === null || this.mask[n] !== 0) && (this.closed === null || this.closed[n] === 0);
  }
  node(p: number): number {
    return this.inner.node(p);
  }
}

/** An explicit list of candidate nodes (an order computed for one placement). */
export class ListOrder implements NodeOrder {
  constructor(
    private readonly sim: ClusterSimulator,
    readonly nodes: ArrayLike<number>,
  ) {}
  next(from: number, k: number): number {
    const free = this.sim.nodeFree;
    for (let p = Math.max(0, from); p < this.nodes.length; p++) if (free[this.nodes[p]!]! >= k) return p;
    return -1;
  }
  node(p: number): number {
    return this.nodes[p]!;
  }
}

/** Takes `k` free cores of `node` into `out` at `at`; returns how many it took. */
export type CoreTaker = (sim: ClusterSimulator, node: number, k: number, out: Int32Array, at: number) => number;

/** Free memory needed on `node` for tasks [from, from + k) of `job` (`nodeMemOf`: Slurm's `--mem` on each node, else its tasks'). */
export function memFor(sim: ClusterSimulator, node: number, job: Job, from: number, k: number): number {
  return nodeMemOf(job, from, k, sim.platform.nodeMemoryMb[node]!);
}

/** Takes `k` free cores of `node` in core-id order into `out` at `at`. */
export function takeFreeCores(sim: ClusterSimulator, node: number, k: number, out: Int32Array, at: number): number {
  const p = sim.platform;
  const c0 = p.nodeFirstCore[node]!;
  const c1 = c0 + p.nodeCoreCount[node]!;
  let got = 0;
  for (let c = c0; c < c1 && got < k; c++) if (sim.coreOwner[c] === -1) out[at + got++] = c;
  return got;
}

/** Takes `k` free GPUs of `node` in GPU-id order into `out` at `at` (the core capacity's; a node's GPUs are of one type); returns how many it took. */
export function takeFreeGpus(sim: ClusterSimulator, node: number, k: number, out: Int32Array, at: number): number {
  const p = sim.platform;
  const owner = sim.allocation.gpuOwner;
  const u0 = p.nodeFirstGpu[node]!;
  const u1 = u0 + p.nodeGpuCount[node]!;
  let got = 0;
  for (let u = u0; u < u1 && got < k; u++) if (owner[u] === -1) out[at + got++] = u;
  return got;
}

/** Takes `k` free cores of `node` following `cores` (a preference order of the node's cores). */
export function takeFreeCoresInOrder(sim: ClusterSimulator, cores: ArrayLike<number>, k: number, out: Int32Array, at: number): number {
  let got = 0;
  for (let i = 0; i < cores.length && got < k; i++) {
    const c = cores[i]!;
    if (sim.coreOwner[c] === -1) out[at + got++] = c;
  }
  return got;
}

/** Free cores of `node` usable under `limit`. */
function usableCores(sim: ClusterSimulator, node: number, limit: PlacementLimit | null | undefined): number {
  const f = sim.nodeFree[node]!;
  if (!limit) return f;
  const l = limit.cores(node);
  return l < f ? l : f;
}

/** Free memory of `node` usable under `limit`, MB. */
function usableMem(sim: ClusterSimulator, node: number, limit: PlacementLimit | null | undefined): number {
  const f = sim.nodeFreeMem[node]!;
  if (!limit) return f;
  const l = limit.mem(node);
  return l < f ? l : f;
}

/** Whether `node` can take tasks [from, from+k) of `job` now (cores and memory, within `limit`). */
export function nodeFits(sim: ClusterSimulator, node: number, job: Job, from: number, k: number, limit?: PlacementLimit | null): boolean {
  if (usableCores(sim, node, limit) < k) return false;
  return !sim.enforceMemory || memFor(sim, node, job, from, k) <= usableMem(sim, node, limit) + 1e-9;
}

/**
 * The placement rules of the module comment over nodes in `order`; cores inside a node are taken
 * by `take` (core-id order by default). Returns the cores or null.
 */
export function placeInOrder(
  sim: ClusterSimulator,
  job: Job,
  fit: NodeFit,
  order: NodeOrder,
  limit?: PlacementLimit | null,
  take: CoreTaker = takeFreeCores,
): Int32Array | null {
  const n = job.ntasks;
  if (n > sim.freeCores) return null;
  // a job's partition restricts its nodes (docs/model.md), and no job starts on a node still COMPLETING
  const mask = sim.allocation.partitionMask(job);
  const closed = sim.completingNodes;
  if (mask !== null || closed !== null) order = new MaskedOrder(order, mask, closed);
  const out = new Int32Array(n);
  if (job.type === 'seq') {
    let best = -1;
    let bestFree = Infinity;
    for (let p = order.next(0, n); p >= 0; p = order.next(p + 1, n)) {
      const node = order.node(p);
      if (!nodeFits(sim, node, job, 0, n, limit)) continue;
      if (fit === 'first_fit') {
        best = node;
        break;
      }
      const f = usableCores(sim, node, limit);
      if (f < bestFree) {
        best = node;
        bestFree = f;
        if (f === n) break;
      }
    }
    if (best < 0) return null;
    take(sim, best, n, out, 0);
    return out;
  }
  if (job.nodes > 0) return placeExactNodes(sim, job, order, limit, take, out);
  let placed = 0;
  for (let p = order.next(0, 1); p >= 0 && placed < n; p = order.next(p + 1, 1)) {
    const node = order.node(p);
    let k = Math.min(usableCores(sim, node, limit), n - placed);
    if (sim.enforceMemory && k > 0) {
      const room = usableMem(sim, node, limit) + 1e-9;
      if (holdsNodeMemory(job)) {
        if (memFor(sim, node, job, placed, 1) > room) k = 0;
      } else if (!job.tasks) {
        if (job.mem > 0) k = Math.min(k, Math.floor(room / job.mem));
      } else while (k > 0 && memFor(sim, node, job, placed, k) > room) k--;
    }
    if (k <= 0) continue;
    placed += take(sim, node, k, out, placed);
  }
  return placed === n ? out : null;
}

/** Memory (MB) of the tasks an exact-shape job deals to its `i`-th node (tasks `i`, `i + nodes`, ...). */
export function memForShare(sim: ClusterSimulator, node: number, job: Job, i: number): number {
  if (holdsNodeMemory(job)) return nodeMemOf(job, i, 1, sim.platform.nodeMemoryMb[node]!);
  if (!job.tasks) return job.mem * nodeTaskShare(job, i);
  let m = 0;
  for (let t = i; t < job.ntasks; t += job.nodes) m += taskMem(job, t);
  return m;
}

/**
 * An exact-shape `mpi` job: the first `nodes` nodes in `order` with `perNodeCores(job)` usable free
 * cores and room for their share of the tasks; task `t` goes to the `t mod nodes`-th of them, on its
 * cores in `take` order.
 */
function placeExactNodes(
  sim: ClusterSimulator,
  job: Job,
  order: NodeOrder,
  limit: PlacementLimit | null | undefined,
  take: CoreTaker,
  out: Int32Array,
): Int32Array | null {
  const per = perNodeCores(job);
  const N = job.nodes;
  const chosen: number[] = [];
  for (let p = order.next(0, per); p >= 0 && chosen.length < N; p = order.next(p + 1, per)) {
    const node = order.node(p);
    if (usableCores(sim, node, limit) < per) continue;
    if (sim.enforceMemory && memForShare(sim, node, job, chosen.length) > usableMem(sim, node, limit) + 1e-9) continue;
    chosen.push(node);
  }
  if (chosen.length < N) return null;
  const buf = new Int32Array(per);
  for (let i = 0; i < N; i++) {
    const k = nodeTaskShare(job, i);
    take(sim, chosen[i]!, k, buf, 0);
    for (let j = 0; j < k; j++) out[i + j * N] = buf[j]!;
  }
  return out;
}

const platformOrders = new WeakMap<ClusterSimulator, TreeOrder>();

/** The platform order of `sim` (node ids ascending) over its own free-core tree. */
export function platformOrder(sim: ClusterSimulator): TreeOrder {
  let o = platformOrders.get(sim);
  if (!o) {
    o = new TreeOrder(sim.freeTree, null);
    platformOrders.set(sim, o);
  }
  return o;
}

/** Platform-order placement (`platform`): nodes by index, cores by id. */
export const platformPolicy: ResourcePolicy = {
  name: 'platform',
  place(sim, job, fit, limit) {
    return placeInOrder(sim, job, fit, platformOrder(sim), limit);
  },
};
