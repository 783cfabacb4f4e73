/**
 * Errors of the environments. `InvalidActionError` is thrown by `step` for an action the current
 * mask forbids (or that is not an action at all); the environment's state is unchanged, so the
 * caller can pick another action. The message names the action, says why it is invalid and lists
 * the mask (valid actions as ranges, and the 0/1 mask itself when it is not huge).
 */

/** An action the environment cannot take now. The state is unchanged. */
export class InvalidActionError extends Error {
  /** The action that was refused. */
  readonly action: unknown;
  /** A copy of the action mask at the time (1 = valid). */
  readonly mask: Uint8Array;
  /** Why the action is invalid. */
  readonly reason: string;
  /** `where` prefixes the message (e.g. `env 3`). */
  constructor(action: unknown, mask: Uint8Array, reason: string, where?: string) {
    super(
      `${where ? `${where}: ` : ''}invalid action ${formatAction(action)}: ${reason}; valid actions now: ${validRanges(mask)}${mask.length <= 4096 ? `; mask: ${maskString(mask)}` : ''}`,
    );
    this.name = 'InvalidActionError';
    this.action = action;
    this.mask = mask.slice();
    this.reason = reason;
  }
}

/** The episode is over (terminated or truncated): `reset()` must be called before `step()`. */
export class EpisodeOverError extends Error {
  constructor(what: string) {
    super(`${what}: the episode is over (terminated or truncated); call reset() before step()`);
    this.name = 'EpisodeOverError';
  }
}

function formatAction(a: unknown): string {
  return typeof a === 'number' ? String(a) : (JSON.stringify(a) ?? String(a));
}

/** The valid actions of a mask as compact ranges: `0-3, 17, 640` (or `none`). */
export function validRanges(mask: Uint8Array): string {
  const parts: string[] = [];
  let i = 0;
  while (i < mask.length) {
    if (mask[i] !== 1) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < mask.length && mask[j + 1] === 1) j++;
    parts.push(i === j ? String(i) : `${i}-${j}`);
    i = j + 1;
  }
  return parts.length ? parts.join(', ') : 'none';
}

/** The mask as a string of 0 and 1. */
export function maskString(mask: Uint8Array): string {
  let s = '';
  for (let i = 0; i < mask.length; i++) s += mask[i] === 1 ? '1' : '0';
  return s;
}
