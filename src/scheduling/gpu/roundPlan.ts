/**
 * One round of a round-based GPU scheduler (Gavel's mechanism, DESIGN §16): every running job with
 * GPUs is decided again at each round boundary. A policy (or an agent) chooses, one job at a time,
 * which job runs this round on which GPU type and on how many servers; `apply` then carries the
 * round out on the engine.
 *
 * The plan works on a virtual copy of the GPUs: at the round's start every running GPU job is
 * *released* (its GPUs and cores count as free for the plan), and each choice takes specific GPU ids
 * (gang: all of the job's GPUs at once):
 *
 * - `one` server: a node of the type with that many free GPUs (and `k` free cores per GPU, `k` the
 *   job's tasks per GPU); the job's own GPUs when it ran there and they are still free, else the best
 *   fit (the node with the fewest free GPUs that holds it, then the fewest GPUs of released jobs, then
 *   the lowest id);
 * - `several` servers (jobs of 2 GPUs or more): the job's own GPUs when it ran spread on that type and
 *   they are still free, else the fewest servers: nodes by most free GPUs first, at most `n - 1` on the
 *   first, so that it spans two or more;
 * - `any`: one server when it can, else several (consolidated preferred).
 *
 * Within a node, GPUs no released job holds are taken first, so a job chosen later keeps its own.
 * `apply` keeps running every chosen job whose GPUs are exactly its current ones (no event), preempts
 * every other released job back to the queue (`ClusterSimulator.preempt`: a DL job keeps its steps),
 * then starts the other chosen jobs on their GPUs, with `k` free cores per GPU on the GPU's node. Since
 * the plan's counts are exact, every start succeeds.
 */
import type { ClusterSimulator, RunningJob } from '../../execution/simulator.js';
import type { Platform } from '../../platform/platform.js';
import { jobGpus } from '../../workload/gpuRequest.js';
import type { Job } from '../../workload/job.js';

/** On how many servers a job's GPUs go. */
export type Servers = 'one' | 'several' | 'any';

/** A choice made in a round. */
export interface RoundChoice {
  job: Job;
  gpus: Int32Array;
  /** The running job it was (released at the round's start), or null for a waiting job. */
  running: RunningJob | null;
}

/** Per platform: the nodes with GPUs of each type, ascending. */
const NODES_BY_TYPE = new WeakMap<Platform, Int32Array[]>();

/** The nodes with GPUs of each GPU type of `platform` (cached). */
export function nodesByGpuType(platform: Platform): Int32Array[] {
  let out = NODES_BY_TYPE.get(platform);
  if (out === undefined) {
    const lists: number[][] = platform.gpuTypes.map(() => []);
    for (let n = 0; n < platform.nodeCount; n++) if (platform.nodeGpuCount[n]! > 0) lists[platform.nodeGpuType[n]!]!.push(n);
    out = lists.map((l) => Int32Array.from(l));
    NODES_BY_TYPE.set(platform, out);
  }
  return out;
}

/** A round's plan (see the module comment). */
export class RoundPlan {
  readonly platform: Platform;
  /** Per GPU type: GPUs free in the plan. */
  readonly freeByType: Int32Array;
  /** Per node: GPUs and cores free in the plan. */
  readonly freeGpus: Int32Array;
  readonly freeCores: Int32Array;
  /** The running GPU jobs released at the round's start, by job. */
  readonly released = new Map<Job, RunningJob>();
  /** The choices so far, in order. */
  readonly choices: RoundChoice[] = [];
  private readonly chosen = new Set<Job>();
  /** Per GPU: 1 when free in the plan. */
  private readonly gpuFree: Uint8Array;
  /** Per GPU: 1 when a released job holds it. */
  private readonly gpuHeld: Uint8Array;
  private readonly byType: Int32Array[];
  private applied = false;

