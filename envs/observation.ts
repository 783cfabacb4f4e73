/**
 * Observations (DESIGN §5): float32 arrays with every value in [0, 1], written into buffers the
 * environment owns and reuses (no allocation per step).
 *
 * `dict` = `{ jobs: K x Fj, nodes: N x Fn, global: G }` (row-major `Float32Array`s):
 *
 * | jobs (per visible slot) | value                                                        |
 * |-------------------------|--------------------------------------------------------------|
 * | `present`               | 1 when the slot holds a job, else the whole row is 0          |
 * | `wait`                  | `min(1, (now - submit) / max_wait)`                           |
 * | `req_time`              | `min(1, d / L.req_time)`, `d` the job's observed duration: its requested time (walltime), or its actual run time under `observe.durations: "actual"` |
 * | `ntasks`                | `min(1, ntasks / L.ntasks)`                                   |
 * | `mem`                   | `min(1, mem / L.mem)` (MB per task; the largest task's)       |
 * | `mem_bw`                | `min(1, mem_vol / L.mem_vol)` (MB of traffic per task)        |
 * | `is_mpi`                | 1 for `mpi` jobs, 0 for `seq`                                 |
 * | `can_start_now`         | 1 when the job fits the free resources now                    |
 *
 * | nodes (per node)  | value                                                                         |
 * |-------------------|-------------------------------------------------------------------------------|
 * | `free_cores`      | free cores / cores of the node                                                 |
 * | `total_cores`     | cores of the node / cores of the largest node                                  |
 * | `clock`           | core speed (mean MOPS of its cores) / fastest node's                           |
 * | `free_memory`     | free memory / memory of the node                                               |
 * | `mem_bw_use`      | `min(1, sum of bandwidth requests / sum of saturation thresholds c)` of its processors (0 without contention coefficients) |
 * | `power`           | power drawn now / the node's peak power (all cores busy)                       |
 * | `comm_use`        | `min(1, link load / comm_bw)`                                                  |
 *
 * | global          | value                                                                           |
 * |-----------------|---------------------------------------------------------------------------------|
 * | `time`          | `min(1, now / horizon)`, horizon = last submission so far + L.req_time (or `max_sim_time`) |
 * | `queue_length`  | `log(1 + waiting) / log(1 + jobs submitted so far)`                             |
 * | `running_jobs`  | running jobs / min(total cores, jobs submitted so far)                           |
 * | `utilisation`   | busy cores / total cores                                                         |
 * | `pending_work`  | `min(1, sum over waiting jobs of ntasks * d / (total cores * L.req_time))`      |
 *
 * "So far" is `observe.horizon: "seen"` (the default: what a live scheduler knows, envs/observes.ts);
 * `horizon: "trajectory"` uses the trajectory's last submission and length instead, which reveal its
 * future arrivals (what models trained before the option saw).
 *
 * `L` are the normalisation limits: the workload's 99th percentiles of req_time, ntasks, mem and
 * mem_vol (or the config's `limits`); a limit of 0 makes its feature 0.
 *
 * With `topology: true` (a platform with a network; `dict` only) two more keys:
 *
 * | key          | shape  | value                                                                             |
 * |--------------|--------|-----------------------------------------------------------------------------------|
 * | `switch_use` | N      | the busiest (load / bandwidth, clipped to 1) of the links its switch uses to reach other switches (the links after the node's own on the first half of its routes to nodes under other switches: a fat-tree leaf's uplinks), under the `flow` model's current streams (0 under the other models) |
 * | `hops`       | N x N  | links on the route from node i to node j / the longest route (static)             |
 *
 * `flat` concatenates jobs, nodes and global into one vector. `jobs` (Job-v0) is `flat` without the
 * node rows: the K x Fj job rows then the global features, `K * 8 + 5` values whatever the platform,
 * the shape of RLScheduler's observation (its job window; SchedGym's is K x 8). It suits homogeneous
 * clusters, where the per-node rows of a large platform are many near-constant inputs that make a
 * policy network's first layer, hence its training, several times costlier (docs/environments.md).
 * `minimal` (IRMaSim, PolicyPair-v0) is
 * 21 values: the min, 25th percentile, median, 75th percentile and max of req_time, ntasks, mem and
 * mem_vol over the WHOLE queue (each divided by its limit, clipped to 1; 0 for an empty queue),
 * then IRMaSim's queue-variation ratio: 1 when the queue or the previous one is empty, else
 * `clip((q - q_prev) / min(q, q_prev) + s) / (2 s))` with the queue sensitivity `s`.
 *
 * Rows are updated incrementally: node rows only for the nodes that may have changed since the
 * last observation (see tracking.ts), job rows only where the window changed (`writeJobs`). The
 * buffers are therefore read-only for callers: an agent that writes into an observation must copy it.
 */
