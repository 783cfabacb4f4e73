/**
 * `clustergym/Malleable-v0` (DESIGN §10.1): the reconfiguration decision of seed 002's DMR
 * framework given to an agent. The simulator is the one engine's DMR preset (src/malleable/preset.ts:
 * FCFS + EASY underneath, jobs submitted at `max`); the episode stops at two kinds of decision, both
 * about one running malleable job:
 * - its reconfiguration point (a step boundary past the scheduling inhibitor): the agent answers
 *   for that job, applied at once;
 * - a queue point (`queue_points`, on by default; src/malleable/preset.ts): the head of the queue does
 *   not fit in the free nodes but would if running malleable jobs shrank. The DMR runtime only
 *   resizes a job at its own points, so the answer is a shrink *request* carried out at the job's
 *   next point (that point is then not offered; the head, if still queued, gets the highest
 *   priority). Candidates are offered one at a time, the one whose next point comes first, each once
 *   per head, while the pledged nodes do not yet cover the head and the remaining candidates could.
 *
 * Actions: `Discrete(1 + K)`, K = floor(log2(nodes)) + 1 (the most allowed sizes a job can have).
 * `0` is no-action; `i >= 1` resizes the job to the `i`-th of its allowed sizes in ascending order
 * (`pref * factor^k` within `[min, max]`, see `observation.sizes`). The mask allows 0 always and, at
 * a reconfiguration point, a size when it is not the current one and an expansion to it fits in the
 * free nodes; at a queue point, the sizes below the current one. A shrink from
 * at or below `pref` (or of a job without `pref`) is §4.3's: the first queued job it lets start gets
 * the highest priority; a shrink from above `pref` is §4.2's return to the preferred size. With
 * this rule the `dmr` agent reproduces `simulate(workload, dmrPolicy)` decision for decision (it
 * answers 0 at queue points: the DMR plug-in decides at the job's point, policy.ts).
 *
 * Observation: `Box(0, 1, [12 + K])`, all fractions clipped to [0, 1]: the job's size, pref
 * (0 without), min, max (/ nodes), its progress (steps done / steps, mid-step at a queue point),
 * its remaining time at its size (/ 10,000 s; `observe.durations`, below); free nodes (/ nodes), queued jobs (/ 100), running
 * jobs (/ nodes), the head job's size (/ nodes, 0 when the queue is empty), the summed size of the
 * queue (/ 10 nodes), the kind of decision (0 reconfiguration point, 1 queue point); then the K
 * allowed sizes of the job (/ nodes, 0 past its last).
 *
 * What the remaining-time feature shows (`observe.durations`, envs/observes.ts): `requested` (the
 * default) the remaining time the job declares at its current size, its remaining iterations times
 * its application's step time at that size (Table 3's model): a DMR job's application declares its
 * iteration count and the runtime counts the iterations done, as the progress feature shows. The
 * model has no estimation error (a step takes exactly its model time), so this declared figure is
 * also the true one; `none` shows 0 (progress stays).
 *
 * Reward (`reward`): `wait` (default) gives at each step minus the waiting time the queued jobs
 * accumulated during it, divided by the number of jobs and `scale` (1,000 s): the episode's return
 * is minus the mean waiting time in ks; `completion` the same with queued and running jobs (minus
 * the mean completion time). `info.metrics` at the end: mean wait, execution, completion, makespan,
 * allocation, expands, shrinks, no-actions, queue points, shrink requests.
 *
 * Resize costs: `expand_cost`, `shrink_cost` (s; Table 1's 0.423 and 0.425 by default).
 *
 * Episodes: the paper's workload (`jobs` jobs, seeded by the episode seed) or a malleable workload
 * file (`workload`, the same every episode). Not modelled: a shrink between a job's points (the DMR
 * runtime only acts at points, so a queue point can only request one), asynchronous mode.
 */
import { z } from 'zod';
import { InvalidActionFields } from '../invalidAction.js';
import { inputErrorFromIssues } from '../../src/core/errors.js';
import { type MWorkload, stepTime, TABLE1_COST } from '../../src/malleable/model.js';
import type { MRunResult } from '../../src/malleable/model.js';
import { type DmrSim, dmrPreset } from '../../src/malleable/preset.js';
import type { PointContext } from '../../src/scheduling/resizePolicy.js';
import { paperWorkload, readMalleableWorkload } from '../../src/malleable/workload.js';
import type { GymEnv, GymInfo } from '../gym.js';
import { EpisodeEnv, type EpisodeStep } from '../episodeEnv.js';
import { box, type BoxSpace, type DiscreteSpace, discrete } from '../spaces.js';

/** The environment's id. */
export const MALLEABLE_ENV_ID = 'clustergym/Malleable-v0';

