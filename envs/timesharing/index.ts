/**
 * `clustergym/CoSched-v0` (DESIGN §10.2, seed 003): the admission of parallel jobs (the parallel MPL)
 * and the share L of a non-dedicated, time-shared cluster given to an agent. The simulator is
 * src/timesharing (per-node ready/wait queues, quanta, paging, local users, the local policy of the
 * configuration: `dyn` by default); the workload is the thesis's job stream (plt, pms, ...), seeded
 * by the episode seed.
 *
 * Every step is one decision period (`period` u.t., default 2,000 = 20 quanta). The action sets,
 * for the next period, the maximum number of parallel tasks a node admits (the parallel MPL,
 * 1..MPL_TOTAL; tasks already running are never evicted) and L, the share of parallel tasks on nodes
 * with a local user (eq. 2.7; under `csc` also its memory split and job-wide quanta, chapter 3):
 * `Discrete(MPL_TOTAL x 4)`, action `a` = MPL `1 + a % MPL_TOTAL`, L = `L_LEVELS[floor(a / MPL_TOTAL)]`
 * with `L_LEVELS = [0.25, 0.5, 0.75, 1]`. Every action is allowed while the episode runs.
 *
 * Observation `Box(0, 1, [9])`: mean tasks per node / MPL_TOTAL, mean parallel tasks per node /
 * MPL_TOTAL, share of nodes with a local user, mean node.mem / node.M / 2, share of overflowed nodes,
 * mean ready-queue length / MPL_TOTAL, jobs finished / jobs, the MPL in force / MPL_TOTAL, L in force.
 *
 * Reward: minus the sum over the jobs finished in the period of `(slowdown - 1)` (eq. 2.4's ratio; a
 * local job's term weighted by `local_weight`), divided by the jobs of the episode. `info.metrics` at
 * the end: the run's metrics (src/timesharing/metrics.ts: parallel and local slowdown, overhead,
 * correlation, page faults, mem_load). `terminated` when every job has finished; `truncated` after
 * `max_steps` periods.
 */
import { z } from 'zod';
import { InvalidActionFields } from '../invalidAction.js';
import { inputErrorFromIssues } from '../../src/core/errors.js';
import { parseTimeSharingConfig, type TimeSharingConfig, timeSharingConfigSchema } from '../../src/timesharing/config.js';
import { type RunMetrics, runMetrics } from '../../src/timesharing/metrics.js';
import { TimeSharingSimulator } from '../../src/timesharing/simulator.js';
import type { EpisodeInfo, GymInfo } from '../gym.js';
import { EpisodeEnv, type EpisodeStep } from '../episodeEnv.js';
import { type BoxSpace, box, type DiscreteSpace, discrete } from '../spaces.js';

/** The environment's id. */
export const COSCHED_ENV_ID = 'clustergym/CoSched-v0';

/** The L values of the actions. */
export const L_LEVELS: readonly number[] = [0.25, 0.5, 0.75, 1];

/** Configuration of CoSched-v0: the simulator's input (src/timesharing/config.ts) plus the episode's. */
export const CoSchedEnvConfigSchema = z
  .object({
    /** The simulator's configuration (n_jobs defaults to 1,000 here; policy to dyn). */
    sim: z.record(z.unknown()).default({}),
    /** Length of a decision period, u.t. */
    period: z.number().positive().default(2000),
    /** Weight of local jobs in the reward. */
    local_weight: z.number().nonnegative().default(1),
    /** Truncate after this many periods. */
    max_steps: z.number().int().positive().default(100_000),
    /** Seed of the episodes started by `reset()` without a seed. */
    seed: z.number().int().nonnegative().default(0),
    /** What `step` does with an action the mask forbids (envs/invalidAction.ts). */
    ...InvalidActionFields,
  })
  .strict();

/** A validated configuration. */
export interface CoSchedEnvContext {
  config: z.output<typeof CoSchedEnvConfigSchema>;
  sim: TimeSharingConfig;
}

/** Validates a configuration. */
export function loadCoSchedEnvContext(config: unknown = {}): CoSchedEnvContext {
  const parsed = CoSchedEnvConfigSchema.safeParse(config ?? {});
  if (!parsed.success) throw inputErrorFromIssues(`${COSCHED_ENV_ID} config`, parsed.error.issues);
  const c = parsed.data;
  const raw = { n_jobs: 1000, policy: 'dyn', ...c.sim };
  // validate early so that errors name the key under `sim`
  const check = timeSharingConfigSchema.safeParse(raw);
  if (!check.success)
    throw inputErrorFromIssues(
      `${COSCHED_ENV_ID} config`,
      check.error.issues.map((i) => ({ ...i, path: ['sim', ...i.path] })),
    );
  return { config: c, sim: parseTimeSharingConfig(raw) };
}

