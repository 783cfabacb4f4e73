/**
 * What the synthetic workload models (`poisson.ts`, `lublin.ts`; `generators.ts` is their entry
 * point) share: the distributions of a quantity and their sampling, the configuration fields common
 * to both models, validation of a configuration, and the `Job` a model generates.
 */
import { z } from 'zod';
import { inputErrorFromIssues } from '../core/errors.js';
import type { Rng } from '../core/rng.js';
import type { Job, JobType } from './job.js';

/** A finite number. */
export const finite = z.number().finite();

/** A distribution of a non-negative quantity. */
export const DistributionSchema = z
  .discriminatedUnion('dist', [
    z.object({ dist: z.literal('constant'), value: finite }).strict(),
    z.object({ dist: z.literal('uniform'), min: finite, max: finite }).strict(),
    z.object({ dist: z.literal('lognormal'), mu: finite, sigma: finite.nonnegative() }).strict(),
    z.object({ dist: z.literal('exponential'), mean: finite.positive() }).strict(),
  ])
  .superRefine((d, ctx) => {
    if (d.dist === 'uniform' && d.min > d.max) ctx.addIssue({ code: 'custom', path: ['max'], message: `max (${d.max}) must be >= min (${d.min})` });
  });

/** A distribution: `constant`, `uniform` [min, max), `lognormal` exp(N(mu, sigma)), `exponential` (mean). */
export type Distribution = z.infer<typeof DistributionSchema>;

/** Draws one value of `d` from `rng` (exactly one draw of the underlying generator per call shape). */
export function sample(rng: Rng, d: Distribution): number {
  switch (d.dist) {
    case 'constant':
      return d.value;
    case 'uniform':
      return rng.uniform(d.min, d.max);
    case 'lognormal':
      return rng.lognormal(d.mu, d.sigma);
    case 'exponential':
      return rng.exponential(1 / d.mean);
  }
}

const FactorSchema = z
  .object({ min: finite.positive(), max: finite.positive() })
  .strict()
  .refine((f) => f.min <= f.max, { message: 'max must be >= min', path: ['max'] });

/** The configuration fields of both models. */
export const commonShape = {
  /** Number of jobs. */
  jobs: z.number().int().positive(),
  /** `req_time = runtime * U[min, max)` when given; else `req_time = runtime`. */
  reqTimeFactor: FactorSchema.optional(),
  /** Job type. */
  type: z.enum(['mpi', 'seq']).default('mpi'),
  /** `delay`: tasks run `runtime` seconds; `ops`: `ceil(runtime * mops * 1e6)` operations per task. */
  work: z.enum(['delay', 'ops']).default('delay'),
  /** Core speed (MOPS) that turns runtimes into operations for the `ops` work model. */
  mops: finite.positive().default(1000),
};

/** Validates a model configuration read from `where` (an `InputError` naming every bad field). */
export function parseConfig<S extends z.ZodTypeAny>(schema: S, config: unknown, where: string): z.output<S> {
  const r = schema.safeParse(config);
  if (!r.success) throw inputErrorFromIssues(where, r.error.issues);
  return r.data as z.output<S>;
}

/**
 * Generated job number `i` (id `i + 1`) of `model`: a `delay` job of `runtime` seconds, or an `ops`
 * job of `ceil(runtime * mops * 1e6)` operations per task; MPI jobs may go on any cores, seq jobs on one node.
 */
export function makeGeneratedJob(
  i: number,
  subtime: number,
  ntasks: number,
  runtime: number,
  reqTime: number,
  c: { type: JobType; work: 'delay' | 'ops'; mops: number },
  extra: { mem: number; memVol: number; commVol: number; tCompute: number },
  model: string,
): Job {
  const ops = c.work === 'ops';
  const mpi = c.type === 'mpi';
  return {
    id: String(i + 1),
    subtime,
    ntasks,
    reqTime,
    reqEnergy: 0,
    type: c.type,
    work: c.work,
    ops: ops ? Math.ceil(runtime * c.mops * 1e6) : 0,
    runtime: ops ? 0 : runtime,
    mem: extra.mem,
    memVol: extra.memVol,
    commVol: mpi ? extra.commVol : 0,
    tCompute: mpi ? extra.tCompute : 1,
    nodes: mpi ? 0 : 1,
    ntasksPerNode: 0,
    tasks: null,
    profile: undefined,
    source: `${model}[${i}]`,
  };
}
