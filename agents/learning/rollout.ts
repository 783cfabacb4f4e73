/**
 * PPO's experience (train.ts, steps 1 and 2): the rollout storage, the running state of the training
 * envs between updates, the collection of `num_steps` steps of every env with the sampling policy
 * (reward normalisation, bootstrapping of truncated episodes), and the advantages by GAE.
 *
 * Sample `t * N + i` of the rollout is env `i` at step `t` (N = `num_envs`).
 */
import type { Rng } from '../../src/core/rng.js';
import { derive } from '../../src/core/rng.js';
import type { SyncVecEnv, VecStepResult } from '../../envs/vector.js';
import type { PpoConfig } from './config.js';
import { appendBatch, FeatureBatch, POOLED_SIZE, pooledOf, type RowLayout } from './features.js';
import type { HeuristicBaseline } from './baseline.js';
import type { PolicyNetwork } from './network.js';

/** Running mean and variance (parallel Welford), as CleanRL's RunningMeanStd. */
export class RunningMeanStd {
  mean = 0;
  var = 1;
  count = 1e-4;
  update(xs: ArrayLike<number>): void {
    const n = xs.length;
    if (n === 0) return;
    let m = 0;
    for (let i = 0; i < n; i++) m += xs[i]!;
    m /= n;
    let v = 0;
    for (let i = 0; i < n; i++) v += (xs[i]! - m) ** 2;
    v /= n;
    const delta = m - this.mean;
    const total = this.count + n;
    this.mean += (delta * n) / total;
    this.var = (this.var * this.count + v * n + (delta * delta * this.count * n) / total) / total;
    this.count = total;
  }
}

/** The storage of one rollout of `steps` steps of `envs` envs (sample `t * envs + i`), reused from update to update. */
export class RolloutBuffer {
  readonly size: number;
  /** Each sample's state: its candidate rows and pooled features. */
  readonly states: FeatureBatch;
  /** The candidate position chosen, its log-probability and the state's value, under the sampling policy. */
  readonly positions: Int32Array;
  readonly logps: Float32Array;
  readonly values: Float32Array;
  /** The (normalised) reward, plus `gamma V(final observation)` when the episode was truncated there. */
  readonly rewards: Float32Array;
  /** Whether the sample's state starts a new episode (the previous step ended one). */
  readonly dones: Uint8Array;
  /** GAE advantages and the value targets (returns) `A + V`. */
  readonly advantages: Float32Array;
  readonly targets: Float32Array;

  constructor(
    rowSize: number,
    readonly envs: number,
    readonly steps: number,
  ) {
    const n = envs * steps;
    this.size = n;
    this.states = new FeatureBatch(rowSize, n, n * 8);
    this.positions = new Int32Array(n);
    this.logps = new Float32Array(n);
    this.values = new Float32Array(n);
    this.rewards = new Float32Array(n);
    this.dones = new Uint8Array(n);
    this.advantages = new Float32Array(n);
    this.targets = new Float32Array(n);
  }
}

/** The training envs between steps: the vector env, its current observations and what carries over from update to update. */
export interface EnvState {
  venv: SyncVecEnv;
  layout: RowLayout;
  /** The observations the next step acts on. */
  obs: Record<string, Float32Array>;
  /** Per env, whether the last step ended its episode. */
  nextDone: Uint8Array;
  /** Per env, the discounted return of its episode so far (reward normalisation). */
  returns: Float64Array;
  rewardRms: RunningMeanStd;
  /** Scratch batch of one state per env. */
  stepBatch: FeatureBatch;
  /** The heuristic of `baseline.relative_reward`, whose score on an episode's trajectory turns its terminal reward relative. */
  baseline: HeuristicBaseline | null;
}

/** An episode that ended during a rollout: its return, and the mean bounded slowdown and wait of its jobs. */
export interface FinishedEpisode {
  ret: number;
  bsld: number;
  wait: number;
  /** The baseline heuristic's mean bsld on the same trajectory (NaN without a baseline). */
  baselineBsld: number;
}

/**
 * Starts (or, after a checkpoint at `steps`, resumes) the training episodes: resets the vector env
 * with a seed drawn from `derive(seed, 'episodes/<steps>')`, below 2^31; the reward normaliser and the
 * per-env returns carry over from the checkpoint.
 */
export function startEpisodes(
  venv: SyncVecEnv,
  layout: RowLayout,
  c: PpoConfig,
  steps: number,
  rewardRms: RunningMeanStd,
  returns: Float64Array,
  baseline: HeuristicBaseline | null = null,
): EnvState {
  const N = c.num_envs;
  const stepBatch = new FeatureBatch(layout.rowSize, N, N * 16);
  const obs = venv.reset({ seed: derive(c.seed, `episodes/${steps}`).int(2 ** 31 - 1024) }).observations as Record<string, Float32Array>;
  return { venv, layout, obs, nextDone: new Uint8Array(N), returns, rewardRms, stepBatch, baseline };
}

/**
 * Step 1: fills `ro` with `num_steps` steps of every env under the sampling policy (actions drawn
 * from `actRng`); returns the episodes that ended.
 */
