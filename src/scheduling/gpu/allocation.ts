/**
 * Gavel's allocation policies (Narayanan et al., OSDI'20, §4; github.com/stanford-futuredata/gavel
 * `policies/`, their formulations matched, not their code) as pure functions: given the active jobs'
 * throughputs on each GPU type (steps/s at their GPU count, `dlThroughput.ts`), their GPU counts (scale
 * factors) and priority weights, and the GPUs of each type, the fraction of time `x_ij` each job should
 * run on each type. The round-based mechanism (phase 2) turns these fractions into rounds.
 *
 * **Max-min fairness**, heterogeneity-aware (Gavel's `max_min_fairness_perf`; the paper's "Gavel" LAS):
 *
 *     maximise  min_i  (s_i / w_i) * sum_j T_ij x_ij / P_i,     P_i = sum_j T_ij n_j / N
 *
 * subject to `sum_j x_ij <= 1`, `sum_i s_i x_ij <= n_j`, `x >= 0` (`maxMinLp.ts`): each job's rate,
 * normalised by its rate under an equal share of every type (`P_i`, Gavel's "proportional" throughput),
 * scaled by its GPU count (a job on `s` GPUs gets `s` times less time for the same rate) and divided by
 * its weight. **Heterogeneity-agnostic** (`max_min_fairness`, the paper's "LAS"): the same with every
 * `T_ij = 1`, so `P_i = 1` and the rates are `(s_i / w_i) sum_j x_ij`: time, whatever the type.
 *
 * **Finish-time fairness** (`finish_time_fairness_perf`, Themis' metric): minimise the largest ratio
 *
 *     rho_i = (t_i + R_i / sum_j T_ij x_ij) / (C_i + R_i / I_i)
 *
 * `t_i` the time since the job arrived, `R_i` its remaining steps, `I_i` its rate under the isolated
 * allocation (`1/m`-th of each type's GPUs, `x_ij = (n_j / m) / s_i`, rows scaled to sum to at most 1),
 * `C_i` the isolated time its finished steps would have taken (accumulated between calls by
 * `FinishTimeFairness`). The problem is quasi-convex: for a target `rho`, every job needs `sum_j T_ij
 * x_ij >= R_i / (rho E_i - t_i)` (`E_i` the denominator), which is a max-min problem with `c_ij = T_ij
 * (rho E_i - t_i) / R_i` feasible when its optimum is >= 1; `rho` is found by bisection between the
 * best a job could do alone and what the isolated allocation gives. Agnostic (`finish_time_fairness`):
 * every type's throughput taken as the reference type's (Gavel takes the V100's).
 *
 * A job that cannot run anywhere (every throughput 0) or has no steps left gets no allocation.
 */
import { solveMaxMin } from './maxMinLp.js';

/** An active job as the policies see it. */
export interface GpuJobRates {
  /** Steps/s on each GPU type at its GPU count (0: cannot run there). */
  throughput: ArrayLike<number>;
  /** GPUs it holds when it runs (Gavel's scale factor). */
  scale: number;
  /** Priority weight (default 1). */
  weight?: number | undefined;
}

/** An allocation: `x[i * k + j]`, the fraction of time job `i` should run on GPU type `j`. */
export interface Allocation {
  x: Float64Array;
  /** The policy's optimum: the minimum normalised rate (max-min) or the largest finish-time ratio (FTF). */
  objective: number;
}

/** Gavel's proportional throughput of a job: its rate with an equal share of every GPU, `sum_j T_j n_j / N`. */
export function proportionalThroughput(throughput: ArrayLike<number>, capacity: ArrayLike<number>): number {
  let n = 0;
  let r = 0;
  for (let j = 0; j < capacity.length; j++) {
    n += capacity[j]!;
    r += throughput[j]! * capacity[j]!;
  }
  return n > 0 ? r / n : 0;
}

/** Gavel's isolated allocation of `m` jobs (row-major `m * k`): `(n_j / m) / s_i`, each row scaled to sum to at most 1. */
export function isolatedAllocation(jobs: readonly GpuJobRates[], capacity: ArrayLike<number>): Float64Array {
  const m = jobs.length;
  const k = capacity.length;
  const x = new Float64Array(m * k);
  for (let i = 0; i < m; i++) {
    let row = 0;
    for (let j = 0; j < k; j++) {
      x[i * k + j] = capacity[j]! / m / jobs[i]!.scale;
      row += x[i * k + j]!;
    }
    if (row > 1) for (let j = 0; j < k; j++) x[i * k + j] = x[i * k + j]! / row;
  }
  return x;
}

/** Each job's rate under allocation `x` (steps/s). */
export function allocationRates(jobs: readonly GpuJobRates[], x: Float64Array, k: number): Float64Array {
  return Float64Array.from(jobs, (job, i) => {
    let r = 0;
    for (let j = 0; j < k; j++) r += job.throughput[j]! * x[i * k + j]!;
    return r;
  });
}

