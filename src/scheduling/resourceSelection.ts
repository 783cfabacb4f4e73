/**
 * Resource selection (DESIGN §4): the order in which a policy prefers nodes, and cores inside a node.
 * The placement rules themselves (one node for `seq`, exact nodes, spilling, memory, node fit) are
 * shared, in `placement.ts`.
 *
 * IRMaSim's names mean what IRMaSim's `Heuristic` workload manager does with them
 * (`irmasim/workload_manager/Heuristic.py`), so that the same inputs give IRMaSim's numbers: it keeps
 * the VIABLE nodes (at least `ntasks_per_node` idle cores), sorts them by a key with Python's stable
 * sort (equal keys keep platform order), lays the job on the first ones and gives each task the first
 * idle core of its node (processor by processor, core by core). Where that code contradicts what
 * IRMaSim documents (its `Environment` docstring), the documented order has a name of its own:
 *
 * | name             | key, ascending (ties: platform order)                                    | kind    | IRMaSim                 |
 * |------------------|--------------------------------------------------------------------------|---------|-------------------------|
 * | `first`          | the node's id as a string (`node10` sorts before `node2`)                | static  | `node.id`               |
 * | `random`         | a fresh shuffle of the viable nodes at every placement attempt           | dynamic | `rand.shuffle`          |
 * | `high_gflops`    | `-mops` of the node's first processor                                    | static  | `-children[0].mops_per_core` |
 * | `high_cores`     | `-free cores`                                                            | dynamic | `-count_idle_cores()`   |
 * | `low_cores`      | `free cores`                                                             | dynamic | `count_idle_cores()`    |
 * | `high_mem`       | `-memory in use` (the fullest node first)                                | dynamic | `-current_memory`       |
 * | `high_mem_bw`    | bandwidth requested on the node's first processor                        | dynamic | `children[0].requested_memory_bandwidth` |
 * | `low_power`      | the node's peak power, sum over its cores of `dynamic + static / cores`  | static  | `max_power_consumption()` |
 * | `platform`       | node index: the platform's own order                                     | static  | (Minimal's core order)  |
 * | `high_free_mem`  | `-free memory` (the emptiest node first)                                 | dynamic | intent of `high_mem`    |
 * | `low_core_power` | cheapest busy core `static / cores + dynamic`; processors likewise       | static  | intent of `low_power`   |
 * | `few_switches`   | topology-aware: the job under as few switches as possible (below)        | dynamic | (none)                  |
 *
 * `high_mem`: IRMaSim documents "the node with the most amount of current memory capacity", but its
 * `Node.current_memory` counts memory IN USE, so its code prefers the fullest node; `high_free_mem` is
 * the documented intent. `low_power`: IRMaSim documents "the core with the lowest power consumption"
 * (its `Environment` sorts cores by `static + dynamic`), while `Heuristic` sorts nodes by their peak
 * power, which grows with the node's core count; `low_core_power` is the documented, per-core order.
 * `first` is IRMaSim's string sort of node ids; `platform` is the order of the platform file.
 *
 * `few_switches` packs a job under the fewest switches of the platform's network (`RoutedNetwork.hostSwitch`:
 * a fat-tree's leaf switch, a dragonfly's router, a flat cluster's switch; a torus node is its own): the
 * candidate nodes are grouped by switch; if one switch's candidates have the free cores for the whole job,
 * the one with the fewest (best fit, ties by switch number) comes first; the other switches follow, the
 * most free cores first; nodes keep platform order inside a switch. Without a network every node is its
 * own switch.
 *
 * Bandwidth in use is the sum of the memory-bandwidth requests `y` of the running `ops` tasks of a
 * processor as of its last contention update (`ClusterSimulator.procMemLoad`), as IRMaSim's processor
 * keeps it, whatever the memory model.
 *
 * Cost. Static orders are computed once per simulator: a node permutation whose free-core tree the
 * engine keeps up to date (`ClusterSimulator.freeTreeInOrder`), so finding a node is O(log N).
 * Dynamic orders are computed per placement over the CANDIDATE nodes only (those with the free cores
 * the job needs on one node, found through the free-core tree) and sorted, O(F log F) for F
 * candidates; no placement sorts the whole platform.
 */
import type { Rng } from '../core/rng.js';
import type { ClusterSimulator } from '../execution/simulator.js';
import type { Platform } from '../platform/platform.js';
import { platformNetwork } from '../platform/routing.js';
import { perNodeCores, type Job } from '../workload/job.js';
import {
  ListOrder,
  placeInOrder,
  platformPolicy,
  takeFreeCores,
  takeFreeCoresInOrder,
  TreeOrder,
  type CoreTaker,
  type NodeFit,
  type PlacementLimit,
  type ResourcePolicy,
} from './placement.js';

/** IRMaSim's resource-selection names, in its `Heuristic` manager's meaning. */
export const IRMASIM_RESOURCE_SELECTIONS = ['first', 'random', 'high_gflops', 'high_cores', 'low_cores', 'high_mem', 'high_mem_bw', 'low_power'] as const;
/** Names of the resource-selection policies: IRMaSim's, then clustergym's own. */
export const RESOURCE_SELECTION_NAMES = [...IRMASIM_RESOURCE_SELECTIONS, 'platform', 'high_free_mem', 'low_core_power', 'few_switches'] as const;
/** A resource-selection name. */
export type ResourceSelectionName = (typeof RESOURCE_SELECTION_NAMES)[number];