  constructor(readonly sim: ClusterSimulator) {
    const p = sim.platform;
    this.platform = p;
    this.byType = nodesByGpuType(p);
    const a = sim.allocation;
    this.gpuFree = Uint8Array.from(a.gpuOwner, (o) => (o === -1 ? 1 : 0));
    this.gpuHeld = new Uint8Array(p.gpuCount);
    this.freeGpus = Int32Array.from(a.nodeFreeGpus);
    this.freeCores = Int32Array.from(a.nodeFree);
    this.freeByType = Int32Array.from(a.freeGpusByType);
    for (const rj of sim.running()) {
      if (rj.gpus.length === 0) continue;
      this.released.set(rj.job, rj);
      for (const u of rj.gpus) {
        this.gpuFree[u] = 1;
        this.gpuHeld[u] = 1;
        this.freeGpus[p.gpuNode[u]!]!++;
        this.freeByType[p.nodeGpuType[p.gpuNode[u]!]!]!++;
      }
      for (const c of rj.cores) this.freeCores[p.coreNode[c]!]!++;
    }
  }

  /** Whether `job` is chosen in this round already. */
  has(job: Job): boolean {
    return this.chosen.has(job);
  }

  /** Tasks per GPU of `job` (its cores on each GPU's node), or 0 when its tasks are not a whole multiple of its GPUs. */
  static tasksPerGpu(job: Job): number {
    const n = jobGpus(job);
    return n > 0 && job.ntasks % n === 0 ? job.ntasks / n : 0;
  }

  /** The GPU ids `job` would get on type `type` and `servers` now, or null when it does not fit (nothing changes). */
  find(job: Job, type: number, servers: Servers): Int32Array | null {
    if (this.chosen.has(job) || type < 0 || type >= this.byType.length) return null;
    const n = jobGpus(job);
    const k = RoundPlan.tasksPerGpu(job);
    if (n === 0 || k === 0 || this.freeByType[type]! < n) return null;
    if (servers !== 'several') {
      const one = this.findOne(job, type, n, k);
      if (one !== null || servers === 'one') return one;
    }
    return n >= 2 ? this.findSeveral(job, type, n, k) : null;
  }

  /** Chooses `job` for this round on type `type` and `servers` (`find`'s GPUs); false when it does not fit. */
  choose(job: Job, type: number, servers: Servers): boolean {
    const gpus = this.find(job, type, servers);
    if (gpus === null) return false;
    this.take(job, gpus);
    return true;
  }

  /** Chooses `job` on exactly `gpus` (free in the plan; the caller checked them with `find`). */
  take(job: Job, gpus: Int32Array): void {
    if (this.applied) throw new Error('the round was applied already');
    const p = this.platform;
    const k = RoundPlan.tasksPerGpu(job);
    for (const u of gpus) {
      if (this.gpuFree[u] !== 1) throw new Error(`GPU ${u} is not free in this round's plan`);
      const node = p.gpuNode[u]!;
      this.gpuFree[u] = 0;
      this.freeGpus[node]!--;
      this.freeCores[node]! -= k;
      this.freeByType[p.nodeGpuType[node]!]!--;
    }
    this.chosen.add(job);
    this.choices.push({ job, gpus, running: this.released.get(job) ?? null });
  }

  private findOne(job: Job, type: number, n: number, k: number): Int32Array | null {
    const p = this.platform;
    const own = this.released.get(job);
    if (own !== undefined && own.gpus.length === n && this.allFree(own.gpus, type)) {
      const node = p.gpuNode[own.gpus[0]!]!;
      let same = true;
      for (const u of own.gpus) if (p.gpuNode[u] !== node) same = false;
      if (same) return own.gpus;
    }
    let best = -1;
    let bestFree = Number.POSITIVE_INFINITY;
    let bestHeld = Number.POSITIVE_INFINITY;
    for (const node of this.byType[type]!) {
      const free = this.freeGpus[node]!;
      if (free < n || this.freeCores[node]! < n * k) continue;
      if (free > bestFree) continue;
      const held = this.heldFreeOn(node);
      if (free < bestFree || held < bestHeld) {
        best = node;
        bestFree = free;
        bestHeld = held;
      }
    }
    if (best < 0) return null;
    return this.pick(best, n);
  }

