/**
 * The leaderboard: for each setting, every heuristic and every learned policy on the SAME held-out
 * episodes, ranked by the setting's metric, each learned policy compared with the best heuristic
 * (paired by episode, `stats.ts`).
 *
 * **Seeds.** Training and evaluation draw episode seeds from disjoint ranges: training below 2^31
 * (`TRAINING_SEEDS`; the PPO trainer never goes above, agents/learning/train.ts), evaluation from 2^32
 * (`EVALUATION_SEEDS`). Leaderboard seed `S` (0..65535) names the episodes
 * `2^32 + S * 65536 + i`, `i = 0..N-1` (`episodeSeeds`): the reset seeds of the env's episodes, and
 * of the episode's jobs (`EnvContext.episodeJobs`, the same draw as the env's reset) that the batch
 * heuristics run. A model whose card's training seeds meet the evaluation range is refused.
 *
 * **Cluster settings** (Job-v0, JobNode-v0, PolicyPair-v0): per episode the exact jobs the env would
 * replay (without those that can never fit the platform: the env rejects them too) run under every
 * heuristic as a batch scheduler (`heuristics.ts`); the metric comes from the run's summary.
 * **Other settings**: every heuristic agent plays the env itself (`playEpisode`) on each seed.
 * A heuristic that leaves jobs unfinished on some episode (an IRMaSim one-node layout that cannot
 * run a job wider than a node) is listed with `complete: false` and never chosen as the best.
 */
import { InputError } from '../../src/core/errors.js';
import { ClusterSimulator } from '../../src/execution/simulator.js';
import type { Summary } from '../../src/metrics/summary.js';
import type { Job } from '../../src/workload/job.js';
import type { EnvContext } from '../../envs/context.js';
import { loadEnv, makeContext, makeEnv } from '../../envs/registry.js';
import { playEpisode } from '../episode.js';
import type { Observes } from '../../envs/observes.js';
import { type ClusterHeuristic, clusterHeuristics, heuristicObserves, runClusterHeuristic, systemAgent } from './heuristics.js';
import { checkParity, heuristicsObserve, REFERENCE_OBSERVES } from './parity.js';
import { isClusterSetting, type Setting } from './settings.js';
import { pairedDiff, type PairedDiff, type Verdict, verdictOf } from './stats.js';

/** Seeds training may use: `[from, to)`. */
export const TRAINING_SEEDS = { from: 0, to: 2 ** 31 } as const;
/** Seeds evaluation uses: `[from, to)`. */
export const EVALUATION_SEEDS = { from: 2 ** 32, to: 2 ** 48 } as const;
/** Episodes per leaderboard seed (the stride between two seeds' episodes). */
export const EPISODES_PER_SEED = 65536;

/** The reset seeds of the `n` episodes leaderboard seed `seed` names. */
export function episodeSeeds(seed: number, n: number): number[] {
  if (!Number.isInteger(seed) || seed < 0 || seed >= 65536)
    throw new InputError(`the leaderboard seed must be an integer in 0..65535 (found ${seed})`, '--seed');
  if (!Number.isInteger(n) || n < 1 || n > EPISODES_PER_SEED) throw new InputError(`episodes must be in 1..${EPISODES_PER_SEED} (found ${n})`, '--episodes');
  return Array.from({ length: n }, (_, i) => EVALUATION_SEEDS.from + seed * EPISODES_PER_SEED + i);
}

/** Whether a seed range `[from, to)` meets the evaluation range. */
export function meetsEvaluationSeeds(r: { from: number; to: number }): boolean {
  return r.from < EVALUATION_SEEDS.to && EVALUATION_SEEDS.from < r.to;
}

/** One policy's row: its mean and its figure on each episode (in the setting's episode order). */
export interface PolicyRow {
  name: string;
  kind: 'heuristic' | 'learned' | 'reference';
  /** The model directory (learned) or results file (learned from Python). */
  model?: string;
  mean: number;
  per_episode: number[];
  /**
   * Whether every episode ran every job to the end (false: never the best heuristic). An IRMaSim
   * manager whose placement breaks a node's memory limit on an episode has NaN there (null in JSON).
   */
  complete: boolean;
  /** Wall time of the row's runs. */
  seconds: number;
  /** What the policy observed (envs/observes.ts; parity.ts). */
  observes?: Observes;
  /** A learned row's method (`es-linear`, `imitation+es`, ...) and whether it is a network with a hidden layer (agents/learning/card.ts). */
  method?: string;
  neural?: boolean;
}

