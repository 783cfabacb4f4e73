/**
 * EpisodeEnv, the episode bookkeeping of the seed systems' envs, on a toy env whose episodes are
 * known by hand: the state counts down from `seed % 5 + 2`; action 0 subtracts 1 (reward 1), action 1
 * subtracts 2 (reward 3) and is allowed only while the count is >= 2; the episode ends at 0.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { checkEnv } from '../../envs/checker.js';
import type { GymInfo } from '../../envs/gym.js';
import { EpisodeEnv, type EpisodeStep } from '../../envs/episodeEnv.js';
import { EpisodeOverError, InvalidActionError } from '../../envs/errors.js';
import type { InvalidActionSettings } from '../../envs/invalidAction.js';
import { box, discrete } from '../../envs/spaces.js';

class Countdown extends EpisodeEnv<Float32Array, GymInfo> {
  readonly id = 'test/Countdown-v0';
  readonly observationSpace = box([1], 0, 10);
  readonly actionSpace = discrete(2);
  count = 0;
  released = 0;
  private readonly obs = new Float32Array(1);

  constructor(
    private readonly base: number,
    private readonly invalid: Partial<InvalidActionSettings> = { invalid_action: 'raise' },
  ) {
    super(2, base, invalid);
  }
  protected override resetOptionKeys(): readonly string[] {
    return ['bonus'];
  }
  protected start(seed: number, options: Record<string, unknown>): { observation: Float32Array; info: GymInfo } {
    this.count = (seed % 5) + 2 + (options['bonus'] === true ? 1 : 0);
    return { observation: this.observe(), info: this.info() };
  }
  protected apply(action: number): EpisodeStep<Float32Array, GymInfo> {
    this.count -= action === 0 ? 1 : 2;
    const reward = action === 0 ? 1 : 3;
    const info = this.info();
    if (this.count === 0) info.metrics = { left: 0 };
    return { observation: this.observe(), reward, terminated: this.count === 0, truncated: false, info };
  }
  protected override whyNotAllowed(): string {
    return 'the count is below 2';
  }
  protected episodeLength(): number {
    return 7;
  }
  protected fresh(): Countdown {
    return new Countdown(this.base, this.invalid);
  }
  protected override release(): void {
    this.released++;
  }
  private observe(): Float32Array {
    this.obs[0] = this.count;
    this.mask[0] = this.count > 0 ? 1 : 0;
    this.mask[1] = this.count >= 2 ? 1 : 0;
    return this.obs;
  }
  private info(): GymInfo {
    return { action_mask: this.mask, time: 10 - this.count, steps: this.steps };
  }
}

describe('EpisodeEnv', () => {
  it('seeds: the given seed, then seed + 1, seed + 2 ...; the stream starts at the config seed', () => {
    const env = new Countdown(3);
    expect(env.reset().observation[0]).toBe(5); // seed 3
    expect(env.reset().observation[0]).toBe(6); // seed 4
    expect(env.reset({ seed: 10 }).observation[0]).toBe(2); // seed 10
    expect(env.reset().observation[0]).toBe(3); // seed 11
    expect(env.reset({ seed: 0, options: { bonus: true } }).observation[0]).toBe(3);
  });

  it('refuses unknown reset options and non-integer seeds, naming them', () => {
    const env = new Countdown(0);
    expect(() => env.reset({ options: { bonsu: 1 } })).toThrow(/\$\.bonsu: unknown option; expected one of bonus/);
    expect(() => env.reset({ seed: 1.5 })).toThrow(InputError);
  });

  it('a hand-played episode: rewards, mask, the end, info.episode and the refusal to go on', () => {
    const env = new Countdown(0);
    env.reset({ seed: 2 }); // count 4
    expect(() => env.step(2)).toThrow(InvalidActionError);
    let r = env.step(1); // 4 -> 2, reward 3
    expect([r.observation[0], r.reward, r.terminated, r.info.episode]).toEqual([2, 3, false, undefined]);
    r = env.step(0); // 2 -> 1, reward 1
    expect(() => env.step(1)).toThrow(/invalid action 1: the count is below 2/);
    expect(env.actionMask()).toEqual(Uint8Array.from([1, 0])); // the refused action changed nothing
    r = env.step(0); // 1 -> 0, reward 1, the end
    expect(r.terminated).toBe(true);
    expect(r.info.metrics).toEqual({ left: 0 });
    expect(r.info.episode).toEqual({ return: 5, steps: 3, time: 10, seed: 2, origin: -1, length: 7 });
    expect(env.actionMask()).toEqual(Uint8Array.from([0, 0]));
    expect(() => env.step(0)).toThrow(EpisodeOverError);
    expect(() => new Countdown(0).step(0)).toThrow(EpisodeOverError); // before reset
  });

  it('clone replays the episode and keeps the seed stream; close is idempotent', () => {
    const env = new Countdown(0);
    env.reset({ seed: 4 }); // count 6
    env.step(1);
    const c = env.clone();
    expect(c.count).toBe(4);
    expect(c.step(0).reward).toBe(1);
    expect(env.count).toBe(4); // independent
    expect(c.reset().observation[0]).toBe(env.reset().observation[0]); // both take seed 5
    env.close();
    env.close();
    expect(env.released).toBe(1);
    expect(() => env.reset()).toThrow(/closed/);
  });

  it('passes the env checker', () => {
    expect(checkEnv(new Countdown(0), { episodes: 3 }).checks.length).toBeGreaterThan(3);
    expect(checkEnv(new Countdown(0, {}), { episodes: 3 }).checks.length).toBeGreaterThan(3);
  });

  it('invalid_action "noop": a forbidden action pays the penalty and changes nothing; past the limit the lowest allowed action is taken', () => {
    const env = new Countdown(0, { invalid_action: 'noop', invalid_action_penalty: 0.5, invalid_action_limit: 2 });
    env.reset({ seed: 0 }); // count 2
    expect(() => env.step(2)).toThrow(InvalidActionError); // not an action at all: always refused
    let r = env.step(0); // 2 -> 1, reward 1
    expect(env.actionMask()).toEqual(Uint8Array.from([1, 0]));
    r = env.step(1); // forbidden: a no-op
    expect([r.observation[0], r.reward, r.terminated, r.truncated, r.info.steps, r.info.invalid_action]).toEqual([1, -0.5, false, false, 1, true]);
    expect(r.info.action_taken).toBeUndefined();
    expect(env.count).toBe(1);
    r = env.step(1); // the second in a row: still a no-op
    expect([r.observation[0], r.reward, r.info.invalid_action]).toEqual([1, -0.5, true]);
    const c = env.clone(); // the clone replays the no-ops, streak included
    r = env.step(1); // the third: past the limit of 2, action 0 is taken instead
    expect([r.observation[0], r.reward, r.terminated, r.info.invalid_action, r.info.action_taken]).toEqual([0, 0.5, true, true, 0]);
    expect(r.info.episode).toEqual({ return: 1 - 0.5 - 0.5 + 0.5, steps: 2, time: 10, seed: 0, origin: -1, length: 7 });
    expect(c.step(1).info.action_taken).toBe(0);
    // an allowed action ends a streak
    env.reset({ seed: 1 }); // count 3
    env.step(0); // 3 -> 2
    env.step(0); // 2 -> 1
    env.step(1); // no-op 1
    env.step(1); // no-op 2
    env.step(0); // 1 -> 0: ends the episode; a new one starts with a fresh streak
    env.reset({ seed: 2 }); // count 4
    env.step(1); // 4 -> 2
    env.step(0); // 2 -> 1
    expect(env.step(1).info.action_taken).toBeUndefined();
    expect(env.step(1).info.action_taken).toBeUndefined();
    expect(env.step(1).info.action_taken).toBe(0);
  });
});
