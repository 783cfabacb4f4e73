/**
 * Resource selection: which cores a job gets (DESIGN §4). A `ResourcePolicy` returns the cores of
 * a valid placement for a waiting job on the simulator's current free state, or null when the job
 * does not fit now. Placement rules by job shape:
 *
 * - `seq`: all tasks on one node; the node is chosen by the node fit (`first_fit`: the first node
 *   in the policy's order with enough free cores and memory; `best_fit`: the one with the fewest
 *   free cores that still fit, ties in the policy's order);
 * - `mpi` with `nodes`: exactly that many nodes with `ntasks_per_node` free cores each, in order;
 * - `mpi` otherwise: free cores in the policy's order, spilling over nodes.
 *
 * Within a node, cores are taken in core-id order. `first` is the platform order; the node search
 * uses the simulator's free-core segment tree, so no placement walks the whole platform.
 */
import type { ClusterSimulator } from '../execution/simulator.js';
import { taskMem, type Job } from '../workload/job.js';

/** How a `seq` job picks its node among those that fit. */
export type NodeFit = 'first_fit' | 'best_fit';

/** A resource-selection policy. */
export interface ResourcePolicy {
  readonly name: string;
  /** Cores for `job` now (task t on cores[t]), or null when it does not fit. */
  place(sim: ClusterSimulator, job: Job, fit: NodeFit): Int32Array | null;
}

/** Free memory needed on one node for tasks [from, from + k) of `job`. */
function memFor(job: Job, from: number, k: number): number {
  if (!job.tasks) return job.mem * k;
  let m = 0;
  for (let t = from; t < from + k; t++) m += taskMem(job, t);
  return m;
}

/** Takes `k` free cores of `node` in core order into `out` at `at`. */
export function takeFreeCores(sim: ClusterSimulator, node: number, k: number, out: Int32Array, at: number): number {
  const p = sim.platform;
  const c0 = p.nodeFirstCore[node]!;
  const c1 = c0 + p.nodeCoreCount[node]!;
  let got = 0;
  for (let c = c0; c < c1 && got < k; c++) if (sim.coreOwner[c] === -1) out[at + got++] = c;
  return got;
}

/** Whether `node` can take tasks [from, from+k) of `job` now (cores and memory). */
export function nodeFits(sim: ClusterSimulator, node: number, job: Job, from: number, k: number): boolean {
  if (sim.nodeFree[node]! < k) return false;
  return !sim.enforceMemory || memFor(job, from, k) <= sim.nodeFreeMem[node]! + 1e-9;
}

/** Platform-order placement (`first`). */
export const firstPolicy: ResourcePolicy = {
  name: 'first',
  place(sim, job, fit) {
    const tree = sim.freeTree;
    const n = job.ntasks;
    if (n > sim.freeCores) return null;
    const out = new Int32Array(n);
    if (job.type === 'seq') {
      let best = -1;
      for (let node = tree.findFirst(0, n); node >= 0; node = tree.findFirst(node + 1, n)) {
        if (!nodeFits(sim, node, job, 0, n)) continue;
        if (fit === 'first_fit') {
          best = node;
          break;
        }
        if (best < 0 || sim.nodeFree[node]! < sim.nodeFree[best]!) best = node;
        if (sim.nodeFree[best] === n) break;
      }
      if (best < 0) return null;
      takeFreeCores(sim, best, n, out, 0);
      return out;
    }
    if (job.nodes > 0) {
      // exactly `nodes` nodes: `per` tasks on each but the last, which takes the remainder
      const per = job.ntasksPerNode > 0 ? job.ntasksPerNode : Math.ceil(n / job.nodes);
      const lastCount = n - (job.nodes - 1) * per;
      let placed = 0;
      let used = 0;
      const least = Math.min(per, lastCount);
      for (let node = tree.findFirst(0, least); node >= 0 && used < job.nodes; node = tree.findFirst(node + 1, least)) {
        const want = used === job.nodes - 1 ? lastCount : per;
        if (!nodeFits(sim, node, job, placed, want)) continue;
        takeFreeCores(sim, node, want, out, placed);
        placed += want;
        used++;
      }
      return used === job.nodes ? out : null;
    }
    let placed = 0;
    for (let node = tree.findFirst(0, 1); node >= 0 && placed < n; node = tree.findFirst(node + 1, 1)) {
      let k = Math.min(sim.nodeFree[node]!, n - placed);
      if (sim.enforceMemory) while (k > 0 && memFor(job, placed, k) > sim.nodeFreeMem[node]! + 1e-9) k--;
      if (k === 0) continue;
      placed += takeFreeCores(sim, node, k, out, placed);
    }
    return placed === n ? out : null;
  },
};
