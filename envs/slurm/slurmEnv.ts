/**
 * `clustergym/Slurm-v0` (DESIGN §10.4): the operator's decisions on a Slurm cluster given to an agent.
 * The simulator is src/slurm (multifactor priority, main scheduler + backfill, walltime kill, operator
 * suspensions); the workload is seed 004's Raijin-like one (`workload.ts`, Table 4.1 job sizes), seeded
 * by the episode seed, on `nodes` x 16 cores.
 *
 * Every step is one operating period (`period` s of simulated time, default 1 h). The action picks the
 * scheduler settings for the next period, as an operator reconfigures slurmctld: `Discrete(12)`, action
 * `a` = priority profile `a % 4` x backfill setting `floor(a / 4)`:
 *
 * | profile | weights (age, fair share, job size, partition)   | favour   |
 * |---------|--------------------------------------------------|----------|
 * | 0 `fairshare` | 1000, 10000, 1000, 1000 (`DEFAULT_PRIORITY`) | large  |
 * | 1 `age`       | 10000, 0, 0, 0 (FIFO by eligible time)       | -      |
 * | 2 `small`     | 1000, 1000, 10000, 0                          | small (`PriorityFavorSmall`) |
 * | 3 `large`     | 1000, 1000, 10000, 0                          | large  |
 *
 * | backfill | setting |
 * |----------|---------|
 * | 0 | `sched/backfill`, `bf_window` 1440 min, `bf_interval` 30 s (Slurm's defaults) |
 * | 1 | `sched/backfill`, `bf_window` 60 min (jobs starting later than 1 h get no reservation) |
 * | 2 | `sched/builtin` (no backfill) |
 *
 * Every action is always allowed (the mask is all ones while the episode runs).
 *
 * Observation `Box(0, 1, [9 + 12])`: cores in use / total, pending jobs / 1000, pending cores / total,
 * running jobs / 10,000, share of one-core jobs among the pending, mean wait so far of the pending
 * jobs / 3,600 s, jobs finished / jobs, time / (jobs x mean inter-arrival x 2), suspended
 * jobs / 100 (all clipped to [0, 1]), then the one-hot of the last action. The sums over the pending jobs are
 * order-free (the cores and the one-core jobs are integers; the waits an exact sum rounded once, `ExactSum`):
 * the preset's waiting jobs are read in the order it keeps them, with no sort, and give the bits of Slurm's order. "jobs" is the jobs
 * submitted so far under `observe.horizon: "seen"` (the default: what an operator knows,
 * envs/observes.ts), the episode's under `"trajectory"` (what the env showed before the option).
 *
 * Reward: minus the sum over the jobs finished in the period of `(slowdown - 1)`, divided by the jobs
 * of the episode: the return is `1 - mean slowdown` (calcmets' slowdown). `info.metrics` at the end:
 * calcmets' figures of the episode (mean wait, response, slowdown, weighted slowdown, utilisation,
 * suspended jobs, accounting violations). `terminated` when every job has left; `truncated` after
 * `max_steps` periods.
 *
 * Engine: the one engine's Slurm preset run step by step (`SlurmPresetRun`, src/slurm/presetRun.ts), reconfigured
 * at every step in the priority and backfill dimensions; the episodes are those of the retired Slurm engine bit for
 * bit (`test/envs/slurmPreset.test.ts`, against its recorded episodes). The env reads the waiting jobs in whatever
 * order the preset keeps them (the observation's sums are order-free), and `terminated` when Slurm's queue empties
 * (after the last job its priority tick and an armed backfill pass still run: `SlurmPresetRun.busy`). The config key `engine` takes `one` only (kept
 * for configurations that name it; `slurm` is refused, saying why).
 */
import { z } from 'zod';
import { InvalidActionFields } from '../invalidAction.js';
import { inputErrorFromIssues } from '../../src/core/errors.js';
import { ExactSum } from '../../src/core/statistics.js';
import { JobPhase } from '../../src/core/engine.js';
import { SlurmPlatform } from '../../src/slurm/platform.js';
import { DEFAULT_PRIORITY, type PriorityConfig } from '../../src/slurm/priority.js';
import { CalcMetsAccumulator, type CalcMets, type CalcMetsRecord, calcMetsListener, type ReplayEngine, replayEngineRefusal } from '../../src/slurm/replay.js';
import { SlurmPresetRun } from '../../src/slurm/presetRun.js';
import { DEFAULT_RAIJIN_WORKLOAD, raijinWorkload } from '../../src/slurm/workload.js';
import type { EpisodeInfo, GymEnv, GymInfo } from '../gym.js';
import { EpisodeEnv, type EpisodeStep } from '../episodeEnv.js';
import { box, type BoxSpace, type DiscreteSpace, discrete } from '../spaces.js';

/** The environment's id. */
export const SLURM_ENV_ID = 'clustergym/Slurm-v0';

