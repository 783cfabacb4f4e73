/**
 * A learned policy for the envs whose observation is one flat vector and whose action is
 * `Discrete(A)` with a mask: Malleable-v0, CoSched-v0, Fair-v0, Slurm-v0 (and PolicyPair-v0 with a
 * `flat` or `minimal` observation). The per-row network of features.ts needs job and node rows,
 * which these envs do not have; this policy reads the whole observation.
 *
 * The policy (a linear score per action, or one weight vector over a per-action feature map, with
 * optional hidden units; `allowed_actions` restricts the actions: CoSched-v0's MPL_TOTAL actions,
 * see docs/agents.md) and its `linear.json` are flatPolicy.ts's; this module trains it.
 *
 * **Training: evolution strategies** (the antithetic, rank-shaped step of es.ts): every
 * candidate of a generation plays the generation's `episodes` training episodes, and each episode's
 * metric `m` (the leaderboard setting's: the return or a number of the env's end `info.metrics`) is
 * compared with the reference heuristic agent's `r` on the same episode:
 * `fitness = mean(sign x (m - r) / |r|)`, sign +1 when lower is better, -1 otherwise (so a fitness
 * of -0.05 is "5 % better than the reference"); with `fitness: "relative_of_means"`,
 * `sign x (mean m - mean r) / |mean r|` (the leaderboard's comparison). `init: "reference"` starts from a theta that makes
 * the reference's most frequent choice (the action it takes most often on the first generation's
 * episodes gets bias 1): the search starts near the heuristic rather than at random; with a
 * feature map, `init` may instead name feature weights (`{"rank": -30, "align": 1, "wait": -0.5}`
 * is DRF), the others 0. `init: "best_fixed"` starts from the action that, held for whole episodes
 * (the lowest valid action where it is masked), has the best fitness on the validation episodes (on
 * PolicyPair-v0: the best fixed pair on training episodes, chosen without looking at any held-out
 * episode).
 *
 * **Validation and the switch search.** With `validation_episodes` (fixed training episodes drawn
 * from `derive(seed, 'es/validation')`), the initial theta and each generation's are scored there
 * and the model is the best of them (the rank-shaped step follows the Gaussian-smoothed fitness,
 * whose optimum can lie off a sharp one), so the model is never worse than its start on those episodes.
 * `switch_search` then tries, before ES, every one-feature switching rule from the initial action
 * `a0` to one of the `alternatives` next-best fixed actions `b`: "play b when `x_i > t`" (or
 * `x_i < t`), for every observation feature i and every threshold t among the `quantiles` of `x_i`
 * over the states a0 meets on the validation episodes. In the linear form this is
 * `W[b][i] = +-1, b[b] = 1 -+ t` beside `b[a0] = 1` (a0 scores 1, b scores `1 +- (x_i - t)`, every
 * other action 0); the rule with the best validation fitness is kept when it beats a0 alone there
 * AND on as many other training episodes (`derive(seed, 'es/switch-check')`), since the best of many
 * rules on the same episodes looks better than it is.
 *
 * Seeds: generation g draws its episodes' reset seeds below 2^31 from `derive(seed, 'es/episodes/<g>')`
 * and its noise from `derive(seed, 'es/noise/<g>')`; a checkpoint (`es.json`) resumes exactly.
 *
 * Training config (`clustergym train --config`): `{ "format": "clustergym-es-flat", "setting",
 * "env": { "id", "config" }, "metric", "lower_is_better", "seed", "es": { ... }, "checkpoint_every",
 * "time_limit" }`.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../../src/core/errors.js';
import { derive } from '../../src/core/rng.js';
import { quantileLowerRank } from '../../src/core/statistics.js';
import type { GymEnv } from '../../envs/gym.js';
import { loadEnv, makeEnv } from '../../envs/registry.js';
import { type EnvAgent, playEpisode } from '../episode.js';
import { TRAINING_SEEDS } from '../leaderboard/run.js';
import { cpuSeconds, flatIdentity } from './card.js';
import { portableConfig } from './config.js';
import { esGeneration, keepBest } from './es.js';
import { EsStateSchema } from './evolve.js';
import { episodeMetric, type FlatEsConfig, flatAction, flatShape, linearScorer, playFlat, referenceAgent, writeLinear } from './flatPolicy.js';

export * from './flatPolicy.js';

/** Progress of a flat ES run, after each generation. */
export interface FlatProgress {
  generation: number;
  generations: number;
  /** The centre's fitness on the generation's episodes (relative to the reference; lower is better). */
  fitness: number;
  seconds: number;
}

