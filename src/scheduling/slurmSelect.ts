/**
 * Slurm's select plugin as a resource selection of the one engine (`SlurmNodeSelection`): the nodes a job
 * gets on the core capacity as cons_tres chooses them (`nodeSelection.ts`: `evalNodes`, written once and
 * also read by the backfill passes, `willRunBackfill.ts`). It is the placement of Slurm's main pass with whole-node
 * allocation (`within: "nodes"`, `slurmMainPass.ts`; the Slurm preset's `nodeSelect`).
 *
 * The candidates are the nodes of the job's partition in platform order (`Partition.nodes`); on each, the
 * units the job may use (`usableUnits`: its free cores, in whole tasks, as many as its memory allows when
 * memory is enforced: its tasks' `mem` per core, `--mem-per-cpu`, and its `slurmRequest.memPerNode` free
 * there, `--mem`; a whole-node request only an idle node, all of it), 0 outside a placement limit. The
 * request is the job's as Slurm reads it (`nodeRequestOf`): its `slurmRequest` facet (`--exclusive`: whole
 * idle nodes, all their cores; `-N MIN-MAX`; `-c`), else `ntasks` units anywhere, or, on a partition whose
 * nodes have one core each, `ntasks` whole nodes; a `seq` job asks for one node, an `mpi` job with `nodes`
 * for exactly that many. On the chosen nodes the job takes the units `evalNodes` gives each (its tasks'
 * CPUs there, `distTasks`: as many as slurmctld's job holds), the node's free cores in core order;
 * a job with a Slurm request holds them whatever their count (`holdsItsPlacement`: more than its `ntasks`
 * with `-N` above its tasks, `-c` not dividing its CPUs or an exclusive job's whole nodes, fewer where Slurm's
 * relief valve oversubscribes a `-c` job), as slurmctld's job does.
 * A job with GPUs on each node (`gpus` with `perNode`, Slurm's `--gres=gpu[:TYPE]:N`: the Slurm preset's GPU
 * jobs) may use only the nodes that have that many GPUs of its type (any when it names none) free
 * (`usableGpus`), and takes that many on each of its nodes, the node's free GPUs in id order
 * (`SlurmGroups.gpusFor`), as the select plugin holds them (an exclusive job there holds every
 * GPU of its nodes, here its request's: no other job can use the others, its cores being all held); GPUs
 * in total (`--gpus`, without `perNode`) are refused.
 *
 * A node still `COMPLETING` after a job (`ClusterSimulator.completingNodes`) is no candidate: its CPUs are
 * free, but the main scheduler places no job there until it is released (as slurmctld skips a node in `COMPLETING`).
 *
 * Slurm's choice, not every placement that exists: a job the plugin cannot place stays waiting even where
 * another selection would find room (the plugin's own behaviour), and for a job without a Slurm request a
 * placement whose units are not its tasks (a whole node of several cores; more tasks on a node than an `mpi`
 * job with `nodes` allows) is not made. A request the plugin can never place is refused at submission (`refusal`), but one of
 * Slurm's defaults (`SlurmRequest.defaults`: no node option), which waits for ever (the Slurm preset's rule,
 * docs/slurm.md: a GPU request its partition's nodes cannot hold even idle).
 */
import type { ClusterSimulator } from '../execution/simulator.js';
import { holdsItsPlacement, maxTaskMem, type Job, perNodeCores } from '../workload/job.js';
import { evalNodes, type NodeRequest, type NodeShape, neverPlaced, nodeRequestOf, usableGpus, usableUnits } from './nodeSelection.js';
import { type NodeFit, type PlacementLimit, type ResourcePolicy, takeFreeCores } from './placement.js';

/** Slurm's select plugin on the core capacity (see the module comment). */
export class SlurmNodeSelection implements ResourcePolicy {
  readonly name = 'slurm_select';
  /** Per partition: whether every node has one core (a whole-node partition), cached by platform. */
  private oneCore: boolean[] = [];
  private platformOf: unknown = null;
  private avail = new Int32Array(0);

  /** What `job` asks of the nodes of its partition `part` (an index into `Platform.partitions`), as Slurm reads it (the module comment). */
  request(sim: ClusterSimulator, job: Job, part: number): NodeRequest {
    const p = sim.platform;
    if (this.platformOf !== p) {
      this.platformOf = p;
      this.oneCore = p.partitions.map((q) => q.nodes.every((x) => p.nodeCoreCount[x] === 1));
    }
    const req = nodeRequestOf(job.ntasks, this.oneCore[part]!, shapeOf(job));
    if (sim.enforceMemory) {
      req.memPerUnit = maxTaskMem(job);
      req.memPerNode = job.slurmRequest?.memPerNode ?? 0;
    }
    const g = job.gpus;
    if (g?.perNode && g.count > 0) {
      req.gpus = g.count;
      // (a type no node has: an index past the platform's types, which no node's GPUs match)
      const t = g.type === undefined ? -1 : p.gpuTypeIndex(g.type);
      req.gpuType = g.type === undefined ? -1 : t >= 0 ? t : p.gpuTypes.length;
    }
    return req;
  }