/** Configuration of Slurm-v0. */
export const SlurmEnvConfigSchema = z
  .object({
    /** Jobs per episode. */
    jobs: z.number().int().min(10).max(1_000_000).default(5000),
    /** Nodes of 16 cores (Raijin: 3,600). */
    nodes: z.number().int().min(4).max(100_000).default(360),
    /** Offered load of the workload. */
    load: z.number().positive().max(2).default(0.95),
    /** Users (fair share). */
    users: z.number().int().min(1).max(100_000).default(50),
    /** Length of one operating period (s). */
    period: z.number().positive().default(3600),
    /** What the policy observes of the episode's arrivals (the module comment; envs/observes.ts). */
    observe: z
      .object({ horizon: z.enum(['seen', 'trajectory']).default('seen') })
      .strict()
      .default({}),
    /** Truncate after this many periods. */
    max_steps: z.number().int().positive().default(100_000),
    /** Seed of the episodes started by `reset()` without a seed. */
    seed: z.number().int().default(0),
    /**
     * The engine the episodes run on: `one`, the one engine running the Slurm preset step by step
     * (src/slurm/presetRun.ts), the only one since the Slurm engine (`slurm`) was retired (issue 42).
     */
    engine: z
      .string()
      .superRefine((v, ctx) => {
        const why = replayEngineRefusal(v);
        if (why !== null) ctx.addIssue({ code: z.ZodIssueCode.custom, message: why });
      })
      .transform((): ReplayEngine => 'one')
      .default('one'),
    /** What `step` does with an action the mask forbids (envs/invalidAction.ts). */
    ...InvalidActionFields,
  })
  .strict();

/** A validated configuration. */
export interface SlurmEnvContext {
  config: z.output<typeof SlurmEnvConfigSchema>;
  platform: SlurmPlatform;
}

/** Validates a configuration. */
export function loadSlurmEnvContext(config: unknown = {}): SlurmEnvContext {
  const parsed = SlurmEnvConfigSchema.safeParse(config ?? {});
  if (!parsed.success) throw inputErrorFromIssues(`${SLURM_ENV_ID} config`, parsed.error.issues);
  const c = parsed.data;
  const platform = new SlurmPlatform({
    groups: [{ name: 'nodes', count: c.nodes, cores: 16 }],
    partitions: [{ name: 'normal', groups: ['nodes'], max_time: 48 * 3600 }],
  });
  return { config: c, platform };
}

/** The priority profiles of the actions (index = action % 4). */
export const PRIORITY_PROFILES: readonly { name: string; priority: Partial<PriorityConfig> }[] = [
  { name: 'fairshare', priority: { ...DEFAULT_PRIORITY } },
  { name: 'age', priority: { weightAge: 10000, weightFairshare: 0, weightJobSize: 0, weightPartition: 0, favorSmall: false } },
  { name: 'small', priority: { weightAge: 1000, weightFairshare: 1000, weightJobSize: 10000, weightPartition: 0, favorSmall: true } },
  { name: 'large', priority: { weightAge: 1000, weightFairshare: 1000, weightJobSize: 10000, weightPartition: 0, favorSmall: false } },
];

/** The backfill settings of the actions (index = floor(action / 4)). */
export const BACKFILL_SETTINGS: readonly { name: string; backfill: boolean; bfWindow: number }[] = [
  { name: 'backfill', backfill: true, bfWindow: 1440 * 60 },
  { name: 'backfill-1h', backfill: true, bfWindow: 3600 },
  { name: 'builtin', backfill: false, bfWindow: 1440 * 60 },
];

/** Number of actions. */
export const SLURM_ACTIONS = PRIORITY_PROFILES.length * BACKFILL_SETTINGS.length;

/** The action's name: `profile/backfill` (`fairshare/backfill`). */
export function slurmActionName(a: number): string {
  return `${PRIORITY_PROFILES[a % 4]!.name}/${BACKFILL_SETTINGS[Math.floor(a / 4)]!.name}`;
}

const FEATURES = 9;
const clip = (v: number) => (v < 0 ? 0 : v > 1 ? 1 : Number.isFinite(v) ? v : 0);

/** The `info` of Slurm-v0. */
export interface SlurmEnvInfo extends GymInfo {
  pending: number;
  running: number;
  finished: number;
  metrics?: CalcMets;
  episode?: EpisodeInfo;
}

/** The Slurm-v0 environment. */
export class SlurmEnv extends EpisodeEnv<Float32Array, SlurmEnvInfo> {
  readonly id = SLURM_ENV_ID;
  readonly observationSpace: BoxSpace = box([FEATURES + SLURM_ACTIONS], 0, 1);
  readonly actionSpace: DiscreteSpace = discrete(SLURM_ACTIONS);
  private engine: SlurmPresetRun | null = null;
  private acc: CalcMetsAccumulator | null = null;
  private readonly obs = new Float32Array(FEATURES + SLURM_ACTIONS);
  /** The pending jobs' waits, summed exactly (order-free: the module comment). */
  private readonly waits = new ExactSum();
  private finished = 0;
  private sdSum = 0;
  private lastAction = 0;

