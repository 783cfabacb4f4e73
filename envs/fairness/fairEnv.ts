/**
 * `clustergym/Fair-v0` (DESIGN §10.3): the placement decision of seed 001's multi-user,
 * multi-resource cluster given to an agent. The simulator is the fairness preset of the one engine
 * (src/fairness/preset.ts: hosts with CPU and memory as hard capacities, users with quotas, the task
 * stream) without a policy; the agent decides, at each decision point, which waiting task starts on
 * which host.
 *
 * **Candidates.** As in §5.2, the queue the agent sees has one entry per user with waiting tasks
 * (that user's next task, FIFO within the user), in DRF order (`ds_u / w_u` ascending): slot 0 is
 * the task DRF would start, slots 0..k-1 the ones Tetris(f) chooses among. Up to `slots`
 * candidates are shown (default 10, the users of Table 5.1).
 *
 * **Actions.** `Discrete(slots * H + 1)` for H hosts: `i * H + h` starts candidate `i` on host `h`;
 * the last action waits for the next event (a task ends or arrives). The mask allows a placement
 * when the task fits the host's free cores and memory, and the wait when an event is to come.
 * Placing does not advance time; when no placement is possible, time advances by itself to the
 * next event where one is (the agent never faces a lone wait it did not choose).
 *
 * **Observation.** `Box(0, 1, [4H + 6 slots + 4])`: per host its free cores and free memory (/ its
 * capacity) and its capacities (/ the largest); per slot a presence flag, the task's cores and
 * memory (/ the largest host's), its observed duration (/ `duration_scale`), its user's dominant
 * share and its user's waiting tasks (/ 100); then the cluster's CPU and memory load, the waiting
 * tasks (/ 1000) and the users with waiting tasks (/ slots). Values are clipped to [0, 1].
 *
 * **What the duration feature shows** (`observe.durations`, envs/observes.ts): `requested` (the
 * default: what a live scheduler is told) the duration the task's user declares for it, which on
 * Table 5.1's workload is the mean duration of that user's tasks in Table 5.1 (the same for every
 * task of a user: the per-task draw is unknown until the task ends), and 0 on a trace (traces carry
 * no request); `actual` the task's true duration (an oracle: what the env showed before the option);
 * `none` 0.
 *
 * **Reward** (`reward`), integrated over the simulated time each step advances, divided by
 * `time_scale`: `utilisation` (default) the mean of CPU and memory load; `fairness` Jain's index of
 * the dominant shares of the users with tasks in the system; `mixed` `(1 - w) util + w jain` with
 * `w = fairness_weight`. The return of `utilisation` is the cluster's load-time in `time_scale`
 * units, so it rewards packing; `fairness` rewards equal shares (1 per second whenever a single user
 * is active).
 *
 * **Episodes.** Table 5.1's workload (`task_scale` times its task counts, durations seeded by the
 * episode's seed) on `fairnessCluster(scale)` or the `hosts` groups; or a task trace file (`trace`,
 * `format`, the same every episode, streamed). `info.metrics` at the end: tasks, makespan,
 * utilisation, mean wait, the time-averaged Jain index and each user's mean dominant share.
 */
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { InvalidActionFields } from '../invalidAction.js';
import { InputError, inputErrorFromIssues } from '../../src/core/errors.js';
import { jainIndex } from '../../src/core/statistics.js';
import { fairnessCluster, TABLE_5_1, table51Workload } from '../../src/fairness/experiment.js';
import { fairPreset, type TraceTask } from '../../src/fairness/preset.js';
import { readTrace, TRACE_FORMATS } from '../../src/fairness/traces/index.js';
import type { Platform } from '../../src/platform/platform.js';
import { HostGroupsSchema, platformFromHostGroups } from '../../src/platform/views.js';
import { drfOrder, type FairTask, type MultiResourcePasses } from '../../src/scheduling/multiResource.js';
import type { GymEnv, GymInfo } from '../gym.js';
import { EpisodeEnv, type EpisodeStep } from '../episodeEnv.js';
import { type BoxSpace, box, type DiscreteSpace, discrete } from '../spaces.js';

/** The environment's id. */
export const FAIR_ENV_ID = 'clustergym/Fair-v0';

