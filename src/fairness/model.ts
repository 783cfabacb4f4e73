/**
 * The multi-resource, multi-user cluster model of seed 001 (a thesis in Russian on a DSLab-based
 * cluster simulator; chapter 4 "Реализация симулятора", chapter 5 "Эксперименты").
 *
 * **Hosts** (§4.2.1, the `Compute` module with fixed allocations): host `h` offers `cpuCap[h]`
 * cores and `memCap[h]` units of memory. Both are *hard* capacities: an allocation holds a number of
 * cores and an amount of memory for the task's whole run, allocations never overlap and the
 * scheduler cannot give out more than the host has ("планировщик не имеет возможность выделить
 * больше ресурсов чем есть на сервере"). The units are relative (a trace's normalised sizes
 * multiplied by user-chosen constants, §4.2.1); memory is in the same units for hosts and tasks.
 * The host table is dense (`Float64Array` per column), so a placement check is two loads.
 *
 * **Tasks** (§4.3.1, `Execution`; §4.5.1 "все задачи потребляют все выделенные ресурсы на
 * протяжении всего времени выполнения"): `{submit, cpu, memory, duration, user}`; a task runs on
 * one host for `duration` once started and holds `cpu` cores and `memory` the whole time.
 *
 * **Users and quotas** (§5.2): user `u` has a weight `w_u` (default 1, equal quotas); its quota is
 * `q_u = w_u / Σ w`. Its dominant share (DRF, Ghodsi et al. [13]) is
 *
 *     ds_u = max(cpu_u / C, mem_u / M)
 *
 * with `cpu_u`, `mem_u` what its running tasks hold and `C`, `M` the cluster's totals; DRF orders
 * users by `ds_u / w_u` ("иначе доля считается от выделенной на кластере квоты").
 *
 * **Packing score** (Tetris [14], §5.2): the dot product of the task's demand vector and the host's
 * free-resource vector divided by both norms (the cosine of their angle), each resource first
 * expressed as a fraction of that host's capacity (the Tetris paper normalises by machine
 * capacity; without it the score would depend on the units of memory):
 *
 *     score(t, h) = (d · r) / (|d| |r|),  d = (cpu_t / cpuCap_h, mem_t / memCap_h),
 *                                         r = (freeCpu_h / cpuCap_h, freeMem_h / memCap_h)
 */
import { InputError, inputErrorFromIssues } from '../core/errors.js';
import { type HostGroup, HostGroupsSchema } from '../platform/views.js';

/** Tolerance of the capacity checks (sizes are floating point: normalised trace sizes times a constant). */
export const CAPACITY_EPS = 1e-9;

/** A task of the model. `user` is an index into the `UserTable`. */
export interface FairTask {
  /** Dense id in submission order (0, 1, ...). */
  id: number;
  /** Submission time (s). */
  submit: number;
  /** Cores held while running (> 0). */
  cpu: number;
  /** Memory held while running (>= 0, the hosts' units). */
  memory: number;
  /** Run time once started (s, >= 0). */
  duration: number;
  /** User index. */
  user: number;
  /** Start time, NaN while waiting. */
  start: number;
  /** Host it runs on, -1 while waiting. */
  host: number;
}

/** Host groups (Figure 4.10: `count`, `cpus`, `memory`, `name_prefix`): the platform's (`src/platform/views.ts`). */
export { type HostGroup, HostGroupSchema, HostGroupsSchema } from '../platform/views.js';

/** Dense table of hosts: capacities and free resources per host (typed arrays). */
export class HostTable {
  /** Number of hosts. */
  readonly count: number;
  /** Cores per host. */
  readonly cpuCap: Float64Array;
  /** Memory per host. */
  readonly memCap: Float64Array;
  /** Free cores per host. */
  readonly freeCpu: Float64Array;
  /** Free memory per host. */
  readonly freeMem: Float64Array;
  /** Host names (`prefix` + index within the group). */
  readonly names: string[];
  /** Group index of each host. */
  readonly group: Int32Array;
  /** Cluster totals. */
  readonly totalCpu: number;
  readonly totalMem: number;
  /** Cores and memory in use over the cluster. */
  usedCpu = 0;
  usedMem = 0;

  constructor(groups: readonly HostGroup[]) {
    const parsed = HostGroupsSchema.safeParse(groups);
    if (!parsed.success) throw inputErrorFromIssues('hosts', parsed.error.issues);
    let n = 0;
    for (const g of parsed.data) n += g.count;
    this.count = n;
    this.cpuCap = new Float64Array(n);
    this.memCap = new Float64Array(n);
    this.group = new Int32Array(n);
    this.names = [];
    let h = 0;
    let tc = 0;
    let tm = 0;
    parsed.data.forEach((g, gi) => {
      for (let i = 0; i < g.count; i++, h++) {
        this.cpuCap[h] = g.cpus;
        this.memCap[h] = g.memory;
        this.group[h] = gi;
        this.names.push(`${g.name_prefix ?? `g${gi}-`}${i}`);
        tc += g.cpus;
        tm += g.memory;
      }
    });
    this.totalCpu = tc;
    this.totalMem = tm;
    this.freeCpu = this.cpuCap.slice();
    this.freeMem = this.memCap.slice();
  }

  /** Whether a task of `cpu` cores and `memory` fits in host `h`'s free resources. */
  fits(h: number, cpu: number, memory: number): boolean {
    return cpu <= this.freeCpu[h]! + CAPACITY_EPS && memory <= this.freeMem[h]! + CAPACITY_EPS;
  }

