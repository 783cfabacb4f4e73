/**
 * The environment API (DESIGN §5, Gymnasium semantics) and the machinery the three action modes
 * share: episodes, decision points, automatic time advance, rewards, truncation, observations,
 * masks, cloning.
 *
 * Decision points. After `reset` and after every `step`, the environment stops at a state where the
 * agent has a real choice: some job in the visible window can start (for Job-v0 with `unfit:
 * reserve`: some job waits; for PolicyPair-v0: some waiting job fits). Placing a job does not
 * advance time, so several decisions happen at one timestamp. `wait` advances to the next event
 * (a job ends or arrives). When a state offers nothing but `wait`, time advances by itself until it
 * does (the agent is never asked to choose among one option). Time 0 is the first job's submission.
 *
 * Episode end. `terminated` when every job of the trajectory has left the system; `truncated` when
 * the step count reaches `max_steps` or simulated time reaches `max_sim_time` (whichever first);
 * either way `info.metrics` carries the §2.5 summary (over the jobs finished so far when truncated)
 * and `info.episode` the return and length, and `step` refuses to go on until `reset`.
 *
 * Buffers. The observation's arrays, the mask and `info.action_mask` are owned by the environment
 * and overwritten by the next `reset`/`step`: copy them (`.slice()`) to keep them.
 *
 * Seeds. `reset({ seed })` starts the episode with that seed and reseeds the stream of later
 * unseeded resets; `reset()` without a seed takes the next seed of that stream (starting from the
 * config's `seed`). The same seed and the same actions give the same episode, bit for bit.
 *
 * The Gym contract itself (`GymEnv`) is envs/gym.ts. Over 600 lines: this is one state machine (decision
 * points, time advance, truncation, the live mode of slurm-agent) that the three action modes share;
 * split, one invariant would be spread over files.
 */
import { derive } from '../src/core/rng.js';
import { ClusterSimulator, type RunningJob } from '../src/execution/simulator.js';
import { attachEngineConfig, multifactorOptionsOf, simulatorOptionsOf } from '../src/scheduling/engineConfig.js';
import { MetricsCollector, type Summary } from '../src/metrics/summary.js';
import type { JobSelection } from '../src/scheduling/jobSelection.js';
import type { NodeFit, ResourcePolicy } from '../src/scheduling/placement.js';
import type { Job } from '../src/workload/job.js';
import { z } from 'zod';
import { inputErrorFromIssues } from '../src/core/errors.js';
import type { EnvId, ResolvedEnvConfig } from './config.js';
import { EnvContext, type EpisodeJobs } from './context.js';
import { EpisodeOverError, InvalidActionError } from './errors.js';
import { fitsNowFast } from './fit.js';
import { InvalidActionRule, type InvalidActionMode } from './invalidAction.js';
import { ObservationBuilder, observationSpace, observedDuration, type EpisodeScale, type Limits, type Observation } from './observation.js';
import { isArrivalOrder, jobSelection, resourcePolicy } from './policies.js';
import { DEFAULT_FUTURE_SAMPLE, type FutureSample, rolloutFuture, type RolloutFuture } from './knownFuture.js';
import { RewardFunction } from './rewards.js';
import { EpisodeTracker } from './tracking.js';
import type { DiscreteSpace, Space } from './spaces.js';
import type { EpisodeInfo, GymEnv } from './gym.js';

/** Options of `reset`. */
export interface ResetOptions {
  /** Index of the trajectory's first job in the workload (workload-based configs). */
  origin?: number;
}

const ResetOptionsSchema = z.object({ origin: z.number().int().nonnegative().optional() }).strict();

/** Arguments of `reset`. */
export interface ResetArgs {
  /** Seed of the episode (an integer). */
  seed?: number | undefined;
  options?: ResetOptions | undefined;
}

