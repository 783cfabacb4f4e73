/**
 * The Poisson model of the synthetic workloads (`model: "poisson"`, DESIGN §3; seeding as in
 * `generators.ts`).
 *
 * Arrivals form a Poisson process of rate `rate` jobs/s: the first job submits at `startTime`, then
 * inter-arrival times are exponential with mean `1 / rate`. Sizes (tasks) and runtimes (seconds) are
 * drawn independently from the configured distributions (`lognormal`: `exp(N(mu, sigma))`, `uniform`
 * in `[min, max)`, `exponential` with a mean, or `constant`); sizes are rounded to integers and clamped
 * to `[minSize, maxSize]`, runtimes clamped to `[minRuntime, maxRuntime]` (`maxRuntime`: a bounded tail;
 * absent, none). Optional `reqTimeFactor: {min, max}`:
 * `req_time = runtime * f` with `f ~ U[min, max)` (over-estimates, as users give in real traces);
 * otherwise `req_time = runtime`. Work model `delay` (task runs `runtime` seconds), or `ops` with
 * `ops = ceil(runtime * mops * 1e6)` (the runtime on a core of `mops` MOPS). Optional `mem`, `mem_vol`
 * (per task, MB) and `comm_vol` (bytes per pair of tasks) distributions; `t_compute` constant.
 *
 * Facets (optional, drawn from streams of their own, so a configuration without them generates the same
 * jobs as before): `users` (each job's user, drawn with the users' weights), `partitions` (each job's
 * partition, likewise) and `malleable` (seed 002's iterative MPI jobs: a `fraction` of the jobs become
 * jobs of `nodes` nodes, their maximum, drawn uniformly from the list, with `tasksPerNode` tasks on each;
 * resizable by `factor` within `[min, max]`, preferring `pref` nodes (`max / 2` by default, when allowed),
 * with reconfiguration points no closer than `inhibit` s; a step lasts `stepTime` s at the maximum size
 * with Amdahl's serial fraction `serial` (drawn), `t1 = stepTime / (s + (1 - s) / max)`, and the job runs
 * `max(1, round(runtime / stepTime))` steps, so its nominal run time at its maximum is about the drawn
 * runtime).
 */