/** Configuration of Fair-v0. */
export const FairConfigSchema = z
  .object({
    /** Multiplies Table 5.1's task counts (default 0.05: 425 tasks). */
    task_scale: z.number().positive().max(100).default(0.05),
    /** Cluster scale of `fairnessCluster` (2N + N hosts; default 1: 3 hosts). */
    scale: z.number().int().min(1).max(100).default(1),
    /** Host groups instead of `fairnessCluster(scale)`. */
    hosts: HostGroupsSchema.optional(),
    /** A task trace instead of Table 5.1 (the same every episode). */
    trace: z.string().min(1).optional(),
    format: z.enum(TRACE_FORMATS).default('native-csv'),
    /** User weights (quotas) by name; default 1. */
    weights: z.record(z.number().positive()).default({}),
    /** Candidate slots shown (users in DRF order). */
    slots: z.number().int().min(1).max(64).default(10),
    reward: z.enum(['utilisation', 'fairness', 'mixed']).default('utilisation'),
    fairness_weight: z.number().min(0).max(1).default(0.5),
    /** Divisor of the time integrals of the reward (s). */
    time_scale: z.number().positive().default(1000),
    /** Divisor of task durations in the observation (s). */
    duration_scale: z.number().positive().default(1000),
    /** What the policy observes of durations (the module comment; envs/observes.ts). */
    observe: z
      .object({ durations: z.enum(['none', 'requested', 'actual']).default('requested') })
      .strict()
      .default({}),
    max_steps: z.number().int().positive().default(1_000_000),
    /** Seed of the episodes started by `reset()` without a seed. */
    seed: z.number().int().default(0),
    /** What `step` does with an action the mask forbids (envs/invalidAction.ts). */
    ...InvalidActionFields,
  })
  .strict();

/** A validated configuration. */
export interface FairContext {
  config: z.output<typeof FairConfigSchema>;
}

/** Validates a configuration. */
export function loadFairContext(config: unknown = {}): FairContext {
  const parsed = FairConfigSchema.safeParse(config ?? {});
  if (!parsed.success) throw inputErrorFromIssues(`${FAIR_ENV_ID} config`, parsed.error.issues);
  const c = parsed.data;
  if (c.trace !== undefined && !existsSync(c.trace)) throw new InputError(`$.trace: ${JSON.stringify(c.trace)} not found`, `${FAIR_ENV_ID} config`);
  return { config: c };
}

/** Metrics of a finished episode. */
export interface FairMetrics {
  tasks: number;
  rejected: number;
  makespan: number;
  /** Mean of CPU and memory load over the makespan. */
  utilisation: number;
  mean_wait: number;
  /** Time average of Jain's index over the users with tasks in the system. */
  jain: number;
  /** Each user's dominant share averaged over the makespan. */
  mean_dominant_share: Record<string, number>;
  /**
   * The reward's time average over the makespan: `utilisation`, `jain`, or
   * `(1 - fairness_weight) utilisation + fairness_weight jain` for `mixed`. Unlike the return (the
   * reward's time integral), a policy cannot raise it by stretching the episode.
   */
  objective: number;
}

/** `info` of Fair-v0. */
export interface FairInfo extends GymInfo {
  queue_length: number;
  running: number;
  metrics?: FairMetrics;
}

const GLOBAL = 4;
const SLOT = 6;
const clip = (v: number) => (v < 0 ? 0 : v > 1 ? 1 : v);

/** The Fair-v0 environment. */
export class FairEnv extends EpisodeEnv<Float32Array, FairInfo> {
  readonly id = FAIR_ENV_ID;
  readonly observationSpace: BoxSpace;
  readonly actionSpace: DiscreteSpace;
  private readonly nHosts: number;
  private readonly slots: number;
  private readonly obs: Float32Array;
  private engine: MultiResourcePasses | null = null;
  private cand: number[] = [];
  private utilInt = 0;
  private jainInt = 0;
  private shareInt: number[] = [];
  private maxCap = { cpu: 1, memory: 1 };
  /** Table 5.1's declared duration of each user, by name (empty on a trace). */
  private declared: ReadonlyMap<string, number> = new Map();

  constructor(private readonly ctx: FairContext) {
    const c = ctx.config;
    let hosts = 0;
    for (const g of c.hosts ?? fairnessCluster(c.scale)) hosts += g.count;
    super(c.slots * hosts + 1, c.seed, c);
    this.nHosts = hosts;
    this.slots = c.slots;
    const size = 4 * this.nHosts + SLOT * this.slots + GLOBAL;
    this.observationSpace = box([size], 0, 1);
    this.actionSpace = discrete(this.slots * this.nHosts + 1);
    this.obs = new Float32Array(size);
  }

  /** The preset's passes of the episode (hosts, users, waiting tasks, the engine): what heuristic agents read. */
  get state(): MultiResourcePasses | null {
    return this.engine;
  }

  /** The candidate users in slot order (DRF order, at most `slots`). */
  candidates(): readonly number[] {
    return this.cand;
  }