/** Gavel's max-min fairness, heterogeneity-aware (`aware: true`) or agnostic (see the module comment). */
export function maxMinFairness(jobs: readonly GpuJobRates[], capacity: ArrayLike<number>, options: { aware: boolean }): Allocation {
  const m = jobs.length;
  const k = capacity.length;
  const rate = new Float64Array(m * k);
  const size = new Float64Array(m * k);
  jobs.forEach((job, i) => {
    const w = job.weight ?? 1;
    const prop = options.aware ? proportionalThroughput(job.throughput, capacity) : 1;
    for (let j = 0; j < k; j++) {
      const t = options.aware ? job.throughput[j]! : 1;
      rate[i * k + j] = prop > 0 ? (t * job.scale) / (w * prop) : 0;
      size[i * k + j] = job.scale;
    }
  });
  const sol = solveMaxMin({ m, k, rate, size, capacity: Float64Array.from(capacity) });
  return { x: sol.x, objective: sol.t };
}

/** What finish-time fairness knows of a job besides its rates. */
export interface FinishTimeState {
  /** Seconds since it arrived. */
  timeSinceStart: number;
  /** Steps left. */
  remainingSteps: number;
  /** Seconds its finished steps would have taken under the isolated allocation. */
  cumulativeIsolatedTime: number;
}

/**
 * Gavel's finish-time fairness (see the module comment): the allocation minimising the largest
 * finish-time ratio, and that ratio. `relTolerance` bounds the bisection's relative width (default 1e-6).
 */
export function finishTimeFairness(
  jobs: readonly GpuJobRates[],
  state: readonly FinishTimeState[],
  capacity: ArrayLike<number>,
  relTolerance = 1e-6,
): Allocation {
  const m = jobs.length;
  const k = capacity.length;
  const iso = allocationRates(jobs, isolatedAllocation(jobs, capacity), k);
  const active = jobs.map((_, i) => state[i]!.remainingSteps > 0 && iso[i]! > 0);
  const E = Float64Array.from(jobs, (_, i) => (active[i] ? state[i]!.cumulativeIsolatedTime + state[i]!.remainingSteps / iso[i]! : 1));
  const ratio = (i: number, y: number) => (state[i]!.timeSinceStart + state[i]!.remainingSteps / y) / E[i]!;
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < m; i++) {
    if (!active[i]) continue;
    let best = 0;
    for (let j = 0; j < k; j++) best = Math.max(best, jobs[i]!.throughput[j]! * Math.min(1, capacity[j]! / jobs[i]!.scale));
    lo = Math.max(lo, ratio(i, best));
    hi = Math.max(hi, ratio(i, iso[i]!));
  }
  const rate = new Float64Array(m * k);
  const size = new Float64Array(m * k);
  for (let i = 0; i < m; i++) for (let j = 0; j < k; j++) size[i * k + j] = jobs[i]!.scale;
  const cap = Float64Array.from(capacity);
  /** The max-min problem of target `rho`: feasible when its optimum is >= 1. */
  const attempt = (rho: number) => {
    for (let i = 0; i < m; i++) {
      const slack = rho * E[i]! - state[i]!.timeSinceStart;
      for (let j = 0; j < k; j++) rate[i * k + j] = active[i] && slack > 0 ? (jobs[i]!.throughput[j]! * slack) / state[i]!.remainingSteps : 0;
      if (active[i] && !(slack > 0)) return undefined;
    }
    return solveMaxMin({ m, k, rate, size, capacity: cap });
  };
  if (!active.includes(true)) return { x: new Float64Array(m * k), objective: 0 };
  let best = attempt(hi);
  for (let n = 0; n < 200 && hi - lo > relTolerance * hi; n++) {
    const mid = (lo + hi) / 2;
    const sol = attempt(mid);
    if (sol !== undefined && sol.t >= 1) {
      hi = mid;
      best = sol;
    } else lo = mid;
  }
  return { x: best!.x, objective: hi };
}

/**
 * Finish-time fairness across calls: keeps each job's isolated time (`C_i`: the steps it did since the
 * last call, at the isolated rate of then), as Gavel's policy object does. Jobs are named by `id`.
 */
export class FinishTimeFairness {
  private readonly isolatedTime = new Map<string, number>();
  private previous = new Map<string, { remaining: number; isolatedRate: number }>();

  /** The allocation for the active jobs now (`ids` name them). */
  allocate(
    ids: readonly string[],
    jobs: readonly GpuJobRates[],
    progress: readonly { timeSinceStart: number; remainingSteps: number }[],
    capacity: ArrayLike<number>,
  ): Allocation {
    const k = capacity.length;
    const iso = allocationRates(jobs, isolatedAllocation(jobs, capacity), k);
    const state = ids.map((id, i): FinishTimeState => {
      const prev = this.previous.get(id);
      let c = this.isolatedTime.get(id) ?? 0;
      if (prev !== undefined && prev.isolatedRate > 0) c += (prev.remaining - progress[i]!.remainingSteps) / prev.isolatedRate;
      this.isolatedTime.set(id, c);
      return { ...progress[i]!, cumulativeIsolatedTime: c };
    });
    this.previous = new Map(ids.map((id, i) => [id, { remaining: progress[i]!.remainingSteps, isolatedRate: iso[i]! }]));
    return finishTimeFairness(jobs, state, capacity);
  }
}

/** The throughputs of a heterogeneity-agnostic policy: every type's rate taken as type `reference`'s (Gavel's FTF takes the V100's). */
export function referenceThroughputs(job: GpuJobRates, reference: number): GpuJobRates {
  return { ...job, throughput: Array.from(job.throughput, () => job.throughput[reference]!) };
}