const FEATURES = 9;
const clip = (v: number) => (v < 0 ? 0 : v > 1 ? 1 : Number.isFinite(v) ? v : 0);

/** The `info` of CoSched-v0. */
export interface CoSchedEnvInfo extends GymInfo {
  finished: number;
  mpl: number;
  L: number;
  metrics?: RunMetrics;
  episode?: EpisodeInfo;
}

/** The CoSched-v0 environment. */
export class CoSchedEnv extends EpisodeEnv<Float32Array, CoSchedEnvInfo> {
  readonly id = COSCHED_ENV_ID;
  readonly observationSpace: BoxSpace = box([FEATURES], 0, 1);
  readonly actionSpace: DiscreteSpace;
  private sim: TimeSharingSimulator | null = null;
  private readonly obs = new Float32Array(FEATURES);
  private seen = 0;

  constructor(private readonly ctx: CoSchedEnvContext) {
    const n = ctx.sim.MPL_TOTAL * L_LEVELS.length;
    super(n, ctx.config.seed, ctx.config);
    this.actionSpace = discrete(n);
  }

  /** The simulator of the episode (null before `reset`), for agents that read the cluster's state. */
  get simulator(): TimeSharingSimulator | null {
    return this.sim;
  }

  /** The action for a parallel MPL (1..MPL_TOTAL) and an index into L_LEVELS. */
  actionFor(mpl: number, lIndex: number): number {
    return lIndex * this.ctx.sim.MPL_TOTAL + (mpl - 1);
  }

  protected start(seed: number): { observation: Float32Array; info: CoSchedEnvInfo } {
    this.sim = new TimeSharingSimulator({ ...this.ctx.sim, seed });
    this.seen = 0;
    this.mask.fill(1);
    this.observe();
    return { observation: this.obs, info: this.info(false) };
  }

  protected apply(action: number): EpisodeStep<Float32Array, CoSchedEnvInfo> {
    const s = this.sim!;
    const M = this.ctx.sim.MPL_TOTAL;
    s.parallelCap = 1 + (action % M);
    s.L = L_LEVELS[Math.floor(action / M)]!;
    s.readmit();
    s.runUntil(s.now + this.ctx.config.period);
    let sum = 0;
    for (; this.seen < s.records.length; this.seen++) {
      const r = s.records[this.seen]!;
      sum += (r.tr / r.tc - 1) * (r.kind === 'local' ? this.ctx.config.local_weight : 1);
    }
    const reward = -sum / this.ctx.sim.n_jobs;
    const terminated = s.finished;
    const truncated = !terminated && this.steps >= this.ctx.config.max_steps;
    this.observe();
    return { observation: this.obs, reward, terminated, truncated, info: this.info(terminated || truncated) };
  }

  protected episodeLength(): number {
    return this.sim?.jobs.length ?? 0;
  }

  protected fresh(): CoSchedEnv {
    return new CoSchedEnv(this.ctx);
  }

  protected override release(): void {
    this.sim = null;
  }

  private observe(): void {
    const s = this.sim!;
    const o = this.obs;
    const M = this.ctx.sim.MPL_TOTAL;
    const n = s.nodes.length;
    let tasks = 0;
    let par = 0;
    let users = 0;
    let mem = 0;
    let over = 0;
    let rq = 0;
    for (const nd of s.nodes) {
      tasks += nd.tasks.length;
      par += nd.parallels;
      if (nd.locals > 0) users++;
      mem += nd.mem / s.cfg.model.memory;
      if (s.overflowed(nd)) over++;
      rq += nd.rq.length;
    }
    o[0] = clip(tasks / n / M);
    o[1] = clip(par / n / M);
    o[2] = users / n;
    o[3] = clip(mem / n / 2);
    o[4] = over / n;
    o[5] = clip(rq / n / M);
    o[6] = clip(s.records.length / s.jobs.length);
    o[7] = clip(s.parallelCap / M);
    o[8] = clip(s.L);
  }

  private info(done: boolean): CoSchedEnvInfo {
    const s = this.sim!;
    const info: CoSchedEnvInfo = { action_mask: this.mask, time: s.now, steps: this.steps, finished: s.records.length, mpl: s.parallelCap, L: s.L };
    if (done) info.metrics = runMetrics(s);
    return info;
  }
}

/** The registration of CoSched-v0 (envs/registry.ts `SYSTEM_ENVS`; an `EnvRegistration`, typed structurally to avoid an import cycle). */
export const coschedRegistration = {
  id: COSCHED_ENV_ID,
  description: 'time-shared non-dedicated cluster (seed 003): each step sets the parallel MPL and the share L for the next period: Discrete(MPL_TOTAL*4)',
  load: loadCoSchedEnvContext,
  create: (ctx: CoSchedEnvContext): CoSchedEnv => new CoSchedEnv(ctx),
};