import type { ClusterSimulator } from '../src/execution/simulator.js';
import type { Platform } from '../src/platform/platform.js';
import { InputError } from '../src/core/errors.js';
import { quantile } from '../src/core/statistics.js';
import { processorPower } from '../src/platform/power.js';
import { platformNetwork } from '../src/platform/routing.js';
import { maxTaskMem, type Job } from '../src/workload/job.js';
import { box, dict, type Space } from './spaces.js';

/**
 * `switch_use` and `hops` of the `dict` observation on a platform with a network: per node, the links its
 * switch uses to reach other switches (precomputed from the routes), and the static hop matrix.
 */
export class TopologyFeatures {
  readonly switchUse: Float32Array;
  readonly hops: Float32Array;
  private readonly uplinks: Int32Array[];

  constructor(platform: Platform) {
    if (!platform.description.network)
      throw new InputError('`topology: true` needs a platform with a network (SimGrid XML, or a native platform with `network`)', platform.name);
    const net = platformNetwork(platform);
    const N = platform.nodeCount;
    if (N > 2048) throw new InputError(`\`topology: true\` builds an N x N hop matrix; ${N} nodes is more than 2048`, platform.name);
    const host = Int32Array.from(platform.nodeName, (n) => net.host(n));
    this.switchUse = new Float32Array(N);
    this.hops = new Float32Array(N * N);
    let longest = 1;
    const sets: Set<number>[] = Array.from({ length: N }, () => new Set<number>());
    for (let i = 0; i < N; i++)
      for (let j = 0; j < N; j++) {
        if (i === j) continue;
        const r = net.route(host[i]!, host[j]!);
        this.hops[i * N + j] = r.links.length;
        if (r.links.length > longest) longest = r.links.length;
        // the links after the node's own on the first half of the route: up from its switch
        if (net.hostSwitch(host[i]!) !== net.hostSwitch(host[j]!)) for (let k = 1; k <= (r.links.length - 1) >> 1; k++) sets[i]!.add(r.links[k]!);
      }
    for (let x = 0; x < this.hops.length; x++) this.hops[x] = this.hops[x]! / longest;
    this.uplinks = sets.map((s) => Int32Array.from(s));
  }

  /** `switch_use` now. */
  write(sim: ClusterSimulator): void {
    const jn = sim.network;
    if (jn === null) return;
    const use = jn.linkUtilisation();
    for (let n = 0; n < this.uplinks.length; n++) {
      let m = 0;
      for (const l of this.uplinks[n]!) if (use[l]! > m) m = use[l]!;
      this.switchUse[n] = m > 1 ? 1 : m;
    }
  }
}

/** Features of a job slot, in order. */
export const JOB_FEATURES = ['present', 'wait', 'req_time', 'ntasks', 'mem', 'mem_bw', 'is_mpi', 'can_start_now'] as const;
/** Features of a node, in order. */
export const NODE_FEATURES = ['free_cores', 'total_cores', 'clock', 'free_memory', 'mem_bw_use', 'power', 'comm_use'] as const;
/** Global features, in order. */
export const GLOBAL_FEATURES = ['time', 'queue_length', 'running_jobs', 'utilisation', 'pending_work'] as const;
/** Size of the `minimal` observation. */
export const MINIMAL_SIZE = 21;