  /** Candidate `slot`'s task, or undefined. */
  candidateTask(slot: number): FairTask | undefined {
    const u = this.cand[slot];
    return u === undefined ? undefined : this.engine?.waiting.headOf(u);
  }

  /** Number of hosts. */
  get hostCount(): number {
    return this.nHosts;
  }

  /** The wait action's index. */
  get waitAction(): number {
    return this.slots * this.nHosts;
  }

  protected start(seed: number): { observation: Float32Array; info: FairInfo } {
    const c = this.ctx.config;
    const tasks: Iterable<TraceTask> = c.trace !== undefined ? inSubmitOrder(c.trace, readTrace(c.trace, c.format)) : table51Workload(seed, c.task_scale);
    this.engine = fairPreset(platformOf(this.ctx), tasks, null, { weights: c.weights });
    this.maxCap = this.engine.hosts.maxCapacity();
    this.declared = c.trace !== undefined ? new Map() : new Map(TABLE_5_1.map((u) => [u.user, u.durationMean]));
    this.utilInt = 0;
    this.jainInt = 0;
    this.shareInt = [];
    // the time before the first decision earns no reward
    const { info } = this.advance(false);
    return { observation: this.obs, info };
  }

  protected apply(action: number): EpisodeStep<Float32Array, FairInfo> {
    const waited = action === this.waitAction;
    if (!waited) {
      const task = this.candidateTask(Math.floor(action / this.nHosts))!;
      this.engine!.start({ task, host: action % this.nHosts });
    }
    const { reward, info, done } = this.advance(waited);
    const truncated = !done && this.steps >= this.ctx.config.max_steps;
    if (truncated) this.finish(info);
    return { observation: this.obs, reward, terminated: done, truncated, info };
  }

  protected override whyNotAllowed(action: number): string {
    return action === this.waitAction
      ? 'no event is to come: some task must start'
      : `candidate ${Math.floor(action / this.nHosts)} is absent or does not fit host ${action % this.nHosts}`;
  }

  protected episodeLength(): number {
    return this.engine?.stats.submitted ?? 0;
  }

  protected fresh(): FairEnv {
    return new FairEnv(this.ctx);
  }

  protected override release(): void {
    this.engine = null;
  }

  /** A task's duration as the policy observes it (`observe.durations`). */
  observedDuration(t: FairTask): number {
    const d = this.ctx.config.observe.durations;
    if (d === 'actual') return t.duration;
    return d === 'requested' ? (this.declared.get(this.engine!.users.names[t.user]!) ?? 0) : 0;
  }

  /** Rates of the reward signals in the current state. */
  private rates(): { util: number; jain: number } {
    const e = this.engine!;
    const util = (e.hosts.usedCpu / e.hosts.totalCpu + e.hosts.usedMem / e.hosts.totalMem) / 2;
    const shares: number[] = [];
    for (let u = 0; u < e.users.count; u++) if (e.users.running[u]! > 0 || e.waiting.waitingOf(u) > 0) shares.push(e.users.dominantShare(u));
    return { util, jain: shares.length > 0 ? jainIndex(shares) : 1 };
  }

  /** Advances the engine one event time, integrating the reward signals over the gap. */
  private advanceTime(): boolean {
    const e = this.engine!;
    const t = e.sim.nextEventTime();
    if (t === Infinity) return false;
    const dt = t - e.now;
    if (dt > 0) {
      const r = this.rates();
      this.utilInt += r.util * dt;
      this.jainInt += r.jain * dt;
      for (let u = 0; u < e.users.count; u++) this.shareInt[u] = (this.shareInt[u] ?? 0) + e.users.dominantShare(u) * dt;
    }
    e.sim.advanceUntil(t);
    return true;
  }

  /** Runs to the next decision point (after a wait: at least one event); fills observation and mask. */
  private advance(waited: boolean): { reward: number; info: FairInfo; done: boolean } {
    const e = this.engine!;
    const c = this.ctx.config;
    const u0 = this.utilInt;
    const j0 = this.jainInt;
    if (waited) this.advanceTime();
    for (;;) {
      this.fill();
      let any = false;
      for (let i = 0; i < this.waitAction; i++) if (this.mask[i] === 1) any = true;
      if (any) break;
      if (!this.advanceTime()) break;
    }
    const du = (this.utilInt - u0) / c.time_scale;
    const dj = (this.jainInt - j0) / c.time_scale;
    const reward = c.reward === 'utilisation' ? du : c.reward === 'fairness' ? dj : (1 - c.fairness_weight) * du + c.fairness_weight * dj;
    const info: FairInfo = { action_mask: this.mask, time: e.now, steps: this.steps, queue_length: e.waiting.size, running: e.running };
    if (e.done) this.finish(info);
    return { reward, info, done: e.done };
  }