/** The `info` of `reset` and `step`. */
export interface EnvInfo {
  /** The action mask of the new state (the env's buffer; all zeros once the episode is over). */
  action_mask: Uint8Array;
  /** Simulated time (s since the trajectory's first submission). */
  time: number;
  /** Steps taken in this episode. */
  steps: number;
  /** Jobs waiting, running. */
  queue_length: number;
  running: number;
  /** At episode end (terminated or truncated): the §2.5 metrics. */
  metrics?: Summary;
  /** At episode end: return, length, seed. */
  episode?: EpisodeInfo;
  /** Set (true) on a step whose action the mask forbade (envs/invalidAction.ts). */
  invalid_action?: boolean;
  /** With `invalid_action`, when the forbidden action was replaced: the action taken instead. */
  action_taken?: number;
}

/** What `reset` returns. */
export interface ResetResult {
  observation: Observation;
  info: EnvInfo;
}

/** What `step` returns. */
export interface StepResult {
  observation: Observation;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: EnvInfo;
}

/**
 * A clustergym environment (Gymnasium semantics).
 *
 * - `reset({ seed?, options? })` starts an episode and returns `{ observation, info }`: the first
 *   decision point (time advances from the first submission until some action other than `wait`
 *   is possible). `options` may be `{}`; `{ origin }` picks the trajectory.
 * - `step(action)` applies an action and returns `{ observation, reward, terminated, truncated,
 *   info }` at the next decision point (or at the end). A forbidden action follows the config's
 *   `invalid_action` rule (a no-op by default, see envs/invalidAction.ts); after the end `step`
 *   throws `EpisodeOverError`.
 * - `actionMask()` returns the mask of the current state (`Uint8Array`, 1 = valid; the env's buffer).
 * - `observationSpace` / `actionSpace` are JSON-serialisable descriptors.
 * - `clone()` returns an independent environment in the same state (same episode, same step).
 *   The cluster envs' `clone({ future: 'known' })` reaches the same state on the episode's known
 *   future instead (envs/knownFuture.ts: the jobs submitted so far, each still in the system running
 *   its requested time): a what-if rollout under information parity.
 * - `close()` releases the episode; calling it again does nothing.
 */
export interface Env extends GymEnv {
  readonly id: EnvId;
  readonly config: ResolvedEnvConfig;
  readonly observationSpace: Space;
  readonly actionSpace: DiscreteSpace;
  reset(args?: ResetArgs): ResetResult;
  step(action: number): StepResult;
  actionMask(): Uint8Array;
  clone(): Env;
  close(): void;
}

/** A seed of the stream of unseeded resets. */
function streamSeed(base: number, counter: number): number {
  return counter === 0 ? base : derive(base, `episode/${counter}`).int(2 ** 31);
}

/**
 * Live mode: what the live cluster accepts beyond the mirror's free cores (`attachLive`; clustergym
 * slurm-agent's `SlurmPlacement`): the env's resource policy constrained to placements the cluster runs
 * exactly as decided, and the check of a placement the env assembles itself (JobNode-v0: its first node,
 * then the rest).
 */
export interface LivePlacement {
  constrain(policy: ResourcePolicy): ResourcePolicy;
  accepts(job: Job, cores: ArrayLike<number>): boolean;
}

/** Base class of the three modes. Subclasses define the action space, the mask and the actions. */
export abstract class ClusterEnv implements Env {
  readonly id: EnvId;
  readonly config: ResolvedEnvConfig;
  readonly observationSpace: Space;
  abstract readonly actionSpace: DiscreteSpace;
  /** Queue window K. */
  readonly k: number;
  /** Nodes of the platform. */
  readonly nodeCount: number;

  protected readonly obs: ObservationBuilder;
  protected readonly reward: RewardFunction;
  /** The mask buffer (size of the action space). */
  protected mask!: Uint8Array;
  /** Per visible slot: the job can start now. */
  protected readonly canStart: Uint8Array;
  /** The visible window: jobs `window[0 .. windowCount)`. */
  protected window: readonly Job[] = [];
  protected windowCount = 0;
  /** Listener state: flowtime, pending work, dirty nodes, the arrival-order window. */
  private readonly tracker: EpisodeTracker;
  /** What a forbidden action does (the config's `invalid_action*` fields). */
  private readonly invalid: InvalidActionRule;
  readonly invalidAction: InvalidActionMode;

  protected simulator: ClusterSimulator | null = null;
  protected metrics: MetricsCollector | null = null;
  protected queueOrder!: JobSelection;
  protected resources!: ResourcePolicy;
  protected readonly fit: NodeFit;

