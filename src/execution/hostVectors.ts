/**
 * The capacity of continuous CPU and memory vectors per host (DESIGN §15, the capacity dimension; seed
 * 001's multi-resource hosts, thesis §4.2.1): host `h` offers `cpuCap[h]` cores and `memCap[h]` memory
 * (MB: the platform's nodes, `hostVectorView`), both *hard* capacities. A task holds `cpu` cores (its
 * job's `cpusPerTask`, possibly fractional; 1 when absent) and its `mem` of one host for its whole run,
 * holdings never overlap and never exceed a host. A placement is one host index per task (`[host]` for a
 * task of one); the tasks of one host add up. No per-core state: a host is two numbers, so a placement
 * check is two loads, and a start or an end touches one host.
 *
 * The engine chooses it with `capacity: 'vectors'` (`simulator.ts`); under it the engine runs fixed
 * durations only (delay work, ended per job) and its per-core arrays do not exist. Capacity checks
 * allow `CAPACITY_EPS` (sizes are floating point: normalised trace sizes times a constant). The
 * arithmetic is that of the retired fairness engine's host table (seed 001), operation for operation: a start takes
 * `free = max(0, free - x)` and `used += x` per task in task order, an end gives back
 * `free = min(cap, free + x)` and `used -= x`, `used` snapped to 0 below `CAPACITY_EPS`.
 *
 * Job shapes: a `seq` job's tasks share one host; an `mpi` job with `nodes` set spans exactly that many
 * hosts with at most `perNodeCores` tasks on each; other jobs place each task on any host.
 */
import type { HostVectorView } from '../platform/views.js';
import { nodeTaskShare, perNodeCores, taskCpus, taskMem, type Job } from '../workload/job.js';
import type { Capacity } from './capacity.js';

/** Tolerance of the capacity checks. */
export const CAPACITY_EPS = 1e-9;

/** One task on one host (the `perNode` of every single-task placement; never modified). */
const ONE = Int32Array.of(1);

/** Hosts of one shape (capacities), for O(shapes) "can this job ever fit" checks. */
interface HostShape {
  cpu: number;
  memory: number;
  count: number;
}

/** CPU and memory per host and who holds them (see the module comment). */
export class HostVectors implements Capacity {
  /** Number of hosts. */
  readonly count: number;
  /** Cores and memory per host. */
  readonly cpuCap: Float64Array;
  readonly memCap: Float64Array;
  /** Free cores and memory per host. */
  readonly freeCpu: Float64Array;
  readonly freeMem: Float64Array;
  readonly names: readonly string[];
  /** Group index of each host. */
  readonly group: Int32Array;
  /** Cluster totals. */
  readonly totalCpu: number;
  readonly totalMem: number;
  /** Cores and memory held over the cluster. */
  usedCpu = 0;
  usedMem = 0;
  /** Tasks held on each host. */
  readonly tasksOn: Int32Array;
  /** Hosts with no task. */
  idleNodes: number;
  /** No power model: hosts draw nothing. */
  readonly power = 0;
  /** GPUs are not held by host vectors (issue 45: the core allocation holds them): none busy, none given. */
  readonly busyGpus = 0;
  private readonly shapes: HostShape[];
  /** `[h]` for each host: the placement of a task of one on `h` (never modified: the engine keeps it as the job's). */
  private readonly units: Int32Array[];
  // the placement the last `placementError` accepted: a single host, or the tally below
  private lastSingle = -1;
  private lastNodes: Int32Array = new Int32Array(0);
  private lastPerNode: Int32Array = new Int32Array(0);
  private readonly placementOut: { nodes: Int32Array; perNode: Int32Array } = { nodes: new Int32Array(0), perNode: new Int32Array(0) };
  // scratch of multi-task placement checks: marks by generation, per-host tallies
  private scratchGen = 0;
  private readonly mark: Int32Array;
  private readonly tallyCpu: Float64Array;
  private readonly tallyMem: Float64Array;
  private readonly tallyTasks: Int32Array;
  private readonly touched: Int32Array;

  constructor(view: HostVectorView) {
    const n = view.count;
    this.count = n;
    this.cpuCap = view.cpuCap.slice();
    this.memCap = view.memCap.slice();
    this.freeCpu = view.cpuCap.slice();
    this.freeMem = view.memCap.slice();
    this.names = view.names;
    this.group = view.group;
    this.totalCpu = view.totalCpu;
    this.totalMem = view.totalMem;
    this.tasksOn = new Int32Array(n);
    this.idleNodes = n;
    this.units = Array.from({ length: n }, (_, h) => Int32Array.of(h));
    this.mark = new Int32Array(n);
    this.tallyCpu = new Float64Array(n);
    this.tallyMem = new Float64Array(n);
    this.tallyTasks = new Int32Array(n);
    this.touched = new Int32Array(n);
    const shapes = new Map<string, HostShape>();
    for (let h = 0; h < n; h++) {
      const key = `${this.cpuCap[h]}/${this.memCap[h]}`;
      const s = shapes.get(key);
      if (s) s.count++;
      else shapes.set(key, { cpu: this.cpuCap[h]!, memory: this.memCap[h]!, count: 1 });
    }
    this.shapes = [...shapes.values()];
  }

