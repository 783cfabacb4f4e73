/**
 * `clustergym/Gpu-v0` (DESIGN §16): round-based scheduling of deep-learning jobs on a cluster of several
 * GPU types. At each round boundary (every `round` s, Gavel's mechanism: the engine's round pass clock)
 * every active job is decided again: the agent picks, one at a time, which job runs this round on which
 * GPU type and on how many servers, until it ends the round or nothing more fits; the round is then
 * carried out (`src/scheduling/gpu/roundPlan.ts`: a job chosen on its current GPUs keeps running, the
 * other running jobs go back to the queue keeping their steps, the chosen waiting ones start, all GPUs of
 * a job at once) and the episode runs to the next boundary. Jobs progress by the DL throughput table
 * (`src/execution/dlProgress.ts`): a job's speed depends on its GPU type, its GPU count and whether its
 * GPUs share a server.
 *
 * **Episodes.** `source: "gavel"`: `jobs` jobs of Gavel's generator (1/2/4/8 GPUs, Poisson arrivals at
 * `arrivals_per_hour`), seeded by the episode seed, their run times times `duration_scale`; `source:
 * "philly"`: `jobs` consecutive jobs of Philly's virtual cluster `cluster` (`workload`, Pollux's
 * philly.csv) from an offset the seed draws, job types drawn as Gavel's generator draws them, durations
 * times `duration_scale`. The platform is `platform` (default `data/platforms/gpu-24.json`: 2 servers of
 * 4 GPUs of each of V100, P100, K80), the table `throughputs` (Gavel's measured table by default).
 *
 * **Actions.** `Discrete(K G 2 + 1)`, `K = jobs` slots (the active jobs in arrival order, so every job is
 * visible), `G` GPU types: action `(k G + t) 2 + s` runs the job of slot `k` on type `t` on one server
 * (`s = 0`) or on several (`s = 1`); the last action ends the round. The mask allows a placement when the
 * slot holds a job not chosen yet this round that has a rate there and fits the round's free GPUs (one
 * server: a server of the type with that many free GPUs; several: two or more servers, for jobs of 2 GPUs
 * or more); ending the round is allowed once a job is chosen in it (or when none fits: a round never
 * leaves every GPU idle while a job could run). When nothing more fits, the round ends by itself.
 *
 * **Observation.** `Box(0, 1, [K F + 3 G + 4])`, `F = 5 + 3 G`, times over `T = time_scale` s, clipped to
 * [0, 1]. Per slot: present, GPUs / 8, age / T (since arrival), GPU-seconds received / (8 T), remaining
 * time at its best rate / T, then per type its one-server rate / its best rate (0: cannot run there), its
 * several-server rate / its best rate (0 for one GPU), and where it ran in the last round (1 on one server
 * of that type, 0.5 on several, else 0). Per type: free GPUs in this round's plan / the type's GPUs, the
 * most free on one server / the most GPUs a server has, the type's GPUs / all GPUs. Global: waiting jobs
 * / K, active jobs / K, jobs chosen this round / K, the time / T (clipped; never the episode's last arrival,
 * which a live scheduler does not know: envs/observes.ts).
 *
 * **Reward.** Minus the job-seconds spent in the system during the step, divided by the episode's jobs
 * and `scale` (3,600 s): the return is minus the mean job completion time (JCT) in hours. `info.metrics`
 * at the end: `mean_jct` (s), `jobs`, `makespan`, `preemptions`, `rounds`.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../../src/core/errors.js';
import { PACKAGE_ROOT } from '../../src/core/paths.js';
import { derive, PythonRandom } from '../../src/core/rng.js';
import { DlProgress } from '../../src/execution/dlProgress.js';
import { ClusterSimulator } from '../../src/execution/simulator.js';
import { loadPlatform } from '../../src/platform/loader.js';
import type { Platform } from '../../src/platform/platform.js';
import { activeGpuJobs, type GpuJobView } from '../../src/scheduling/gpu/rounds.js';
import { RoundPlan } from '../../src/scheduling/gpu/roundPlan.js';
import { GAVEL_THROUGHPUTS, loadThroughputTable, type ThroughputTable } from '../../src/workload/dlThroughput.js';
import { dlJob, drawJobType, gavelJobs, jobTypeDraw } from '../../src/workload/gavel.js';
import type { Job } from '../../src/workload/job.js';
import { loadPhillyJobs } from '../../src/workload/philly.js';
import type { GymEnv, GymInfo } from '../gym.js';
import { EpisodeEnv, type EpisodeStep } from '../episodeEnv.js';
import { InvalidActionFields } from '../invalidAction.js';
import { box, type BoxSpace, type DiscreteSpace, discrete } from '../spaces.js';

/** The environment's id. */
export const GPU_ENV_ID = 'clustergym/Gpu-v0';