/** A learned policy against the best heuristic. */
export interface LearnedComparison {
  name: string;
  diff: PairedDiff;
  verdict: Verdict;
}

/** One setting's results. */
export interface SettingResult {
  name: string;
  /** The setting's description and why its heuristics are the strongest fair competition known (its file's). */
  description: string;
  why: string;
  env_id: string;
  metric: string;
  lower_is_better: boolean;
  /** The episodes' reset seeds (and trajectory origins on a trace; -1 for generated jobs). */
  episode_seeds: { seed: number; origin: number }[];
  policies: PolicyRow[];
  best_heuristic: string;
  learned: LearnedComparison[];
  seconds: number;
}

/** What plays a learned policy on a setting's episodes (a PPO model, a Python results file...). */
export interface LearnedPlayer {
  name: string;
  model: string;
  /** Its method, whether it is neural, and what it observes (checked against the heuristics', parity.ts). */
  identity?: { method: string; neural: boolean; observes: Observes };
  /**
   * The metric per episode (same order as `seeds`) and whether each finished every job; a player
   * that ran the env may also say which episodes it played (`episodes`: trajectory origin and job
   * count), which `runSetting` checks against the heuristics' episodes.
   */
  play(setting: Setting, seeds: readonly number[]): Promise<{ per_episode: number[]; complete: boolean; episodes?: { origin: number; jobs: number }[] }>;
}

/** A reference row's player (`--lookahead`): plays the setting's episodes knowing its heuristics' rows. */
export interface ReferencePlayer {
  name: string;
  model: string;
  /** What it observes (default `REFERENCE_OBSERVES`: the actual durations and the future). */
  observes?: Observes;
  play(setting: Setting, seeds: readonly number[], heuristics: readonly PolicyRow[]): Promise<{ per_episode: number[]; complete: boolean }>;
}

/** A row's mean: its per-episode figures summed in episode order (NaN when one is NaN), over their count. */
export function rowMean(v: readonly number[]): number {
  return v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);
}
const mean = rowMean;

/** `jobs` without those that can never fit the env's platform (the env rejects them). */
export function fittingJobs(context: EnvContext, jobs: readonly Job[]): Job[] {
  const probe = new ClusterSimulator(context.platform, [], { enforceMemory: context.config.enforce_memory });
  return jobs.filter((j) => probe.unfitReason(j) === null);
}

/** The metric of a cluster episode's summary. */
export function clusterMetric(metric: string, s: { mean_bsld: number; mean_wait: number; energy: number; makespan: number }): number {
  switch (metric) {
    case 'mean_bsld':
      return s.mean_bsld;
    case 'mean_wait':
      return s.mean_wait;
    case 'edp':
      return s.energy * s.makespan;
    default:
      throw new Error(`unknown cluster metric ${metric}`);
  }
}

