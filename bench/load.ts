/**
 * `npm run bench -- load`: how loaded each leaderboard setting is (docs/leaderboard.md states it per
 * setting). For the cluster settings, over the first `EPISODES` episodes of leaderboard seed 0:
 *
 * - **offered load**: the work the episode's jobs bring over the platform's capacity during the
 *   arrivals, `sum(ntasks x work) / (capacity x (last submission - first submission))`: `work` the
 *   run time of a delay job (capacity: the cores), the operations of an ops job (capacity: the
 *   platform's operations per second, every core at its speed);
 * - **measured utilisation** (busy cores / cores over the makespan, `Summary.utilisation`) of every
 *   heuristic of the setting, as the batch scheduler runs it: the best heuristic's (by the setting's
 *   metric) and the range over all of them.
 *
 * The system settings' loads are properties of their workloads (Slurm-v0's `load`, the seed systems'
 * streams), written in docs/leaderboard.md; here their heuristics' utilisation where their env's
 * metrics report one (Fair-v0 `utilisation`, Slurm-v0 calcmets' `utilisation`, Malleable-v0
 * `allocation`).
 */
import { join } from 'node:path';
import { playEpisode } from '../agents/episode.js';
import {
  clusterHeuristics,
  episodeSeeds,
  isClusterSetting,
  loadSetting,
  offeredLoad,
  playClusterHeuristic,
  SETTING_NAMES,
  settingEpisodes,
  settingFile,
  systemAgent,
} from '../agents/leaderboard/index.js';
import { clusterMetric } from '../agents/leaderboard/run.js';
import { PACKAGE_ROOT } from '../src/core/paths.js';
import { loadEnv, makeContext, makeEnv } from '../envs/registry.js';

/** Episodes per setting. */
const EPISODES = 8;

const mean = (v: readonly number[]) => v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);

/** Runs the section; returns its figures. */
export function benchLoad(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) {
    const t0 = performance.now();
    const s = loadSetting(settingFile(join(PACKAGE_ROOT, 'data/configs'), name));
    const seeds = episodeSeeds(0, EPISODES);
    if (isClusterSetting(s)) {
      const context = makeContext(s.env.id, s.env.config);
      const eps = settingEpisodes(context, seeds);
      const offered = eps.map((e) => offeredLoad(context.platform, e.jobs));
      const rows = clusterHeuristics(s).map((h) => {
        const played = playClusterHeuristic(s, context, h, eps);
        const done = played.summaries.filter((r) => r !== null);
        return {
          name: h.name,
          complete: played.complete,
          metric: mean(done.map((r) => clusterMetric(s.metric, r))),
          utilisation: mean(done.map((r) => r.utilisation)),
        };
      });
      const complete = rows.filter((r) => r.complete);
      const best = complete.reduce((a, b) => ((s.lower_is_better ? b.metric < a.metric : b.metric > a.metric) ? b : a));
      out[name] = {
        episodes: EPISODES,
        offered_load: Number(mean(offered).toFixed(3)),
        best_heuristic: best.name,
        best_utilisation: Number(best.utilisation.toFixed(3)),
        utilisation_range: [
          Number(Math.min(...complete.map((r) => r.utilisation)).toFixed(3)),
          Number(Math.max(...complete.map((r) => r.utilisation)).toFixed(3)),
        ],
        seconds: Number(((performance.now() - t0) / 1000).toFixed(1)),
      };
    } else {
      const env = makeEnv(loadEnv(s.env.id, s.env.config));
      const key = s.env.id === 'clustergym/Malleable-v0' ? 'allocation' : 'utilisation';
      const rows = s.heuristics.agents!.map((a) => {
        const agent = systemAgent(s.env.id, a, name);
        const eps = seeds.map((seed) => playEpisode(env, agent, seed));
        const metric = (m: unknown) => {
          let v: unknown = m;
          for (const k of s.metric === 'return' ? [] : s.metric.slice('metrics.'.length).split('.')) v = (v as Record<string, unknown>)[k];
          return v as number;
        };
        return {
          name: a,
          metric: mean(eps.map((e) => (s.metric === 'return' ? e.return : metric(e.metrics)))),
          utilisation: mean(eps.map((e) => Number((e.metrics as Record<string, unknown>)[key] ?? Number.NaN))),
        };
      });
      env.close();
      const best = rows.reduce((a, b) => ((s.lower_is_better ? b.metric < a.metric : b.metric > a.metric) ? b : a));
      out[name] = {
        episodes: EPISODES,
        best_heuristic: best.name,
        [`best_${key}`]: Number(best.utilisation.toFixed(3)),
        seconds: Number(((performance.now() - t0) / 1000).toFixed(1)),
      };
    }
    console.error(`bench load: ${name} ${JSON.stringify(out[name])}`);
  }
  return out;
}