/** The default platform: 2 servers of 4 GPUs of each of V100, P100, K80. */
export const GPU_ENV_PLATFORM = resolve(PACKAGE_ROOT, 'data/platforms/gpu-24.json');
/** Philly's jobs (Pollux's artifact), beside the repository. */
export const PHILLY_CSV = resolve(PACKAGE_ROOT, '../shared/data/pollux/philly.csv');

/** Configuration of Gpu-v0. */
export const GpuEnvConfigSchema = z
  .object({
    /** Where the jobs come from. */
    source: z.enum(['gavel', 'philly']).default('gavel'),
    /** Jobs per episode (also the slots K). */
    jobs: z.number().int().min(1).max(256).default(32),
    /** Gavel's generator: mean arrival rate, jobs/h. */
    arrivals_per_hour: z.number().finite().positive().default(4),
    /** Run times (Gavel) or durations (Philly) are multiplied by this. */
    duration_scale: z.number().finite().positive().max(1).default(0.1),
    /** Philly: the jobs file and the virtual cluster. */
    workload: z.string().min(1).default(PHILLY_CSV),
    cluster: z.string().min(1).default('6214e9'),
    /** Platform file (native JSON with GPUs). */
    platform: z.string().min(1).default(GPU_ENV_PLATFORM),
    /** DL throughput table (Gavel's format). */
    throughputs: z.string().min(1).default(GAVEL_THROUGHPUTS),
    /** Round length, s. */
    round: z.number().finite().positive().default(360),
    /** GPUs over several servers run at the table's spread rates (else at its one-server rates). */
    spread_rates: z.boolean().default(true),
    /** Time scale of the observation, s. */
    time_scale: z.number().finite().positive().default(100_000),
    /** Divisor of the reward, s. */
    scale: z.number().finite().positive().default(3600),
    /** Seed of the episodes started by `reset()` without a seed. */
    seed: z.number().int().default(0),
    ...InvalidActionFields,
  })
  .strict();

/** A validated configuration and what it loaded once. */
export interface GpuEnvContext {
  config: z.output<typeof GpuEnvConfigSchema>;
  platform: Platform;
  table: ThroughputTable;
  /** Philly's jobs of the cluster, in submission order (loaded once), or null. */
  philly: Job[] | null;
}

/** Validates a configuration and loads its platform, table and Philly jobs. */
export function loadGpuEnvContext(config: unknown = {}): GpuEnvContext {
  const parsed = GpuEnvConfigSchema.safeParse(config ?? {});
  if (!parsed.success) throw inputErrorFromIssues(`${GPU_ENV_ID} config`, parsed.error.issues);
  const c = parsed.data;
  const platform = loadPlatform(c.platform);
  if (platform.gpuCount === 0) throw new InputError(`${GPU_ENV_ID} config: $.platform: ${c.platform} has no GPU`);
  const table = loadThroughputTable(c.throughputs);
  const philly = c.source === 'philly' ? loadPhillyJobs(c.workload, { table, cluster: c.cluster }).jobs : null;
  if (philly !== null && philly.length < c.jobs)
    throw new InputError(`${GPU_ENV_ID} config: $.jobs: cluster ${c.cluster} of ${c.workload} has ${philly.length} jobs, fewer than ${c.jobs}`);
  return { config: c, platform, table, philly };
}

