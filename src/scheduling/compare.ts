/**
 * Comparing scheduling policies on the same trajectories (DESIGN §8 `compare`, §7 evaluation): every
 * policy runs on every trajectory with a fresh scheduler, and the per-trajectory summaries are
 * averaged with equal weight per trajectory (as RLScheduler reports the mean bounded slowdown of its
 * sequences):
 *
 *     mean_bsld(policy) = (1/K) * sum over trajectories k of mean_bsld(policy, k)
 *
 * likewise `mean_wait`, `utilisation`, `makespan` and `energy` (DESIGN §2.5 definitions per
 * trajectory).
 *
 * Trajectories are cut WITHOUT rebasing the submit times (`cutTrajectories`): the simulator rebases
 * time to the trajectory's first job itself and keeps the original origin (`sim.timeOrigin`), which
 * the `f1` priority needs (it uses the original submit time, as RLScheduler does).
 */
import { type EngineConfig, multifactorOptionsOf } from './engineConfig.js';
import type { ModelsConfig, Platform } from '../platform/platform.js';
import type { Summary } from '../metrics/summary.js';
import type { Job, Workload } from '../workload/job.js';
import { trajectoryOrigins, type TrajectoryOptions } from '../workload/trajectory.js';
import type { BackfillName } from './backfilling.js';
import { makeScheduler, parsePolicyName, type PolicySpec } from './policyName.js';
import type { NodeFit } from './placement.js';
import { runSimulation } from './run.js';

/** One trajectory: a label (its origin) and its jobs in submission order. */
export interface Trajectory {
  label: string;
  jobs: Job[];
}

/**
 * The trajectories of `workload` selected by `options` (origins as `trajectoryOrigins` draws them),
 * with the jobs' original submit times kept. Without `options`, the whole workload is one trajectory.
 */
export function cutTrajectories(workload: Workload, options?: TrajectoryOptions): Trajectory[] {
  if (!options) return [{ label: 'all', jobs: workload.jobs }];
  const origins = trajectoryOrigins(workload.jobs.length, options);
  return origins.map((o) => ({ label: String(o), jobs: workload.jobs.slice(o, o + options.length) }));
}

/** Options of `comparePolicies`. */
export interface CompareOptions {
  /** Seed of the random policies' stream (`derive(seed, 'policy')`). */
  seed?: number | string;
  fit?: NodeFit;
  commitHead?: boolean;
  maxJobTest?: number;
  /** Backfilling for policy names without `+BACKFILL`. */
  defaultBackfill?: BackfillName;
  enforceMemory?: boolean;
  walltimeKill?: boolean;
  models?: Partial<ModelsConfig>;
  /** The engine's dimensions by name (`engineConfig.ts`): malleable progress, resize policy, multifactor parameters. */
  engine?: EngineConfig | undefined;
  /** Called after each simulation (progress display). */
  onProgress?: (done: number, total: number) => void;
}

/** The figures of one policy on one trajectory. */
export interface TrajectoryResult {
  trajectory: string;
  jobs: number;
  jobs_finished: number;
  jobs_killed: number;
  jobs_rejected: number;
  mean_bsld: number;
  max_bsld: number;
  mean_wait: number;
  utilisation: number;
  makespan: number;
  energy: number;
}

/** The headline figures of one policy, averaged over episodes (what `compare` and `evaluate` tabulate). */
export interface PolicyMeans {
  name: string;
  mean_bsld: number;
  mean_wait: number;
  utilisation: number;
  makespan: number;
  energy: number;
}

/** The figures of one policy, averaged over the trajectories, and each trajectory's. */
export interface PolicyResult extends PolicyMeans {
  per_trajectory: TrajectoryResult[];
}

function perTrajectory(label: string, jobs: number, s: Summary): TrajectoryResult {
  return {
    trajectory: label,
    jobs,
    jobs_finished: s.jobs_finished,
    jobs_killed: s.jobs_killed,
    jobs_rejected: s.jobs_rejected,
    mean_bsld: s.mean_bsld,
    max_bsld: s.max_bsld,
    mean_wait: s.mean_wait,
    utilisation: s.utilisation,
    makespan: s.makespan,
    energy: s.energy,
  };
}

function mean(rows: TrajectoryResult[], key: 'mean_bsld' | 'mean_wait' | 'utilisation' | 'makespan' | 'energy'): number {
  let s = 0;
  for (const r of rows) s += r[key];
  return rows.length ? s / rows.length : 0;
}

/** Runs every policy on every trajectory; one result per policy, in the order given. */
export function comparePolicies(
  platform: Platform,
  trajectories: Trajectory[],
  policies: (string | PolicySpec)[],
  options: CompareOptions = {},
): PolicyResult[] {
  const specs = policies.map((p) => (typeof p === 'string' ? parsePolicyName(p, options.defaultBackfill) : p));
  const plat = options.models ? platform.withModels(options.models) : platform;
  const total = specs.length * trajectories.length;
  let done = 0;
  return specs.map((spec) => {
    const rows = trajectories.map((t) => {
      const scheduler = makeScheduler(spec, {
        seed: options.seed ?? 0,
        fit: options.fit,
        commitHead: options.commitHead,
        maxJobTest: options.maxJobTest,
        multifactor: options.engine ? multifactorOptionsOf(options.engine) : undefined,
      });
      const { summary } = runSimulation(plat, t.jobs, scheduler, {
        enforceMemory: options.enforceMemory,
        walltimeKill: options.walltimeKill,
        workloadName: `trajectory ${t.label}`,
        engine: options.engine,
      });
      options.onProgress?.(++done, total);
      return perTrajectory(t.label, t.jobs.length, summary);
    });
    return {
      name: spec.name,
      mean_bsld: mean(rows, 'mean_bsld'),
      mean_wait: mean(rows, 'mean_wait'),
      utilisation: mean(rows, 'utilisation'),
      makespan: mean(rows, 'makespan'),
      energy: mean(rows, 'energy'),
      per_trajectory: rows,
    };
  });
}
