/**
 * `EpisodeEnv`: the episode bookkeeping every seed system's environment shares (malleable jobs,
 * time sharing, fairness, Slurm), so that each of them only says what is its own: how an episode
 * starts, what an action does, what it observes.
 *
 * What it owns, once for all of them (the `GymEnv` contract of env.ts):
 * - Seeds. `reset({ seed })` starts the episode with that seed and makes `seed + 1` the next seed of
 *   the env's stream; `reset()` without a seed takes the next seed of the stream, which starts at the
 *   config's seed. The same seed and the same actions give the same episode, bit for bit.
 * - Reset options: none unless the env declares them (`resetOptionKeys`); an unknown key is an
 *   `InputError` naming it.
 * - Checks of `step`: after `close` an error; before `reset` or after the end `EpisodeOverError`; an
 *   action outside `[0, n)` `InvalidActionError`, the env unchanged; an action the mask forbids
 *   follows the config's `invalid_action` rule (envs/invalidAction.ts: a no-op with
 *   `info.invalid_action` by default; `InvalidActionError` with the env's reason in `raise` mode).
 * - The end: once `terminated` or `truncated`, the mask is all zeros and `step` refuses to go on.
 * - The return (sum of rewards), the step count, and `info.episode` at the end (return, steps, time,
 *   seed, `episodeLength()`); the env adds its own `info.metrics`.
 * - `clone()`: a new env on the same context, replaying the episode's seed and actions (episodes are
 *   deterministic, so the clone is in the same state), with the same seed stream.
 */
import { InputError } from '../src/core/errors.js';
import type { EpisodeInfo, GymEnv, GymInfo, GymObservation } from './gym.js';
import { EpisodeOverError } from './errors.js';
import { InvalidActionRule, type InvalidActionMode, type InvalidActionSettings } from './invalidAction.js';
import type { DiscreteSpace, Space } from './spaces.js';

/** What `start` and `apply` return to the base class. */
export interface EpisodeStep<O extends GymObservation, I extends GymInfo> {
  observation: O;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: I;
}

/** The episode bookkeeping of a seed system's environment (see the module comment). */
export abstract class EpisodeEnv<O extends GymObservation, I extends GymInfo> implements GymEnv {
  abstract readonly id: string;
  abstract readonly observationSpace: Space;
  abstract readonly actionSpace: DiscreteSpace;
  /** The action mask buffer (1 = allowed): subclasses fill it; the base class zeroes it at the end. */
  protected readonly mask: Uint8Array;
  /** The seed of the current episode. */
  protected seed = 0;
  /** Steps taken in this episode. */
  protected steps = 0;
  /** Sum of this episode's rewards. */
  protected ret = 0;
  /** The episode is over (terminated or truncated). */
  protected ended = false;
  private nextSeed: number;
  private started = false;
  private closed = false;
  private actions: number[] = [];
  /** What a forbidden action does. */
  private readonly invalidRule: InvalidActionRule;
  readonly invalidAction: InvalidActionMode;
  /** The last observation and info returned (what a no-op step returns again). */
  private lastObservation: O | null = null;
  private lastInfo: I | null = null;

  /**
   * `actions`: the size of the action space; `baseSeed`: the first seed of the stream (the config's);
   * `invalid`: the config's `invalid_action*` fields.
   */
  constructor(actions: number, baseSeed: number, invalid: Partial<InvalidActionSettings> = {}) {
    this.mask = new Uint8Array(actions);
    this.nextSeed = baseSeed;
    this.invalidRule = new InvalidActionRule(invalid);
    this.invalidAction = this.invalidRule.mode;
  }

  /** The reset options this env takes (none by default). */
  protected resetOptionKeys(): readonly string[] {
    return [];
  }

  /** Starts an episode with `seed`: builds the engine, advances to the first decision, fills the mask. */
  protected abstract start(seed: number, options: Record<string, unknown>): { observation: O; info: I };