  constructor(private readonly ctx: SlurmEnvContext) {
    super(SLURM_ACTIONS, ctx.config.seed, ctx.config);
  }

  /** The engine of the episode (null before `reset`), for agents that read the cluster's state: the preset's stepped run. */
  get simulator(): SlurmPresetRun | null {
    return this.engine;
  }

  protected start(seed: number): { observation: Float32Array; info: SlurmEnvInfo } {
    const c = this.ctx.config;
    const acc = new CalcMetsAccumulator(0);
    this.finished = 0;
    this.sdSum = 0;
    // each job that leaves: calcmets' record, and its slowdown when it ran to its end (or its limit)
    const left = (r: CalcMetsRecord) => {
      acc.addRecord(r);
      this.finished++;
      if (r.state === JobPhase.Completed || r.state === JobPhase.TimedOut) this.sdSum += (r.end - r.submit) / Math.max(1, r.run) - 1;
    };
    const wl = raijinWorkload({ jobs: c.jobs, seed, load: c.load, users: c.users, totalCores: this.ctx.platform.totalCores });
    const run = new SlurmPresetRun(this.ctx.platform.spec, wl, { users: c.users }, [calcMetsListener(left)]);
    this.engine = run;
    this.acc = acc;
    this.lastAction = 0;
    this.mask.fill(1);
    this.observe();
    return { observation: this.obs, info: this.info(false) };
  }

  protected apply(action: number): EpisodeStep<Float32Array, SlurmEnvInfo> {
    const e = this.engine!;
    const bf = BACKFILL_SETTINGS[Math.floor(action / 4)]!;
    e.setScheduling({ priority: PRIORITY_PROFILES[action % 4]!.priority, backfill: bf.backfill, bfWindow: bf.bfWindow });
    this.lastAction = action;
    const sd0 = this.sdSum;
    e.runUntil(e.now + this.ctx.config.period);
    const reward = -(this.sdSum - sd0) / this.ctx.config.jobs;
    const terminated = !e.busy;
    const truncated = !terminated && this.steps >= this.ctx.config.max_steps;
    this.observe();
    return { observation: this.obs, reward, terminated, truncated, info: this.info(terminated || truncated) };
  }

  protected episodeLength(): number {
    return this.ctx.config.jobs;
  }

  protected fresh(): SlurmEnv {
    return new SlurmEnv(this.ctx);
  }

  protected override release(): void {
    this.engine = null;
    this.acc = null;
  }

  private observe(): void {
    const e = this.engine!;
    const o = this.obs;
    const total = this.ctx.platform.totalCores;
    const now = e.now;
    // (integers, and an exact sum: the same in any order of the pending jobs)
    let pendCores = 0;
    let pendOne = 0;
    const waits = this.waits;
    waits.clear();
    e.forEachPending((job) => {
      pendCores += job.ntasks;
      if (job.ntasks === 1) pendOne++;
      waits.add(now - job.subtime);
    });
    const waitSum = waits.value();
    const c = this.ctx.config;
    const pending = e.pendingCount;
    o[0] = clip(e.usedCores() / total);
    o[1] = clip(pending / 1000);
    o[2] = clip(pendCores / total);
    o[3] = clip(e.runningCount / 10_000);
    o[4] = pending > 0 ? pendOne / pending : 0;
    o[5] = clip(pending > 0 ? waitSum / pending / 3600 : 0);
    const jobs = c.observe.horizon === 'seen' ? Math.max(1, e.submitted) : c.jobs;
    o[6] = clip(this.finished / jobs);
    o[7] = clip(e.now / (jobs * DEFAULT_RAIJIN_WORKLOAD.meanGap * 2));
    o[8] = clip(e.suspendedCount / 100);
    o.fill(0, FEATURES);
    if (this.steps > 0) o[FEATURES + this.lastAction] = 1;
  }

  private info(done: boolean): SlurmEnvInfo {
    const e = this.engine!;
    const info: SlurmEnvInfo = {
      action_mask: this.mask,
      time: e.now,
      steps: this.steps,
      pending: e.pendingCount,
      running: e.runningCount,
      finished: this.finished,
    };
    if (done) info.metrics = this.acc!.result(this.ctx.platform.totalCores, e.backfilled);
    return info;
  }
}

/** The registration of Slurm-v0 (envs/registry.ts `SYSTEM_ENVS`; an `EnvRegistration`, typed structurally to avoid an import cycle). */
export const slurmRegistration = {
  id: SLURM_ENV_ID,
  description: 'operate a Slurm cluster (seed 004): each step picks the multifactor priority profile and backfill setting for the next period: Discrete(12)',
  load: loadSlurmEnvContext,
  create: (ctx: SlurmEnvContext): GymEnv => new SlurmEnv(ctx),
};
