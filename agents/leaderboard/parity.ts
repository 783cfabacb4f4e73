/**
 * Information parity (DESIGN §14): a learned policy is ranked only against heuristics given at least
 * the information it observed. What a row observes is its `observes` (envs/observes.ts): a model's
 * card says it (agents/learning/card.ts), each heuristic's is what its rule reads
 * (`heuristicObserves`), a reference row (the lookahead) sees actual durations and the future.
 * A learned row that observes more, in any dimension, than the most informed of the setting's
 * heuristics is refused (an `InputError`, exit 2): its win would not be a scheduling win. A setting
 * whose models read durations must therefore list heuristics that read them too.
 */
import { InputError } from '../../src/core/errors.js';
import { LIVE_OBSERVES, type Observes, observesMax, observesMore } from '../../envs/observes.js';

/** What a reference row observes: the actual durations and every future arrival (the lookahead plays clones). */
export const REFERENCE_OBSERVES: Observes = { durations: 'actual', horizon: 'future' };

/** The most informed of the heuristics' declarations (a live scheduler's when there is none). */
export function heuristicsObserve(rows: readonly { kind: string; observes?: Observes | undefined }[]): Observes {
  let o: Observes | null = null;
  for (const r of rows) if (r.kind === 'heuristic' && r.observes) o = o ? observesMax(o, r.observes) : r.observes;
  return o ?? { ...LIVE_OBSERVES, durations: 'none' };
}

/** Throws unless learned policy `name` (from `source`) observes no more than the heuristics of `setting`. */
export function checkParity(setting: string, name: string, source: string, observes: Observes, heuristics: Observes): void {
  const more = observesMore(observes, heuristics);
  if (more.length > 0)
    throw new InputError(
      `${name} observes more than the heuristics of setting ${setting} are given (${more.join('; ')}): the leaderboard ranks a policy only against heuristics that see as much; ` +
        `retrain it with the setting's observe config, or add heuristics that use that information`,
      source,
    );
}