/** Configuration of Malleable-v0. */
export const MalleableConfigSchema = z
  .object({
    /** Jobs of the paper's workload per episode (ignored with `workload`). */
    jobs: z.number().int().min(1).max(100_000).default(50),
    /** Mean inter-arrival time of the paper's workload (s). */
    inter_arrival: z.number().finite().positive().default(10),
    /** A malleable workload file instead of the paper's workload. */
    workload: z.string().min(1).optional(),
    /** Reward: minus the waiting (or completion) time accrued during the step, per job, / scale. */
    reward: z.enum(['wait', 'completion']).default('wait'),
    /** Resize costs (s); Table 1's synchronous averages by default. */
    expand_cost: z.number().finite().nonnegative().default(TABLE1_COST.expand),
    shrink_cost: z.number().finite().nonnegative().default(TABLE1_COST.shrink),
    /** Divisor of the reward (s). */
    scale: z.number().finite().positive().default(1000),
    /** Stop at queue points too (a shrink request when the head of the queue waits for nodes). */
    queue_points: z.boolean().default(true),
    /** What the policy observes of durations (the module comment; envs/observes.ts). */
    observe: z
      .object({ durations: z.enum(['none', 'requested']).default('requested') })
      .strict()
      .default({}),
    /** Seed of the episodes started by `reset()` without a seed. */
    seed: z.number().int().default(0),
    /** What `step` does with an action the mask forbids (envs/invalidAction.ts). */
    ...InvalidActionFields,
  })
  .strict();

/** A validated configuration (and the file's workload, read once). */
export interface MalleableContext {
  config: z.output<typeof MalleableConfigSchema>;
  fileWorkload: MWorkload | null;
}

/** Validates a configuration. */
export function loadMalleableContext(config: unknown = {}): MalleableContext {
  const parsed = MalleableConfigSchema.safeParse(config ?? {});
  if (!parsed.success) throw inputErrorFromIssues(`${MALLEABLE_ENV_ID} config`, parsed.error.issues);
  const c = parsed.data;
  return { config: c, fileWorkload: c.workload !== undefined ? readMalleableWorkload(c.workload) : null };
}

const FEATURES = 12;
const clip = (v: number) => (v < 0 ? 0 : v > 1 ? 1 : v);

/** Metrics of a finished episode. */
export interface MalleableMetrics {
  jobs: number;
  mean_wait: number;
  mean_execution: number;
  mean_completion: number;
  makespan: number;
  allocation: number;
  expands: number;
  shrinks: number;
  no_actions: number;
  queue_points: number;
  shrink_requests: number;
}

/** `info` of Malleable-v0. */
export interface MalleableInfo extends GymInfo {
  queue_length: number;
  running: number;
  /** The job of the decision (`''` at the end). */
  job: string;
  /** The kind of decision (`''` at the end). */
  kind: 'point' | 'queue' | '';
  metrics?: MalleableMetrics;
}

/** The Malleable-v0 environment. */
export class MalleableEnv extends EpisodeEnv<Float32Array, MalleableInfo> {
  readonly id = MALLEABLE_ENV_ID;
  readonly observationSpace: BoxSpace;
  readonly actionSpace: DiscreteSpace;
  private readonly k: number;
  private readonly nodes: number;
  private sim: DmrSim | null = null;
  private readonly obs: Float32Array;
  private sizes: readonly number[] = [];
  /** The pending decision's context (`advance` sets it; null at the end). */
  private pending: PointContext | null = null;
  private lastIntegral = 0;

  constructor(private readonly ctx: MalleableContext) {
    const nodes = ctx.fileWorkload?.nodes ?? 64;
    const k = Math.floor(Math.log2(nodes)) + 1;
    super(1 + k, ctx.config.seed, ctx.config);
    this.nodes = nodes;
    this.k = k;
    this.observationSpace = box([FEATURES + k], 0, 1);
    this.actionSpace = discrete(1 + k);
    this.obs = new Float32Array(FEATURES + k);
  }

  protected start(seed: number): { observation: Float32Array; info: MalleableInfo } {
    const c = this.ctx.config;
    const w = this.ctx.fileWorkload ?? paperWorkload({ jobs: c.jobs, seed, interArrival: c.inter_arrival });
    this.sim = dmrPreset(w, { cost: { expand: c.expand_cost, shrink: c.shrink_cost }, queuePoints: c.queue_points });
    this.lastIntegral = 0;
    const { info } = this.advance();
    // what accrued before the first decision goes into the first step's reward, so that the
    // return is exactly minus the mean wait (completion)
    this.lastIntegral = 0;
    return { observation: this.obs, info };
  }

  protected override whyNotAllowed(action: number): string {
    const s = this.sizes[action - 1];
    if (s === undefined) return 'the job has no such size';
    return this.sim?.atQueuePoint
      ? `size ${s} is not below the job's size (a queue point only takes shrink requests)`
      : `size ${s} is the current size or does not fit in the free nodes`;
  }

