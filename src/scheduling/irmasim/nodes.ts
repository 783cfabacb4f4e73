/**
 * What IRMaSim's workload managers read of a node, on clustergym's engine: its running jobs, its first
 * idle cores, and the energy estimate that `Backfill` and `EnergyHeuristic` sort nodes by.
 *
 * The energy estimate (`node_energy` in both managers) of running `job` on node `n`, computed with
 * IRMaSim's float operations in IRMaSim's order so that ties and near-ties fall as there:
 *
 *     dyn    = dynamic_power of the node's first core, added once per task of the job
 *     static = sum over the node's cores of static_power / cores, divided by (jobs assigned to n + 1)
 *     time   = req_time * (min_clock / clock) * (clock * 1e3 / mops)      (clock, mops: the first core's)
 *     energy = time * (dyn + static),      edp = energy * time
 *
 * `min_clock` is the lowest first-core clock rate over the platform's nodes; the time factor reduces
 * to `min_clock / (clock * dpflops_per_cycle)`.
 */
import type { ClusterSimulator, RunningJob } from '../../execution/simulator.js';
import type { Platform } from '../../platform/platform.js';
import type { Job } from '../../workload/job.js';

/** The distinct jobs running on `node`, in the order of their first core on it. */
export function runningJobsOn(sim: ClusterSimulator, node: number): RunningJob[] {
  const p = sim.platform;
  const out: RunningJob[] = [];
  const c0 = p.nodeFirstCore[node]!;
  for (let c = c0; c < c0 + p.nodeCoreCount[node]!; c++) {
    const slot = sim.coreOwner[c]!;
    if (slot < 0) continue;
    const rj = sim.runningBySlot[slot]!;
    if (!out.includes(rj)) out.push(rj);
  }
  return out;
}

/** The first `k` idle cores of `node` (processor by processor, core by core), or null when it has fewer. */
export function firstIdleCores(sim: ClusterSimulator, node: number, k: number): Int32Array | null {
  if (sim.nodeFree[node]! < k) return null;
  const p = sim.platform;
  const out = new Int32Array(k);
  let got = 0;
  const c0 = p.nodeFirstCore[node]!;
  for (let c = c0; c < c0 + p.nodeCoreCount[node]! && got < k; c++) if (sim.coreOwner[c] === -1) out[got++] = c;
  return out;
}

/** IRMaSim's per-node energy estimates for a platform (see the module comment). */
export class NodeEnergyEstimate {
  private readonly minClock: number;
  constructor(private readonly platform: Platform) {
    let m = Infinity;
    for (let n = 0; n < platform.nodeCount; n++) m = Math.min(m, platform.procClockRate[platform.nodeFirstProc[n]!]!);
    this.minClock = m;
  }

  /** `estimate_speedup(node)`: `(min_clock / clock) * (clock * 1e3 / mops)` of the node's first core. */
  speedup(node: number): number {
    const q = this.platform.nodeFirstProc[node]!;
    const clock = this.platform.procClockRate[q]!;
    return (this.minClock / clock) * ((clock * 1e3) / this.platform.procMops[q]!);
  }

  /** `node_energy(job, node)` with `assigned` jobs already assigned to the node's id. */
  energy(job: Job, node: number, assigned: number): number {
    const p = this.platform;
    const q0 = p.nodeFirstProc[node]!;
    const dynamic = p.procDynamicPower[q0]!;
    let dyn = 0;
    for (let i = 0; i < job.ntasks; i++) dyn += dynamic;
    let stat = 0;
    for (let q = q0; q < q0 + p.nodeProcCount[node]!; q++) {
      const perCore = p.procStaticPower[q]! / p.procCoreCount[q]!;
      for (let c = 0; c < p.procCoreCount[q]!; c++) stat += perCore;
    }
    stat /= assigned + 1;
    const time = job.reqTime * this.speedup(node);
    return time * (dyn + stat);
  }

  /** `node_edp(job, node)`: energy times the estimated time. */
  edp(job: Job, node: number, assigned: number): number {
    const time = job.reqTime * this.speedup(node);
    return this.energy(job, node, assigned) * time;
  }
}

/**
 * Jobs assigned per node id, as IRMaSim's `Backfill` and `EnergyHeuristic` count them: keyed by the
 * node's id STRING, so that nodes of different clusters with the same id share one count (IRMaSim's
 * `assigned_nodes` dictionary); a job counts on the node of its first task.
 */
export class AssignedJobs {
  private readonly byName = new Map<string, number>();
  constructor(private readonly platform: Platform) {}
  get(node: number): number {
    return this.byName.get(this.platform.nodeName[node]!) ?? 0;
  }
  add(node: number, d: number): void {
    const k = this.platform.nodeName[node]!;
    this.byName.set(k, (this.byName.get(k) ?? 0) + d);
  }
}