/** Features per slot for `G` GPU types. */
export const gpuSlotFeatures = (G: number) => 5 + 3 * G;

/** Metrics of a finished episode. */
export interface GpuEnvMetrics {
  jobs: number;
  mean_jct: number;
  makespan: number;
  preemptions: number;
  rounds: number;
}

/** `info` of Gpu-v0. */
export interface GpuEnvInfo extends GymInfo {
  queue_length: number;
  running: number;
  round: number;
  metrics?: GpuEnvMetrics;
}

const clip = (v: number) => (v < 0 ? 0 : v > 1 ? 1 : v);

/** The jobs of an episode (see the module comment). */
export function gpuEpisodeJobs(ctx: GpuEnvContext, seed: number): Job[] {
  const c = ctx.config;
  const scaleJob = (j: Job): Job => {
    const dl = j.gpus!.dl!;
    return dlJob({
      id: j.id,
      subtime: j.subtime,
      gpus: j.gpus!.count,
      jobType: dl.jobType,
      steps: dl.steps * c.duration_scale,
      runtime: j.runtime * c.duration_scale,
      weight: j.gpus!.weight,
      source: j.source,
    });
  };
  if (ctx.philly === null) {
    // Gavel's generator takes a whole seed >= 0: fold the episode seed into its range
    const s = Number(BigInt.asUintN(31, BigInt(seed)));
    return [...gavelJobs({ jobs: c.jobs, arrivalsPerHour: c.arrivals_per_hour }, s, ctx.table)].map(scaleJob);
  }
  const all = ctx.philly;
  const start = Math.floor(derive(seed, 'gpu-env/philly-offset').next() * (all.length - c.jobs + 1));
  const t0 = all[start]!.subtime;
  // job types drawn again with the episode's seed, as Gavel's generator draws them; steps = duration x the reference rate
  const rng = new PythonRandom(Number(BigInt.asUintN(31, BigInt(seed))));
  const draw = jobTypeDraw(ctx.table);
  const ref = ctx.table.referenceGpu();
  return all.slice(start, start + c.jobs).map((j) => {
    const jobType = drawJobType(rng, draw, j.gpus!.count);
    const steps = j.runtime * ctx.table.throughput(jobType, ref, j.gpus!.count)!;
    return scaleJob({ ...j, subtime: j.subtime - t0, gpus: { ...j.gpus!, dl: { jobType, steps } } });
  });
}

/** The Gpu-v0 environment (see the module comment). */
export class GpuEnv extends EpisodeEnv<Float32Array, GpuEnvInfo> {
  readonly id = GPU_ENV_ID;
  readonly observationSpace: BoxSpace;
  readonly actionSpace: DiscreteSpace;
  /** Slots, GPU types. */
  readonly K: number;
  readonly G: number;
  private readonly obs: Float32Array;
  private readonly F: number;
  /** The episode's engine, DL progress and this round's plan (null between episodes). */
  sim: ClusterSimulator | null = null;
  dl: DlProgress | null = null;
  plan: RoundPlan | null = null;
  /** The active jobs of this round (views), slot k holding `views[k]`. */
  views: GpuJobView[] = [];
  private seen = new Map<Job, number>();
  private jobCount = 0;
  private inSystem = 0;
  private integral = 0;
  private lastIntegral = 0;
  private sumJct = 0;
  private jobsEnded = 0;
  private preemptions = 0;
  /** Rounds so far in the episode (the current round's number while it is decided). */
  round = 0;

  /** The round length, s. */
  get roundLength(): number {
    return this.ctx.config.round;
  }

  constructor(private readonly ctx: GpuEnvContext) {
    const K = ctx.config.jobs;
    const G = ctx.platform.gpuTypes.length;
    super(K * G * 2 + 1, ctx.config.seed, ctx.config);
    this.K = K;
    this.G = G;
    this.F = gpuSlotFeatures(G);
    this.observationSpace = box([K * this.F + 3 * G + 4], 0, 1);
    this.actionSpace = discrete(K * G * 2 + 1);
    this.obs = new Float32Array(K * this.F + 3 * G + 4);
  }