  /**
   * Applies an allowed action and advances to the next decision or the end (reward of the step).
   * At the end the subclass sets `info.metrics`; the base class then sets `ended`, zeroes the mask
   * and adds `info.episode`.
   */
  protected abstract apply(action: number): EpisodeStep<O, I>;

  /** A new env on the same context (for `clone`). */
  protected abstract fresh(): EpisodeEnv<O, I>;

  /** Why `action` (in range, masked out) is not allowed now. */
  protected whyNotAllowed(_action: number): string {
    return 'not allowed in this state';
  }

  /** Releases the episode's engine (on `close`). */
  protected release(): void {}

  /** The jobs (or tasks) of the current episode, for `info.episode.length`. */
  protected abstract episodeLength(): number;

  /** Throws what `reset(args)` would throw for a bad seed or an unknown option, changing nothing. */
  checkReset(args: { seed?: number | undefined; options?: Record<string, unknown> | undefined } = {}): void {
    this.checkOpen();
    const options = args.options ?? {};
    const allowed = this.resetOptionKeys();
    const extra = Object.keys(options).find((k) => !allowed.includes(k));
    if (extra !== undefined)
      throw new InputError(
        `${this.id} reset options: $.${extra}: unknown option; ${allowed.length === 0 ? `${this.id} takes none` : `expected one of ${allowed.join(', ')}`}`,
      );
    if (args.seed !== undefined && !Number.isSafeInteger(args.seed))
      throw new InputError(`${this.id} reset: seed: expected an integer, got ${String(args.seed)}`);
  }

  reset(args: { seed?: number | undefined; options?: Record<string, unknown> | undefined } = {}): { observation: O; info: I } {
    this.checkReset(args);
    const options = args.options ?? {};
    if (args.seed !== undefined) {
      this.seed = args.seed;
      this.nextSeed = args.seed + 1;
    } else this.seed = this.nextSeed++;
    this.steps = 0;
    this.ret = 0;
    this.ended = false;
    this.actions = [];
    this.invalidRule.streak = 0;
    this.started = true;
    const r = this.start(this.seed, options);
    this.lastObservation = r.observation;
    this.lastInfo = r.info;
    return r;
  }

  step(action: number): EpisodeStep<O, I> {
    this.checkOpen();
    if (!this.started || this.ended) throw new EpisodeOverError(this.id);
    const verdict = this.invalidRule.judge(action, this.mask, (a) => this.whyNotAllowed(a), this.id);
    this.actions.push(action);
    if (verdict === 'noop') {
      // nothing moves: the last observation (the env's buffer, unchanged) and info again
      const reward = this.invalidRule.reward;
      this.ret += reward;
      const info = { ...this.lastInfo!, invalid_action: true };
      delete info.action_taken;
      return { observation: this.lastObservation!, reward, terminated: false, truncated: false, info };
    }
    const taken = verdict === 'apply' ? action : this.invalidRule.substitute;
    this.steps++;
    const r = this.apply(taken);
    if (verdict === 'substitute') {
      r.reward += this.invalidRule.reward;
      r.info.invalid_action = true;
      r.info.action_taken = taken;
    }
    this.lastObservation = r.observation;
    this.lastInfo = r.info;
    this.ret += r.reward;
    if (r.terminated || r.truncated) {
      this.ended = true;
      this.mask.fill(0);
      const episode: EpisodeInfo = { return: this.ret, steps: this.steps, time: r.info.time, seed: this.seed, origin: -1, length: this.episodeLength() };
      r.info.episode = episode;
    }
    return r;
  }

  actionMask(): Uint8Array {
    return this.mask;
  }

  clone(): this {
    this.checkOpen();
    // fresh() builds an env of the subclass on the same context
    const e = this.fresh() as this;
    if (this.started) {
      e.reset({ seed: this.seed });
      for (const a of this.actions) e.step(a);
    }
    e.nextSeed = this.nextSeed;
    return e;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.release();
  }

  private checkOpen(): void {
    if (this.closed) throw new InputError(`${this.id}: the environment is closed`);
  }
}
