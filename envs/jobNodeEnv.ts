/**
 * `clustergym/JobNode-v0`: the agent picks a job AND a node (IRMaSim-style job x node decisions).
 *
 * Actions: `Discrete(K * N + 1)`. Action `j * N + n` starts the job in visible slot `j` with node
 * `n`: a `seq` job runs wholly on node n; an MPI job puts as many of its tasks on node n as it can
 * hold (for an exact node count: its per-node share) and spills the rest to the other nodes in the
 * order of the configured resource policy (`resource_policy`, which also chooses the cores inside a
 * node). The last action, `K * N`, is `wait`: time advances to the next event.
 *
 * Mask: `j * N + n` is valid when slot j holds a job that can start that way now (cores and, unless
 * `enforce_memory: false`, memory); `wait` is valid when something runs or is still to arrive.
 *
 * With `placement: "one_node"` (IRMaSim's managers' layout) `j * N + n` is valid only when node n
 * can hold all of the job's tasks now, and they all go there: no MPI job spills over the network.
 * A job that no node could ever hold whole (wider than the widest node, or an exact node count
 * above 1) keeps the spilling placement, so that every job can still start.
 */
import type { Job } from '../src/workload/job.js';
import type { PlacementLimit } from '../src/scheduling/placement.js';
import { nodeTaskShare, perNodeCores } from '../src/workload/job.js';
import { ClusterEnv } from './env.js';
import type { EnvContext } from './context.js';
import { checkMem, nodeAllows, nodeCapacity, nodeMaskInfo, type NodeMaskInfo } from './fit.js';
import { discrete, type DiscreteSpace } from './spaces.js';

/** A placement limit allowing only node `n` (or every node but `n`). */
class NodeLimit implements PlacementLimit {
  node = -1;
  only = true;
  cores(m: number): number {
    return (m === this.node) === this.only ? Infinity : 0;
  }
  mem(m: number): number {
    return (m === this.node) === this.only ? Infinity : 0;
  }
}

/** A job restricted to tasks `[from, from + count)` of `job`, with another shape. */
function part(job: Job, from: number, count: number, nodes: number, ntasksPerNode: number): Job {
  return {
    ...job,
    ntasks: count,
    type: 'mpi',
    nodes,
    ntasksPerNode,
    tasks: job.tasks ? job.tasks.slice(from, from + count) : null,
  };
}

/** JobNode-v0. */
export class JobNodeEnv extends ClusterEnv {
  readonly actionSpace: DiscreteSpace;
  /** The `wait` action (`K * N`). */
  readonly waitAction: number;
  private readonly maskInfo: NodeMaskInfo = { need: 0, share: 0, mem: 0, restOk: false, qualifying: 0 };
  private readonly only = new NodeLimit();
  private readonly except = new NodeLimit();
  /** Cores of the widest node (`placement: "one_node"`: a wider job spills). */
  private readonly widest: number;

  constructor(context: EnvContext) {
    super(context);
    this.widest = Math.max(0, ...context.platform.nodeCoreCount);
    this.waitAction = this.k * this.nodeCount;
    this.actionSpace = discrete(this.waitAction + 1);
    this.mask = new Uint8Array(this.waitAction + 1);
    this.except.only = false;
  }

  protected fresh(): JobNodeEnv {
    return new JobNodeEnv(this.context);
  }

  /** The action that starts visible slot `j` with node `n`. */
  action(j: number, n: number): number {
    return j * this.nodeCount + n;
  }

  protected computeMask(): boolean {
    const sim = this.sim;
    const N = this.nodeCount;
    const mask = this.mask;
    mask.fill(0);
    this.canStart.fill(0);
    const info = this.maskInfo;
    const tree = sim.freeTree;
    let any = false;
    for (let j = 0; j < this.windowCount; j++) {
      const job = this.window[j]!;
      if (job.ntasks > sim.freeCores) continue;
      const row = j * N;
      let rowAny = false;
      // a job of a partition (docs/environments.md) or a live cluster's: each node checked by the placement itself
      const partition = sim.allocation.partitionMask(job);
      const byPlacement = partition !== null || this.livePlacement !== null;
      if (byPlacement || this.oneNode(job)) {
        // the whole job on node n (a one-node job), or the first node of its placement
        const mem = checkMem(sim, job);
        const need = byPlacement ? 1 : job.ntasks;
        for (let n = tree.findFirst(0, need); n >= 0; n = tree.findFirst(n + 1, need))
          if ((partition === null || partition[n] !== 0) && (byPlacement ? this.placeOnNode(job, n) !== null : nodeCapacity(sim, n, mem) >= job.ntasks)) {
            mask[row + n] = 1;
            rowAny = true;
          }
        if (rowAny) {
          this.canStart[j] = 1;
          any = true;
        }
        continue;
      }
      nodeMaskInfo(sim, job, info);
      if (!info.restOk) continue;
      if (job.type === 'mpi' && job.nodes > 1) {
        // exact node count: the counting test is necessary; the placement itself decides
        for (let n = tree.findFirst(0, info.need); n >= 0; n = tree.findFirst(n + 1, info.need))
          if (nodeAllows(sim, info, n, job) && this.placeOnNode(job, n) !== null) {
            mask[row + n] = 1;
            rowAny = true;
          }
      } else {
        for (let n = tree.findFirst(0, info.need); n >= 0; n = tree.findFirst(n + 1, info.need))
          if (nodeCapacity(sim, n, info.mem) >= info.need) {
            mask[row + n] = 1;
            rowAny = true;
          }
      }
      if (rowAny) {
        this.canStart[j] = 1;
        any = true;
      }
    }
    mask[this.waitAction] = this.canWait() ? 1 : 0;
    return any;
  }

