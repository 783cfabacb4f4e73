/**
 * Vector environments: `n` environments of one configuration stepped with one call, observations,
 * masks and rewards batched in row-major typed arrays (row `i` is env `i`).
 *
 * ```ts
 * const venv = makeVec(8, 'clustergym/Job-v0', { k: 64 })
 * let { observations } = venv.reset({ seed: 1 })        // env i gets seed 1 + i
 * const masks = venv.actionMasks()                      // Uint8Array, 8 x A
 * const r = venv.step(actions)                          // Int32Array or number[] of 8 actions
 * ```
 *
 * Auto-reset (same step, as Stable-Baselines3's VecEnv and Gymnasium's `SAME_STEP` mode): when env
 * `i` terminates or truncates, `step` resets it at once and row `i` of `observations` and of the
 * masks is the FIRST state of its new episode; `rewards[i]`, `terminated[i]` and `truncated[i]` belong
 * to the step that ended the old one, and `infos[i]` carries `final_observation` (a copy of the last
 * observation of the old episode) and `final_info` (its `info`, with `metrics` and `episode`). The new
 * episode takes the next seed of env i's own stream (see `Env.reset`). So `step` can be called
 * forever without `reset` after the first.
 *
 * The batch arrays are owned by the vector env and overwritten by the next call: copy to keep.
 *
 * `SyncVecEnv` steps its environments in this thread; `makeVecWorkers` (workerVec.ts) spreads them
 * over worker threads with the same interface, and its workers run a `SyncVecEnv` over shared memory.
 */
import type { EnvId } from './config.js';
import type { EnvContext } from './context.js';
import type { ClusterEnv, EnvInfo, ResetOptions } from './env.js';
import { InvalidActionError } from './errors.js';
import { observationSizes, type Observation } from './observation.js';
import { DEFAULT_POLICY_PAIRS } from './policies.js';
import { makeContext, makeFromContext } from './registry.js';
import type { DiscreteSpace, Space } from './spaces.js';

/** Batched observations: per key for `dict`, one array for `flat` and `minimal` (n x size). */
export type BatchObservation = Float32Array | Record<string, Float32Array>;

/** Per-env info of a vector step. */
export interface VecInfo {
  /** Simulated time of env i's current state. */
  time: number;
  /** Steps taken in env i's current episode. */
  steps: number;
  /** When env i's episode ended in this step: its last observation (a copy) and its final info. */
  final_observation?: Observation;
  final_info?: EnvInfo;
}

/** What a vector `reset` returns. */
export interface VecResetResult {
  observations: BatchObservation;
  infos: VecInfo[];
}

/** What a vector `step` returns. */
export interface VecStepResult {
  observations: BatchObservation;
  rewards: Float64Array;
  terminated: Uint8Array;
  truncated: Uint8Array;
  infos: VecInfo[];
}

/** Arguments of a vector `reset`. */
export interface VecResetArgs {
  /** One seed (env i gets `seed + i`) or one per env (`undefined`: that env's next stream seed). */
  seed?: number | readonly (number | undefined)[] | undefined;
  options?: ResetOptions | undefined;
}

/** A vector environment. */
export interface VecEnv {
  readonly id: EnvId;
  readonly numEnvs: number;
  /** Spaces of one environment. */
  readonly singleObservationSpace: Space;
  readonly singleActionSpace: DiscreteSpace;
  /** Resets every env; returns the batched first observations. */
  reset(args?: VecResetArgs): VecResetResult;
  /** Steps env i with `actions[i]` for every i (auto-reset, see the module comment). */
  step(actions: ArrayLike<number>): VecStepResult;
  /** The masks of the current states, n x A (row i: env i). */
  actionMasks(): Uint8Array;
  /** Closes every env (idempotent). */
  close(): void;
}

/** The batch arrays of `n` envs (shared memory views in worker threads). */
export interface VecBuffers {
  obs: Record<string, Float32Array>;
  masks: Uint8Array;
  rewards: Float64Array;
  terminated: Uint8Array;
  truncated: Uint8Array;
  times: Float64Array;
  steps: Int32Array;
}