  /** Cores free over the cluster. */
  get freeCores(): number {
    return this.totalCpu - this.usedCpu;
  }

  /** Cores held over the cluster. */
  get busyCores(): number {
    return this.usedCpu;
  }

  /** Whether `cpu` cores and `memory` fit in host `h`'s free resources. */
  fits(h: number, cpu: number, memory: number): boolean {
    return cpu <= this.freeCpu[h]! + CAPACITY_EPS && memory <= this.freeMem[h]! + CAPACITY_EPS;
  }

  /** The first host from `from` on where `cpu` cores and `memory` fit, or -1 (one tight loop over the free arrays). */
  firstFit(cpu: number, memory: number, from = 0): number {
    const fc = this.freeCpu;
    const fm = this.freeMem;
    for (let h = from; h < this.count; h++) if (cpu <= fc[h]! + CAPACITY_EPS && memory <= fm[h]! + CAPACITY_EPS) return h;
    return -1;
  }

  /** Whether `cpu` cores and `memory` fit in host `h` when it is empty. */
  fitsEmpty(h: number, cpu: number, memory: number): boolean {
    return cpu <= this.cpuCap[h]! + CAPACITY_EPS && memory <= this.memCap[h]! + CAPACITY_EPS;
  }

  /** The largest host capacities (the thesis's normalisation reference: "1 = the largest host"). */
  maxCapacity(): { cpu: number; memory: number } {
    let c = 0;
    let m = 0;
    for (let h = 0; h < this.count; h++) {
      c = Math.max(c, this.cpuCap[h]!);
      m = Math.max(m, this.memCap[h]!);
    }
    return { cpu: c, memory: m };
  }

  /** The placement `[h]` of a task of one on host `h` (shared: never modify it). */
  unit(h: number): Int32Array {
    return this.units[h]!;
  }

  /** Why `job` can never fit the empty hosts, or null when it can. */
  gpuPlacementError(): string | null {
    return 'the vector capacity holds no GPUs (the core allocation does)';
  }

  moveGpus(): void {
    throw new Error('the vector capacity holds no GPUs (the core allocation does)');
  }

  pauseGpus(): void {
    throw new Error('the vector capacity holds no GPUs (the core allocation does)');
  }

  unfitReason(job: Job): string | null {
    if (job.gpus !== undefined) return 'needs GPUs; the vector capacity holds none (the core allocation does)';
    const cpu = taskCpus(job);
    const shapes = this.shapes;
    if (job.ntasks === 1) {
      const mem = taskMem(job, 0);
      for (const s of shapes) if (cpu <= s.cpu + CAPACITY_EPS && mem <= s.memory + CAPACITY_EPS) return null;
      return `needs a host with ${cpu} cores and ${mem} MB of memory; no host has both`;
    }
    let mem = 0;
    let most = 0;
    for (let t = 0; t < job.ntasks; t++) {
      const m = taskMem(job, t);
      mem += m;
      if (m > most) most = m;
    }
    const holds = (s: HostShape, c: number, m: number) => c <= s.cpu + CAPACITY_EPS && m <= s.memory + CAPACITY_EPS;
    if (job.type === 'seq') {
      for (const s of shapes) if (holds(s, cpu * job.ntasks, mem)) return null;
      return `needs one host with ${cpu * job.ntasks} cores and ${mem} MB of memory; no host has both`;
    }
    if (job.nodes > 0) {
      if (job.nodes > job.ntasks) return `cannot spread ${job.ntasks} tasks over exactly ${job.nodes} hosts`;
      const k = Math.min(nodeTaskShare(job, 0), perNodeCores(job));
      let ok = 0;
      for (const s of shapes) if (holds(s, cpu * k, most * k)) ok += s.count;
      if (ok < job.nodes) return `needs ${job.nodes} hosts with ${cpu * k} cores and ${most * k} MB each; the platform has ${ok}`;
      return null;
    }
    let room = 0;
    for (const s of shapes) {
      if (!holds(s, cpu, most)) continue;
      const byCpu = Math.floor((s.cpu + CAPACITY_EPS) / cpu);
      room += s.count * (most > 0 ? Math.min(byCpu, Math.floor((s.memory + CAPACITY_EPS) / most)) : byCpu);
    }
    if (room < job.ntasks) return `needs ${job.ntasks} tasks of ${cpu} cores and up to ${most} MB; the empty hosts hold ${room}`;
    return null;
  }

