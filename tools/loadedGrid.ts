/**
 * The exploration behind `hetero-loaded`'s workload (docs/leaderboard.md, "hetero-loaded: choosing
 * the workload"): for workload variants of a JobNode-v0 setting (its generator's fields overridden),
 * on exploration reset seeds that no evaluation uses (below 2^31, here 900001 on by default; the
 * leaderboard's evaluation episodes are 2^32 and above), it measures per variant:
 *
 * - the offered load over the arrivals' span (as `npm run bench -- load`);
 * - the best of the setting's heuristics (mean metric) and its measured utilisation (busy cores over
 *   the makespan), and the utilisation range over all heuristics;
 * - the oracle lookahead over that best heuristic at the leaderboard's budget (the setting's, default
 *   m = 2, c = 8, d = 8) and, with `--deep D`, at m = 3, c = 16, d = D on the first `--deep-episodes`
 *   episodes (default all), each against the best heuristic on the same episodes (mean of the paired
 *   per-episode ratios);
 * - the `--models` (e.g. the `hetero` models) played on the same episodes with their own window and
 *   spill orders: how they transfer, a quick read of the room a learner has.
 *
 *     node dist/tools/loadedGrid.js --setting data/configs/hetero-loaded.json \
 *       --variant '{"runtime":{"dist":"lognormal","mu":6,"sigma":1.0},"rate":0.2}' [--variant ...] \
 *       [--episodes 8] [--first-seed 900001] [--deep 64 [--deep-episodes 4]] [--models hetero=data/models/hetero,...]
 *
 * Prints one JSON line per variant on stdout.
 */
import { resolve } from 'node:path';
import {
  clusterHeuristics,
  loadSetting,
  lookaheadBase,
  lookaheadBudget,
  lookaheadEpisode,
  modelEntries,
  offeredLoad,
  playClusterHeuristic,
  type PolicyRow,
  ppoPlayer,
  type Setting,
  settingEpisodes,
} from '../agents/leaderboard/index.js';
import { clusterMetric } from '../agents/leaderboard/run.js';
import { makeContext } from '../envs/registry.js';

const mean = (v: readonly number[]) => v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);
const round = (x: number, d = 4) => Number(x.toFixed(d));

function arg(name: string): string[] {
  const out: string[] = [];
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) if (argv[i] === `--${name}`) out.push(argv[++i] ?? '');
  return out;
}

/** The setting with its generator's fields overridden by `variant`. */
function variantSetting(base: Setting, variant: Record<string, unknown>): Setting {
  const config = base.env.config as Record<string, unknown>;
  const generator = { ...(config.generator as Record<string, unknown>), ...variant };
  return { ...base, env: { ...base.env, config: { ...config, generator } } };
}

/** Mean of the per-episode ratios `a / b - 1` (the paired difference the leaderboard reports, as a share). */
function pairedGain(a: readonly number[], b: readonly number[]): number {
  return mean(a.map((x, i) => x / b[i]! - 1));
}

async function measure(base: Setting, variant: Record<string, unknown>, seeds: number[], deep: { d: number; episodes: number }, models: string[]) {
  const t0 = performance.now();
  const s = variantSetting(base, variant);
  const context = makeContext(s.env.id, s.env.config);
  const eps = settingEpisodes(context, seeds);
  const offered = eps.map((e) => offeredLoad(context.platform, e.jobs));
  const rows: (PolicyRow & { utilisation: number })[] = clusterHeuristics(s).map((h) => {
    const r = playClusterHeuristic(s, context, h, eps);
    const per = r.summaries.map((x) => (x ? clusterMetric(s.metric, x) : Number.NaN));
    const utilisation = mean(r.summaries.map((x) => x?.utilisation ?? Number.NaN));
    return { name: h.name, kind: 'heuristic', mean: mean(per), per_episode: per, complete: r.complete, seconds: 0, utilisation };
  });
  const tHeuristics = (performance.now() - t0) / 1000;
  const complete = rows.filter((r) => r.complete);
  const best = complete.reduce((a, b) => ((s.lower_is_better ? b.mean < a.mean : b.mean > a.mean) ? b : a));
  const out: Record<string, unknown> = {
    variant,
    episodes: seeds.length,
    seeds: [seeds[0], seeds[seeds.length - 1]],
    offered_load: round(mean(offered), 3),
    best: best.name,
    best_mean: round(best.mean),
    best_utilisation: round(best.utilisation, 3),
    utilisation_range: [round(Math.min(...complete.map((r) => r.utilisation)), 3), round(Math.max(...complete.map((r) => r.utilisation)), 3)],
    fcfs_first: round(rows.find((r) => r.name === 'fcfs:first')?.mean ?? Number.NaN),
    heuristics_s: round(tHeuristics, 1),
  };
  const lb = lookaheadBase(s, rows);
  const lctx = makeContext(s.env.id, lb.config);
  const budgets = [{ label: 'oracle', budget: lookaheadBudget(s), n: seeds.length }];
  if (deep.d > 0) budgets.push({ label: 'oracle_deep', budget: { m: 3, candidates: 16, decisions: deep.d }, n: Math.min(seeds.length, deep.episodes) });
  for (const { label, budget, n } of budgets) {
    const t = performance.now();
    const la = seeds.slice(0, n).map((seed) => lookaheadEpisode(lctx, seed, lb, s.metric, s.lower_is_better, budget, 'episode'));
    const per = la.map((e) => e.metric);
    out[label] = {
      budget,
      episodes: n,
      mean: round(mean(per)),
      best_mean: round(mean(best.per_episode.slice(0, n))),
      vs_best: round(pairedGain(per, best.per_episode)),
      base_in_env: round(mean(la.map((e) => e.base))),
      s_per_episode: round((performance.now() - t) / 1000 / n, 1),
    };
  }
  for (const m of modelEntries(models)) {
    const r = await ppoPlayer(m).play(s, seeds);
    out[m.name] = { mean: round(mean(r.per_episode)), vs_best: round(pairedGain(r.per_episode, best.per_episode)), complete: r.complete };
  }
  out.seconds = round((performance.now() - t0) / 1000, 1);
  return out;
}

async function main() {
  const settingFile = arg('setting')[0] ?? 'data/configs/hetero-loaded.json';
  const base = loadSetting(resolve(settingFile));
  const n = Number(arg('episodes')[0] ?? 8);
  const first = Number(arg('first-seed')[0] ?? 900001);
  const deep = { d: Number(arg('deep')[0] ?? 0), episodes: Number(arg('deep-episodes')[0] ?? Number.POSITIVE_INFINITY) };
  const models = (arg('models')[0] ?? '').split(',').filter((x) => x.length > 0);
  const seeds = Array.from({ length: n }, (_, i) => first + i);
  const variants = arg('variant').map((v) => JSON.parse(v) as Record<string, unknown>);
  for (const v of variants.length ? variants : [{}]) console.log(JSON.stringify(await measure(base, v, seeds, deep, models)));
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