  protected episodeLength(): number {
    return this.sim?.jobCount ?? 0;
  }

  protected fresh(): MalleableEnv {
    return new MalleableEnv(this.ctx);
  }

  protected override release(): void {
    this.sim = null;
    this.pending = null;
  }

  protected apply(action: number): EpisodeStep<Float32Array, MalleableInfo> {
    const sim = this.sim!;
    const p = this.pending!;
    if (action === 0) sim.decide(p.size);
    else if (p.kind === 'queue') sim.decide(this.sizes[action - 1]!);
    else {
      const size = this.sizes[action - 1]!;
      const wide = p.spec.pref === null || p.size <= p.spec.pref;
      sim.decide(size, wide ? sim.promotionFor(size) : -1);
    }
    const { reward, info, done } = this.advance();
    return { observation: this.obs, reward, terminated: done, truncated: false, info };
  }

  /** What the `dmr` agent needs: the pending point (null at the end) and the allowed sizes, ascending. */
  point(): { context: PointContext; sizes: readonly number[] } | null {
    if (!this.sim || this.ended) return null;
    return { context: this.pending!, sizes: this.sizes };
  }

  /** Runs to the next point; fills the observation and the mask; the reward since the last call. */
  private advance(): { reward: number; info: MalleableInfo; done: boolean } {
    const sim = this.sim!;
    const p = sim.next();
    this.pending = p;
    const c = this.ctx.config;
    const integral = c.reward === 'wait' ? sim.waitIntegral : sim.inSystemIntegral;
    const reward = -(integral - this.lastIntegral) / Math.max(1, sim.jobCount) / c.scale;
    this.lastIntegral = integral;
    const o = this.obs;
    const mask = this.mask;
    const info: MalleableInfo = {
      action_mask: mask,
      time: sim.time,
      steps: this.steps,
      queue_length: sim.queueLength,
      running: sim.runningJobs,
      job: '',
      kind: '',
    };
    if (p === null) {
      o.fill(0);
      mask.fill(0);
      this.sizes = [];
      info.metrics = metricsOf(sim.result());
      return { reward, info, done: true };
    }
    const job = sim.pendingJob!;
    info.job = job.id;
    const queuePoint = p.kind === 'queue';
    info.kind = queuePoint ? 'queue' : 'point';
    const n = this.nodes;
    const sizes = sim.pendingSizes;
    this.sizes = sizes;
    // every feature and mask entry is written (no fill)
    o[0] = clip(p.size / n);
    o[1] = clip((p.spec.pref ?? 0) / n);
    o[2] = clip(p.spec.min / n);
    o[3] = clip(p.spec.max / n);
    const progress = sim.pendingProgress;
    o[4] = clip(progress);
    o[5] = c.observe.durations === 'requested' ? clip(((1 - progress) * job.steps * stepTime(job.app, p.size)) / 10_000) : 0;
    o[11] = queuePoint ? 1 : 0;
    o[6] = clip(p.free / n);
    o[7] = clip(p.queue.length / 100);
    o[8] = clip(sim.runningJobs / n);
    o[9] = clip((p.queue[0] ?? 0) / n);
    o[10] = clip(sim.queuedNodes / (10 * n));
    mask[0] = 1;
    for (let i = 0; i < this.k; i++) {
      if (i < sizes.length) {
        const s = sizes[i]!;
        o[FEATURES + i] = clip(s / n);
        mask[1 + i] = (queuePoint ? s < p.size : s !== p.size && s - p.size <= p.free) ? 1 : 0;
      } else {
        o[FEATURES + i] = 0;
        mask[1 + i] = 0;
      }
    }
    return { reward, info, done: false };
  }
}

function metricsOf(r: MRunResult): MalleableMetrics {
  return {
    jobs: r.jobs.length,
    mean_wait: r.meanWait,
    mean_execution: r.meanExecution,
    mean_completion: r.meanCompletion,
    makespan: r.makespan,
    allocation: r.allocation,
    expands: r.expands,
    shrinks: r.shrinks,
    no_actions: r.noActions,
    queue_points: r.queuePoints,
    shrink_requests: r.shrinkRequests,
  };
}

/** The registration of Malleable-v0 (envs/registry.ts `SYSTEM_ENVS`). */
export const malleableRegistration = {
  id: MALLEABLE_ENV_ID,
  description:
    'at each reconfiguration point of a malleable job (seed 002, DMR), and when the queue head could start if a job shrank, no-action or one allowed size: Discrete(1 + K)',
  load: loadMalleableContext,
  create: (ctx: MalleableContext): GymEnv => new MalleableEnv(ctx),
};