export function collectRollout(ro: RolloutBuffer, env: EnvState, network: PolicyNetwork, actRng: Rng, c: PpoConfig): FinishedEpisode[] {
  const N = ro.envs;
  ro.states.clear();
  const finished: FinishedEpisode[] = [];
  for (let t = 0; t < ro.steps; t++) {
    env.stepBatch.clear();
    appendBatch(env.stepBatch, env.layout, env.obs, env.venv.actionMasks(), N);
    const choice = network.act(env.stepBatch, actRng);
    for (let i = 0; i < N; i++) {
      const k = t * N + i;
      ro.states.appendFrom(env.stepBatch, i);
      ro.positions[k] = choice.positions[i]!;
      ro.logps[k] = choice.logps[i]!;
      ro.values[k] = choice.values[i]!;
      ro.dones[k] = env.nextDone[i]!;
    }
    const r = env.venv.step(choice.actions);
    env.obs = r.observations as Record<string, Float32Array>;
    const truncatedEnvs = recordRewards(ro, t, r, env, finished, c);
    if (truncatedEnvs.length > 0) bootstrapTruncated(ro, t, r, truncatedEnvs, env.layout, network, c);
  }
  return finished;
}

/**
 * Stores the rewards of step `t`, divided by the running std of the discounted return
 * (`normalize_reward`), and the episode ends: an ended episode's return restarts and its
 * statistics go to `finished`. With a relative baseline, a terminated episode's reward (its
 * terminal `-bsld`: the env's reward is `bsld`) becomes `(b - bsld) / b`. Returns the envs whose
 * episode was truncated (not terminated).
 */
function recordRewards(ro: RolloutBuffer, t: number, r: VecStepResult, env: EnvState, finished: FinishedEpisode[], c: PpoConfig): number[] {
  const N = ro.envs;
  const { returns, rewardRms, baseline } = env;
  if (baseline && c.baseline?.relative_reward)
    for (let i = 0; i < N; i++) {
      if (r.terminated[i] !== 1) continue;
      const info = r.infos[i]!.final_info!;
      r.rewards[i] = baseline.relativeReward(info.episode!.origin, info.metrics!.mean_bsld);
    }
  for (let i = 0; i < N; i++) returns[i] = returns[i]! * c.gamma + r.rewards[i]!;
  if (c.normalize_reward) rewardRms.update(returns);
  const scale = c.normalize_reward ? 1 / Math.sqrt(rewardRms.var + 1e-8) : 1;
  const truncatedEnvs: number[] = [];
  for (let i = 0; i < N; i++) {
    const k = t * N + i;
    ro.rewards[k] = r.rewards[i]! * scale;
    const ended = r.terminated[i] === 1 || r.truncated[i] === 1;
    env.nextDone[i] = ended ? 1 : 0;
    if (!ended) continue;
    returns[i] = 0;
    const info = r.infos[i]!.final_info!;
    finished.push({
      ret: info.episode!.return,
      bsld: info.metrics!.mean_bsld,
      wait: info.metrics!.mean_wait,
      baselineBsld: baseline ? baseline.bsld(info.episode!.origin) : NaN,
    });
    if (r.terminated[i] !== 1) truncatedEnvs.push(i);
  }
  return truncatedEnvs;
}

/** Truncated (not terminated) episodes at step `t`: adds `gamma V(final observation)` to their reward. */
function bootstrapTruncated(
  ro: RolloutBuffer,
  t: number,
  r: VecStepResult,
  truncatedEnvs: number[],
  layout: RowLayout,
  network: PolicyNetwork,
  c: PpoConfig,
): void {
  const pooled = new Float32Array(truncatedEnvs.length * POOLED_SIZE);
  truncatedEnvs.forEach((i, j) => {
    const fo = r.infos[i]!.final_observation as { jobs: Float32Array; nodes: Float32Array; global: Float32Array };
    pooled.set(pooledOf(fo, layout), j * POOLED_SIZE);
  });
  const v = network.values(pooled, truncatedEnvs.length);
  for (let j = 0; j < truncatedEnvs.length; j++) ro.rewards[t * ro.envs + truncatedEnvs[j]!]! += c.gamma * v[j]!;
}

/** The values of the envs' current observations (the states after the rollout). */
export function currentValues(env: EnvState, network: PolicyNetwork): Float32Array {
  const N = env.nextDone.length;
  env.stepBatch.clear();
  appendBatch(env.stepBatch, env.layout, env.obs, env.venv.actionMasks(), N);
  return network.values(env.stepBatch.pooled.subarray(0, N * POOLED_SIZE), N);
}

/**
 * Step 2: the advantages by GAE(gamma, lambda) and the value targets `A + V`, bootstrapped at the
 * end of the rollout from `nextValues` unless the last step ended the episode (`nextDone`).
 */
export function computeGae(ro: RolloutBuffer, nextValues: Float32Array, nextDone: Uint8Array, c: PpoConfig): void {
  const N = ro.envs;
  const T = ro.steps;
  const { rewards, values, dones, advantages, targets } = ro;
  const lastGae = new Float64Array(N);
  for (let t = T - 1; t >= 0; t--) {
    for (let i = 0; i < N; i++) {
      const k = t * N + i;
      const nonTerminal = t === T - 1 ? 1 - nextDone[i]! : 1 - dones[k + N]!;
      const nextValue = t === T - 1 ? nextValues[i]! : values[k + N]!;
      const delta = rewards[k]! + c.gamma * nextValue * nonTerminal - values[k]!;
      lastGae[i] = delta + c.gamma * c.gae_lambda * nonTerminal * lastGae[i]!;
      advantages[k] = lastGae[i]!;
      targets[k] = advantages[k]! + values[k]!;
    }
  }
}
