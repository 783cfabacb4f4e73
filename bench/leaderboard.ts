/**
 * `npm run bench -- leaderboard`: the leaderboard's wall time at its defaults (all nine settings,
 * each setting's default episodes, seed 0, the shipped models), per setting and in total, with each
 * setting's best heuristic and the learned models' verdicts (the run `clustergym leaderboard` makes).
 */
import { join } from 'node:path';
import { loadSetting, lookaheadPlayers, ppoPlayer, runSetting, SETTING_NAMES, settingFile, shippedModels } from '../agents/leaderboard/index.js';
import { PACKAGE_ROOT } from '../src/core/paths.js';
import type { RolloutFuture } from '../envs/knownFuture.js';

/** Runs the leaderboard; returns its figures. */
export async function benchLeaderboard(): Promise<Record<string, unknown>> {
  const models = shippedModels(join(PACKAGE_ROOT, 'data/models'));
  const settings: Record<string, unknown> = {};
  const t0 = performance.now();
  for (const name of SETTING_NAMES) {
    const s = loadSetting(settingFile(join(PACKAGE_ROOT, 'data/configs'), name));
    const r = await runSetting(s, 0, s.episodes, models.filter((m) => m.setting === name).map(ppoPlayer));
    settings[name] = {
      episodes: s.episodes,
      heuristics: r.policies.filter((p) => p.kind === 'heuristic').length,
      seconds: Number(r.seconds.toFixed(1)),
      best_heuristic: r.best_heuristic,
      learned: r.learned.map((l) => ({ name: l.name, verdict: l.verdict, diff: l.diff.mean, ci95: l.diff.ci95 })),
    };
    console.error(`bench leaderboard: ${name} ${r.seconds.toFixed(1)} s`);
  }
  return { seconds: Number(((performance.now() - t0) / 1000).toFixed(1)), settings };
}

/**
 * `npm run bench -- lookahead`: `clustergym leaderboard --lookahead` on the cluster settings at their
 * default episodes (seed 0, heuristics only): per setting each lookahead row's mean and seconds (the
 * oracle's, the parity one's and the sampled one's), its base in the env and the best heuristic, and each lookahead's
 * difference to them.
 * `npm run bench -- lookahead-information` (`futures` all four, the three rlsched settings, 40
 * episodes): which information the oracle's gain comes from (the future arrivals, the actual run
 * times, or both: envs/knownFuture.ts `ROLLOUT_FUTURES`).
 */
export async function benchLookahead(
  futures: readonly RolloutFuture[] = ['episode', 'known', 'sampled'],
  names: readonly string[] = SETTING_NAMES,
  episodes?: number,
): Promise<Record<string, unknown>> {
  const settings: Record<string, unknown> = {};
  const t0 = performance.now();
  for (const name of names) {
    const s = loadSetting(settingFile(join(PACKAGE_ROOT, 'data/configs'), name));
    const players = lookaheadPlayers(s, futures);
    if (!players.length) continue;
    const n = episodes ?? s.episodes;
    const r = await runSetting(s, 0, n, [], players);
    const refs = r.policies.filter((p) => p.kind === 'reference');
    const base = refs.at(-1)!;
    const best = r.policies.find((p) => p.name === r.best_heuristic)!;
    const rel = (x: number, y: number) => Number((x / y - 1).toFixed(4));
    settings[name] = {
      episodes: n,
      base: base.name,
      base_mean: base.mean,
      best_heuristic: best.name,
      best_mean: best.mean,
      lookaheads: refs.slice(0, -1).map((la) => ({
        name: la.name,
        observes: la.observes,
        seconds: Number(la.seconds.toFixed(1)),
        seconds_per_episode: Number((la.seconds / n).toFixed(2)),
        mean: la.mean,
        vs_base: rel(la.mean, base.mean),
        vs_best: rel(la.mean, best.mean),
      })),
    };
    console.error(`bench lookahead: ${name} ${refs.map((la) => la.seconds.toFixed(1)).join(' + ')} s`);
  }
  return { seconds: Number(((performance.now() - t0) / 1000).toFixed(1)), settings };
}

/** `npm run bench -- lookahead-information` (see `benchLookahead`). */
export function benchLookaheadInformation(): Promise<Record<string, unknown>> {
  return benchLookahead(['episode', 'known', 'known-jobs-actual-times', 'all-jobs-requested-times'], ['rlsched', 'rlsched-easy', 'rlsched-reorder'], 40);
}