  // episode state
  private done = false;
  private over = true;
  private closed = false;
  private steps = 0;
  private episodeReturn = 0;
  private episodeSeed = 0;
  private episodeOrigin = 0;
  private episodeLength = 0;
  private resetOptions: ResetOptions | undefined;
  /** The episode's jobs, as given to its simulator (`clone({ future: 'known' })` cuts them). */
  private episodeJobList: readonly Job[] = [];
  private readonly actions: number[] = [];
  private seedBase: number;
  private seedCounter = 0;
  private horizon = 0;
  /** Live mode (`attachLive`): the simulator mirrors a real cluster. */
  private live = false;
  /** Live mode: the live cluster's own placement rules, or null (`attachLive`). */
  protected livePlacement: LivePlacement | null = null;

  constructor(readonly context: EnvContext) {
    this.id = context.id;
    this.config = context.config;
    this.k = context.config.k;
    this.nodeCount = context.platform.nodeCount;
    this.fit = context.config.node_fit;
    this.observationSpace = observationSpace(context.config.observation, this.k, this.nodeCount, context.config.topology);
    this.obs = new ObservationBuilder(
      context.config.observation,
      this.k,
      context.platform,
      context.limits,
      context.config.max_wait,
      context.config.queue_sensitivity,
      context.config.topology,
      observedDuration(context.config.observe.durations),
    );
    this.reward = new RewardFunction(context.config.reward);
    this.canStart = new Uint8Array(this.k);
    this.tracker = new EpisodeTracker(this.nodeCount, this.k, isArrivalOrder(context.config.queue_order), observedDuration(context.config.observe.durations));
    this.seedBase = context.config.seed;
    this.invalid = new InvalidActionRule(context.config);
    this.invalidAction = this.invalid.mode;
  }

  /** A fresh environment of the same class on the same context (for `clone`). */
  protected abstract fresh(): ClusterEnv;
  /**
   * Fills `this.mask` and `this.canStart` for the current window; returns whether the state is a
   * decision point (an action other than `wait` is valid).
   */
  protected abstract computeMask(): boolean;
  /** Applies a valid action; returns true when time must then advance to the next event. */
  protected abstract apply(action: number): boolean;

  /** The simulator of the current episode (read-only use: agents and tests inspect it). */
  get sim(): ClusterSimulator {
    if (!this.simulator) throw new Error(`${this.id}: call reset() first`);
    return this.simulator;
  }

  /** The jobs of the visible window, in slot order (the env's array: do not keep or mutate). */
  visibleJobs(): readonly Job[] {
    return this.windowCount === this.window.length ? this.window : this.window.slice(0, this.windowCount);
  }

  /** Number of jobs in the visible window. */
  get visibleCount(): number {
    return this.windowCount;
  }

  /** The job in visible slot `j`, or undefined. */
  visibleJob(j: number): Job | undefined {
    return j < this.windowCount ? this.window[j] : undefined;
  }

  /** The current state's observation (the env's buffers, as the last `reset`/`step` returned them): what an agent that acts on `env` alone reads. */
  get observation(): Observation {
    return this.obs.value;
  }

  /** The normalisation limits in use. */
  get limits(): Limits {
    return this.context.limits;
  }

  /** Whether the episode is over (terminated or truncated) or not started. */
  get episodeOver(): boolean {
    return this.over;
  }

  /** The job-selection policy ordering the queue (the window is its first K jobs). */
  get queueSelection(): JobSelection {
    return this.queueOrder;
  }

  /** The resource policy that places jobs. */
  get resourceSelection(): ResourcePolicy {
    return this.resources;
  }

  // ------------------------------------------------------------------ Env API

  /** Throws what `reset(args)` would throw for a bad seed or bad options (an unknown key, an origin out of range), changing nothing. */
  checkReset(args: ResetArgs = {}): void {
    if (this.closed) throw new Error(`${this.id}: the environment is closed`);
    if (args.seed !== undefined && !(Number.isInteger(args.seed) && Math.abs(args.seed) <= Number.MAX_SAFE_INTEGER))
      throw inputErrorFromIssues(`${this.id} reset`, [{ path: ['seed'], message: `expected an integer, got ${String(args.seed)}` }]);
    if (args.options !== undefined) {
      const r = ResetOptionsSchema.safeParse(args.options ?? {});
      if (!r.success) throw inputErrorFromIssues(`${this.id} reset options`, r.error.issues);
      if (r.data.origin !== undefined) this.context.checkOrigin(r.data.origin);
    }
  }

