/**
 * Trajectories (episodes) of a workload (DESIGN §3): `length` consecutive jobs (in submission order)
 * starting at job index `origin`, with submit times rebased so that the first job of the trajectory
 * submits at 0 (`subtime' = subtime - subtime[origin]`). The jobs are new objects; `id`, `source` and
 * every other field are kept.
 *
 * Origins are chosen as:
 * - an index (`origin: 120`);
 * - `origin: "random"`: uniform in `[0, n - length]`, drawn from `derive(seed, 'trajectory')`;
 * - `trajectories: K`: K distinct origins drawn from that stream (Floyd's sampling without
 *   replacement, in drawing order), e.g. K training or evaluation episodes of one trace;
 * - `origins: [..]`: an explicit list.
 *
 * Every origin must satisfy `origin + length <= n` (n = number of jobs), else an `InputError` gives both
 * numbers. `sliceJobs` does the same over a stream of jobs (e.g. an `SwfReader`) without loading it.
 */
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../core/errors.js';
import { derive } from '../core/rng.js';
import type { Job, Workload } from './job.js';

/** How to cut trajectories from a workload. */
export const TrajectoryOptionsSchema = z
  .object({
    /** Jobs per trajectory. */
    length: z.number().int().positive(),
    /** Index of the first job, or `random` (seeded). Ignored when `origins` or `trajectories` is given. */
    origin: z.union([z.number().int().nonnegative(), z.literal('random')]).default(0),
    /** Number of distinct random origins (seeded). */
    trajectories: z.number().int().positive().optional(),
    /** Explicit origins. */
    origins: z.array(z.number().int().nonnegative()).min(1).optional(),
    /** Seed of the origin stream (`derive(seed, 'trajectory')`). */
    seed: z.union([z.number(), z.string()]).default(0),
  })
  .strict()
  .refine((o) => !(o.origins && o.trajectories !== undefined), { message: 'give either `origins` or `trajectories`, not both', path: ['origins'] });

/** Trajectory options as given by the caller. */
export type TrajectoryOptions = z.input<typeof TrajectoryOptionsSchema>;

function tooShort(origin: number, length: number, n: number): InputError {
  return new InputError(
    `trajectory origin ${origin} + length ${length} = ${origin + length} exceeds the ${n} jobs of the workload (origin + length must be <= ${n}; the largest origin for this length is ${n - length})`,
  );
}

/** Checks that a trajectory of `length` jobs fits from `origin` in `n` jobs. */
export function checkTrajectory(origin: number, length: number, n: number): void {
  if (!Number.isInteger(origin) || origin < 0) throw new InputError(`trajectory origin must be an integer >= 0, found ${origin}`);
  if (!Number.isInteger(length) || length < 1) throw new InputError(`trajectory length must be an integer >= 1, found ${length}`);
  if (length > n) throw new InputError(`trajectory length ${length} exceeds the ${n} jobs of the workload`);
  if (origin + length > n) throw tooShort(origin, length, n);
}

/** A copy of `job` submitted `shift` seconds earlier. */
export function rebaseJob(job: Job, shift: number): Job {
  return { ...job, subtime: job.subtime - shift };
}

/** Rebases `jobs` (sorted by submission) so that the first submits at 0; new Job objects. */
export function rebase(jobs: readonly Job[]): Job[] {
  if (jobs.length === 0) return [];
  const t0 = jobs[0]!.subtime;
  return jobs.map((j) => rebaseJob(j, t0));
}

/** The trajectory of `length` jobs of `workload` starting at job index `origin`, rebased to 0. */
export function trajectory(workload: Workload, origin: number, length: number): Workload {
  checkTrajectory(origin, length, workload.jobs.length);
  return {
    name: `${workload.name}[${origin}..${origin + length})`,
    jobs: rebase(workload.jobs.slice(origin, origin + length)),
    maxProcs: workload.maxProcs,
    skipped: { ...workload.skipped },
  };
}

/**
 * The origins selected by `options` for a workload of `n` jobs (validated: each origin + length <= n).
 * `random` and `trajectories: K` draw from `derive(seed, 'trajectory')`; K distinct origins need
 * `K <= n - length + 1`.
 */
export function trajectoryOrigins(n: number, options: TrajectoryOptions): number[] {
  const r = TrajectoryOptionsSchema.safeParse(options);
  if (!r.success) throw inputErrorFromIssues('trajectory options', r.error.issues);
  const o = r.data;
  if (o.length > n) throw new InputError(`trajectory length ${o.length} exceeds the ${n} jobs of the workload`);
  const span = n - o.length + 1; // valid origins: 0 .. span-1
  let origins: number[];
  if (o.origins) origins = o.origins;
  else if (o.trajectories !== undefined) {
    if (o.trajectories > span)
      throw new InputError(
        `${o.trajectories} distinct trajectories of ${o.length} jobs cannot be drawn from ${n} jobs: only ${span} distinct origins exist (0..${span - 1})`,
      );
    origins = sampleDistinct(derive(o.seed, 'trajectory'), span, o.trajectories);
  } else if (o.origin === 'random') origins = [derive(o.seed, 'trajectory').int(span)];
  else origins = [o.origin];
  for (const origin of origins) checkTrajectory(origin, o.length, n);
  return origins;
}

/** K distinct integers of [0, n), seeded (Floyd's algorithm; order of drawing). */
function sampleDistinct(rng: { int(n: number): number }, n: number, k: number): number[] {
  const chosen = new Set<number>();
  const out: number[] = [];
  for (let j = n - k; j < n; j++) {
    const t = rng.int(j + 1);
    const v = chosen.has(t) ? j : t;
    chosen.add(v);
    out.push(v);
  }
  return out;
}

/** The trajectories of `workload` selected by `options`, each rebased to 0. */
export function trajectories(workload: Workload, options: TrajectoryOptions): Workload[] {
  const origins = trajectoryOrigins(workload.jobs.length, options);
  return origins.map((origin) => trajectory(workload, origin, options.length));
}

/**
 * Streams the trajectory `[origin, origin + length)` of a stream of jobs (in submission order), rebased
 * to 0, without holding the stream. Throws an `InputError` at the end when the stream is too short.
 */
export function* sliceJobs(jobs: Iterable<Job>, origin: number, length: number): Generator<Job, void, undefined> {
  if (!Number.isInteger(origin) || origin < 0) throw new InputError(`trajectory origin must be an integer >= 0, found ${origin}`);
  if (!Number.isInteger(length) || length < 1) throw new InputError(`trajectory length must be an integer >= 1, found ${length}`);
  let i = 0;
  let t0 = 0;
  for (const job of jobs) {
    if (i >= origin) {
      if (i === origin) t0 = job.subtime;
      yield rebaseJob(job, t0);
      if (i + 1 === origin + length) return;
    }
    i++;
  }
  throw tooShort(origin, length, i);
}