  private findSeveral(job: Job, type: number, n: number, k: number): Int32Array | null {
    const p = this.platform;
    const own = this.released.get(job);
    if (own !== undefined && own.gpus.length === n && this.allFree(own.gpus, type)) {
      const node = p.gpuNode[own.gpus[0]!]!;
      for (const u of own.gpus) if (p.gpuNode[u] !== node) return own.gpus;
    }
    // nodes by most usable GPUs first (fewest servers), then fewest GPUs of released jobs, then id
    const nodes: { node: number; usable: number; held: number }[] = [];
    for (const node of this.byType[type]!) {
      const usable = Math.min(this.freeGpus[node]!, Math.floor(this.freeCores[node]! / k));
      if (usable > 0) nodes.push({ node, usable, held: this.heldFreeOn(node) });
    }
    nodes.sort((a, b) => b.usable - a.usable || a.held - b.held || a.node - b.node);
    const out = new Int32Array(n);
    let got = 0;
    for (let i = 0; i < nodes.length && got < n; i++) {
      const take = Math.min(nodes[i]!.usable, n - got, i === 0 ? n - 1 : n);
      out.set(this.pick(nodes[i]!.node, take), got);
      got += take;
    }
    return got === n ? out : null;
  }

  /** Whether every one of `gpus` is free in the plan and of type `type`. */
  private allFree(gpus: Int32Array, type: number): boolean {
    const p = this.platform;
    for (const u of gpus) if (this.gpuFree[u] !== 1 || p.nodeGpuType[p.gpuNode[u]!] !== type) return false;
    return true;
  }

  /** Free GPUs of `node` that a released job holds. */
  private heldFreeOn(node: number): number {
    const p = this.platform;
    const g0 = p.nodeFirstGpu[node]!;
    let held = 0;
    for (let u = g0; u < g0 + p.nodeGpuCount[node]!; u++) if (this.gpuFree[u] === 1 && this.gpuHeld[u] === 1) held++;
    return held;
  }

  /** `count` free GPUs of `node`: those no released job holds first, each in id order. */
  private pick(node: number, count: number): Int32Array {
    const p = this.platform;
    const g0 = p.nodeFirstGpu[node]!;
    const g1 = g0 + p.nodeGpuCount[node]!;
    const out = new Int32Array(count);
    let got = 0;
    for (let pass = 0; pass < 2 && got < count; pass++)
      for (let u = g0; u < g1 && got < count; u++) if (this.gpuFree[u] === 1 && this.gpuHeld[u] === pass) out[got++] = u;
    return out;
  }

  /**
   * Carries the round out (see the module comment): keeps the chosen running jobs on their own GPUs,
   * preempts the other released jobs, starts the other chosen jobs. Returns the jobs started.
   */
  apply(): number {
    if (this.applied) throw new Error('the round was applied already');
    this.applied = true;
    const sim = this.sim;
    const kept = new Set<Job>();
    for (const c of this.choices) if (c.running !== null && sameGpus(c.running.gpus, c.gpus)) kept.add(c.job);
    for (const [job, rj] of this.released) if (!kept.has(job)) sim.preempt(rj);
    let started = 0;
    for (const c of this.choices) {
      if (kept.has(c.job)) continue;
      sim.startJob(c.job, this.coresFor(c.job, c.gpus), { gpus: c.gpus, transfer: true });
      started++;
    }
    return started;
  }

  /** `k` free cores on each GPU's node (lowest ids first), task `t` on GPU `floor(t / k)`'s node. */
  private coresFor(job: Job, gpus: Int32Array): Int32Array {
    const p = this.platform;
    const owner = this.sim.coreOwner;
    const k = RoundPlan.tasksPerGpu(job);
    const cores = new Int32Array(gpus.length * k);
    const next = new Map<number, number>();
    let t = 0;
    for (const u of gpus) {
      const node = p.gpuNode[u]!;
      let c = next.get(node) ?? p.nodeFirstCore[node]!;
      const end = p.nodeFirstCore[node]! + p.nodeCoreCount[node]!;
      for (let got = 0; got < k; c++) {
        if (c >= end) throw new Error(`round plan: node ${node} has fewer free cores than planned for job ${job.id}`);
        if (owner[c] === -1) {
          cores[t++] = c;
          got++;
        }
      }
      next.set(node, c);
    }
    return cores;
  }
}

/** Whether two GPU sets are equal (as sets). */
function sameGpus(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  const x = Int32Array.from(a).sort();
  const y = Int32Array.from(b).sort();
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}
