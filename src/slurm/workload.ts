/**
 * A Raijin-like workload generator (seed 004 §4.1), streamed and seeded: one job object at a time, so
 * millions of jobs take no memory.
 *
 * - **Sizes** follow Table 4.1: 1 core 49%, 2: 11%, 4: 5%, 8: 7%, 16: 8%, 48: 4%, 64: 6%; the other 10%
 *   ("all rest"; the trace has 193 distinct sizes, Figure 4.1 on a log axis) are spread log-uniformly
 *   over the other sizes from 3 to `maxRestCores` (default 4,096 = 256 nodes).
 * - **Run times** are lognormal (`sigma` default 1.2). Table 4.2 says one-core jobs, half of the jobs,
 *   use only 1.6% of the service units (cores x run time); the mean run time of one-core jobs is set to
 *   `k` times that of the other jobs with `k` solved from `0.49 k / (0.49 k + sum_{n>1} p_n n) = 0.016`,
 *   so the expected one-core share of service units is exactly `suShare1` (1.6%).
 * - **Load**: the mean run time of the other jobs is set so that the offered load
 *   `E[cores x run] / (mean inter-arrival x total cores)` is `load` (default 0.75).
 * - **Arrivals**: Poisson with the mean inter-arrival `meanGap` (default 4.19 s: 4,417,018 jobs in the
 *   214 days from April 1 to November 1, 2016), so uniform over the day, as Figure 4.2 shows.
 * - **Requested times** are above the actual ones (`run x U(1.1, 4)`, rounded up to a minute, capped
 *   at the 48 h partition limit), except a fraction `overrun` (default 1%) that ask for less and are
 *   killed at their limit.
 * - **Users**: `users` (default 400) with Zipf(1) activity, for fair share.
 * - **Operator suspensions**: a fraction `suspendFraction` (default 1%) of jobs is suspended once,
 *   `U(0, 0.9) x run` seconds into its run, for `U(60, 3600)` seconds.
 */
import { BoundedMemo } from '../core/boundedMemo.js';
import { type Rng, derive } from '../core/rng.js';
import type { SlurmJobInput } from './config.js';

/** Table 4.1: job sizes and their shares of the jobs (the rest: 10%). */
export const TABLE_4_1: readonly (readonly [number, number])[] = [
  [1, 0.49],
  [2, 0.11],
  [4, 0.05],
  [8, 0.07],
  [16, 0.08],
  [48, 0.04],
  [64, 0.06],
];

/** Generator parameters. */
export interface RaijinWorkloadOptions {
  jobs: number;
  seed: number;
  load: number;
  meanGap: number;
  suShare1: number;
  sigma: number;
  maxRestCores: number;
  users: number;
  overrun: number;
  suspendFraction: number;
  /** Platform cores (for the load). */
  totalCores: number;
  /** Longest time limit (s). */
  maxTime: number;
}

/** Defaults (see the module comment). */
export const DEFAULT_RAIJIN_WORKLOAD: RaijinWorkloadOptions = {
  jobs: 1_000_000,
  seed: 1,
  load: 0.75,
  meanGap: (214 * 86400) / 4_417_018,
  suShare1: 0.016,
  sigma: 1.2,
  maxRestCores: 4096,
  users: 400,
  overrun: 0.01,
  suspendFraction: 0.01,
  totalCores: 57_600,
  maxTime: 48 * 3600,
};

/** The sizes of the "rest" (3..max, not in Table 4.1) and their cumulative log-uniform weights. */
interface RestSizes {
  readonly sizes: Int32Array;
  readonly cdf: Float64Array;
}

/** `restSizes` by `max`: a pure table, built once per size (every episode of an env asks for the same one). */
const REST_SIZES = new BoundedMemo<number, RestSizes>(16);

/** The sizes of the "rest" (3..max, not in Table 4.1), log-uniform: cumulative table (shared: read only). */
function restSizes(max: number): RestSizes {
  return REST_SIZES.get(max, () => restSizesOf(max));
}