  protected apply(action: number): boolean {
    if (action === this.waitAction) return true;
    const N = this.nodeCount;
    const j = (action / N) | 0;
    const n = action - j * N;
    const job = this.window[j]!;
    const cores = this.placeOnNode(job, n);
    if (!cores) throw new Error(`internal error: ${this.id} mask allowed job ${job.id} on node ${n} but it cannot be placed there`);
    this.sim.startJob(job, cores);
    return false;
  }

  protected override actionJob(action: number): Job | null {
    return action === this.waitAction ? null : this.window[(action / this.nodeCount) | 0]!;
  }

  protected override whyInvalid(action: number): string {
    if (action === this.waitAction) return 'nothing runs and nothing is left to arrive, so waiting would never end';
    const N = this.nodeCount;
    const j = (action / N) | 0;
    const n = action - j * N;
    const job = this.visibleJob(j);
    if (!job) return `visible slot ${j} is empty (${this.visibleCount} jobs visible)`;
    return `job ${job.id} (slot ${j}, ${job.ntasks} tasks, ${job.type}) cannot start with node ${n} now (node ${n} has ${this.sim.nodeFree[n]} free cores; ${this.sim.freeCores} free in all)`;
  }

  /** Whether `job` goes whole onto the chosen node (`placement: "one_node"` and some node could hold it). */
  oneNode(job: Job): boolean {
    return this.config.placement === 'one_node' && job.ntasks <= this.widest && !(job.type === 'mpi' && job.nodes > 1);
  }

  /** Cores for `job` with node `n` first (null when it does not fit so). */
  placeOnNode(job: Job, n: number): Int32Array | null {
    const sim = this.sim;
    const policy = this.resources;
    const only = this.only;
    only.node = n;
    if (job.type === 'seq') return policy.place(sim, job, this.fit, only);
    if (this.oneNode(job)) return policy.place(sim, { ...job, type: 'mpi', nodes: 0, ntasksPerNode: 0 }, this.fit, only);
    let first: number;
    let restNodes = 0;
    let restPer = 0;
    if (job.nodes > 0) {
      // node n first, with the largest round-robin share; the others keep the job's per-node requirement
      if (sim.nodeFree[n]! < perNodeCores(job)) return null;
      first = nodeTaskShare(job, 0);
      restNodes = job.nodes - 1;
      restPer = perNodeCores(job);
    } else {
      first = Math.min(sim.nodeFree[n]!, job.ntasks);
      if (sim.enforceMemory) {
        if (!job.tasks) {
          if (job.mem > 0) first = Math.min(first, Math.floor((sim.nodeFreeMem[n]! + 1e-9) / job.mem));
        } else {
          let m = 0;
          let k = 0;
          while (k < first && m + job.tasks[k]!.mem <= sim.nodeFreeMem[n]! + 1e-9) m += job.tasks[k++]!.mem;
          first = k;
        }
      }
      if (first <= 0) return null;
    }
    const head = policy.place(
      sim,
      first === job.ntasks && job.nodes <= 1 ? { ...job, type: 'mpi', nodes: 0, ntasksPerNode: 0 } : part(job, 0, first, 0, 0),
      this.fit,
      only,
    );
    if (!head) return null;
    if (first === job.ntasks) return head;
    const except = this.except;
    except.node = n;
    const rest = policy.place(sim, part(job, first, job.ntasks - first, restNodes, restPer), this.fit, except);
    if (!rest) return null;
    const out = new Int32Array(job.ntasks);
    out.set(head, 0);
    out.set(rest, first);
    return this.livePlacement && !this.livePlacement.accepts(job, out) ? null : out;
  }
}