const FJ = JOB_FEATURES.length;
const FN = NODE_FEATURES.length;
const FG = GLOBAL_FEATURES.length;

/** Normalisation limits (99th percentiles of the workload unless configured). */
export interface Limits {
  req_time: number;
  ntasks: number;
  mem: number;
  mem_vol: number;
}

/** An observation: the `dict` variant's arrays, or one vector (`flat`, `jobs`, `minimal`). */
export type DictObservation = { jobs: Float32Array; nodes: Float32Array; global: Float32Array; switch_use?: Float32Array; hops?: Float32Array };
/** Any observation. */
export type Observation = DictObservation | Float32Array;

/** Observation variants. */
export type ObservationKind = 'dict' | 'flat' | 'jobs' | 'minimal';

/** The observation space of a variant (`topology`: the dict's `switch_use` and `hops` keys). */
export function observationSpace(kind: ObservationKind, k: number, nodes: number, topology = false): Space {
  if (kind === 'minimal') return box([MINIMAL_SIZE]);
  if (kind === 'flat') return box([k * FJ + nodes * FN + FG]);
  if (kind === 'jobs') return box([k * FJ + FG]);
  if (topology) return dict({ jobs: box([k, FJ]), nodes: box([nodes, FN]), global: box([FG]), switch_use: box([nodes]), hops: box([nodes, nodes]) });
  return dict({ jobs: box([k, FJ]), nodes: box([nodes, FN]), global: box([FG]) });
}

/** Size of one observation's vector(s): per key for `dict`, else `flat`/`jobs`/`minimal`'s length. */
export function observationSizes(kind: ObservationKind, k: number, nodes: number): Record<string, number> {
  if (kind === 'minimal') return { obs: MINIMAL_SIZE };
  if (kind === 'flat') return { obs: k * FJ + nodes * FN + FG };
  if (kind === 'jobs') return { obs: k * FJ + FG };
  return { jobs: k * FJ, nodes: nodes * FN, global: FG };
}

/** The p-th percentile of sorted values, with numpy's default linear interpolation. */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
  return sorted.length === 0 ? 0 : quantile(sorted, p / 100);
}

/** The 99th percentiles of req_time, ntasks, mem (largest task's) and mem_vol over `jobs`. */
export function workloadLimits(jobs: readonly Job[]): Limits {
  const n = jobs.length;
  const a = new Float64Array(n);
  const p99 = (f: (j: Job) => number): number => {
    for (let i = 0; i < n; i++) a[i] = f(jobs[i]!);
    a.sort();
    return percentileSorted(a, 99);
  };
  return {
    req_time: p99((j) => j.reqTime),
    ntasks: p99((j) => j.ntasks),
    mem: p99((j) => maxTaskMem(j)),
    mem_vol: p99((j) => maxTaskMemVol(j)),
  };
}

function maxTaskMemVol(job: Job): number {
  if (!job.tasks) return job.memVol;
  let m = 0;
  for (const t of job.tasks) if (t.memVol > m) m = t.memVol;
  return m;
}

const inv = (x: number): number => (x > 0 ? 1 / x : 0);

/**
 * A job's duration as the policy observes it: its requested time, or (`actual`) its run time, the
 * longest of its tasks' (fixed-duration `delay` jobs; EnvContext refuses `actual` on `ops` jobs,
 * whose run time depends on where and beside what they run).
 */
export function observedDuration(kind: 'requested' | 'actual'): (job: Job) => number {
  if (kind === 'requested') return (job) => job.reqTime;
  return (job) => {
    if (!job.tasks) return job.runtime;
    let m = 0;
    for (const t of job.tasks) if (t.runtime > m) m = t.runtime;
    return m;
  };
}
const clip1 = (x: number): number => (x < 1 ? (x > 0 ? x : 0) : 1);