  reset(args: ResetArgs = {}): ResetResult {
    this.checkReset(args);
    if (args.seed !== undefined) {
      this.seedBase = args.seed;
      this.seedCounter = 0;
    }
    const seed = streamSeed(this.seedBase, this.seedCounter++);
    this.startEpisode(seed, args.options);
    return { observation: this.observe(), info: this.info() };
  }

  step(action: number): StepResult {
    if (this.closed) throw new Error(`${this.id}: the environment is closed`);
    if (!this.simulator) throw new Error(`${this.id}: call reset() before step()`);
    if (this.over) throw new EpisodeOverError(this.id);
    const verdict = this.invalid.judge(action, this.mask, (a) => this.whyInvalid(a));
    this.actions.push(action);
    if (verdict === 'noop') {
      // nothing moves: the observation buffers and the mask are the current state's
      const reward = this.invalid.reward;
      this.episodeReturn += reward;
      const info = this.info();
      info.invalid_action = true;
      return { observation: this.obs.value, reward, terminated: false, truncated: false, info };
    }
    const taken = verdict === 'apply' ? action : this.invalid.substitute;
    const sim = this.simulator;
    const t0 = sim.now;
    const e0 = sim.energy;
    const f0 = this.tracker.flow;
    const advance = this.apply(taken);
    if (!this.done) {
      if (advance) this.advanceToDecision();
      else if (!this.refresh()) this.advanceToDecision();
    }
    this.steps++;
    let reward = this.reward.dense({ flowtime: this.tracker.flow - f0, energy: sim.energy - e0, dt: sim.now - t0 });
    if (verdict === 'substitute') reward += this.invalid.reward;
    const terminated = this.done;
    const c = this.config;
    const truncated = !terminated && ((c.max_steps !== undefined && this.steps >= c.max_steps) || (c.max_sim_time !== undefined && sim.now >= c.max_sim_time));
    let summary: Summary | undefined;
    if (terminated || truncated) {
      summary = this.metrics!.summary(sim);
      if (terminated) reward += this.reward.terminal(summary);
      this.over = true;
      this.mask.fill(0);
      this.windowCount = 0;
    }
    this.episodeReturn += reward;
    const observation = this.observe();
    const info = this.info();
    if (verdict === 'substitute') {
      info.invalid_action = true;
      info.action_taken = taken;
    }
    if (summary) {
      info.metrics = summary;
      info.episode = {
        return: this.episodeReturn,
        steps: this.steps,
        time: sim.now,
        seed: this.episodeSeed,
        origin: this.episodeOrigin,
        length: this.episodeLength,
      };
    }
    return { observation, reward, terminated, truncated, info };
  }

  actionMask(): Uint8Array {
    if (!this.simulator) throw new Error(`${this.id}: call reset() first`);
    return this.mask;
  }

  /**
   * An independent environment in the same state; with `future: 'known'`, on the episode's known
   * future (envs/knownFuture.ts; its metrics are then those of the known jobs; the other
   * `RolloutFuture`s hold one half of it, or with `'sampled'` the known jobs and the arrivals of
   * sampled future `sample`).
   */
  clone(options: { future?: RolloutFuture; sample?: FutureSample } = {}): Env {
    if (this.closed) throw new Error(`${this.id}: cannot clone a closed environment`);
    const c = this.fresh();
    if (this.simulator) {
      const known = options.future !== undefined && options.future !== 'episode' && !this.over;
      const plan = known
        ? rolloutFuture(this.episodeJobList, this.simulator, this.referenceMops(), options.future!, this.episodeSeed, options.sample ?? DEFAULT_FUTURE_SAMPLE)
        : null;
      const jobs: EpisodeJobs | undefined = plan ? { jobs: plan.jobs, origin: this.episodeOrigin } : undefined;
      c.startEpisode(this.episodeSeed, this.resetOptions, jobs);
      for (const a of this.actions) c.step(a);
      if (this.over && !c.over) c.forceOver();
      if (plan) {
        this.checkSameState(c);
        plan.scaleRunning(c.sim);
      }
      // the clone's observation buffers hold the current state (a no-op step returns them as they are)
      c.observe();
    }
    c.seedBase = this.seedBase;
    c.seedCounter = this.seedCounter;
    return c;
  }

