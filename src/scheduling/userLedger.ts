/**
 * The user ledger, one for every priority model (DESIGN §15, the `priority + usage ledger` dimension):
 * per user, what it holds now and what it has used, and its share of the cluster.
 *
 * - **Shares** `w_u` (a quota, Slurm's `Shares` or a fairness weight; 1 by default): its normalised
 *   share is `S_u = w_u / sum w`.
 * - **Holdings** (cores, memory and GPUs held by its running jobs), for dominant resource fairness
 *   (Ghodsi et al.): `ds_u = max(cpu_u / C, mem_u / M)` over the cluster's totals `C`, `M`; DRF orders
 *   users by `ds_u / w_u`.
 * - **Usage**, decayed (Slurm's classic fair share, https://slurm.schedmd.com/classic_fair_share.html):
 *   core-seconds of its running jobs, `usage <- usage x 2^(-dt / half_life)` at each decay; its fair-share
 *   factor is `F_u = 2^(-U_u / S_u / d)`, `U_u = usage_u / sum usage` and `d` the dampening factor (a
 *   user who used exactly its share gets 0.5, one who used nothing 1.0).
 *
 * Users are dense indices `0..n-1`, named or numbered; the totals of usage are kept as running sums, so
 * every query is O(1) (a decay is O(users)).
 */
import { InputError } from '../core/errors.js';

/** Below this, a holding is a rounding residue and counts as 0. */
export const LEDGER_EPS = 1e-9;

/** The classic fair-share factor `2^(-U / S / d)` (`S = 0`: 0, a user without shares). */
export function fairShareFactor(normUsage: number, normShares: number, dampening: number): number {
  if (normShares <= 0) return 0;
  return 2 ** (-normUsage / normShares / dampening);
}

/** Per-user holdings, usage and shares (see the module comment). */
export class UserLedger {
  /** Names by index. */
  readonly names: string[] = [];
  /** Shares (weights) by index. */
  readonly weights: number[] = [];
  /** Cores, memory (the cluster's units) and GPUs held by each user's running jobs; running jobs per user. */
  readonly heldCpu: number[] = [];
  readonly heldMem: number[] = [];
  readonly heldGpus: number[] = [];
  readonly running: number[] = [];
  /** Decayed usage (core-seconds) per user. */
  readonly usage: number[] = [];
  private totalUsageSum = 0;
  private totalWeight = 0;
  private readonly index = new Map<string, number>();
  /**
   * Changes whenever a fair-share factor may change (usage accrued or decayed, a user added): a reader that
   * keeps factors keeps this with them.
   */
  version = 0;

  /**
   * @param totalCpu, totalMem the cluster's totals (the dominant share's denominators)
   * @param weightOf shares by user name (default 1 for a user not listed)
   */
  constructor(
    readonly totalCpu: number,
    readonly totalMem: number,
    private readonly weightOf: Readonly<Record<string, number>> = {},
  ) {
    for (const [name, w] of Object.entries(weightOf)) {
      if (!(w > 0 && Number.isFinite(w))) throw new InputError(`weight of user ${JSON.stringify(name)} must be a positive number, found ${w}`);
    }
  }

  /** A ledger of users `0..n-1` (named by their number), with `shares` (default 1 each). */
  static numbered(n: number, totalCpu: number, totalMem: number, shares?: ArrayLike<number>): UserLedger {
    const weights: Record<string, number> = {};
    if (shares) for (let u = 0; u < n; u++) weights[String(u)] = shares[u]!;
    const l = new UserLedger(totalCpu, totalMem, weights);
    for (let u = 0; u < n; u++) l.id(String(u));
    return l;
  }

  /** Number of users. */
  get count(): number {
    return this.names.length;
  }

  /** The index of user `name`, adding it (its share from the table, else 1) the first time. */
  id(name: string): number {
    let u = this.index.get(name);
    if (u === undefined) {
      u = this.names.length;
      this.index.set(name, u);
      this.names.push(name);
      const w = this.weightOf[name] ?? 1;
      this.weights.push(w);
      this.totalWeight += w;
      this.version++;
      this.heldCpu.push(0);
      this.heldMem.push(0);
      this.heldGpus.push(0);
      this.running.push(0);
      this.usage.push(0);
    }
    return u;
  }

  // ---------------------------------------------------------------- holdings (DRF)

  /** User `u` starts a job holding `cpu` cores, `memory` and `gpus`. */
  take(u: number, cpu: number, memory: number, gpus = 0): void {
    this.heldCpu[u]! += cpu;
    this.heldMem[u]! += memory;
    this.heldGpus[u]! += gpus;
    this.running[u]!++;
  }

  /** User `u`'s job holding `cpu`, `memory` and `gpus` ends (holdings of a user with no job left are exactly 0). */
  give(u: number, cpu: number, memory: number, gpus = 0): void {
    const c = this.heldCpu[u]! - cpu;
    const m = this.heldMem[u]! - memory;
    this.running[u]!--;
    this.heldCpu[u] = this.running[u] === 0 || Math.abs(c) < LEDGER_EPS ? 0 : c;
    this.heldMem[u] = this.running[u] === 0 || Math.abs(m) < LEDGER_EPS ? 0 : m;
    this.heldGpus[u] = this.running[u] === 0 ? 0 : this.heldGpus[u]! - gpus;
  }