  protected start(seed: number): { observation: Float32Array; info: GpuEnvInfo } {
    const c = this.ctx.config;
    const jobs = gpuEpisodeJobs(this.ctx, seed);
    this.jobCount = jobs.length;
    const dl = new DlProgress(this.ctx.table, { spreadRates: c.spread_rates });
    const sim = new ClusterSimulator(this.ctx.platform, jobs, {
      progress: [dl],
      passClock: { every: c.round },
      unfit: 'reject',
      workloadName: `${GPU_ENV_ID} seed ${seed}`,
    });
    this.sim = sim;
    this.dl = dl;
    this.seen = new Map();
    this.inSystem = 0;
    this.integral = 0;
    this.sumJct = 0;
    this.jobsEnded = 0;
    this.preemptions = 0;
    this.round = 0;
    sim.addListener({
      onAdvance: (_s, from, to) => {
        this.integral += this.inSystem * (to - from);
      },
      onSubmit: () => void this.inSystem++,
      onReject: () => void this.jobCount--,
      onRequeue: () => void this.preemptions++,
      onEnd: (_s, rec) => {
        this.inSystem--;
        this.sumJct += rec.finish - rec.submit;
        this.jobsEnded++;
      },
    });
    const r = this.advance();
    this.lastIntegral = 0;
    this.integral = 0;
    return { observation: this.obs, info: r.info };
  }

  protected episodeLength(): number {
    return this.jobCount;
  }

  protected fresh(): GpuEnv {
    return new GpuEnv(this.ctx);
  }

  protected override release(): void {
    this.sim = null;
    this.dl = null;
    this.plan = null;
  }

  protected override whyNotAllowed(action: number): string {
    if (action === this.K * this.G * 2) return 'ending a round with no job chosen while one fits would leave the GPUs idle';
    const k = Math.floor(action / (2 * this.G));
    const v = this.views[k];
    if (v === undefined) return `slot ${k} holds no job`;
    if (this.plan?.has(v.job)) return `job ${v.job.id} is chosen in this round already`;
    return `job ${v.job.id} has no rate or does not fit there in this round`;
  }

  protected apply(action: number): EpisodeStep<Float32Array, GpuEnvInfo> {
    const plan = this.plan!;
    if (action !== this.K * this.G * 2) {
      const k = Math.floor(action / (2 * this.G));
      const t = Math.floor(action / 2) % this.G;
      const s = action % 2;
      if (!plan.choose(this.views[k]!.job, t, s === 0 ? 'one' : 'several')) throw new Error(`Gpu-v0: action ${action} was allowed and does not fit`);
      if (this.fillMask()) {
        this.fillObservation();
        return { observation: this.obs, reward: 0, terminated: false, truncated: false, info: this.info() };
      }
    }
    plan.apply();
    const r = this.advance();
    return { observation: this.obs, reward: r.reward, terminated: r.done, truncated: false, info: r.info };
  }

  /** Runs to the next round boundary with a placement to decide (or the end); the reward since the last call. */
  private advance(): { reward: number; info: GpuEnvInfo; done: boolean } {
    const sim = this.sim!;
    for (;;) {
      // the caller-driven loop (as envs/env.ts): to the next round boundary, false at the end
      if (!sim.advance()) break;
      this.round++;
      this.plan = new RoundPlan(sim);
      this.views = activeGpuJobs(sim, this.dl!, this.seen).slice(0, this.K);
      if (this.fillMask()) break;
      this.plan.apply();
    }
    const reward = -(this.integral - this.lastIntegral) / Math.max(1, this.jobCount) / this.ctx.config.scale;
    this.lastIntegral = this.integral;
    const info = this.info();
    if (sim.done) {
      this.plan = null;
      this.views = [];
      this.obs.fill(0);
      this.mask.fill(0);
      info.metrics = {
        jobs: this.jobsEnded,
        mean_jct: this.jobsEnded > 0 ? this.sumJct / this.jobsEnded : 0,
        makespan: sim.lastEnd,
        preemptions: this.preemptions,
        rounds: this.round,
      };
      return { reward, info, done: true };
    }
    this.fillObservation();
    return { reward, info, done: false };
  }