/** es.json of a flat ES checkpoint: evolve.ts's, and what the start was. */
const FlatEsStateSchema = EsStateSchema.extend({
  /** What the start was (`best_fixed` and `switch_search`), for the card. */
  start: z.record(z.unknown()).nullable().default(null),
});

/** The agent that plays action `a` wherever the mask allows it, else the lowest valid action. */
export function fixedActionAgent(a: number): EnvAgent<GymEnv> {
  return {
    name: `fixed-${a}`,
    act: (env) => {
      const mask = env.actionMask();
      if (mask[a] === 1) return a;
      const v = mask.indexOf(1);
      if (v < 0) throw new Error('no valid action in the mask');
      return v;
    },
  };
}

/** Trains the linear policy of `c`; writes OUT/config.json, OUT/metrics.csv, OUT/checkpoints/gen-NNNNN/, OUT/model/. */
export function trainFlat(
  c: FlatEsConfig,
  options: { outDir: string; resume?: string | undefined; onProgress?: (p: FlatProgress) => void; log?: (line: string) => void },
): { modelDir: string; generations: number; steps: number; episodes: number; seconds: number } {
  const es = c.es;
  const t0 = performance.now();
  const cpuStart = process.cpuUsage();
  const log = options.log ?? (() => {});
  const env = makeEnv(loadEnv(c.env.id, c.env.config));
  const refEnv = makeEnv(loadEnv(c.env.id, c.env.config));
  const reference = referenceAgent(c.env.id, es.reference);
  const { A, D } = flatShape(env);
  const scorer = linearScorer(c, c.env.id, A, D);
  const size = scorer.size;
  const refCache = new Map<number, number>();
  const refValue = (seed: number) => {
    let v = refCache.get(seed);
    if (v === undefined) {
      v = episodeMetric(c.metric, playEpisode(refEnv, reference, seed));
      refCache.set(seed, v);
    }
    return v;
  };
  const sign = c.lower_is_better ? 1 : -1;
  const episodesOf = (g: number) => {
    const rng = derive(c.seed, `es/episodes/${g}`);
    return Array.from({ length: es.episodes }, () => rng.int(2 ** 31));
  };

  let state: z.output<typeof FlatEsStateSchema> = { generation: 0, steps: 0, episodes: 0, theta: [], best: null, start: null };
  let theta: Float64Array = new Float64Array(size);
  const validationRng = derive(c.seed, 'es/validation');
  const validation = Array.from({ length: es.validation_episodes }, () => validationRng.int(2 ** 31));
  if (options.resume) {
    const file = join(options.resume, 'es.json');
    if (!existsSync(file)) throw new InputError('es.json is missing: not a checkpoint of a flat ES run', options.resume);
    const r = FlatEsStateSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!r.success) throw inputErrorFromIssues(file, r.error.issues);
    if (r.data.theta.length !== size) throw new InputError(`$.theta: ${r.data.theta.length} parameters, the policy has ${size}`, file);
    state = r.data;
    theta = Float64Array.from(state.theta);
    log(`resuming from ${options.resume} at generation ${state.generation}`);
  } else if (typeof es.init === 'object') {
    if (scorer.names === null) throw new InputError('$.es.init: named weights need a feature map (`features`); use "zero" or "reference"', 'es.init');
    for (const [k, v] of Object.entries(es.init)) {
      const i = scorer.names.indexOf(k);
      if (i < 0) throw new InputError(`$.es.init: no feature ${JSON.stringify(k)}; expected one of ${scorer.names.join(', ')}`, 'es.init');
      theta[i] = v;
    }
  } else if (es.init === 'reference') {
    if (scorer.features !== 'actions') throw new InputError('$.es.init: "reference" sets a per-action bias; with a feature map name the weights', 'es.init');
    // bias 1 on the reference's most frequent action over generation 0's episodes
    const counts = new Float64Array(A);
    for (const seed of episodesOf(0))
      playEpisode(
        refEnv,
        {
          name: 'count',
          act: (en, obs) => {
            const a = reference.act(en, obs);
            counts[a]!++;
            return a;
          },
        },
        seed,
      );
    let best = 0;
    for (let a = 1; a < A; a++) if (counts[a]! > counts[best]!) best = a;
    theta[best * (D + 1) + D] = 1;
  } else if (es.init === 'best_fixed') {
    if (scorer.features !== 'actions') throw new InputError('$.es.init: "best_fixed" sets a per-action bias; with a feature map name the weights', 'es.init');
    theta = searchStart(env, c, validation, refValue, log, state);
  }
  mkdirSync(options.outDir, { recursive: true });
  writeFileSync(join(options.outDir, 'config.json'), `${JSON.stringify(portableConfig(c, options.outDir), null, 1)}\n`);
  const metricsFile = join(options.outDir, 'metrics.csv');
  if (!options.resume || !existsSync(metricsFile)) writeFileSync(metricsFile, 'generation,steps,episodes,fitness,best_candidate,reference_mean,seconds\n');

  const fitness = (th: Float64Array, seeds: readonly number[]) => {
    const values = seeds.map((seed) => {
      const r = playFlat(env, th, seed, c.metric, c);
      state.steps += r.steps;
      state.episodes++;
      return r.value;
    });
    return flatFitness(es.fitness, sign, values, seeds.map(refValue));
  };
  const validate = (g: number) => {
    if (validation.length === 0) return;
    const f = fitness(theta, validation);
    state.best = keepBest(state.best, g, f, theta);
    log(
      `generation ${g}: ${(100 * f).toFixed(2)}% against ${es.reference} on the ${validation.length} validation episodes (best: generation ${state.best.generation})`,
    );
  };
  if (state.generation === 0) validate(0);
  for (let g = state.generation; g < es.generations; g++) {
    const seeds = episodesOf(g);
    const center = fitness(theta, seeds);
    const f = esGeneration(theta, es, derive(c.seed, `es/noise/${g}`), (candidate) => fitness(candidate, seeds));
    state = { ...state, generation: g + 1, theta: Array.from(theta) };
    validate(g + 1);
    const seconds = (performance.now() - t0) / 1000;
    const refMean = seeds.reduce((a, s) => a + refValue(s), 0) / seeds.length;
    appendFileSync(metricsFile, `${g + 1},${state.steps},${state.episodes},${center},${Math.min(...f)},${refMean},${seconds}\n`);
    options.onProgress?.({ generation: g + 1, generations: es.generations, fitness: center, seconds });
    const timeUp = c.time_limit !== null && seconds >= c.time_limit;
    if ((c.checkpoint_every > 0 && (g + 1) % c.checkpoint_every === 0) || g + 1 === es.generations || timeUp) {
      const dir = join(options.outDir, 'checkpoints', `gen-${String(g + 1).padStart(5, '0')}`);
      writeLinear(dir, c.env.id, theta, A, D, scorer, c);
      writeFileSync(join(dir, 'es.json'), `${JSON.stringify(state)}\n`);
      writeFileSync(join(dir, 'config.json'), `${JSON.stringify(portableConfig(c, dir), null, 1)}\n`);
      log(`checkpoint ${dir}`);
    }
    if (timeUp) {
      log(`time limit of ${c.time_limit} s reached after generation ${g + 1}`);
      break;
    }
  }
  env.close();
  refEnv.close();
  // the model: the best theta on the validation episodes (or the last one without them)
  if (state.best) theta = Float64Array.from(state.best.theta);
  const modelDir = join(options.outDir, 'model');
  writeLinear(modelDir, c.env.id, theta, A, D, scorer, c);
  writeFileSync(join(modelDir, 'config.json'), `${JSON.stringify(portableConfig(c, modelDir), null, 1)}\n`);
  const seconds = (performance.now() - t0) / 1000;
  writeFileSync(
    join(modelDir, 'card.json'),
    `${JSON.stringify(
      {
        format: 'clustergym-model-card',
        env_id: c.env.id,
        setting: c.setting,
        ...flatIdentity(c),
        algorithm: 'es-linear-flat',
        seed: c.seed,
        // every episode seed training draws is below 2^31; the leaderboard evaluates from 2^32
        training_seeds: TRAINING_SEEDS,
        steps: state.steps,
        generations: state.generation,
        episodes: state.episodes,
        wall_seconds: seconds,
        cpu_seconds: cpuSeconds(cpuStart),
        resumed_from: options.resume ?? null,
        features: c.features,
        hidden: c.hidden,
        es: { ...es },
        ...(state.start ? { start: state.start } : {}),
        ...(state.best ? { selected: { generation: state.best.generation, validation_fitness: state.best.fitness } } : {}),
      },
      null,
      1,
    )}\n`,
  );
  return { modelDir, generations: state.generation, steps: state.steps, episodes: state.episodes, seconds };
}

