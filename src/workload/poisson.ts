/**
 * The Poisson model of the synthetic workloads (`model: "poisson"`, DESIGN §3; seeding as in
 * `generators.ts`).
 *
 * Arrivals form a Poisson process of rate `rate` jobs/s: the first job submits at `startTime`, then
 * inter-arrival times are exponential with mean `1 / rate`. Sizes (tasks) and runtimes (seconds) are
 * drawn independently from the configured distributions (`lognormal`: `exp(N(mu, sigma))`, `uniform`
 * in `[min, max)`, `exponential` with a mean, or `constant`); sizes are rounded to integers and clamped
 * to `[minSize, maxSize]`, runtimes clamped to `>= minRuntime`. Optional `reqTimeFactor: {min, max}`:
 * `req_time = runtime * f` with `f ~ U[min, max)` (over-estimates, as users give in real traces);
 * otherwise `req_time = runtime`. Work model `delay` (task runs `runtime` seconds), or `ops` with
 * `ops = ceil(runtime * mops * 1e6)` (the runtime on a core of `mops` MOPS). Optional `mem`, `mem_vol`
 * (per task, MB) and `comm_vol` (bytes per pair of tasks) distributions; `t_compute` constant.
 */
import { z } from 'zod';
import { derive } from '../core/rng.js';
import { commonShape, DistributionSchema, finite, makeGeneratedJob, parseConfig, sample } from './generatorCommon.js';
import type { Job, Workload } from './job.js';

/** Configuration of the Poisson model; every field but `jobs` has a default. */
export const PoissonConfigSchema = z
  .object({
    model: z.literal('poisson').default('poisson'),
    ...commonShape,
    /** Arrival rate, jobs per second (mean inter-arrival `1 / rate`). */
    rate: finite.positive().default(1 / 600),
    /** Submission time of the first job. */
    startTime: finite.nonnegative().default(0),
    /** Tasks per job (rounded, clamped to [minSize, maxSize]). */
    size: DistributionSchema.default({ dist: 'lognormal', mu: 1, sigma: 1 }),
    minSize: z.number().int().positive().default(1),
    maxSize: z.number().int().positive().optional(),
    /** Runtime, seconds (clamped to >= minRuntime). */
    runtime: DistributionSchema.default({ dist: 'lognormal', mu: 6, sigma: 1.5 }),
    minRuntime: finite.positive().default(1),
    /** Memory per task, MB (default 0). */
    mem: DistributionSchema.optional(),
    /** Memory traffic per task, MB (default 0). */
    memVol: DistributionSchema.optional(),
    /** Bytes exchanged per pair of tasks on different nodes (mpi jobs; default 0). */
    commVol: DistributionSchema.optional(),
    /** Fraction of time computing (mpi jobs). */
    tCompute: finite.min(0).max(1).default(1),
  })
  .strict()
  .refine((c) => c.maxSize === undefined || c.maxSize >= c.minSize, { message: 'maxSize must be >= minSize', path: ['maxSize'] });

/** Poisson model configuration as given by the caller. */
export type PoissonConfig = z.input<typeof PoissonConfigSchema>;

/** Streams the jobs of the Poisson model (validated config), seeded from `seed` (see the module comment). */
export function* poissonJobs(config: PoissonConfig, seed: number | string, where = 'poisson workload config'): Generator<Job, void, undefined> {
  const c = parseConfig(PoissonConfigSchema, config, where);
  const rng = derive(seed, 'workload');
  const est = derive(seed, 'workload/req_time');
  const res = derive(seed, 'workload/resources');
  const maxSize = c.maxSize ?? Infinity;
  let t = c.startTime;
  for (let i = 0; i < c.jobs; i++) {
    if (i > 0) t += rng.exponential(c.rate);
    const size = Math.min(maxSize, Math.max(c.minSize, Math.round(sample(rng, c.size))));
    const runtime = Math.max(c.minRuntime, sample(rng, c.runtime));
    const reqTime = c.reqTimeFactor ? runtime * est.uniform(c.reqTimeFactor.min, c.reqTimeFactor.max) : runtime;
    const mem = c.mem ? Math.max(0, sample(res, c.mem)) : 0;
    const memVol = c.memVol ? Math.max(0, sample(res, c.memVol)) : 0;
    const commVol = c.commVol ? Math.max(0, sample(res, c.commVol)) : 0;
    yield makeGeneratedJob(i, t, size, runtime, reqTime, c, { mem, memVol, commVol, tCompute: c.tCompute }, 'poisson');
  }
}

/** Generates the Poisson model's workload. */
export function generatePoisson(config: PoissonConfig, seed: number | string, where?: string): Workload {
  const c = parseConfig(PoissonConfigSchema, config, where ?? 'poisson workload config');
  return { name: `poisson(seed=${seed})`, jobs: [...poissonJobs(c, seed, where)], maxProcs: c.maxSize, skipped: {} };
}