/** Static per-node figures used by the node features. */
class NodeStatics {
  readonly invCores: Float64Array;
  readonly totalCores: Float32Array;
  readonly clock: Float32Array;
  readonly invMem: Float64Array;
  readonly invMaxPower: Float64Array;
  readonly invBwCap: Float64Array;
  readonly invCommBw: Float64Array;
  constructor(p: Platform) {
    const N = p.nodeCount;
    this.invCores = new Float64Array(N);
    this.totalCores = new Float32Array(N);
    this.clock = new Float32Array(N);
    this.invMem = new Float64Array(N);
    this.invMaxPower = new Float64Array(N);
    this.invBwCap = new Float64Array(N);
    this.invCommBw = new Float64Array(N);
    let maxSpeed = 0;
    for (let n = 0; n < N; n++) maxSpeed = Math.max(maxSpeed, p.nodeMops[n]! / p.nodeCoreCount[n]!);
    for (let n = 0; n < N; n++) {
      const cores = p.nodeCoreCount[n]!;
      this.invCores[n] = inv(cores);
      this.totalCores[n] = cores / p.maxNodeCores;
      this.clock[n] = maxSpeed > 0 ? p.nodeMops[n]! / cores / maxSpeed : 0;
      this.invMem[n] = inv(p.nodeMemoryMb[n]!);
      let maxPower = 0;
      let bwCap = 0;
      const q0 = p.nodeFirstProc[n]!;
      for (let q = q0; q < q0 + p.nodeProcCount[n]!; q++) {
        maxPower += p.procStaticPower[q]! + p.procDynamicPower[q]! * p.procCoreCount[q]!;
        const k = p.procContention[q];
        if (k) bwCap += k.c;
      }
      this.invMaxPower[n] = inv(maxPower);
      this.invBwCap[n] = inv(bwCap);
      this.invCommBw[n] = inv(p.nodeCommBw[n]!);
    }
  }
}

/** Per-episode quantities of the global features. */
export interface EpisodeScale {
  /** Normalisation of time (s). */
  horizon: number;
  /** Jobs in the trajectory. */
  length: number;
}

/**
 * Writes observations into reused buffers. One builder per environment; `dict` arrays are views of
 * one buffer laid out as `flat`, so both variants cost the same.
 */
export class ObservationBuilder {
  readonly kind: ObservationKind;
  readonly k: number;
  readonly nodeCount: number;
  /** The whole vector (`flat` layout for dict/flat; the job rows and global features for jobs; the 21 values for minimal). */
  readonly buffer: Float32Array;
  readonly jobs: Float32Array;
  readonly nodes: Float32Array;
  readonly global: Float32Array;
  /** What `observation()` returns (the same object every time). */
  readonly value: Observation;
  private readonly statics: NodeStatics;
  private readonly invReq: number;
  private readonly invTasks: number;
  private readonly invMem: number;
  private readonly invMemVol: number;
  private readonly invWait: number;
  private lastQueue: number | null = null;
  private scratch = new Float64Array(64);
  /** The job each job row was last written for (rows `0 .. rowCount)`), to rewrite only what changed. */
  private readonly rowJob: (Job | null)[];
  private rowCount = 0;