  /** The speed (MOPS) at which an `ops` job's requested time is meant: the generator's, else the platform's mean core. */
  private referenceMops(): number {
    const g = this.context.generator?.mops;
    if (g !== undefined) return g;
    const m = this.context.platform.coreMops;
    let sum = 0;
    for (let i = 0; i < m.length; i++) sum += m[i]!;
    return sum / m.length;
  }

  /** A known-future clone reached this env's state (time, running jobs with their cores and tasks left, waiting jobs): else the replay diverged. */
  private checkSameState(c: ClusterEnv): void {
    const state = (e: ClusterEnv): string => {
      const running: string[] = [];
      for (const rj of e.sim.running()) running.push(`${rj.job.id}@${rj.cores.join('.')}/${rj.tasksLeft}`);
      return `${e.sim.now}|${running.sort().join(',')}|${e.sim.waiting.map((j) => j.id).join(',')}|${e.over}`;
    };
    const mine = state(this);
    const its = state(c);
    if (mine !== its) throw new Error(`${this.id}: the known-future clone diverged from the episode at t=${this.sim.now}: ${its} instead of ${mine}`);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.over = true;
    this.simulator = null;
    this.metrics = null;
    this.window = [];
    this.windowCount = 0;
  }

  // ------------------------------------------------------------------ live mode

  /**
   * Live mode (`clustergym slurm-agent`): the env observes `sim`, a live mirror of a real cluster
   * that the caller feeds (built with no jobs; see `ClusterSimulator.liveAdvance`), instead of an
   * episode it simulates. The window, the mask, the observation and the actions are computed by the
   * same code as in `step`, but time never advances here: `liveDecision` says whether the current
   * state is a decision point and writes its observation; `liveApply` starts the job an action
   * picks. Call `attachLive` before the first job reaches `sim` (the env's listeners must see every
   * submission).
   */
  attachLive(sim: ClusterSimulator, placement: LivePlacement | null = null): void {
    if (this.closed) throw new Error(`${this.id}: the environment is closed`);
    this.tracker.reset();
    sim.addListener(this.tracker);
    this.simulator = sim;
    this.live = true;
    this.metrics = null;
    const policyRng = derive(this.config.seed, 'policy');
    this.queueOrder = jobSelection(this.config.queue_order, policyRng, this.config.engine ? multifactorOptionsOf(this.config.engine) : undefined);
    this.queueOrder.attach?.(sim);
    this.livePlacement = placement;
    const own = resourcePolicy(this.config.resource_policy, policyRng);
    this.resources = placement ? placement.constrain(own) : own;
    this.obs.reset();
    this.actions.length = 0;
    this.steps = 0;
    this.done = false;
    this.over = false;
    this.mask.fill(0);
    this.windowCount = 0;
    this.onEpisodeStart(sim, this.config.seed);
  }

  /**
   * Live mode: recomputes the window and the mask of the mirror's current state and writes the
   * observation (the env's buffers, as `step` returns them). `scale`: the global features' episode
   * quantities (for a live cluster: the jobs seen so far, and the time horizon). `decision` is
   * whether the state is one where the env would ask its agent (an action other than `wait` is valid).
   */
  liveDecision(scale: EpisodeScale): { observation: Observation; decision: boolean } {
    if (!this.simulator) throw new Error(`${this.id}: call attachLive() first`);
    this.horizon = scale.horizon;
    this.episodeLength = scale.length;
    const decision = this.refresh();
    return { observation: this.observe(), decision };
  }