/** The table `restSizes` keeps, built. */
function restSizesOf(max: number): RestSizes {
  const named = new Set(TABLE_4_1.map(([n]) => n));
  const sizes: number[] = [];
  const w: number[] = [];
  for (let n = 3; n <= max; n++) {
    if (named.has(n)) continue;
    sizes.push(n);
    w.push(Math.log((n + 0.5) / (n - 0.5)));
  }
  const tot = w.reduce((a, b) => a + b, 0);
  let acc = 0;
  return { sizes: Int32Array.from(sizes), cdf: Float64Array.from(w, (x) => (acc += x / tot)) };
}

/** Derived constants of a workload: the one-core run-time factor and the mean run times. */
export function workloadConstants(o: RaijinWorkloadOptions): { k: number; meanOther: number; meanOne: number; restMean: number } {
  const { sizes, cdf } = restSizes(o.maxRestCores);
  let restMean = 0;
  let prev = 0;
  for (let i = 0; i < sizes.length; i++) {
    restMean += sizes[i]! * (cdf[i]! - prev);
    prev = cdf[i]!;
  }
  const named = TABLE_4_1.filter(([n]) => n > 1).reduce((a, [n, p]) => a + n * p, 0);
  const S = named + 0.1 * restMean;
  const p1 = TABLE_4_1[0]![1];
  const k = (o.suShare1 * S) / (p1 * (1 - o.suShare1));
  // E[cores x run] = meanOther x (p1 k + S) = load x meanGap x totalCores
  const meanOther = (o.load * o.meanGap * o.totalCores) / (p1 * k + S);
  return { k, meanOther, meanOne: k * meanOther, restMean };
}

/** A generated job: a `SlurmJobInput` (partition 0, QOS 0). */
export type RaijinJob = SlurmJobInput;

/** Streams `o.jobs` Raijin-like jobs (ids 0..jobs-1, submit times increasing from 0). */
export function* raijinWorkload(options: Partial<RaijinWorkloadOptions> = {}): Generator<RaijinJob> {
  const o = { ...DEFAULT_RAIJIN_WORKLOAD, ...options };
  const rng: Rng = derive(o.seed, 'raijin-workload');
  const { sizes, cdf } = restSizes(o.maxRestCores);
  const { meanOther, meanOne } = workloadConstants(o);
  const s2 = (o.sigma * o.sigma) / 2;
  const muOther = Math.log(meanOther) - s2;
  const muOne = Math.log(meanOne) - s2;
  // Zipf(1) users
  const ucdf = new Float64Array(o.users);
  let h = 0;
  for (let u = 0; u < o.users; u++) ucdf[u] = h += 1 / (u + 1);
  for (let u = 0; u < o.users; u++) ucdf[u]! /= h;
  const pick = (table: Float64Array, x: number): number => {
    let lo = 0;
    let hi = table.length - 1;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (table[m]! < x) lo = m + 1;
      else hi = m;
    }
    return lo;
  };
  let t = 0;
  for (let id = 0; id < o.jobs; id++) {
    if (id > 0) t += rng.exponential(1 / o.meanGap);
    let x = rng.next();
    let cores = 0;
    for (const [n, p] of TABLE_4_1) {
      if (x < p) {
        cores = n;
        break;
      }
      x -= p;
    }
    if (cores === 0) cores = sizes[pick(cdf, rng.next())]!;
    let run = Math.max(1, Math.round(rng.lognormal(cores === 1 ? muOne : muOther, o.sigma)));
    run = Math.min(run, o.maxTime);
    let limit: number;
    if (rng.next() < o.overrun) limit = Math.max(60, Math.floor((run * rng.uniform(0.3, 0.95)) / 60) * 60);
    else limit = Math.min(o.maxTime, Math.ceil((run * rng.uniform(1.1, 4)) / 60) * 60);
    if (limit < run && limit === o.maxTime) run = Math.min(run, limit);
    const user = pick(ucdf, rng.next());
    const job: RaijinJob = { id, submit: t, cores, timeLimit: limit, runTime: run, user };
    if (rng.next() < o.suspendFraction) {
      job.opAfter = Math.floor(rng.uniform(0, 0.9) * Math.min(run, limit));
      job.opFor = Math.round(rng.uniform(60, 3600));
    }
    yield job;
  }
}