/** Stable permutation of `0..n-1` by ascending `key`. */
export function stableOrder(n: number, key: (i: number) => number): Int32Array {
  const keys = new Float64Array(n);
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    keys[i] = key(i);
    idx[i] = i;
  }
  idx.sort((a, b) => keys[a]! - keys[b]! || a - b);
  return idx;
}

/** Stable permutation of the nodes by their id compared as strings (Python's `str` order for ASCII ids). */
export function nodesByName(p: Platform): Int32Array {
  const idx = Int32Array.from({ length: p.nodeCount }, (_, i) => i);
  const names = p.nodeName;
  idx.sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : a - b));
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
 * A policy with a static order: nodes in the permutation `nodeOrder` gives, cores inside a node by
 * ascending `procKey` of their processor (core id order when null). The permutation and a free-core
 * tree over it are built once per simulator.
 */
export class StaticOrderPolicy implements ResourcePolicy {
  private readonly state = new WeakMap<ClusterSimulator, { order: TreeOrder; take: CoreTaker }>();
  constructor(
    readonly name: string,
    private readonly nodeOrder: (p: Platform) => Int32Array,
    private readonly procKey: ((p: Platform, proc: number) => number) | null = null,
  ) {}

  /** The node order of this policy on `sim` (built on first use). */
  orderFor(sim: ClusterSimulator): { order: TreeOrder; take: CoreTaker } {
    let s = this.state.get(sim);
    if (!s) {
      const p = sim.platform;
      const perm = this.nodeOrder(p);
      const order = new TreeOrder(sim.freeTreeInOrder(this.name, perm), perm);
      const pk = this.procKey;
      const coreOrders = pk ? Array.from({ length: p.nodeCount }, (_, n) => coresByProcKey(p, n, (q) => pk(p, q))) : [];
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

/**
 * Free cores a node needs to be a candidate for `job` (IRMaSim's viability): all its tasks for a `seq`
 * job, `ntasks_per_node` for an exact-shape `mpi` job, one otherwise.
 */
export function nodeRequirement(job: Job): number {
  if (job.type === 'seq') return job.ntasks;
  if (job.nodes > 0) return perNodeCores(job);
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
 * cores for the job on one node, `nodeRequirement`) are sorted by ascending `nodeKey` (stable: platform
 * order among equals); inside a node, cores follow `procKey` of their processor (core id order when null).
 */
export class DynamicOrderPolicy implements ResourcePolicy {
  constructor(
    readonly name: string,
    private readonly nodeKey: (sim: ClusterSimulator, node: number) => number,
    private readonly procKey: ((sim: ClusterSimulator, proc: number) => number) | null = null,
  ) {}

  place(sim: ClusterSimulator, job: Job, fit: NodeFit, limit?: PlacementLimit | null): Int32Array | null {
    if (job.ntasks > sim.freeCores) return null;
    const cand = candidateNodes(sim, nodeRequirement(job));
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

/**
 * Random (IRMaSim's): at every placement attempt the viable nodes (platform order) are shuffled with
 * `rng` — even when the job then does not fit, as IRMaSim's `layout_job` does, so that a run draws
 * the same numbers as IRMaSim — and the job is laid on them in that order, cores by id.
 */
export class RandomPolicy implements ResourcePolicy {
  readonly name = 'random';
  constructor(private readonly rng: Rng) {}
  place(sim: ClusterSimulator, job: Job, fit: NodeFit, limit?: PlacementLimit | null): Int32Array | null {
    const cand = candidateNodes(sim, nodeRequirement(job));
    this.rng.shuffle(cand);
    if (cand.length === 0 || job.ntasks > sim.freeCores) return null;
    return placeInOrder(sim, job, fit, new ListOrder(sim, cand), limit);
  }
}

/** Topology-aware placement: a job under as few switches as possible (see the module comment). */
export class FewSwitchesPolicy implements ResourcePolicy {
  readonly name = 'few_switches';
  private readonly switches = new WeakMap<Platform, Int32Array>();

  /** The switch of each node of a platform. */
  switchOf(p: Platform): Int32Array {
    let s = this.switches.get(p);
    if (!s) {
      if (p.description.network) {
        const net = platformNetwork(p);
        s = Int32Array.from(p.nodeName, (n) => net.hostSwitch(net.host(n)));
      } else s = Int32Array.from({ length: p.nodeCount }, (_, n) => n);
      this.switches.set(p, s);
    }
    return s;
  }

  place(sim: ClusterSimulator, job: Job, fit: NodeFit, limit?: PlacementLimit | null): Int32Array | null {
    if (job.ntasks > sim.freeCores) return null;
    const cand = candidateNodes(sim, nodeRequirement(job));
    if (cand.length === 0) return null;
    const sw = this.switchOf(sim.platform);
    const free = new Map<number, number>();
    for (const n of cand) free.set(sw[n]!, (free.get(sw[n]!) ?? 0) + sim.nodeFree[n]!);
    let best = -1;
    for (const [s, f] of free) if (f >= job.ntasks && (best < 0 || f < free.get(best)! || (f === free.get(best)! && s < best))) best = s;
    const rank = (s: number) => (s === best ? -Infinity : -free.get(s)! * 1e9 + s);
    const idx = stableOrder(cand.length, (i) => rank(sw[cand[i]!]!));
    return placeInOrder(
      sim,
      job,
      fit,
      new ListOrder(
        sim,
        Int32Array.from(idx, (i) => cand[i]!),
      ),
      limit,
    );
  }
}

/** `few_switches`: topology-aware placement. */
export const fewSwitchesPolicy = new FewSwitchesPolicy();

/** Power of one busy core of a processor: `static_power / cores + dynamic_power`. */
export function busyCorePower(p: Platform, proc: number): number {
  return p.procStaticPower[proc]! / p.procCoreCount[proc]! + p.procDynamicPower[proc]!;
}

/**
 * A node's peak power as IRMaSim's `Node.max_power_consumption()` sums it: per processor, `dynamic +
 * static / cores` added core by core; then the processors in order (the same float operations, so ties
 * between nodes are IRMaSim's).
 */
export function nodePeakPower(p: Platform, node: number): number {
  let w = 0;
  const p0 = p.nodeFirstProc[node]!;
  for (let q = p0; q < p0 + p.nodeProcCount[node]!; q++) {
    let proc = 0;
    const per = p.procDynamicPower[q]! + p.procStaticPower[q]! / p.procCoreCount[q]!;
    for (let c = 0; c < p.procCoreCount[q]!; c++) proc += per;
    w += proc;
  }
  return w;
}

function nodeMinCorePower(p: Platform, node: number): number {
  let m = Infinity;
  const p0 = p.nodeFirstProc[node]!;
  for (let q = p0; q < p0 + p.nodeProcCount[node]!; q++) m = Math.min(m, busyCorePower(p, q));
  return m;
}

/** Memory in use on a node, MB (IRMaSim's `Node.current_memory`: the `mem` of the tasks placed there). */
export function nodeMemoryInUse(sim: ClusterSimulator, node: number): number {
  return sim.platform.nodeMemoryMb[node]! - sim.nodeFreeMem[node]!;
}

/** `first`: IRMaSim's node-id order (ids compared as strings). */
export const firstPolicy = new StaticOrderPolicy('first', nodesByName);
/** `high_gflops`: nodes by the speed of their first processor, fastest first. */
export const highGflopsPolicy = new StaticOrderPolicy('high_gflops', (p) => stableOrder(p.nodeCount, (n) => -p.procMops[p.nodeFirstProc[n]!]!));
/** `low_power`: nodes by peak power, lowest first. */
export const lowPowerPolicy = new StaticOrderPolicy('low_power', (p) => stableOrder(p.nodeCount, (n) => nodePeakPower(p, n)));
/** `low_core_power`: the nodes (and processors) whose busy core draws the least power first. */
export const lowCorePowerPolicy = new StaticOrderPolicy('low_core_power', (p) => stableOrder(p.nodeCount, (n) => nodeMinCorePower(p, n)), busyCorePower);
/** `high_cores`: the nodes with the most free cores first. */
export const highCoresPolicy = new DynamicOrderPolicy('high_cores', (sim, n) => -sim.nodeFree[n]!);
/** `low_cores`: the nodes with the fewest free cores (that still fit) first. */
export const lowCoresPolicy = new DynamicOrderPolicy('low_cores', (sim, n) => sim.nodeFree[n]!);
/** `high_mem`: the nodes with the most memory in use first (IRMaSim's code). */
export const highMemPolicy = new DynamicOrderPolicy('high_mem', (sim, n) => -nodeMemoryInUse(sim, n));
/** `high_free_mem`: the nodes with the most free memory first (IRMaSim's documented intent of `high_mem`). */
export const highFreeMemPolicy = new DynamicOrderPolicy('high_free_mem', (sim, n) => -sim.nodeFreeMem[n]!);
/** `high_mem_bw`: the nodes whose first processor carries the least memory traffic first. */
export const highMemBwPolicy = new DynamicOrderPolicy('high_mem_bw', (sim, n) => sim.procMemLoad[sim.platform.nodeFirstProc[n]!]!);

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
    case 'low_cores':
      return lowCoresPolicy;
    case 'high_mem':
      return highMemPolicy;
    case 'high_mem_bw':
      return highMemBwPolicy;
    case 'low_power':
      return lowPowerPolicy;
    case 'platform':
      return platformPolicy;
    case 'high_free_mem':
      return highFreeMemPolicy;
    case 'low_core_power':
      return lowCorePowerPolicy;
    case 'few_switches':
      return fewSwitchesPolicy;
  }
}

/** Whether `name` is a resource-selection name. */
export function isResourceSelection(name: string): name is ResourceSelectionName {
  return (RESOURCE_SELECTION_NAMES as readonly string[]).includes(name);
}