import { z } from 'zod';
import { derive, type Rng } from '../core/rng.js';
import { commonShape, DistributionSchema, finite, makeGeneratedJob, parseConfig, sample } from './generatorCommon.js';
import type { Job, Workload } from './job.js';
import { type MalleableSpec, type MalleableWork, nominalRuntime, specProblem } from './malleability.js';

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
    /** Runtimes above it are clamped to it (a bounded tail; absent: none). */
    maxRuntime: finite.positive().optional(),
    /** Memory per task, MB (default 0). */
    mem: DistributionSchema.optional(),
    /** Memory traffic per task, MB (default 0). */
    memVol: DistributionSchema.optional(),
    /** Bytes exchanged per pair of tasks on different nodes (mpi jobs; default 0). */
    commVol: DistributionSchema.optional(),
    /** Fraction of time computing (mpi jobs). */
    tCompute: finite.min(0).max(1).default(1),
    /** Users: each job's user is drawn with these weights. */
    users: z
      .array(z.object({ name: z.string().min(1), weight: finite.positive().default(1) }).strict())
      .min(1)
      .optional(),
    /** Partitions: each job's partition is drawn with these weights (absent: the platform's default). */
    partitions: z
      .array(z.object({ name: z.string().min(1), weight: finite.positive().default(1) }).strict())
      .min(1)
      .optional(),
    /** Malleable iterative MPI jobs (module comment). */
    malleable: z
      .object({
        fraction: finite.min(0).max(1).default(1),
        nodes: z.array(z.number().int().positive()).min(1),
        tasksPerNode: z.number().int().positive().default(1),
        min: z.number().int().positive().default(1),
        pref: z.number().int().positive().optional(),
        factor: z.number().int().min(2).default(2),
        inhibit: finite.nonnegative().default(15),
        stepTime: finite.positive().default(1),
        serial: DistributionSchema.default({ dist: 'uniform', min: 0.05, max: 0.3 }),
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine((c) => c.maxSize === undefined || c.maxSize >= c.minSize, { message: 'maxSize must be >= minSize', path: ['maxSize'] })
  .refine((c) => c.maxRuntime === undefined || c.maxRuntime >= c.minRuntime, { message: 'maxRuntime must be >= minRuntime', path: ['maxRuntime'] });

/** Poisson model configuration as given by the caller. */
export type PoissonConfig = z.input<typeof PoissonConfigSchema>;

/** Streams the jobs of the Poisson model (validated config), seeded from `seed` (see the module comment). */
export function* poissonJobs(config: PoissonConfig, seed: number | string, where = 'poisson workload config'): Generator<Job, void, undefined> {
  const c = parseConfig(PoissonConfigSchema, config, where);
  const rng = derive(seed, 'workload');
  const est = derive(seed, 'workload/req_time');
  const res = derive(seed, 'workload/resources');
  const facets = derive(seed, 'workload/facets');
  const maxSize = c.maxSize ?? Infinity;
  const maxRuntime = c.maxRuntime ?? Infinity;
  let t = c.startTime;
  for (let i = 0; i < c.jobs; i++) {
    if (i > 0) t += rng.exponential(c.rate);
    const size = Math.min(maxSize, Math.max(c.minSize, Math.round(sample(rng, c.size))));
    const runtime = Math.min(maxRuntime, Math.max(c.minRuntime, sample(rng, c.runtime)));
    const reqTime = c.reqTimeFactor ? runtime * est.uniform(c.reqTimeFactor.min, c.reqTimeFactor.max) : runtime;
    const mem = c.mem ? Math.max(0, sample(res, c.mem)) : 0;
    const memVol = c.memVol ? Math.max(0, sample(res, c.memVol)) : 0;
    const commVol = c.commVol ? Math.max(0, sample(res, c.commVol)) : 0;
    const job = makeGeneratedJob(i, t, size, runtime, reqTime, c, { mem, memVol, commVol, tCompute: c.tCompute }, 'poisson');
    yield c.users || c.partitions || c.malleable ? withFacets(job, c, facets, runtime, reqTime) : job;
  }
}

/** An index drawn with `weights`. */
function pick(rng: Rng, weights: readonly { weight: number }[]): number {
  let total = 0;
  for (const w of weights) total += w.weight;
  let x = rng.next() * total;
  for (let i = 0; i < weights.length; i++) {
    x -= weights[i]!.weight;
    if (x < 0) return i;
  }
  return weights.length - 1;
}

/** `job` with its drawn user, partition and malleability (module comment). */
function withFacets(job: Job, c: z.output<typeof PoissonConfigSchema>, rng: Rng, runtime: number, reqTime: number): Job {
  const out: Job = { ...job };
  if (c.users) out.user = c.users[pick(rng, c.users)]!.name;
  if (c.partitions) out.partition = c.partitions[pick(rng, c.partitions)]!.name;
  const m = c.malleable;
  if (m && rng.next() < m.fraction) {
    const max = m.nodes[Math.floor(rng.next() * m.nodes.length)]!;
    const serial = Math.min(1, Math.max(0, sample(rng, m.serial)));
    const t1 = m.stepTime / (serial + (1 - serial) / max);
    const steps = Math.max(1, Math.round(runtime / m.stepTime));
    const lo = Math.min(m.min, max);
    let pref: number | null = m.pref ?? Math.max(lo, Math.floor(max / 2));
    let spec: MalleableSpec | null = { min: lo, max, pref, factor: m.factor, inhibit: m.inhibit };
    if (specProblem(spec) !== null) {
      // a preferred size off the factor's ladder: none (the wide optimisation only)
      pref = null;
      spec = { ...spec, pref };
      if (specProblem(spec) !== null || lo === max) spec = null;
    }
    const work: MalleableWork = { spec, steps, speedup: { name: `amdahl(${serial.toFixed(3)})`, t1, serial } };
    const nominal = nominalRuntime(work, max);
    Object.assign(out, {
      type: 'mpi',
      work: 'delay',
      ntasks: max * m.tasksPerNode,
      nodes: max,
      ntasksPerNode: m.tasksPerNode,
      ops: 0,
      runtime: nominal,
      reqTime: nominal * (reqTime / runtime),
      malleable: work,
    });
  }
  return out;
}

/** Generates the Poisson model's workload. */
export function generatePoisson(config: PoissonConfig, seed: number | string, where?: string): Workload {
  const c = parseConfig(PoissonConfigSchema, config, where ?? 'poisson workload config');
  return { name: `poisson(seed=${seed})`, jobs: [...poissonJobs(c, seed, where)], maxProcs: c.maxSize, skipped: {} };
}