  /**
   * Why `job` can never be placed as its tasks by the select plugin (a sentence after "it"), or null: GPUs in
   * total rather than on each node, a request the plugin cannot place on its partition's nodes even when all
   * are idle (`neverPlaced`, as slurmctld refuses it at submission; its memory per CPU and per node and its
   * GPUs on each node counted; not a request of Slurm's defaults, `SlurmRequest.defaults`, which the Slurm
   * engine keeps waiting for ever then), or an exclusive request with `--mem` or with an exact shape (`nodes` of
   * `ntasksPerNode`) that is not whole nodes of its partition (every node of that many cores). An exclusive
   * request without an exact shape holds whole nodes whatever its `ntasks` (`holdsItsPlacement`).
   */
  refusal(sim: ClusterSimulator, job: Job): string | null {
    const g = job.gpus;
    if (g !== undefined && !g.perNode && g.count > 0)
      return `asks for ${g.count} GPUs in total (--gpus); Slurm's select plugin here places GPUs on each of a job's nodes (--gres=gpu:N, a per-node request)`;
    const r = job.slurmRequest;
    // (no node option: Slurm's defaults are not tested at submission, as the Slurm model tests only a shape)
    if (r === undefined || r.defaults === true) return null;
    const p = sim.platform;
    const at = p.partitionOf(job);
    if (typeof at === 'number') {
      const req = this.request(sim, job, at);
      const cap = p.nodeCoreCount;
      const mem = p.nodeMemoryMb;
      const idle = Int32Array.from(p.partitions[at]!.nodes, (x) =>
        usableUnits(
          req,
          cap[x]!,
          cap[x]!,
          req.memPerUnit > 0 || req.memPerNode > 0 ? mem[x]! : Number.POSITIVE_INFINITY,
          true,
          req.gpus > 0 ? usableGpus(req, p.nodeGpuType[x]!, p.nodeGpuCount[x]!) : 0,
        ),
      );
      const never = neverPlaced(idle, req);
      if (never !== null) return never;
    }
    if (r.exclusive !== true) return null;
    if (r.memPerNode !== undefined) return 'is exclusive and asks for memory on each node (--mem): an exclusive job holds its nodes whole, their memory too';
    // (an exact shape, `nodes` of `ntasksPerNode`, must be whole nodes: it holds no more than that on a node)
    if (job.nodes === 0) return null;
    const nodes = typeof at === 'number' ? p.partitions[at]!.nodes : null;
    const whole = job.type === 'mpi' && job.nodes === (r.minNodes ?? job.nodes) && nodes?.every((x) => p.nodeCoreCount[x] === job.ntasksPerNode) === true;
    return whole
      ? null
      : `is exclusive but its shape is not ${r.minNodes ?? job.nodes} whole nodes of its partition (nodes x ntasks_per_node, the cores of each)`;
  }

  place(sim: ClusterSimulator, job: Job, _fit: NodeFit, limit?: PlacementLimit | null): Int32Array | null {
    const p = sim.platform;
    const part = p.partitionOf(job);
    if (typeof part !== 'number') return null;
    const P = p.partitions[part]!.nodes;
    const req = this.request(sim, job, part);
    if (this.avail.length < P.length) this.avail = new Int32Array(P.length);
    const avail = this.avail.subarray(0, P.length);
    const free = sim.nodeFree;
    const freeMem = sim.nodeFreeMem;
    const cap = p.nodeCoreCount;
    // (a GPU request: the GPUs of its type free on each node)
    const freeGpus = req.gpus > 0 ? sim.allocation.nodeFreeGpus : null;
    const gpuType = p.nodeGpuType;
    // a node still COMPLETING after a job is no candidate (`_pick_best_nodes` takes the nodes in completion out)
    const closed = sim.completingNodes;
    for (let i = 0; i < P.length; i++) {
      const x = P[i]!;
      const mem = req.memPerUnit > 0 || req.memPerNode > 0 ? freeMem[x]! : Number.POSITIVE_INFINITY;
      let u =
        closed !== null && closed[x]! > 0
          ? 0
          : usableUnits(req, cap[x]!, free[x]!, mem, free[x] === cap[x], freeGpus === null ? 0 : usableGpus(req, gpuType[x]!, freeGpus[x]!));
      if (limit && u > 0) u = Math.min(u, limit.cores(x));
      avail[i] = u;
    }
    const pick = evalNodes(avail, req);
    if (pick === null) return null;
    const nodes = new Int32Array(pick.pos.length);
    for (let i = 0; i < nodes.length; i++) nodes[i] = P[pick.pos[i]!]!;
    return this.cores(sim, job, nodes, pick.units);
  }

  /**
   * The cores of `job` on `nodes` with `units` on each (the node's free cores in core order), or null when
   * they are not its tasks (the module comment). A job with a Slurm request holds them whatever their count
   * (`holdsItsPlacement`: its tasks' CPUs, `distTasks`, as slurmctld's job holds them).
   */
  cores(sim: ClusterSimulator, job: Job, nodes: ArrayLike<number>, units: ArrayLike<number>): Int32Array | null {
    let total = 0;
    const per = job.type === 'mpi' && job.nodes > 0 ? perNodeCores(job) : Number.POSITIVE_INFINITY;
    for (let i = 0; i < units.length; i++) {
      if (units[i]! > per) return null;
      total += units[i]!;
    }
    if (total !== job.ntasks && !(total > 0 && holdsItsPlacement(job))) return null;
    const out = new Int32Array(total);
    let at = 0;
    for (let i = 0; i < nodes.length; i++) at += takeFreeCores(sim, nodes[i]!, units[i]!, out, at);
    return out;
  }
}

/**
 * What `job` asks of the nodes beyond its units: its Slurm request (`slurmRequest`: `--exclusive`, `-N`, `-c`),
 * else one node (`seq`), exactly `nodes` (`mpi` with `nodes`), or Slurm's defaults.
 */
function shapeOf(job: Job): NodeShape {
  const r = job.slurmRequest;
  if (r !== undefined) return { whole: r.exclusive, minNodes: r.minNodes, maxNodes: r.maxNodes, cpusPerTask: r.cpusPerTask };
  if (job.type === 'seq') return { minNodes: 1, maxNodes: 1, whole: false };
  if (job.nodes > 0) return { minNodes: job.nodes, maxNodes: job.nodes, whole: false };
  return {};
}
