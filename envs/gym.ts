/**
 * The Gym contract (DESIGN §5, Gymnasium semantics): what every registered clustergym environment
 * keeps, whatever the system it simulates. The checker (envs/checker.ts), the vector envs, the bridge
 * and the agents rely on nothing else. The cluster environments' own richer types (their observation,
 * `info` and reset options) are in envs/env.ts; the other systems' envs (fairness, malleable, time
 * sharing, Slurm) implement `GymEnv` directly.
 *
 * Buffers: an observation's arrays, the mask and `info.action_mask` are the environment's own and are
 * overwritten by the next `reset`/`step`: copy them (`.slice()`) to keep them.
 *
 * Seeds: `reset({ seed })` starts the episode with that seed and reseeds the stream of later unseeded
 * resets; `reset()` without a seed takes the next seed of that stream. The same seed and the same
 * actions give the same episode, bit for bit.
 */
import type { InvalidActionMode } from './invalidAction.js';
import type { DiscreteSpace, Space } from './spaces.js';

/** Summary of a finished (terminated or truncated) episode. */
export interface EpisodeInfo {
  /** Sum of the episode's rewards. */
  return: number;
  /** Steps taken. */
  steps: number;
  /** Simulated time at the end (s). */
  time: number;
  /** Seed of the episode. */
  seed: number;
  /** Index of the trajectory's first job (-1 for generated episodes). */
  origin: number;
  /** Jobs in the trajectory. */
  length: number;
}

/** An observation of any clustergym environment: one box, or a dict of named boxes (row-major). */
export type GymObservation = Float32Array | { readonly [name: string]: Float32Array };

/** The `info` every environment returns; environments add their own keys. */
export interface GymInfo {
  /** The action mask of the new state (the env's buffer; all zeros once the episode is over). */
  action_mask: Uint8Array;
  /** Simulated time (s). */
  time: number;
  /** Steps taken in this episode. */
  steps: number;
  /** At episode end (terminated or truncated): the environment's episode metrics. */
  metrics?: object;
  /** At episode end: return, length, seed. */
  episode?: EpisodeInfo;
  /** Set (true) on a step whose action the mask forbade (envs/invalidAction.ts). */
  invalid_action?: boolean;
  /** With `invalid_action`, when the forbidden action was replaced: the action taken instead. */
  action_taken?: number;
}

/**
 * The contract every registered environment keeps (the checker, the bridge and the vector envs
 * rely on nothing else), whatever the system it simulates:
 *
 * - `reset({ seed?, options? })` starts an episode and returns `{ observation, info }` at the first
 *   decision point. The same seed (and the same actions) give the same episode, bit for bit; a
 *   reset without a seed takes the next seed of the env's own stream. Unknown `options` keys are an
 *   `InputError`.
 * - `step(action)` takes any action of `actionSpace`: an action allowed by the mask returns `{ observation,
 *   reward, terminated, truncated, info }` at the next decision point or at the end; a forbidden one
 *   follows the env's `invalid_action` rule (envs/invalidAction.ts: by default a no-op with
 *   `info.invalid_action`, or `InvalidActionError` changing nothing with `invalid_action: "raise"`).
 *   A value outside the action space throws `InvalidActionError`; a step after the end throws
 *   `EpisodeOverError`. At the end `info.metrics` and `info.episode` are set and the mask is all zeros.
 * - `invalidAction` is the env's mode (`noop` or `raise`; absent means `raise`): vector envs and the
 *   bridge check a batch's actions against the masks before any env moves only in `raise` mode.
 * - `actionMask()` is the mask of the current state (1 = allowed; the env's buffer); some action is
 *   allowed at every decision point.
 * - Observations lie in `observationSpace`; the arrays are the env's buffers, overwritten by the
 *   next `reset`/`step`.
 * - `clone()` is an independent env in the same state; `close()` releases it (idempotent).
 */
export interface GymEnv {
  readonly id: string;
  readonly observationSpace: Space;
  readonly actionSpace: DiscreteSpace;
  readonly invalidAction?: InvalidActionMode;
  reset(args?: { seed?: number | undefined; options?: Record<string, unknown> | undefined }): { observation: GymObservation; info: GymInfo };
  /** Throws what `reset(args)` would throw for bad arguments (seed, options), changing nothing (optional). */
  checkReset?(args?: { seed?: number | undefined; options?: Record<string, unknown> | undefined }): void;
  step(action: number): { observation: GymObservation; reward: number; terminated: boolean; truncated: boolean; info: GymInfo };
  actionMask(): Uint8Array;
  clone(): GymEnv;
  close(): void;
}