  /** A running job of user `u` changes what it holds by `dCpu`, `dMem`, `dGpus` (a resize). */
  adjust(u: number, dCpu: number, dMem: number, dGpus = 0): void {
    this.heldCpu[u]! += dCpu;
    this.heldMem[u]! += dMem;
    this.heldGpus[u]! += dGpus;
  }

  /** `ds_u = max(cpu_u / C, mem_u / M)`. */
  dominantShare(u: number): number {
    return Math.max(this.heldCpu[u]! / this.totalCpu, this.heldMem[u]! / this.totalMem);
  }

  /** `ds_u / w_u`: the DRF ordering key. */
  weightedShare(u: number): number {
    return this.dominantShare(u) / this.weights[u]!;
  }

  // ---------------------------------------------------------------- usage (fair share)

  /** Adds `coreSeconds` of usage to user `u`. */
  accrue(u: number, coreSeconds: number): void {
    this.usage[u]! += coreSeconds;
    this.totalUsageSum += coreSeconds;
    this.version++;
  }

  /** Decays every user's usage over `dt` seconds with half-life `halfLife` (0: no decay). */
  decay(dt: number, halfLife: number): void {
    if (halfLife <= 0 || dt <= 0) return;
    const k = 2 ** (-dt / halfLife);
    const u = this.usage;
    let t = 0;
    for (let i = 0; i < u.length; i++) t += u[i]! *= k;
    this.totalUsageSum = t;
    this.version++;
  }

  /** Sum of usage (kept by `accrue` and `decay`: O(1)). */
  totalUsage(): number {
    return this.totalUsageSum;
  }

  /** Fair-share factor of user `u` (`F_u`), given the total usage (`totalUsage()`, computed once per pass). */
  fairShare(u: number, totalUsage: number, dampening: number): number {
    const U = totalUsage > 0 ? this.usage[u]! / totalUsage : 0;
    return fairShareFactor(U, this.weights[u]! / this.totalWeight, dampening);
  }
}

/**
 * The usage running jobs accrue between two `PriorityCalcPeriod` ticks (Slurm's decay thread): cores running
 * per user and each user's cores x seconds since the last tick, which `tick` decays into a `UserLedger` (the
 * old usage decays, the period's own usage is added undecayed, users in index order). Users are the ledger's
 * indices; the arrays grow as users appear (`addCores` of a new index).
 *
 * A user's usage is charged when its own cores change and at the tick: `cores_u x (t - t_u)` since its last
 * charge `t_u`, at the cores it held over that stretch. That is the integral of its cores over time, as Slurm's
 * decay thread takes it from each running job at each tick, in O(1) per change (not a walk over every user
 * with cores at every change of anyone's).
 */
export class UsageLedger {
  /** Per user index: its cores now, its usage since the last tick, and the time of its last charge. */
  private cores: Float64Array;
  private period: Float64Array;
  private since: Float64Array;
  /** Users seen (indices below this). */
  private users = 0;

  /** Room for `users` users from the start (usage accrues from their first cores). */
  constructor(users = 0) {
    const n = Math.max(1, users);
    this.cores = new Float64Array(n);
    this.period = new Float64Array(n);
    this.since = new Float64Array(n);
    this.users = users;
  }

  /** Makes room for user `u` (no closure here: a function with one allocates its context at every call). */
  private ensure(u: number): void {
    if (u < this.users) return;
    this.users = u + 1;
    if (u >= this.cores.length) this.grow(Math.max(this.users, 2 * this.cores.length));
  }

  /** Room for `n` users. */
  private grow(n: number): void {
    const grow = (a: Float64Array): Float64Array => {
      const b = new Float64Array(n);
      b.set(a);
      return b;
    };
    this.cores = grow(this.cores);
    this.period = grow(this.period);
    this.since = grow(this.since);
  }

  /** Cores user `u`'s running jobs hold now. */
  coresOf(u: number): number {
    return u < this.users ? this.cores[u]! : 0;
  }

  /** Changes user `u`'s running cores by `delta` at `now` (its time since its last charge is charged at the old count). */
  addCores(u: number, delta: number, now: number): void {
    this.ensure(u);
    const c = this.cores[u]!;
    const dt = now - this.since[u]!;
    if (c > 0 && dt > 0) this.period[u]! += c * dt;
    this.since[u] = now;
    this.cores[u] = c + delta;
  }

  /**
   * The `PriorityCalcPeriod` tick at `now`: `usage <- usage x 2^(-period / half-life) + the period's usage`
   * in `ledger` (a decay of `period` seconds with half-life `halfLife`).
   */
  tick(now: number, ledger: UserLedger, period: number, halfLife: number): void {
    const c = this.cores;
    const p = this.period;
    const since = this.since;
    for (let i = 0; i < this.users; i++) {
      const dt = now - since[i]!;
      if (c[i]! > 0 && dt > 0) p[i]! += c[i]! * dt;
      since[i] = now;
    }
    ledger.decay(period, halfLife);
    for (let i = 0; i < this.users; i++) {
      if (p[i]! > 0) ledger.accrue(i, p[i]!);
      p[i] = 0;
    }
  }
}