/**
 * A candidate's fitness from its metric `values` and the reference's `refs` on the same episodes (module
 * comment): `mean_relative`, the mean of `sign x (m - r) / |r|`; `relative_of_means`, `sign x (sum m - sum r)
 * / |sum r|` (a |r| or sum of 0 counts as 1).
 */
export function flatFitness(mode: FlatEsConfig['es']['fitness'], sign: number, values: readonly number[], refs: readonly number[]): number {
  let f = 0;
  let sum = 0;
  let refSum = 0;
  for (let i = 0; i < values.length; i++) {
    f += (sign * (values[i]! - refs[i]!)) / (Math.abs(refs[i]!) || 1);
    sum += values[i]!;
    refSum += refs[i]!;
  }
  return mode === 'relative_of_means' ? (sign * (sum - refSum)) / (Math.abs(refSum) || 1) : f / values.length;
}

/**
 * `init: "best_fixed"` and `switch_search` (module comment): the starting theta, scored on the
 * validation episodes; records what it chose in `state.start` and counts its steps in `state`.
 */
function searchStart(
  env: GymEnv,
  c: FlatEsConfig,
  validation: readonly number[],
  refValue: (seed: number) => number,
  log: (line: string) => void,
  state: { steps: number; episodes: number; start: Record<string, unknown> | null },
): Float64Array {
  const { A, D } = flatShape(env);
  const sign = c.lower_is_better ? 1 : -1;
  const rel = (value: number, seed: number) => {
    const ref = refValue(seed);
    return (sign * (value - ref)) / (Math.abs(ref) || 1);
  };
  // each action held fixed
  const fixed = Array.from({ length: A }, (_, a) => {
    let f = 0;
    for (const seed of validation) {
      const e = playEpisode(env, fixedActionAgent(a), seed);
      state.steps += e.steps;
      state.episodes++;
      f += rel(episodeMetric(c.metric, e), seed);
    }
    return f / validation.length;
  });
  const order = fixed.map((f, a) => ({ f, a })).sort((x, y) => x.f - y.f || x.a - y.a);
  const a0 = order[0]!.a;
  const theta = new Float64Array(A * (D + 1));
  theta[a0 * (D + 1) + D] = 1;
  log(`best fixed action: ${a0} (${(100 * order[0]!.f).toFixed(2)}% against ${c.es.reference} on the validation episodes)`);
  state.start = { fixed_action: a0, fixed_fitness: order[0]!.f, next_best: order.slice(1, 4).map((o) => ({ action: o.a, fitness: o.f })) };
  const search = c.es.switch_search;
  if (!search) return theta;
  // the states a0 meets: thresholds per feature
  const seen: number[][] = Array.from({ length: D }, () => []);
  for (const seed of validation)
    playEpisode(
      env,
      {
        name: 'observe',
        act: (en, obs) => {
          const x = obs as Float32Array;
          for (let i = 0; i < D; i++) seen[i]!.push(x[i]!);
          return flatAction(theta, x, en.actionMask(), A, D);
        },
      },
      seed,
    );
  let best = { f: order[0]!.f, rule: null as null | { to: number; feature: number; above: boolean; threshold: number } };
  const cand = new Float64Array(theta.length);
  /** Writes into `w` the rule "action `to` when `feature` is above (or below) `threshold`". */
  const setRule = (w: Float64Array, to: number, feature: number, above: boolean, threshold: number): void => {
    w[to * (D + 1) + feature] = above ? 1 : -1;
    w[to * (D + 1) + D] = above ? 1 - threshold : 1 + threshold;
  };
  /** `cand` = `theta` with that rule. */
  const withRule = (to: number, feature: number, above: boolean, threshold: number): void => {
    cand.set(theta);
    setRule(cand, to, feature, above, threshold);
  };
  for (const { a: b } of order.slice(1, 1 + search.alternatives))
    for (let i = 0; i < D; i++) {
      const thresholds = [...new Set(search.quantiles.map((q) => quantileLowerRank(seen[i]!, q)))];
      for (const t of thresholds)
        for (const above of [true, false]) {
          withRule(b, i, above, t);
          let f = 0;
          for (const seed of validation) {
            const r = playFlat(env, cand, seed, c.metric);
            state.steps += r.steps;
            state.episodes++;
            f += rel(r.value, seed);
          }
          f /= validation.length;
          if (f < best.f) best = { f, rule: { to: b, feature: i, above, threshold: t } };
        }
    }
  if (best.rule) {
    // the best of many rules on the same episodes looks better than it is: confirm it on as many
    // other training episodes (drawn from `derive(seed, 'es/switch-check')`) before keeping it
    const rng = derive(c.seed, 'es/switch-check');
    const check = Array.from({ length: validation.length }, () => rng.int(2 ** 31));
    const { to, feature, above, threshold } = best.rule;
    withRule(to, feature, above, threshold);
    let gain = 0;
    for (const seed of check) {
      const r = playFlat(env, cand, seed, c.metric);
      const r0 = playFlat(env, theta, seed, c.metric);
      state.steps += r.steps + r0.steps;
      state.episodes += 2;
      gain += rel(r.value, seed) - rel(r0.value, seed);
    }
    gain /= check.length;
    log(`switch rule on the ${check.length} check episodes: ${(100 * gain).toFixed(2)}% against the fixed action`);
    state.start = { ...state.start, switch_check: gain };
    if (gain >= 0) best = { f: order[0]!.f, rule: null };
  }
  if (best.rule) {
    const { to, feature, above, threshold } = best.rule;
    setRule(theta, to, feature, above, threshold);
    log(`switch rule: action ${to} when feature ${feature} ${above ? '>' : '<'} ${threshold} (${(100 * best.f).toFixed(2)}% on the validation episodes)`);
  } else log('switch search: no rule beats the best fixed action on the validation episodes');
  state.start = { ...state.start, switch_rule: best.rule, switch_fitness: best.f };
  return theta;
}
