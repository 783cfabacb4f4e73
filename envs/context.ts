/**
 * What the environments of one configuration share, loaded once by `make`/`makeVec` and never
 * mutated: the compiled platform, the workload (or the generator configuration), the
 * normalisation limits, and the way an episode's jobs are chosen. Clones and the envs of a vector
 * env share one context.
 *
 * Episodes. With a workload, an episode is the trajectory of `trajectory.length` jobs (default: the
 * whole workload) from `trajectory.origin` (an index, or `random`: uniform over the valid origins,
 * drawn from `derive(seed, 'trajectory')` of the episode's seed, as `trajectoryOrigins` does, so
 * `reset({ seed: s })` plays the trajectory `compare --origin random --seed s` runs). The jobs keep
 * their original submit times (the simulator rebases time to the first one and keeps the origin,
 * which the F1 priority uses), exactly as `compare` cuts trajectories;
 * `trajectory.origins` is a pool instead: each episode draws one of them uniformly (from
 * `derive(seed, 'trajectory')`), e.g. the training origins a trainer kept after filtering;
 * `reset({ options: { origin } })` picks the origin of one episode. With a generator, every episode
 * is a fresh sequence of `trajectory.length` (default: the generator's `jobs`) jobs generated with
 * the episode's seed.
 *
 * Limits. The 99th percentiles of req_time, ntasks, mem and mem_vol over the whole workload (with
 * a generator: over a sample of `max(jobs, 5000)` jobs drawn with the config's seed), each
 * overridden by the config's `limits`.
 */
import { basename } from 'node:path';
import { InputError, inputErrorFromIssues } from '../src/core/errors.js';
import { derive } from '../src/core/rng.js';
import { ClusterSimulator } from '../src/execution/simulator.js';
import { loadPlatform, parsePlatform } from '../src/platform/loader.js';
import type { ModelsConfig, Platform } from '../src/platform/platform.js';
import { defaultPlatformFor } from '../src/platform/homogeneous.js';
import { DEFAULT_PLATFORM, DEFAULT_WORKLOAD } from '../src/core/paths.js';
import type { Job, Workload } from '../src/workload/job.js';
import {
  detectJsonFormat,
  generateJobs,
  generateWorkload,
  loadWorkload,
  parseBatsimWorkload,
  parseGeneratorConfig,
  parseNativeWorkload,
  trajectoryOrigins,
  type GeneratorConfig,
  type WorkloadFormat,
} from '../src/workload/index.js';
import { parseEnvConfig, type EnvId, type ResolvedEnvConfig } from './config.js';
import { workloadLimits, type Limits } from './observation.js';

/** The jobs of one episode. */
export interface EpisodeJobs {
  jobs: Job[];
  /** Index of the first job in the workload (-1 for generated episodes). */
  origin: number;
}

/** The shared, immutable part of an environment. */
export class EnvContext {
  readonly id: EnvId;
  readonly config: ResolvedEnvConfig;
  readonly platform: Platform;
  /** The workload, or null with a generator. */
  readonly workload: Workload | null;
  readonly generator: GeneratorConfig | null;
  readonly limits: Limits;
  /** Jobs per episode. */
  readonly length: number;
  /** The raw configuration (JSON-serialisable; what worker threads receive). */
  readonly rawConfig: unknown;