  /**
   * Why `placement` (task `t` on host `placement[t]`) is not a valid placement for `job` now, or null:
   * one host per task, hosts that exist, the shape rules of its type, and each host's free cores and
   * memory holding its tasks there.
   */
  placementError(job: Job, placement: ArrayLike<number>): string | null {
    if (placement.length !== job.ntasks) return `expected ${job.ntasks} hosts (one per task), got ${placement.length}`;
    const cpu = taskCpus(job);
    if (job.ntasks === 1) {
      const h = placement[0]!;
      if (!(h >= 0 && h < this.count && Number.isInteger(h))) return `host ${h} does not exist`;
      const mem = taskMem(job, 0);
      if (!this.fits(h, cpu, mem))
        return `host ${this.names[h]} has ${this.freeCpu[h]} cores and ${this.freeMem[h]} memory free; a task of ${cpu} cores and ${mem} memory does not fit`;
      this.lastSingle = h;
      return null;
    }
    for (let t = 0; t < placement.length; t++) {
      const h = placement[t]!;
      if (!(h >= 0 && h < this.count && Number.isInteger(h))) return `host ${h} does not exist`;
    }
    const k = this.tally(job, placement, cpu);
    const touched = this.touched;
    if (job.type === 'seq' && k !== 1) return `a seq job runs on one host; the placement spans ${k}`;
    if (job.type === 'mpi' && job.nodes > 0) {
      if (k !== job.nodes) return `the job asks for exactly ${job.nodes} hosts; the placement spans ${k}`;
      const per = perNodeCores(job);
      for (let i = 0; i < k; i++)
        if (this.tallyTasks[touched[i]!]! > per)
          return `host ${touched[i]} gets ${this.tallyTasks[touched[i]!]} tasks; the job asks for at most ${per} per host`;
    }
    for (let i = 0; i < k; i++) {
      const h = touched[i]!;
      if (!this.fits(h, this.tallyCpu[h]!, this.tallyMem[h]!))
        return `host ${this.names[h]} has ${this.freeCpu[h]} cores and ${this.freeMem[h]} memory free; the job's tasks there need ${this.tallyCpu[h]} cores and ${this.tallyMem[h]} memory`;
    }
    const nodes = touched.slice(0, k).sort();
    this.lastNodes = nodes;
    this.lastPerNode = Int32Array.from(nodes, (h) => this.tallyTasks[h]!);
    this.lastSingle = -1;
    return null;
  }

  /** Tallies a placement's hosts (first-seen order in `touched`) with their tasks, cores and memory; returns how many. */
  private tally(job: Job, placement: ArrayLike<number>, cpu: number): number {
    if (++this.scratchGen >= 0x7fffffff) {
      this.scratchGen = 1;
      this.mark.fill(0);
    }
    const gen = this.scratchGen;
    let k = 0;
    for (let t = 0; t < placement.length; t++) {
      const h = placement[t]!;
      if (this.mark[h] !== gen) {
        this.mark[h] = gen;
        this.tallyCpu[h] = 0;
        this.tallyMem[h] = 0;
        this.tallyTasks[h] = 0;
        this.touched[k++] = h;
      }
      this.tallyCpu[h]! += cpu;
      this.tallyMem[h]! += taskMem(job, t);
      this.tallyTasks[h]!++;
    }
    return k;
  }

  /**
   * The distinct hosts (ascending) and tasks per host of the placement the last `placementError` accepted
   * (the object is reused by the next call; a task of one gets the shared `[host]` and `[1]`).
   */
  lastPlacement(): { nodes: Int32Array; perNode: Int32Array } {
    const out = this.placementOut;
    if (this.lastSingle >= 0) {
      out.nodes = this.units[this.lastSingle]!;
      out.perNode = ONE;
    } else {
      out.nodes = this.lastNodes;
      out.perNode = this.lastPerNode;
    }
    return out;
  }

  /** Takes each task's cores and memory on its host (`owner` >= 0), or gives them back (`owner` -1), in task order. */
  move(job: Job, placement: Int32Array, owner: number, from = 0): void {
    const cpu = taskCpus(job);
    const take = owner >= 0;
    for (let t = from; t < placement.length; t++) {
      const h = placement[t]!;
      const mem = taskMem(job, t);
      if (take) {
        this.freeCpu[h] = Math.max(0, this.freeCpu[h]! - cpu);
        this.freeMem[h] = Math.max(0, this.freeMem[h]! - mem);
        this.usedCpu += cpu;
        this.usedMem += mem;
        if (this.tasksOn[h]!++ === 0) this.idleNodes--;
      } else {
        this.freeCpu[h] = Math.min(this.cpuCap[h]!, this.freeCpu[h]! + cpu);
        this.freeMem[h] = Math.min(this.memCap[h]!, this.freeMem[h]! + mem);
        this.usedCpu -= cpu;
        this.usedMem -= mem;
        if (Math.abs(this.usedCpu) < CAPACITY_EPS) this.usedCpu = 0;
        if (Math.abs(this.usedMem) < CAPACITY_EPS) this.usedMem = 0;
        if (--this.tasksOn[h]! === 0) this.idleNodes++;
      }
    }
  }

  /** A suspended job's hosts stay held; the vector capacity draws no power: nothing moves. */
  pause(): void {}

  /** Vector jobs take their hosts whole (`move`): never called. */
  takeCore(): void {
    throw new Error('the vector capacity takes whole placements only (its jobs run whole)');
  }

  /** Tasks end with their job under this capacity (the engine ends vector jobs whole): never called. */
  releaseCore(): void {
    throw new Error('the vector capacity releases whole placements only (its jobs end whole)');
  }
}