  /**
   * Live mode: applies `action` (valid under the mask of the last `liveDecision`) without advancing
   * time. Returns null for `wait`; else the job the action picks and the running job it became, or
   * `running: null` when the job is reserved instead (Job-v0 with `unfit: "reserve"`: it does not fit
   * yet; start it with `liveStartReserved` once it fits, without asking the agent, as `step` does).
   */
  liveApply(action: number): { job: Job; running: RunningJob | null } | null {
    const mask = this.mask;
    if (!Number.isInteger(action) || action < 0 || action >= mask.length || mask[action] !== 1)
      throw new InvalidActionError(
        action,
        mask,
        Number.isInteger(action) && action >= 0 && action < mask.length ? this.whyInvalid(action) : `outside the action space Discrete(${mask.length})`,
      );
    const job = this.actionJob(action);
    if (!job) return null;
    this.actions.push(action);
    this.steps++;
    if (this.liveReserves(job)) return { job, running: null };
    this.apply(action);
    return { job, running: this.runningOf(job) };
  }

  /** Live mode: starts a reserved job when the resource policy can place it now; its running job, or null. */
  liveStartReserved(job: Job): RunningJob | null {
    const sim = this.sim;
    const cores = this.resources.place(sim, job, this.fit);
    if (!cores) return null;
    sim.startJob(job, cores, { transfer: true });
    return this.runningOf(job);
  }

  private runningOf(job: Job): RunningJob | null {
    for (const rj of this.sim.running()) if (rj.job === job) return rj;
    return null;
  }

  /** The job an action (other than `wait`) starts, or null for `wait` (Job-v0 and JobNode-v0; the others have no live mode). */
  protected actionJob(_action: number): Job | null {
    throw new Error(`${this.id}: live mode drives Job-v0 and JobNode-v0 only`);
  }

  /** Live mode: whether picking `job` reserves it instead of starting it now (Job-v0 with `unfit: "reserve"`). */
  protected liveReserves(_job: Job): boolean {
    return false;
  }

  // ------------------------------------------------------------------ internals

  /** Starts the episode of `seed` (`given`: its jobs instead of the context's, for `clone({ future: 'known' })`). */
  private startEpisode(seed: number, options: ResetOptions | undefined, given?: EpisodeJobs): void {
    const ctx = this.context;
    const c = this.config;
    const { jobs, origin } = given ?? ctx.episodeJobs(seed, options?.origin);
    this.episodeJobList = jobs;
    this.live = false;
    this.livePlacement = null;
    const sim = new ClusterSimulator(ctx.platform, jobs, {
      models: c.models,
      enforceMemory: c.enforce_memory,
      walltimeKill: c.walltime_kill,
      idlePower: c.idle_power,
      unfit: 'reject',
      workloadName: ctx.workload?.name ?? 'generated workload',
      ...(c.engine ? simulatorOptionsOf(c.engine) : {}),
    });
    if (c.engine) attachEngineConfig(sim, c.engine);
    const metrics = new MetricsCollector();
    sim.addListener(metrics);
    this.tracker.reset();
    sim.addListener(this.tracker);
    this.simulator = sim;
    this.metrics = metrics;
    const policyRng = derive(seed, 'policy');
    this.queueOrder = jobSelection(c.queue_order, policyRng, c.engine ? multifactorOptionsOf(c.engine) : undefined);
    this.queueOrder.attach?.(sim);
    this.resources = resourcePolicy(c.resource_policy, policyRng);
    this.episodeSeed = seed;
    this.episodeOrigin = origin;
    this.episodeLength = jobs.length;
    this.resetOptions = options;
    this.actions.length = 0;
    this.invalid.streak = 0;
    this.steps = 0;
    this.episodeReturn = 0;
    this.done = false;
    this.over = false;
    this.horizon = c.max_sim_time ?? EnvContext.span(jobs) + ctx.limits.req_time;
    this.obs.reset();
    this.onEpisodeStart(sim, seed);
    this.advanceToDecision();
    if (this.done) {
      // nothing to decide at all (every job rejected): the episode is over at once
      this.over = true;
      this.mask.fill(0);
      this.windowCount = 0;
    }
  }

  /** Hook for subclasses: a new episode's simulator exists (policies may be built here). */
  protected onEpisodeStart(_sim: ClusterSimulator, _seed: number): void {}

  private forceOver(): void {
    this.over = true;
    this.mask.fill(0);
    this.windowCount = 0;
  }