  constructor(id: EnvId, rawConfig: unknown) {
    this.id = id;
    this.rawConfig = rawConfig;
    const c = parseEnvConfig(id, rawConfig);
    this.config = c;
    const models: Partial<ModelsConfig> = { ...(c.models ?? {}) };
    const defaults = c.platform === undefined && c.workload === undefined && c.generator === undefined;

    // workload or generator
    if (c.generator !== undefined) {
      this.generator = parseGeneratorConfig(c.generator, `${id} config $.generator`);
      this.workload = null;
    } else {
      this.generator = null;
      this.workload = loadEnvWorkload(c.workload ?? DEFAULT_WORKLOAD, c);
      if (this.workload.jobs.length === 0) throw new InputError('the workload has no jobs', workloadName(c.workload ?? DEFAULT_WORKLOAD));
    }

    // platform
    if (c.platform !== undefined) {
      this.platform =
        typeof c.platform === 'string'
          ? loadPlatform(c.platform, { models, ...(c.platform_name ? { platformName: c.platform_name } : {}) })
          : parsePlatform(c.platform, `${id} config $.platform`, { models, ...(c.platform_name ? { platformName: c.platform_name } : {}) });
    } else if (defaults) {
      this.platform = loadPlatform(DEFAULT_PLATFORM, { models });
    } else {
      // the trace's machine when the workload knows its size, else the embedded default (as the CLI)
      this.platform = defaultPlatformFor(this.workload?.maxProcs ?? (this.generator as { maxProcs?: number } | null)?.maxProcs, models);
    }

    // episodes
    const available = this.workload ? this.workload.jobs.length : Infinity;
    const genJobs = this.generator ? (this.generator as { jobs: number }).jobs : available;
    this.length = c.trajectory.length ?? genJobs;
    if (this.workload && this.length > available)
      throw inputErrorFromIssues(`${id} config`, [{ path: ['trajectory', 'length'], message: `${this.length} exceeds the ${available} jobs of the workload` }]);
    if (this.workload && typeof c.trajectory.origin === 'number' && c.trajectory.origin + this.length > available)
      throw inputErrorFromIssues(`${id} config`, [
        {
          path: ['trajectory', 'origin'],
          message: `origin ${c.trajectory.origin} + length ${this.length} exceeds the ${available} jobs of the workload (largest origin: ${available - this.length})`,
        },
      ]);
    if (c.trajectory.origins) {
      if (!this.workload)
        throw inputErrorFromIssues(`${id} config`, [
          { path: ['trajectory', 'origins'], message: 'a pool of origins needs a workload (a generator has no origins)' },
        ]);
      const bad = c.trajectory.origins.findIndex((o) => o + this.length > available);
      if (bad >= 0)
        throw inputErrorFromIssues(`${id} config`, [
          {
            path: ['trajectory', 'origins', bad],
            message: `origin ${c.trajectory.origins[bad]} + length ${this.length} exceeds the ${available} jobs of the workload (largest origin: ${available - this.length})`,
          },
        ]);
    }

    // actual durations exist only for fixed-duration jobs
    if (c.observe.durations === 'actual') {
      const ops = this.workload ? this.workload.jobs.find((j) => j.work === 'ops') : (this.generator as { work?: string }).work === 'ops' ? true : undefined;
      if (ops)
        throw inputErrorFromIssues(`${id} config`, [
          {
            path: ['observe', 'durations'],
            message: `"actual" durations need fixed-duration (delay) jobs; ${this.workload ? `job ${(ops as Job).id} is` : "the generator's jobs are"} an ops job, whose run time depends on its placement`,
          },
        ]);
    }

    // every job of a workload must fit the platform (generated jobs that cannot are rejected)
    if (this.workload) checkFits(this.platform, this.workload, c.enforce_memory);

    const sample = this.workload
      ? this.workload.jobs
      : generateWorkload({ ...this.generator!, jobs: Math.max(genJobs, 5000) } as GeneratorConfig, `${c.seed}/limits`).jobs;
    this.limits = { ...workloadLimits(sample), ...(c.limits ?? {}) };
  }

  /** Throws (an `InputError`) unless `origin` is a valid reset option `origin` of this context's workload (a generator ignores it). */
  checkOrigin(origin: number): void {
    const w = this.workload;
    if (!w) return;
    if (!Number.isInteger(origin) || origin < 0 || origin + this.length > w.jobs.length)
      throw new InputError(
        `reset option origin ${origin}: must be an integer in [0, ${w.jobs.length - this.length}] (workload of ${w.jobs.length} jobs, trajectories of ${this.length})`,
      );
  }

  /** The jobs of the episode with seed `seed` (`origin` overrides the configured origin). */
  episodeJobs(seed: number, origin?: number): EpisodeJobs {
    if (this.generator) return { jobs: [...generateJobs({ ...this.generator, jobs: this.length } as GeneratorConfig, seed)], origin: -1 };
    const w = this.workload!;
    let o: number;
    if (origin !== undefined) {
      this.checkOrigin(origin);
      o = origin;
    } else if (this.config.trajectory.origins) {
      const pool = this.config.trajectory.origins;
      o = pool[derive(seed, 'trajectory').int(pool.length)]!;
    } else o = trajectoryOrigins(w.jobs.length, { length: this.length, origin: this.config.trajectory.origin, seed })[0]!;
    // not rebased: the simulator rebases time to the first job and keeps the original origin
    // (`sim.timeOrigin`), which F1 needs; this is also how `compare` cuts its trajectories
    if (o === 0 && this.length === w.jobs.length) return { jobs: w.jobs, origin: 0 };
    return { jobs: w.jobs.slice(o, o + this.length), origin: o };
  }

  /** The last submission time of `jobs` relative to the first (the horizon of the time feature). */
  static span(jobs: readonly Job[]): number {
    return jobs.length ? jobs[jobs.length - 1]!.subtime - jobs[0]!.subtime : 0;
  }
}

function workloadName(w: string | Record<string, unknown>): string {
  return typeof w === 'string' ? w : 'config $.workload';
}

/** Loads the configured workload (a file, or an inline Batsim/native object). */
function loadEnvWorkload(w: string | Record<string, unknown>, c: ResolvedEnvConfig): Workload {
  const format = c.workload_format;
  if (typeof w === 'string') {
    return loadWorkload(w, { format: format as WorkloadFormat | 'auto', ...(c.swf ? { swf: c.swf } : {}), name: basename(w) });
  }
  if (format === 'swf') throw new InputError('an inline workload must be JSON (native or Batsim), not SWF', 'config $.workload');
  const kind = format === 'auto' ? detectJsonFormat(w) : format;
  return kind === 'batsim' ? parseBatsimWorkload(w, 'config $.workload') : parseNativeWorkload(w, 'config $.workload');
}

/** Throws an `InputError` naming the first job that can never fit the platform. */
function checkFits(platform: Platform, workload: Workload, enforceMemory: boolean): void {
  const probe = new ClusterSimulator(platform, [], { enforceMemory });
  for (const job of workload.jobs) {
    const reason = probe.unfitReason(job);
    if (reason !== null)
      throw new InputError(`${job.source}: job ${job.id} can never fit platform ${platform.name} (${platform.coreCount} cores): it ${reason}`, workload.name);
  }
}