  private info(): GpuEnvInfo {
    const sim = this.sim!;
    return { action_mask: this.mask, time: sim.now, steps: this.steps, queue_length: sim.queue.length, running: sim.runningCount, round: this.round };
  }

  /** Fills the mask for the current plan; whether some placement is allowed. */
  private fillMask(): boolean {
    const m = this.mask;
    const plan = this.plan!;
    const G = this.G;
    m.fill(0);
    let any = false;
    for (let k = 0; k < this.views.length; k++) {
      const v = this.views[k]!;
      if (plan.has(v.job)) continue;
      for (let t = 0; t < G; t++) {
        if (v.rates[t]! > 0 && plan.find(v.job, t, 'one') !== null) {
          m[(k * G + t) * 2] = 1;
          any = true;
        }
        if (v.spreadRates[t]! > 0 && plan.find(v.job, t, 'several') !== null) {
          m[(k * G + t) * 2 + 1] = 1;
          any = true;
        }
      }
    }
    // ending the round with nothing chosen would leave every GPU idle while jobs wait: not allowed
    m[this.K * G * 2] = !any || plan.choices.length > 0 ? 1 : 0;
    return any;
  }

  private fillObservation(): void {
    const o = this.obs;
    const sim = this.sim!;
    const plan = this.plan!;
    const p = this.ctx.platform;
    const G = this.G;
    const F = this.F;
    const T = this.ctx.config.time_scale;
    const now = sim.now;
    o.fill(0);
    for (let k = 0; k < this.views.length; k++) {
      const v = this.views[k]!;
      const b = k * F;
      let best = 0;
      for (let t = 0; t < G; t++) best = Math.max(best, v.rates[t]!, v.spreadRates[t]!);
      o[b] = 1;
      o[b + 1] = clip(v.scale / 8);
      o[b + 2] = clip((now - v.arrival) / T);
      o[b + 3] = clip(v.attained / (8 * T));
      o[b + 4] = best > 0 ? clip(v.remaining / best / T) : 1;
      for (let t = 0; t < G; t++) {
        o[b + 5 + t] = best > 0 ? v.rates[t]! / best : 0;
        o[b + 5 + G + t] = best > 0 ? v.spreadRates[t]! / best : 0;
        o[b + 5 + 2 * G + t] = v.runType === t ? (v.runSpread ? 0.5 : 1) : 0;
      }
    }
    const g = this.K * F;
    let maxServer = 0;
    for (let n = 0; n < p.nodeCount; n++) maxServer = Math.max(maxServer, p.nodeGpuCount[n]!);
    const mostFree = new Int32Array(G);
    for (let n = 0; n < p.nodeCount; n++) {
      const t = p.nodeGpuType[n]!;
      if (t >= 0) mostFree[t] = Math.max(mostFree[t]!, plan.freeGpus[n]!);
    }
    for (let t = 0; t < G; t++) {
      const spec = p.gpuTypeSpecs[t]!;
      o[g + 3 * t] = clip(plan.freeByType[t]! / spec.count);
      o[g + 3 * t + 1] = clip(mostFree[t]! / Math.max(1, maxServer));
      o[g + 3 * t + 2] = clip(spec.count / p.gpuCount);
    }
    const h = g + 3 * G;
    o[h] = clip(sim.queue.length / this.K);
    o[h + 1] = clip(this.views.length / this.K);
    o[h + 2] = clip(plan.choices.length / this.K);
    o[h + 3] = clip(now / this.ctx.config.time_scale);
  }
}

/** The registration of Gpu-v0 (envs/registry.ts `SYSTEM_ENVS`). */
export const gpuRegistration = {
  id: GPU_ENV_ID,
  description:
    'round-based GPU scheduling of DL jobs (Gavel): at each round, which job runs on which GPU type on one or several servers, then end the round: Discrete(K G 2 + 1)',
  load: loadGpuEnvContext,
  create: (ctx: GpuEnvContext): GymEnv => new GpuEnv(ctx),
};