/** The metric of a system env's episode (`return` or `metrics.KEY`). */
export function systemMetric(metric: string, episode: { return: number; metrics: unknown }): number {
  if (metric === 'return') return episode.return;
  let v: unknown = episode.metrics;
  for (const k of metric.slice('metrics.'.length).split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  if (typeof v !== 'number') throw new InputError(`$.metric: the env's info.metrics has no number at ${metric.slice('metrics.'.length)}`, metric);
  return v;
}

/** A setting's episode jobs (cluster settings): the exact jobs the env replays for each seed. */
export function settingEpisodes(context: EnvContext, seeds: readonly number[]): { seed: number; origin: number; total: number; jobs: Job[] }[] {
  return seeds.map((seed) => {
    const e = context.episodeJobs(seed);
    return { seed, origin: e.origin, total: e.jobs.length, jobs: fittingJobs(context, e.jobs) };
  });
}

/**
 * One batch heuristic of a cluster setting on its episodes, as the batch scheduler runs it: each
 * episode's summary (null where the engine refused a start: an IRMaSim manager's placement that
 * ignores node memory) and whether it finished every job of every episode.
 */
export function playClusterHeuristic(
  setting: Setting,
  context: EnvContext,
  h: ClusterHeuristic,
  eps: readonly { jobs: Job[] }[],
): { summaries: (Summary | null)[]; complete: boolean } {
  const c = context.config;
  const o = { fit: c.node_fit, commitHead: setting.heuristics.commit_head, enforceMemory: c.enforce_memory, walltimeKill: c.walltime_kill, engine: c.engine };
  let complete = true;
  const summaries = eps.map((e) => {
    try {
      const s = runClusterHeuristic(h, context.platform, e.jobs, o);
      if (s.jobs_finished < e.jobs.length) complete = false;
      return s;
    } catch (err) {
      if (h.kind !== 'irmasim') throw err;
      complete = false;
      return null;
    }
  });
  return { summaries, complete };
}

/**
 * The offered load of an episode's jobs on `platform`: their work over the platform's capacity
 * during the span from the first to the last submission (a delay job's run time x tasks over the
 * cores; an ops job's operations x tasks over every core at its speed).
 */
export function offeredLoad(platform: EnvContext['platform'], jobs: readonly Job[]): number {
  let ops = 0;
  for (let n = 0; n < platform.nodeCount; n++) ops += platform.nodeMops[n]! * 1e6;
  const span = jobs[jobs.length - 1]!.subtime - jobs[0]!.subtime;
  let work = 0;
  for (const j of jobs) work += j.work === 'ops' ? (j.ntasks * j.ops) / ops : (j.ntasks * j.runtime) / platform.coreCount;
  return span > 0 ? work / span : Number.POSITIVE_INFINITY;
}

/** Runs the heuristics of `setting` on the episodes of `seeds`. */
export function runHeuristics(
  setting: Setting,
  seeds: readonly number[],
): { episodes: { seed: number; origin: number }[]; jobs?: number[]; rows: PolicyRow[] } {
  if (isClusterSetting(setting)) {
    const context = makeContext(setting.env.id, setting.env.config);
    const eps = settingEpisodes(context, seeds);
    const rows = clusterHeuristics(setting).map((h): PolicyRow => {
      const t0 = performance.now();
      const r = playClusterHeuristic(setting, context, h, eps);
      const per = r.summaries.map((x) => (x ? clusterMetric(setting.metric, x) : Number.NaN));
      return {
        name: h.name,
        kind: 'heuristic',
        mean: mean(per),
        per_episode: per,
        complete: r.complete,
        seconds: (performance.now() - t0) / 1000,
        observes: heuristicObserves(setting, h.name),
      };
    });
    return { episodes: eps.map((e) => ({ seed: e.seed, origin: e.origin })), jobs: eps.map((e) => e.total), rows };
  }
  const loaded = loadEnv(setting.env.id, setting.env.config);
  const env = makeEnv(loaded);
  const rows = setting.heuristics.agents!.map((name): PolicyRow => {
    const agent = systemAgent(setting.env.id, name, `setting ${setting.name}`);
    const t0 = performance.now();
    const per = seeds.map((seed) => systemMetric(setting.metric, playEpisode(env, agent, seed)));
    return {
      name,
      kind: 'heuristic',
      mean: mean(per),
      per_episode: per,
      complete: true,
      seconds: (performance.now() - t0) / 1000,
      observes: heuristicObserves(setting, name),
    };
  });
  env.close();
  return { episodes: seeds.map((seed) => ({ seed, origin: -1 })), rows };
}

/** The best complete heuristic row (by mean, the setting's direction; ties: the first listed). */
export function bestHeuristic(rows: readonly PolicyRow[], lowerIsBetter: boolean): PolicyRow {
  let best: PolicyRow | undefined;
  for (const r of rows) {
    if (r.kind !== 'heuristic' || !r.complete) continue;
    if (!best || (lowerIsBetter ? r.mean < best.mean : r.mean > best.mean)) best = r;
  }
  if (!best) throw new Error('no heuristic finished every episode');
  return best;
}

/** The seed of a learned policy's bootstrap stream: the leaderboard seed, the setting and the policy. */
export function bootstrapSeed(seed: number, setting: string, policy: string): string {
  return `leaderboard/${seed}/${setting}/${policy}`;
}

/** Compares each learned row with the best heuristic (see stats.ts). */
export function compareLearned(
  seed: number,
  setting: string,
  rows: readonly PolicyRow[],
  lowerIsBetter: boolean,
): { best: PolicyRow; learned: LearnedComparison[] } {
  const best = bestHeuristic(rows, lowerIsBetter);
  const learned = rows
    .filter((r) => r.kind === 'learned')
    .map((r) => {
      const diff = pairedDiff(r.per_episode, best.per_episode, bootstrapSeed(seed, setting, r.name));
      return { name: r.name, diff, verdict: verdictOf(diff.ci95, lowerIsBetter) };
    });
  return { best, learned };
}

/** Runs one setting: heuristics, learned players, reference players. */
export async function runSetting(
  setting: Setting,
  seed: number,
  episodes: number,
  learned: readonly LearnedPlayer[] = [],
  references: readonly ReferencePlayer[] = [],
): Promise<SettingResult> {
  const t0 = performance.now();
  const played = await playSetting(setting, episodeSeeds(seed, episodes), learned, references);
  return settingResult(setting, seed, played.episodes, played.rows, (performance.now() - t0) / 1000);
}

/**
 * Plays the episodes of `seeds` (all of a setting's, or a shard's: shard.ts) under the setting's
 * heuristics, learned players and reference players: their rows, each episode's figure in `seeds`'
 * order, before any comparison.
 */
export async function playSetting(
  setting: Setting,
  seeds: readonly number[],
  learned: readonly LearnedPlayer[] = [],
  references: readonly ReferencePlayer[] = [],
): Promise<{ episodes: { seed: number; origin: number }[]; rows: PolicyRow[] }> {
  const h = runHeuristics(setting, seeds);
  const rows = [...h.rows];
  for (const p of learned) if (p.identity) checkParity(setting.name, p.name, p.model, p.identity.observes, heuristicsObserve(h.rows));
  const plays: ['learned' | 'reference', LearnedPlayer | ReferencePlayer][] = [
    ...learned.map((p) => ['learned', p] as ['learned', LearnedPlayer]),
    ...references.map((p) => ['reference', p] as ['reference', ReferencePlayer]),
  ];
  for (const [kind, p] of plays) {
    const t = performance.now();
    const r: { per_episode: number[]; complete: boolean; episodes?: { origin: number; jobs: number }[] } = await p.play(setting, seeds, h.rows);
    r.episodes?.forEach((e, i) => {
      const o = h.episodes[i]!.origin;
      const n = h.jobs?.[i];
      if (e.origin !== o || (n !== undefined && e.jobs !== n))
        throw new Error(
          `${p.name} played another episode than the heuristics on seed ${seeds[i]}: origin ${e.origin} and ${e.jobs} jobs, against origin ${o} and ${n} jobs`,
        );
    });
    rows.push({
      name: p.name,
      kind,
      model: p.model,
      mean: mean(r.per_episode),
      per_episode: r.per_episode,
      complete: r.complete,
      seconds: (performance.now() - t) / 1000,
      ...(kind === 'learned' ? (p as LearnedPlayer).identity : { observes: (p as ReferencePlayer).observes ?? REFERENCE_OBSERVES }),
    });
  }
  return { episodes: h.episodes, rows };
}

/** What a setting's result says of the setting itself. */
export type SettingHeader = Pick<Setting, 'name' | 'description' | 'why' | 'metric' | 'lower_is_better'> & { env: Pick<Setting['env'], 'id'> };

/** What a result (or a shard's piece of one, shard.ts) says of its setting, in the order it says it. */
export function headerFields(setting: SettingHeader): Pick<SettingResult, 'name' | 'description' | 'why' | 'env_id' | 'metric' | 'lower_is_better'> {
  return {
    name: setting.name,
    description: setting.description,
    why: setting.why,
    env_id: setting.env.id,
    metric: setting.metric,
    lower_is_better: setting.lower_is_better,
  };
}

/** A setting's result from its rows (heuristics, learned, references) on the episodes of leaderboard seed `seed`. */
export function settingResult(
  setting: SettingHeader,
  seed: number,
  episodes: { seed: number; origin: number }[],
  rows: PolicyRow[],
  seconds: number,
): SettingResult {
  const { best, learned } = compareLearned(seed, setting.name, rows, setting.lower_is_better);
  return {
    ...headerFields(setting),
    episode_seeds: episodes,
    policies: rows,
    best_heuristic: best.name,
    learned,
    seconds,
  };
}