  constructor(
    kind: ObservationKind,
    k: number,
    readonly platform: Platform,
    readonly limits: Limits,
    maxWait: number,
    readonly queueSensitivity: number,
    topology = false,
    /** A job's observed duration (`observedDuration`). */
    private readonly duration: (job: Job) => number = (job) => job.reqTime,
  ) {
    this.kind = kind;
    this.k = k;
    this.nodeCount = platform.nodeCount;
    this.statics = new NodeStatics(platform);
    this.invReq = inv(limits.req_time);
    this.invTasks = inv(limits.ntasks);
    this.invMem = inv(limits.mem);
    this.invMemVol = inv(limits.mem_vol);
    this.invWait = inv(maxWait);
    this.rowJob = new Array<Job | null>(k).fill(null);
    const nj = k * FJ;
    const nn = this.nodeCount * FN;
    // the job and node arrays are kept for every variant (agents read them), minimal has its own buffer
    const full = new Float32Array(nj + nn + FG);
    if (kind === 'jobs') {
      // jobs, global, then the nodes (written, not observed): the observation is the first part
      this.jobs = full.subarray(0, nj);
      this.global = full.subarray(nj, nj + FG);
      this.nodes = full.subarray(nj + FG);
    } else {
      this.jobs = full.subarray(0, nj);
      this.nodes = full.subarray(nj, nj + nn);
      this.global = full.subarray(nj + nn);
    }
    if (kind === 'minimal') {
      this.buffer = new Float32Array(MINIMAL_SIZE);
      this.value = this.buffer;
    } else if (kind === 'jobs') {
      this.buffer = full.subarray(0, nj + FG);
      this.value = this.buffer;
    } else {
      this.buffer = full;
      this.value = kind === 'flat' ? full : { jobs: this.jobs, nodes: this.nodes, global: this.global };
    }
    if (topology) {
      if (kind !== 'dict') throw new InputError('the topology features are keys of the `dict` observation');
      this.topology = new TopologyFeatures(platform);
      Object.assign(this.value, { switch_use: this.topology.switchUse, hops: this.topology.hops });
    }
  }

  /** The topology features (null without `topology`). */
  readonly topology: TopologyFeatures | null = null;

  /** Refreshes `switch_use` from the simulator's streams (no-op without `topology`). */
  writeTopology(sim: ClusterSimulator): void {
    this.topology?.write(sim);
  }

  /** Forgets incremental state (a new episode). */
  reset(): void {
    this.lastQueue = null;
    this.rowJob.fill(null);
    this.rowCount = 0;
    this.jobs.fill(0);
  }

  /**
   * Writes the job rows: `count` visible jobs `visible[0..count)`, `canStart[j]` their fit now; the
   * remaining rows are zeroed.
   *
   * Incremental: a row whose job is the one it was last written for keeps its static features
   * (`present`, `req_time`, `ntasks`, `mem`, `mem_bw`, `is_mpi`); only `wait` and `can_start_now` are
   * rewritten. When a job left the window (it started), the rows after it move up one slot in one
   * block copy. The result is the same as writing every row (tested), provided nothing else writes
   * the buffer.
   */
  writeJobs(now: number, visible: readonly Job[], count: number, canStart: Uint8Array): void {
    const a = this.jobs;
    const rows = this.rowJob;
    let o = 0;
    for (let j = 0; j < count; j++, o += FJ) {
      const job = visible[j]!;
      if (rows[j] !== job) {
        if (j + 1 < this.rowCount && rows[j + 1] === job) {
          // the job of row j left: the rows after it move up one
          a.copyWithin(o, o + FJ, this.rowCount * FJ);
          for (let i = j; i < this.rowCount - 1; i++) rows[i] = rows[i + 1]!;
          this.rowCount--;
          rows[this.rowCount] = null;
          a.fill(0, this.rowCount * FJ, (this.rowCount + 1) * FJ);
        } else {
          a[o] = 1;
          a[o + 2] = clip1(this.duration(job) * this.invReq);
          a[o + 3] = clip1(job.ntasks * this.invTasks);
          a[o + 4] = clip1((job.tasks ? maxTaskMem(job) : job.mem) * this.invMem);
          a[o + 5] = clip1((job.tasks ? maxTaskMemVol(job) : job.memVol) * this.invMemVol);
          a[o + 6] = job.type === 'mpi' ? 1 : 0;
          rows[j] = job;
          if (j >= this.rowCount) this.rowCount = j + 1;
        }
      }
      a[o + 1] = clip1((now - job.subtime) * this.invWait);
      a[o + 7] = canStart[j]!;
    }
    if (this.rowCount > count) {
      a.fill(0, o, this.rowCount * FJ);
      rows.fill(null, count, this.rowCount);
      this.rowCount = count;
    }
  }