  /** Whether the task could ever run here (fits an empty host). */
  fitsEmpty(h: number, cpu: number, memory: number): boolean {
    return cpu <= this.cpuCap[h]! + CAPACITY_EPS && memory <= this.memCap[h]! + CAPACITY_EPS;
  }

  /** Takes `cpu` cores and `memory` on host `h`; throws rather than oversubscribe. */
  allocate(h: number, cpu: number, memory: number): void {
    if (!(h >= 0 && h < this.count)) throw new RangeError(`no host ${h} (the cluster has ${this.count})`);
    if (!this.fits(h, cpu, memory)) {
      throw new RangeError(
        `host ${this.names[h]} has ${this.freeCpu[h]} cores and ${this.freeMem[h]} memory free; a task of ${cpu} cores and ${memory} memory does not fit`,
      );
    }
    this.freeCpu[h] = Math.max(0, this.freeCpu[h]! - cpu);
    this.freeMem[h] = Math.max(0, this.freeMem[h]! - memory);
    this.usedCpu += cpu;
    this.usedMem += memory;
  }

  /** Gives back what `allocate` took. */
  release(h: number, cpu: number, memory: number): void {
    this.freeCpu[h] = Math.min(this.cpuCap[h]!, this.freeCpu[h]! + cpu);
    this.freeMem[h] = Math.min(this.memCap[h]!, this.freeMem[h]! + memory);
    this.usedCpu -= cpu;
    this.usedMem -= memory;
    if (Math.abs(this.usedCpu) < CAPACITY_EPS) this.usedCpu = 0;
    if (Math.abs(this.usedMem) < CAPACITY_EPS) this.usedMem = 0;
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
}

/** Users: names, weights, what each holds, dominant shares. Users are added as traces name them. */
export class UserTable {
  /** Names by index. */
  readonly names: string[] = [];
  /** Weights by index (quota `w_u / Σ w`). */
  weights: number[] = [];
  /** Cores and memory held by each user's running tasks. */
  allocCpu: number[] = [];
  allocMem: number[] = [];
  /** Running tasks per user. */
  running: number[] = [];
  private readonly index = new Map<string, number>();

  /** @param weights optional weights by user name (default 1). */
  constructor(
    private readonly totalCpu: number,
    private readonly totalMem: number,
    private readonly weightOf: Readonly<Record<string, number>> = {},
  ) {
    for (const [name, w] of Object.entries(weightOf)) {
      if (!(w > 0 && Number.isFinite(w))) throw new InputError(`weight of user ${JSON.stringify(name)} must be a positive number, found ${w}`);
    }
  }

  /** Number of users. */
  get count(): number {
    return this.names.length;
  }

  /** The index of user `name`, adding it (weight from the table, else 1) the first time. */
  id(name: string): number {
    let u = this.index.get(name);
    if (u === undefined) {
      u = this.names.length;
      this.index.set(name, u);
      this.names.push(name);
      this.weights.push(this.weightOf[name] ?? 1);
      this.allocCpu.push(0);
      this.allocMem.push(0);
      this.running.push(0);
    }
    return u;
  }

  /** `ds_u = max(cpu_u / C, mem_u / M)`. */
  dominantShare(u: number): number {
    return Math.max(this.allocCpu[u]! / this.totalCpu, this.allocMem[u]! / this.totalMem);
  }

  /** `ds_u / w_u`: the DRF ordering key. */
  weightedShare(u: number): number {
    return this.dominantShare(u) / this.weights[u]!;
  }

  /** User `u` starts a task. */
  take(u: number, cpu: number, memory: number): void {
    this.allocCpu[u]! += cpu;
    this.allocMem[u]! += memory;
    this.running[u]!++;
  }

  /** User `u`'s task ends. */
  give(u: number, cpu: number, memory: number): void {
    const c = this.allocCpu[u]! - cpu;
    const m = this.allocMem[u]! - memory;
    this.running[u]!--;
    this.allocCpu[u] = this.running[u] === 0 || Math.abs(c) < CAPACITY_EPS ? 0 : c;
    this.allocMem[u] = this.running[u] === 0 || Math.abs(m) < CAPACITY_EPS ? 0 : m;
  }
}

/** Tetris's packing score of task (cpu, memory) on host `h` (see the module comment); 0 for a zero vector. */
export function alignmentScore(hosts: HostTable, h: number, cpu: number, memory: number): number {
  const cc = hosts.cpuCap[h]!;
  const mc = hosts.memCap[h]!;
  const d0 = cpu / cc;
  const d1 = memory / mc;
  const r0 = hosts.freeCpu[h]! / cc;
  const r1 = hosts.freeMem[h]! / mc;
  const nd = Math.hypot(d0, d1);
  const nr = Math.hypot(r0, r1);
  if (nd === 0 || nr === 0) return 0;
  return (d0 * r0 + d1 * r1) / (nd * nr);
}

/** Jain's fairness index of non-negative values: `(Σx)² / (n Σx²)`, 1 when all are equal; 1 for all zeros. */
export function jainIndex(xs: ArrayLike<number>): number {
  let s = 0;
  let s2 = 0;
  for (let i = 0; i < xs.length; i++) {
    s += xs[i]!;
    s2 += xs[i]! * xs[i]!;
  }
  return s2 === 0 ? 1 : (s * s) / (xs.length * s2);
}