/** Allocates batch arrays for `n` envs of `context` (on `alloc`'s memory). */
export function allocVecBuffers(context: EnvContext, n: number, alloc: (bytes: number) => ArrayBufferLike = (b) => new ArrayBuffer(b)): VecBuffers {
  const c = context.config;
  const sizes = observationSizes(c.observation, c.k, context.platform.nodeCount);
  const obs: Record<string, Float32Array> = {};
  for (const [key, size] of Object.entries(sizes)) obs[key] = new Float32Array(alloc(4 * n * size), 0, n * size);
  const A = actionCount(context);
  return {
    obs,
    masks: new Uint8Array(alloc(n * A), 0, n * A),
    rewards: new Float64Array(alloc(8 * n), 0, n),
    terminated: new Uint8Array(alloc(n), 0, n),
    truncated: new Uint8Array(alloc(n), 0, n),
    times: new Float64Array(alloc(8 * n), 0, n),
    steps: new Int32Array(alloc(4 * n), 0, n),
  };
}

/** Number of actions of an env of `context`. */
export function actionCount(context: EnvContext): number {
  const c = context.config;
  switch (context.id) {
    case 'clustergym/JobNode-v0':
      return c.k * context.platform.nodeCount + 1;
    case 'clustergym/Job-v0':
      return c.k + 1;
    case 'clustergym/PolicyPair-v0':
      return (c.actions ?? DEFAULT_POLICY_PAIRS).length;
  }
}

/** The rows `[from, to)` of batch arrays (views, no copy). */
export function sliceVecBuffers(b: VecBuffers, from: number, to: number): VecBuffers {
  const rows = <T extends Float32Array | Float64Array | Uint8Array | Int32Array>(a: T, n: number): T =>
    a.subarray((a.length / n) * from, (a.length / n) * to) as T;
  const n = b.rewards.length;
  const obs: Record<string, Float32Array> = {};
  for (const [k, v] of Object.entries(b.obs)) obs[k] = rows(v, n);
  return {
    obs,
    masks: rows(b.masks, n),
    rewards: b.rewards.subarray(from, to),
    terminated: b.terminated.subarray(from, to),
    truncated: b.truncated.subarray(from, to),
    times: b.times.subarray(from, to),
    steps: b.steps.subarray(from, to),
  };
}

/** The batched observation view of batch arrays (`dict`: per key; else the one array). */
export function batchObservation(b: VecBuffers): BatchObservation {
  return 'obs' in b.obs ? b.obs['obs']! : b.obs;
}

/** Copies an observation (to keep it past the next step). */
export function copyObservation(o: Observation): Observation {
  if (o instanceof Float32Array) return o.slice();
  return { jobs: o.jobs.slice(), nodes: o.nodes.slice(), global: o.global.slice() };
}

/**
 * Checks every action of a vector step before anything moves, so an invalid action leaves every env
 * unchanged: each must be in the action space and, when `strict` (the envs' `invalid_action: "raise"`),
 * allowed by its env's mask (in `noop` mode the env itself makes a forbidden action a no-op).
 * Throws `InvalidActionError` naming the env.
 */
export function checkActions(actions: ArrayLike<number>, masks: Uint8Array, n: number, nActions: number, id: string, strict = true): void {
  if (actions.length !== n) throw new RangeError(`${id} vector step: ${actions.length} actions for ${n} envs`);
  for (let i = 0; i < n; i++) {
    const a = actions[i]!;
    const row = masks.subarray(i * nActions, (i + 1) * nActions);
    if (typeof a !== 'number' || !Number.isInteger(a)) throw new InvalidActionError(a, row, `expected an integer in [0, ${nActions})`, `env ${i}`);
    if (a < 0 || a >= nActions) throw new InvalidActionError(a, row, `outside the action space Discrete(${nActions})`, `env ${i}`);
    if (strict && row[a] !== 1) throw new InvalidActionError(a, row, 'the action mask forbids it now', `env ${i}`);
  }
}

/** Vector env stepping its environments in this thread. */
export class SyncVecEnv implements VecEnv {
  readonly id: EnvId;
  readonly numEnvs: number;
  readonly singleObservationSpace: Space;
  readonly singleActionSpace: DiscreteSpace;
  /** The environments (env i is row i). */
  readonly envs: readonly ClusterEnv[];
  readonly buffers: VecBuffers;
  private readonly infos: VecInfo[];
  private readonly nActions: number;
  private closed = false;

  /** `envs` must share one configuration; `buffers` default to fresh arrays. */
  constructor(envs: ClusterEnv[], buffers?: VecBuffers) {
    if (envs.length === 0) throw new RangeError('a vector env needs at least one environment');
    const first = envs[0]!;
    this.id = first.id;
    this.envs = envs;
    this.numEnvs = envs.length;
    this.singleObservationSpace = first.observationSpace;
    this.singleActionSpace = first.actionSpace;
    this.nActions = first.actionSpace.n;
    this.buffers = buffers ?? allocVecBuffers(first.context, envs.length);
    this.infos = envs.map(() => ({ time: 0, steps: 0 }));
  }