  /** Refreshes node rows: every node when `all`, else `dirty[0 .. dirtyCount)`. */
  writeNodes(sim: ClusterSimulator, all: boolean, dirty: Int32Array, dirtyCount: number): void {
    if (all) for (let n = 0; n < this.nodeCount; n++) this.writeNode(sim, n);
    else for (let i = 0; i < dirtyCount; i++) this.writeNode(sim, dirty[i]!);
  }

  private writeNode(sim: ClusterSimulator, n: number): void {
    const p = sim.platform;
    const s = this.statics;
    const a = this.nodes;
    const o = n * FN;
    a[o] = sim.nodeFree[n]! * s.invCores[n]!;
    a[o + 1] = s.totalCores[n]!;
    a[o + 2] = s.clock[n]!;
    a[o + 3] = clip1(sim.nodeFreeMem[n]! * s.invMem[n]!);
    let power = 0;
    let bw = 0;
    const q0 = p.nodeFirstProc[n]!;
    const q1 = q0 + p.nodeProcCount[n]!;
    for (let q = q0; q < q1; q++) {
      power += processorPower(sim.procBusy[q]!, p.procStaticPower[q]!, p.procDynamicPower[q]!, p.procMinPower[q]!);
      bw += sim.procMemLoad[q]!;
    }
    a[o + 4] = clip1(bw * s.invBwCap[n]!);
    a[o + 5] = clip1(power * s.invMaxPower[n]!);
    a[o + 6] = clip1(sim.nodeCommLoad[n]! * s.invCommBw[n]!);
  }

  /** Writes the global features. `pendingCoreSeconds`: sum of ntasks * req_time over waiting jobs. */
  writeGlobal(sim: ClusterSimulator, scale: EpisodeScale, pendingCoreSeconds: number): void {
    const g = this.global;
    const cores = sim.platform.coreCount;
    g[0] = scale.horizon > 0 ? clip1(sim.now / scale.horizon) : 0;
    g[1] = scale.length > 0 ? clip1(Math.log1p(sim.queue.length) / Math.log1p(scale.length)) : 0;
    g[2] = clip1(sim.runningCount / Math.max(1, Math.min(cores, scale.length)));
    g[3] = sim.busyCores / cores;
    g[4] = clip1((pendingCoreSeconds * this.invReq) / cores);
  }

  /** Writes the `minimal` observation from the whole queue. */
  writeMinimal(queue: readonly Job[]): void {
    const b = this.buffer;
    const q = queue.length;
    if (this.scratch.length < q) this.scratch = new Float64Array(Math.max(q, this.scratch.length * 2));
    const v = this.scratch.subarray(0, q);
    const fields: [(j: Job) => number, number][] = [
      [this.duration, this.invReq],
      [(j) => j.ntasks, this.invTasks],
      [(j) => (j.tasks ? maxTaskMem(j) : j.mem), this.invMem],
      [(j) => (j.tasks ? maxTaskMemVol(j) : j.memVol), this.invMemVol],
    ];
    let o = 0;
    for (const [f, scale] of fields) {
      if (q === 0) {
        b.fill(0, o, o + 5);
      } else {
        for (let i = 0; i < q; i++) v[i] = f(queue[i]!);
        v.sort();
        b[o] = clip1(v[0]! * scale);
        b[o + 1] = clip1(percentileSorted(v, 25) * scale);
        b[o + 2] = clip1(percentileSorted(v, 50) * scale);
        b[o + 3] = clip1(percentileSorted(v, 75) * scale);
        b[o + 4] = clip1(v[q - 1]! * scale);
      }
      o += 5;
    }
    const last = this.lastQueue;
    let ratio = 1;
    if (last !== null && Math.min(q, last) > 0) {
      const s = this.queueSensitivity;
      ratio = clip1(((q - last) / Math.min(q, last) + s) / (2 * s));
    }
    b[20] = ratio;
    this.lastQueue = q;
  }

  /** Number of features per job row, node row, and global. */
  static readonly FJ = FJ;
  static readonly FN = FN;
  static readonly FG = FG;
}