  /** Recomputes the window and the mask; returns whether the state is a decision point. */
  protected refresh(): boolean {
    this.refreshWindow();
    return this.computeMask();
  }

  /** Advances the simulation to the next decision point (at least one event), or to the end. */
  protected advanceToDecision(): void {
    const sim = this.simulator!;
    for (;;) {
      if (!sim.advance()) {
        this.done = true;
        this.windowCount = 0;
        this.mask.fill(0);
        return;
      }
      if (this.refresh()) return;
      this.onSkippedPoint();
    }
  }

  /**
   * Hook: the simulation stopped at a point where nothing can start, which the env skips (the agent
   * is not asked). PolicyPair-v0 consults its last pair there, as the batch loop would.
   */
  protected onSkippedPoint(): void {}

  /** Marks the simulation finished (subclasses that run the simulator themselves). */
  protected markDone(): void {
    this.done = true;
  }

  /** Recomputes the visible window: the first K waiting jobs in the queue order. */
  protected refreshWindow(): void {
    const sim = this.simulator!;
    const q = sim.queue;
    if (this.tracker.trackWindow) {
      // arrival order: the tracker keeps the first K jobs up to date
      this.window = this.tracker.window;
      this.windowCount = this.tracker.count;
    } else {
      this.window = q.length <= 1 ? sim.waiting : this.queueOrder.order(sim.waiting, sim.now, sim.timeOrigin);
      this.windowCount = Math.min(this.k, this.window.length);
    }
  }

  /**
   * Whether `wait` is possible: something runs or is still to arrive (else waiting would never end).
   * In live mode a job may arrive at any time, so `wait` is always possible.
   */
  protected canWait(): boolean {
    const sim = this.simulator!;
    return this.live || sim.runningCount > 0 || sim.nextEventTime() < Infinity;
  }

  /** Whether some waiting job (visible or not) can start now. */
  protected anyWaitingFits(): boolean {
    const sim = this.simulator!;
    if (sim.freeCores === 0) return false;
    const q = sim.queue;
    for (let i = q.start, end = q.end; i < end; i++) {
      const job = q.at(i);
      if (job && this.fitsNow(job)) return true;
    }
    return false;
  }

  /** Whether `job` can start now under the env's resource policy. */
  protected fitsNow(job: Job): boolean {
    const sim = this.simulator!;
    // a job of a partition: the fast checks count every node; the placement knows its nodes; the live
    // cluster's rules are the constrained resource policy's: no counting shortcut
    const f = !this.livePlacement && sim.allocation.partitionMask(job) === null ? fitsNowFast(sim, job) : null;
    return f ?? this.resources.place(sim, job, this.fit) !== null;
  }

  /** Why a masked-out action is invalid (for the error message). */
  protected whyInvalid(_action: number): string {
    return 'the action mask forbids it now';
  }

  /** Writes the observation of the current state. */
  private observe(): Observation {
    const sim = this.simulator!;
    const obs = this.obs;
    if (obs.kind === 'minimal') {
      obs.writeMinimal(this.over ? [] : sim.waiting);
    } else {
      obs.writeJobs(sim.now, this.window, this.windowCount, this.canStart);
      const d = this.tracker.nodesToRefresh();
      obs.writeNodes(sim, d.all, d.list, d.count);
      obs.writeGlobal(sim, this.scale(), this.tracker.pendingWork);
      obs.writeTopology(sim);
    }
    this.tracker.clearDirty();
    return obs.value;
  }

  /**
   * The global features' episode quantities: under `observe.horizon: "seen"` (and in live mode,
   * where the caller passes them) the jobs submitted so far, else the trajectory's.
   */
  private scale(): EpisodeScale {
    const c = this.config;
    if (this.live || c.observe.horizon === 'trajectory') return { horizon: this.horizon, length: this.episodeLength };
    const t = this.tracker;
    return { horizon: c.max_sim_time ?? t.lastSubmit + this.context.limits.req_time, length: t.submitted };
  }

  private info(): EnvInfo {
    const sim = this.simulator!;
    return { action_mask: this.mask, time: sim.now, steps: this.steps, queue_length: sim.queue.length, running: sim.runningCount };
  }
}
