/**
 * What `step` does with an action the mask forbids, the same in every environment (Gymnasium's
 * contract: every element of `action_space` is a legal argument of `step`).
 *
 * Config fields (every env's config takes them):
 * - `invalid_action`: `"noop"` (default) or `"raise"`.
 *   - `noop`: a forbidden action in `[0, n)` changes nothing in the simulation: nothing starts, time
 *     does not move, the observation and the mask stay as they were, the step count does not grow.
 *     The step returns reward `-invalid_action_penalty`, `terminated = truncated = false` and
 *     `info.invalid_action = true`.
 *   - `raise`: `step` throws `InvalidActionError` and changes nothing (the strict behaviour, for
 *     masked learners and tests that want a bug to be loud).
 * - `invalid_action_penalty` (>= 0, default 0): paid (as a negative reward) for every forbidden action.
 * - `invalid_action_limit` (>= 1, default 32): after this many forbidden actions in a row, the next
 *   forbidden action is replaced by the lowest allowed action, which is taken (time moves as it
 *   would for that action); `info.invalid_action` is still set and `info.action_taken` names the
 *   action applied; the penalty is still paid. So an episode always ends, whatever a policy without
 *   masking does: between two real decisions there are at most `invalid_action_limit` no-ops, and
 *   a policy cannot dodge the episode's terminal reward by stalling (truncating on stalls would let
 *   it).
 *
 * Not an element of the action space at all (a non-integer, a number outside `[0, n)`): always an
 * `InvalidActionError`, whatever the mode.
 */
import { z } from 'zod';
import { InvalidActionError } from './errors.js';

/** The modes of `invalid_action`. */
export const INVALID_ACTION_MODES = ['noop', 'raise'] as const;
/** A mode of `invalid_action`. */
export type InvalidActionMode = (typeof INVALID_ACTION_MODES)[number];

/** The config fields, to spread into every env's config schema (`z.object({ ...InvalidActionFields, ... })`). */
export const InvalidActionFields = {
  /** A forbidden action: a no-op with `info.invalid_action` (`noop`, default) or an `InvalidActionError` (`raise`). */
  invalid_action: z.enum(INVALID_ACTION_MODES).default('noop'),
  /** Penalty paid (reward `-penalty`) for each forbidden action. */
  invalid_action_penalty: z.number().finite().nonnegative().default(0),
  /** Forbidden actions in a row after which the lowest allowed action is taken in their place. */
  invalid_action_limit: z.number().int().min(1).max(1_000_000).default(32),
};

/** The resolved settings. */
export interface InvalidActionSettings {
  invalid_action: InvalidActionMode;
  invalid_action_penalty: number;
  invalid_action_limit: number;
}

/** The defaults (what `{}` resolves to). */
export const DEFAULT_INVALID_ACTION: InvalidActionSettings = { invalid_action: 'noop', invalid_action_penalty: 0, invalid_action_limit: 32 };

/**
 * What `step` should do with an action: `apply` it (allowed), change nothing (`noop`: forbidden), or
 * apply the rule's `substitute` instead (`substitute`: forbidden, past the limit).
 */
export type Verdict = 'apply' | 'noop' | 'substitute';

/** The per-env state of the rule: the settings and the count of forbidden actions in a row. */
export class InvalidActionRule {
  readonly mode: InvalidActionMode;
  readonly penalty: number;
  readonly limit: number;
  /** The reward of a forbidden action: minus the penalty (0, not -0, without one). */
  readonly reward: number;
  /** Forbidden actions in a row (reset by an allowed action and by `reset`). */
  streak = 0;
  /** With `substitute`: the action to apply. */
  substitute = -1;

  constructor(s: Partial<InvalidActionSettings> = {}) {
    this.mode = s.invalid_action ?? DEFAULT_INVALID_ACTION.invalid_action;
    this.penalty = s.invalid_action_penalty ?? DEFAULT_INVALID_ACTION.invalid_action_penalty;
    this.limit = s.invalid_action_limit ?? DEFAULT_INVALID_ACTION.invalid_action_limit;
    this.reward = this.penalty === 0 ? 0 : -this.penalty;
  }

  /**
   * Judges `action` against `mask`. Throws `InvalidActionError` for a non-action (always) and for a
   * forbidden one in `raise` mode; `why` gives the reason of a forbidden action (only called to throw).
   */
  judge(action: unknown, mask: Uint8Array, why: (a: number) => string, where?: string): Verdict {
    const n = mask.length;
    if (typeof action !== 'number' || !Number.isInteger(action)) throw new InvalidActionError(action, mask, `expected an integer in [0, ${n - 1}]`, where);
    if (action < 0 || action >= n) throw new InvalidActionError(action, mask, `outside the action space Discrete(${n})`, where);
    if (mask[action] === 1) {
      this.streak = 0;
      return 'apply';
    }
    if (this.mode === 'raise') throw new InvalidActionError(action, mask, why(action), where);
    if (this.streak < this.limit) {
      this.streak++;
      return 'noop';
    }
    this.streak = 0;
    this.substitute = mask.indexOf(1);
    // a decision point always allows some action; without one, the step cannot go anywhere
    if (this.substitute < 0) throw new InvalidActionError(action, mask, why(action), where);
    return 'substitute';
  }
}