  private finish(info: FairInfo): void {
    const e = this.engine!;
    const span = e.now;
    const shares: Record<string, number> = {};
    e.users.names.forEach((n, u) => {
      shares[n] = span > 0 ? (this.shareInt[u] ?? 0) / span : 0;
    });
    const utilisation = span > 0 ? this.utilInt / span : 0;
    const jain = span > 0 ? this.jainInt / span : 1;
    const c = this.ctx.config;
    const w = c.reward === 'utilisation' ? 0 : c.reward === 'fairness' ? 1 : c.fairness_weight;
    info.metrics = {
      tasks: e.stats.finished,
      rejected: e.stats.rejected,
      makespan: span,
      utilisation,
      mean_wait: e.stats.started > 0 ? e.stats.totalWait / e.stats.started : 0,
      jain,
      mean_dominant_share: shares,
      objective: (1 - w) * utilisation + w * jain,
    };
  }

  /** The observation and the mask of the current state. */
  private fill(): void {
    const e = this.engine!;
    const H = this.nHosts;
    const o = this.obs;
    o.fill(0);
    this.mask.fill(0);
    const h = e.hosts;
    for (let i = 0; i < H; i++) {
      o[4 * i] = clip(h.freeCpu[i]! / h.cpuCap[i]!);
      o[4 * i + 1] = clip(h.freeMem[i]! / h.memCap[i]!);
      o[4 * i + 2] = clip(h.cpuCap[i]! / this.maxCap.cpu);
      o[4 * i + 3] = clip(h.memCap[i]! / this.maxCap.memory);
    }
    const active = e.waiting.activeUsers();
    this.cand = drfOrder(e.users, active, this.slots);
    const base = 4 * H;
    const c = this.ctx.config;
    for (let s = 0; s < this.cand.length; s++) {
      const u = this.cand[s]!;
      const t = e.waiting.headOf(u)!;
      const k = base + SLOT * s;
      o[k] = 1;
      o[k + 1] = clip(t.cpu / this.maxCap.cpu);
      o[k + 2] = clip(t.memory / this.maxCap.memory);
      o[k + 3] = clip(this.observedDuration(t) / c.duration_scale);
      o[k + 4] = clip(e.users.dominantShare(u));
      o[k + 5] = clip(e.waiting.waitingOf(u) / 100);
      for (let j = 0; j < H; j++) if (h.fits(j, t.cpu, t.memory)) this.mask[s * H + j] = 1;
    }
    const g = base + SLOT * this.slots;
    o[g] = clip(h.usedCpu / h.totalCpu);
    o[g + 1] = clip(h.usedMem / h.totalMem);
    o[g + 2] = clip(e.waiting.size / 1000);
    o[g + 3] = clip(active.length / this.slots);
    if (e.sim.nextEventTime() < Infinity) this.mask[this.waitAction] = 1;
  }
}

/** The platform of a context's hosts, compiled once for every episode of its envs and their clones (a platform is never modified). */
const PLATFORMS = new WeakMap<FairContext, Platform>();
function platformOf(ctx: FairContext): Platform {
  let p = PLATFORMS.get(ctx);
  if (p === undefined) {
    p = platformFromHostGroups(ctx.config.hosts ?? fairnessCluster(ctx.config.scale));
    PLATFORMS.set(ctx, p);
  }
  return p;
}

/**
 * The trace's tasks, refused with the file's name and the task's position when one is submitted
 * before its predecessor (the engine needs submission order and does not know the file).
 */
function* inSubmitOrder(file: string, tasks: Iterable<TraceTask>): Generator<TraceTask> {
  let last = Number.NEGATIVE_INFINITY;
  let i = 0;
  for (const t of tasks) {
    i++;
    if (t.submit < last) {
      throw new InputError(
        `task ${i} is submitted at ${t.submit}, before the previous task (${last}); the trace must be sorted by submission time (clustergym convert --tasks FORMAT --sort)`,
        file,
      );
    }
    last = t.submit;
    yield t;
  }
}

/** The registration of Fair-v0 (envs/registry.ts `SYSTEM_ENVS`; an `EnvRegistration`, typed structurally to avoid an import cycle). */
export const fairRegistration = {
  id: FAIR_ENV_ID,
  description:
    "multi-user fairness (seed 001): start a user's next task (users in DRF order) on a host with room for its cores and memory, or wait: Discrete(slots*H + 1)",
  load: loadFairContext,
  create: (ctx: FairContext): GymEnv => new FairEnv(ctx),
};
