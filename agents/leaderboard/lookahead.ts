/**
 * `--lookahead`: a reference row (kind `reference`, never a competitor) for how far each policy is
 * from what a search that sees the future reaches. Job-v0 settings only, where env clones are cheap
 * (`env.clone()`): at every decision each of RLScheduler's five priorities (fcfs, sjf, wfp3,
 * unicep, f1) proposes its `m` best-ranked valid jobs; each distinct candidate is tried on a clone
 * and the base heuristic (the setting's best heuristic's job order, played in the env) finishes the
 * episode; the candidate whose episode ends with the best metric is taken (the base's own choice
 * unless another is strictly better). By the rollout argument it is never worse than the base played
 * in the env. It sees future arrivals, so it is a reference, not a policy. Its cost is about
 * `candidates x remaining steps` per decision: minutes per 1,024-job episode.
 */
import { canonicalJobSelection } from '../../src/scheduling/jobSelection.js';
import type { ClusterEnv } from '../../envs/env.js';
import type { JobEnv } from '../../envs/jobEnv.js';
import { makeContext, makeFromContext } from '../../envs/registry.js';
import { PriorityAgent } from '../heuristics/index.js';
import { bestHeuristic, clusterMetric, type ReferencePlayer, runHeuristics } from './run.js';
import type { Setting } from './settings.js';

/** The orders that propose candidates. */
export const LOOKAHEAD_ORDERS = ['fcfs', 'sjf', 'wfp3', 'unicep', 'f1'] as const;

/** The reference players of a setting under `--lookahead` (none where cloning is not cheap or not supported). */
export function lookaheadPlayers(setting: Setting, m = 2): ReferencePlayer[] {
  if (setting.env.id !== 'clustergym/Job-v0') return [];
  return [
    {
      name: `lookahead(m=${m})`,
      model: 'reference',
      async play(s: Setting, seeds: readonly number[]) {
        // the base: the best heuristic's job order on a few episodes of the same seed range
        const probe = runHeuristics(s, seeds.slice(0, Math.min(2, seeds.length)));
        const bestName = bestHeuristic(probe.rows, s.lower_is_better).name.split(/[:+]/)[0]!;
        const job = canonicalJobSelection(bestName);
        const base = new PriorityAgent(job && job !== 'random' ? job : 'f1');
        const proposers = LOOKAHEAD_ORDERS.map((o) => new PriorityAgent(o));
        const context = makeContext(s.env.id, s.env.config);
        const sign = s.lower_is_better ? 1 : -1;
        const score = (r: { info: { metrics?: unknown } }) => sign * clusterMetric(s.metric, r.info.metrics as never);
        const finish = (env: ClusterEnv) => {
          let r = env.step(base.act(env));
          while (!r.terminated && !r.truncated) r = env.step(base.act(env));
          return r;
        };
        const per = seeds.map((seed) => {
          const env = makeFromContext(context) as JobEnv;
          env.reset({ seed });
          for (;;) {
            const own = base.act(env);
            const cands = new Set<number>([own]);
            for (const p of proposers) for (const a of p.ranked(env, m)) cands.add(a);
            let best = own;
            if (cands.size > 1) {
              let bestScore = Infinity;
              for (const a of cands) {
                const c = env.clone() as JobEnv;
                let r = c.step(a);
                if (!r.terminated && !r.truncated) r = finish(c);
                c.close();
                const v = score(r);
                if (v < bestScore || (v === bestScore && a === own)) {
                  bestScore = v;
                  best = a;
                }
              }
            }
            const r = env.step(best);
            if (r.terminated || r.truncated) {
              env.close();
              return clusterMetric(s.metric, r.info.metrics as never);
            }
          }
        });
        return { per_episode: per, complete: true };
      },
    },
  ];
}
