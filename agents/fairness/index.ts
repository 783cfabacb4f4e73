/**
 * Heuristic agents of `clustergym/Fair-v0` (envs/fairness), acting through the env API:
 *
 * | agent          | acts                                                                          |
 * |----------------|-------------------------------------------------------------------------------|
 * | `drfAgent`     | slot 0 (the most deprived user's next task) on its best-packing host; waits when it fits nowhere |
 * | `tetrisAgent(f)` | the best packing score over the first `max(1, floor((1 - f) U))` slots and their hosts; waits when none fits |
 * | `firstFitAgent` | the oldest visible task (lowest submission id) on the first host where it fits; waits when it fits nowhere |
 * | `bestFitAgent`  | the oldest visible task on the host left with the least normalised free capacity `Σ_r free_r/cap_r`; waits when it fits nowhere |
 *
 * The env's slots are the users with waiting tasks in DRF order, so on the same workload these
 * agents make exactly the decisions of the `drf()` and `tetris(f)` policies (src/scheduling/multiResource.ts) (the
 * tests compare the episodes with the engine's runs). Each user's next task is its oldest (FIFO
 * within a user), so when every user with waiting tasks has a slot (`slots` >= users) the oldest
 * visible task is the oldest waiting task, and `firstFitAgent`/`bestFitAgent` make the decisions of
 * `firstFit()`/`bestFit()`.
 */
import type { FairEnv } from '../../envs/fairness/fairEnv.js';
import { alignmentScore, tetrisCandidates } from '../../src/scheduling/multiResource.js';
import { type EnvAgent, playEpisode } from '../episode.js';

/** An agent of Fair-v0. */
export type FairAgent = EnvAgent<FairEnv>;

/** Tetris(f) as an agent (f = 1 is DRF). */
export function tetrisAgent(f: number): FairAgent {
  return {
    name: `tetris(${f})`,
    act(env) {
      const e = env.state;
      const mask = env.actionMask();
      const H = env.hostCount;
      if (e === null) return env.waitAction;
      const k = tetrisCandidates(f, e.waiting.activeUsers().length);
      let best = -1;
      let bestScore = -1;
      for (let s = 0; s < Math.min(k, env.candidates().length); s++) {
        const t = env.candidateTask(s)!;
        for (let h = 0; h < H; h++) {
          if (mask[s * H + h] !== 1) continue;
          const score = alignmentScore(e.hosts, h, t.cpu, t.memory);
          if (score > bestScore) {
            bestScore = score;
            best = s * H + h;
          }
        }
      }
      if (best >= 0) return best;
      if (mask[env.waitAction] === 1) return env.waitAction;
      // nothing of the first k fits and no event is to come: the first allowed placement
      return mask.indexOf(1);
    },
  };
}

/** DRF as an agent. */
export const drfAgent: FairAgent = { ...tetrisAgent(1), name: 'drf' };

/** First fit (`fit: "first"`) or best fit (`"best"`) of the oldest visible task, as an agent. */
function oldestTaskAgent(name: string, fit: 'first' | 'best'): FairAgent {
  return {
    name,
    act(env) {
      const e = env.state;
      const mask = env.actionMask();
      const H = env.hostCount;
      if (e === null) return env.waitAction;
      let slot = -1;
      let oldest = Infinity;
      for (let s = 0; s < env.candidates().length; s++) {
        const t = env.candidateTask(s)!;
        if (t.id < oldest) {
          oldest = t.id;
          slot = s;
        }
      }
      if (slot >= 0) {
        const t = env.candidateTask(slot)!;
        const h = e.hosts;
        let best = -1;
        let bestLeft = Infinity;
        for (let i = 0; i < H; i++) {
          if (mask[slot * H + i] !== 1) continue;
          if (fit === 'first') return slot * H + i;
          const left = (h.freeCpu[i]! - t.cpu) / h.cpuCap[i]! + (h.freeMem[i]! - t.memory) / h.memCap[i]!;
          if (left < bestLeft) {
            bestLeft = left;
            best = i;
          }
        }
        if (best >= 0) return slot * H + best;
      }
      if (mask[env.waitAction] === 1) return env.waitAction;
      return mask.indexOf(1);
    },
  };
}

/** First fit of the oldest task, as an agent. */
export const firstFitAgent: FairAgent = oldestTaskAgent('first-fit', 'first');

/** Best fit of the oldest task, as an agent. */
export const bestFitAgent: FairAgent = oldestTaskAgent('best-fit', 'best');

/** Plays one episode; returns the metrics and the return. */
export const runFairEpisode = playEpisode<FairEnv>;