  reset(args: VecResetArgs = {}): VecResetResult {
    this.checkOpen();
    const seeds = args.seed;
    if (Array.isArray(seeds) && seeds.length !== this.numEnvs) throw new RangeError(`reset: ${seeds.length} seeds for ${this.numEnvs} envs`);
    for (let i = 0; i < this.numEnvs; i++) {
      const seed = seeds === undefined ? undefined : typeof seeds === 'number' ? seeds + i : (seeds as readonly (number | undefined)[])[i];
      const r = this.envs[i]!.reset({ seed, options: args.options });
      this.write(i, r.observation, r.info);
      const info: VecInfo = { time: r.info.time, steps: r.info.steps };
      this.infos[i] = info;
    }
    this.buffers.rewards.fill(0);
    this.buffers.terminated.fill(0);
    this.buffers.truncated.fill(0);
    return { observations: batchObservation(this.buffers), infos: this.infos.slice() };
  }

  step(actions: ArrayLike<number>): VecStepResult {
    this.checkOpen();
    checkActions(actions, this.buffers.masks, this.numEnvs, this.nActions, this.id, this.envs[0]!.invalidAction === 'raise');
    const b = this.buffers;
    const infos: VecInfo[] = new Array(this.numEnvs);
    for (let i = 0; i < this.numEnvs; i++) {
      const env = this.envs[i]!;
      const r = env.step(actions[i]!);
      b.rewards[i] = r.reward;
      b.terminated[i] = r.terminated ? 1 : 0;
      b.truncated[i] = r.truncated ? 1 : 0;
      if (r.terminated || r.truncated) {
        const final_observation = copyObservation(r.observation);
        const final_info: EnvInfo = { ...r.info, action_mask: r.info.action_mask.slice() };
        const n = env.reset();
        this.write(i, n.observation, n.info);
        infos[i] = { time: n.info.time, steps: n.info.steps, final_observation, final_info };
      } else {
        this.write(i, r.observation, r.info);
        infos[i] = { time: r.info.time, steps: r.info.steps };
      }
    }
    return { observations: batchObservation(b), rewards: b.rewards, terminated: b.terminated, truncated: b.truncated, infos };
  }

  actionMasks(): Uint8Array {
    this.checkOpen();
    return this.buffers.masks;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const e of this.envs) e.close();
  }

  private checkOpen(): void {
    if (this.closed) throw new Error(`${this.id} vector env: closed`);
  }

  /** Copies env i's observation and mask into row i. */
  private write(i: number, o: Observation, info: EnvInfo): void {
    const b = this.buffers;
    if (o instanceof Float32Array) b.obs['obs']!.set(o, i * o.length);
    else {
      b.obs['jobs']!.set(o.jobs, i * o.jobs.length);
      b.obs['nodes']!.set(o.nodes, i * o.nodes.length);
      b.obs['global']!.set(o.global, i * o.global.length);
    }
    b.masks.set(info.action_mask, i * this.nActions);
    b.times[i] = info.time;
    b.steps[i] = info.steps;
  }
}

/** An env id with its configuration, as one value. */
export interface EnvSpec {
  id: string;
  config?: unknown;
}

/** `(id, config)` from `makeVec`'s two call forms. */
export function envSpec(idOrSpec: string | EnvSpec, config?: unknown): { id: string; config: unknown } {
  return typeof idOrSpec === 'string' ? { id: idOrSpec, config: config ?? {} } : { id: idOrSpec.id, config: idOrSpec.config ?? {} };
}

/**
 * `n` environments stepped in this thread: `makeVec(n, id, config)` or `makeVec(n, { id, config })`.
 * The platform and workload are loaded once and shared.
 */
export function makeVec(n: number, idOrSpec: string | EnvSpec, config?: unknown): SyncVecEnv {
  if (!(Number.isInteger(n) && n >= 1)) throw new RangeError(`makeVec: n must be an integer >= 1, got ${n}`);
  const spec = envSpec(idOrSpec, config);
  const ctx = makeContext(spec.id, spec.config);
  return new SyncVecEnv(Array.from({ length: n }, () => makeFromContext(ctx)));
}
