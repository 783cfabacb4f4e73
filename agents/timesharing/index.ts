/**
 * The thesis's settings as heuristic agents of `clustergym/CoSched-v0` (envs/timesharing), acting
 * through the env API.
 *
 * | agent | acts |
 * |-------|------|
 * | `UnlimitedAgent()` | the traditional policies of chapter 2: every node admits up to MPL_TOTAL tasks, L = 100 % |
 * | `FixedShareAgent(L)` | DYN(L) of §2.3.1 (Fig. 2.5): MPL_TOTAL, a fixed share L for parallel tasks on nodes with a local user |
 * | `CscAgent(L = 0.5)` | CSC's admission rule (chapter 3, §3.2/§3.4.1): L = 50 % as in §3.6, and the parallel MPL follows the free memory: one less than the current mean number of parallel tasks per node while some node swaps (node.mem > node.M), MPL_TOTAL otherwise |
 *
 * `runCoSchedEpisode(env, agent, seed)` plays one episode and returns its return and metrics.
 */
import { type CoSchedEnv, L_LEVELS } from '../../envs/timesharing/index.js';
import { type EnvAgent, playEpisode } from '../episode.js';

/** An agent of CoSched-v0. */
export type CoSchedAgent = EnvAgent<CoSchedEnv>;

function lIndex(L: number): number {
  let best = 0;
  for (let i = 1; i < L_LEVELS.length; i++) if (Math.abs(L_LEVELS[i]! - L) < Math.abs(L_LEVELS[best]! - L)) best = i;
  return best;
}

/** MPL_TOTAL and L = 100 %: the plain local policy. */
export class UnlimitedAgent implements CoSchedAgent {
  readonly name = 'unlimited';
  act(env: CoSchedEnv): number {
    return env.actionFor(env.simulator!.cfg.MPL_TOTAL, L_LEVELS.length - 1);
  }
}

/** MPL_TOTAL and a fixed share L (DYN(L), Fig. 2.5). */
export class FixedShareAgent implements CoSchedAgent {
  readonly name: string;
  constructor(private readonly L: number) {
    this.name = `share-${L}`;
  }
  act(env: CoSchedEnv): number {
    return env.actionFor(env.simulator!.cfg.MPL_TOTAL, lIndex(this.L));
  }
}

/** CSC's admission: L fixed, the parallel MPL lowered while memory overflows (see the module comment). */
export class CscAgent implements CoSchedAgent {
  readonly name = 'csc';
  constructor(private readonly L = 0.5) {}
  act(env: CoSchedEnv): number {
    const s = env.simulator!;
    const M = s.cfg.MPL_TOTAL;
    let par = 0;
    let swapping = false;
    for (const nd of s.nodes) {
      par += nd.parallels;
      if (s.overflowed(nd)) swapping = true;
    }
    const mpl = swapping ? Math.max(1, Math.min(M, Math.round(par / s.nodes.length) - 1)) : M;
    return env.actionFor(mpl, lIndex(this.L));
  }
}

/** Plays one episode of `env` with `agent`; returns the return, steps and metrics. */
export const runCoSchedEpisode = playEpisode<CoSchedEnv>;
