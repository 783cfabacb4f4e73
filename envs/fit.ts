/**
 * Fast feasibility checks for action masks.
 *
 * The masks are recomputed at every decision, so they must not place jobs for real: these checks
 * read the simulator's free-core counts and free memory (dense arrays) and answer in O(1) for the
 * common cases (an MPI job without memory needs, checked against the free-core total), O(log N)
 * for a `seq` job (the free-core segment tree), and O(N) at worst. They are exact for `seq` jobs
 * and for MPI jobs that may use any nodes: a complete resource policy finds a placement if and only
 * if they say so. Jobs with per-task profiles are checked with their largest task memory
 * (conservative: never allows what cannot be placed). MPI jobs with an exact node count are left
 * to the caller's resource policy (`ClusterEnv.fitsNow` asks it), since only it knows how it fills
 * nodes.
 *
 * `JobNode-v0`'s node mask ("job j with node n first") builds on a per-job summary
 * (`nodeMaskInfo`) so that each node costs O(1); the placement itself is the resource policy's
 * (see jobNodeEnv.ts).
 */
import type { ClusterSimulator } from '../src/execution/simulator.js';
import { maxTaskMem, nodeTaskShare, perNodeCores, type Job } from '../src/workload/job.js';

const EPS = 1e-9;

/** Memory per task used by the checks (MB): the job's, or its largest task's; 0 without enforcement. */
export function checkMem(sim: ClusterSimulator, job: Job): number {
  if (!sim.enforceMemory) return 0;
  return job.tasks ? maxTaskMem(job) : job.mem;
}

/** Tasks of `mem` MB that node `n` can take now. */
export function nodeCapacity(sim: ClusterSimulator, n: number, mem: number): number {
  const free = sim.nodeFree[n]!;
  if (mem <= 0 || free === 0) return free;
  const byMem = Math.floor((sim.nodeFreeMem[n]! + EPS) / mem);
  return byMem < free ? byMem : free;
}

/** Tasks of `mem` MB the whole platform can take now (stops counting at `enough`). */
export function platformCapacity(sim: ClusterSimulator, mem: number, enough = Infinity): number {
  if (mem <= 0) return sim.freeCores;
  let cap = 0;
  const tree = sim.freeTree;
  for (let n = tree.findFirst(0, 1); n >= 0; n = tree.findFirst(n + 1, 1)) {
    cap += nodeCapacity(sim, n, mem);
    if (cap >= enough) return cap;
  }
  return cap;
}

/** Whether some node can take all tasks of a `seq` job now. */
export function seqFits(sim: ClusterSimulator, job: Job): boolean {
  const k = job.ntasks;
  const mem = checkMem(sim, job);
  const tree = sim.freeTree;
  for (let n = tree.findFirst(0, k); n >= 0; n = tree.findFirst(n + 1, k)) if (mem <= 0 || nodeCapacity(sim, n, mem) >= k) return true;
  return false;
}

/**
 * Whether `job` can start now, for `seq` jobs and MPI jobs on any nodes (exact); null for MPI jobs
 * with an exact node count (the caller asks its resource policy).
 */
export function fitsNowFast(sim: ClusterSimulator, job: Job): boolean | null {
  if (job.ntasks > sim.freeCores) return false;
  if (job.type === 'seq') return seqFits(sim, job);
  if (job.nodes > 0) return null;
  return platformCapacity(sim, checkMem(sim, job), job.ntasks) >= job.ntasks;
}

/**
 * Per-job summary for the node mask of `JobNode-v0` (computed once per job per decision), so that
 * "job on node n" is then O(1) per node.
 */
export interface NodeMaskInfo {
  /** seq: tasks; mpi-any: 1 (node n must take one task); exact: `ntasks_per_node` free cores. */
  need: number;
  /** exact: tasks (of `mem` MB) the first node takes, the largest share; else `need`. */
  share: number;
  /** Memory per task for the checks. */
  mem: number;
  /** Whether the rest can go elsewhere whatever node n is (mpi-any: total capacity suffices). */
  restOk: boolean;
  /** exact: nodes that qualify (`need` free cores and room for `share` tasks), all nodes. */
  qualifying: number;
}

/** Whether node `n` qualifies for an exact-shape job summarised by `info`. */
function qualifies(sim: ClusterSimulator, n: number, info: NodeMaskInfo): boolean {
  return sim.nodeFree[n]! >= info.need && nodeCapacity(sim, n, info.mem) >= info.share;
}

/** Fills `info` for `job` on the current state. */
export function nodeMaskInfo(sim: ClusterSimulator, job: Job, info: NodeMaskInfo): NodeMaskInfo {
  const mem = checkMem(sim, job);
  info.mem = mem;
  info.restOk = true;
  info.qualifying = 0;
  if (job.type === 'seq') {
    info.need = info.share = job.ntasks;
    return info;
  }
  if (job.nodes <= 0) {
    info.need = info.share = 1;
    info.restOk = job.ntasks <= sim.freeCores && platformCapacity(sim, mem, job.ntasks) >= job.ntasks;
    return info;
  }
  info.need = perNodeCores(job);
  info.share = nodeTaskShare(job, 0);
  const tree = sim.freeTree;
  for (let n = tree.findFirst(0, info.need); n >= 0; n = tree.findFirst(n + 1, info.need)) if (qualifies(sim, n, info)) info.qualifying++;
  return info;
}

/** Whether `JobNode-v0` may start the job described by `info` with node `n` first. */
export function nodeAllows(sim: ClusterSimulator, info: NodeMaskInfo, n: number, job: Job): boolean {
  if (!info.restOk) return false;
  if (job.type === 'seq' || job.nodes <= 0) return nodeCapacity(sim, n, info.mem) >= info.need;
  // exact node count: n qualifies, and nodes - 1 others do
  return qualifies(sim, n, info) && info.qualifying - 1 >= job.nodes - 1;
}
