/**
 * A learned policy for the envs whose observation is one flat vector and whose action is
 * `Discrete(A)` with a mask: Malleable-v0, CoSched-v0, Fair-v0, Slurm-v0 (and PolicyPair-v0 with a
 * `flat` or `minimal` observation). The per-row network of features.ts needs job and node rows,
 * which these envs do not have; this policy reads the whole observation.
 *
 * **Policy.** With `features: "actions"` (the default) a linear score per action over the
 * observation `x` (length D) and a constant: `s_a = W[a] . x + b[a]`; the agent plays the valid
 * action (mask 1) of highest score, ties to the lowest index. Parameters `theta = (W, b)`,
 * A x (D + 1) numbers, stored in `linear.json`. With a feature map (`features: "fair-pairs"`,
 * actionFeatures.ts) one weight vector shared by all actions scores each action's features,
 * `s_a = theta . phi(x, mask, a)`: a per-(task, host) scoring policy with a handful of parameters.
 * With `hidden: h > 0` (feature maps only) the score is a one-hidden-layer tanh network over the
 * same features, `s_a = sum_j v_j tanh(W_j . phi_a + c_j)`: h x F + 2h parameters, named
 * `h<j>:<feature>`, `h<j>:bias` and `out:h<j>` for `init`.
 * `allowed_actions` restricts the policy to a subset of the actions (the decision the setting's
 * heuristics make; CoSched-v0: the MPL_TOTAL actions, see docs/agents.md); when none of them is
 * valid in a state it plays the env's mask.
 *
 * **Training: evolution strategies** (the same antithetic, rank-shaped step as evolve.ts): every
 * candidate of a generation plays the generation's `episodes` training episodes, and each episode's
 * metric `m` (the leaderboard setting's: the return or a number of the env's end `info.metrics`) is
 * compared with the reference heuristic agent's `r` on the same episode:
 * `fitness = mean(sign x (m - r) / |r|)`, sign +1 when lower is better, -1 otherwise (so a fitness
 * of -0.05 is "5 % better than the reference"). `init: "reference"` starts from a theta that makes
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
import { resolveConfigPaths } from '../../envs/config.js';
import { loadEnv, makeEnv } from '../../envs/registry.js';
import { type EnvAgent, playEpisode } from '../episode.js';
import { PolicyPairAgent } from '../heuristics/index.js';
import { systemAgent } from '../leaderboard/heuristics.js';
import { CLUSTER_METRICS } from '../leaderboard/settings.js';
import { clusterMetric, systemMetric, TRAINING_SEEDS } from '../leaderboard/run.js';
import { FEATURE_MAPS, featureAction, featureMap } from './actionFeatures.js';
import { portableConfig, TrainingSeedSchema } from './config.js';
import { EsStateSchema } from './evolve.js';

/** The format tag of a flat ES training config. */
export const FLAT_CONFIG_FORMAT = 'clustergym-es-flat';
/** The format tag of linear.json. */
export const LINEAR_FORMAT = 'clustergym-linear-policy';

/** A flat ES training config. */
export const FlatEsConfigSchema = z
  .object({
    format: z.literal(FLAT_CONFIG_FORMAT),
    /** The leaderboard setting the model plays (written to its card). */
    setting: z.string().min(1),
    env: z.object({ id: z.string().min(1), config: z.record(z.unknown()).default({}) }).strict(),
    /** `return` or `metrics.KEY`, as the setting ranks (PolicyPair-v0: `mean_bsld`, `mean_wait` or `edp`). */
    metric: z
      .string()
      .regex(/^(return|mean_bsld|mean_wait|edp|metrics\.[A-Za-z0-9_.]+)$/, 'expected "return", "metrics.KEY", "mean_bsld", "mean_wait" or "edp"'),
    lower_is_better: z.boolean(),
    /** `actions`: a weight row per action over the observation; or a feature map of actionFeatures.ts (one weight per feature). */
    features: z.enum(['actions', ...FEATURE_MAPS]).default('actions'),
    /** The actions the policy may play (absent: all); written to linear.json. */
    allowed_actions: z.array(z.number().int().min(0)).min(1).optional(),
    /** Hidden tanh units of the scorer (feature maps only; 0: linear). */
    hidden: z.number().int().min(0).max(64).default(0),
    seed: TrainingSeedSchema,
    es: z
      .object({
        generations: z.number().int().min(1).max(100_000).default(20),
        population: z.number().int().min(1).max(1024).default(8),
        episodes: z.number().int().min(1).max(1024).default(4),
        sigma: z.number().positive().max(100).default(0.5),
        learning_rate: z.number().positive().max(100).default(0.5),
        /** The heuristic agent every episode is compared with: a name of the setting's `heuristics.agents`, or on PolicyPair-v0 a fixed pair (`sjf:high_mem`). */
        reference: z.string().min(1),
        /**
         * `zero`: theta = 0 (the lowest valid action); `reference`: bias 1 on the reference's most
         * frequent action; `best_fixed`: bias 1 on the action that, held fixed, is best on the
         * validation episodes (needs `validation_episodes`); with a feature map, feature name ->
         * weight (the others 0).
         */
        init: z.union([z.enum(['zero', 'reference', 'best_fixed']), z.record(z.number())]).default('reference'),
        /** Fixed training episodes scoring the initial theta and each generation's; the model is the best (0: the last theta). */
        validation_episodes: z.number().int().min(0).max(1024).default(0),
        /** One-feature switching rules tried before ES (see the module comment; needs `init: "best_fixed"`). */
        switch_search: z
          .object({
            /** The next-best fixed actions a rule may switch to. */
            alternatives: z.number().int().min(1).max(64).default(2),
            /** Thresholds: these quantiles of each feature over the initial action's validation states. */
            quantiles: z.array(z.number().min(0).max(1)).min(1).max(16).default([0.25, 0.5, 0.75]),
          })
          .strict()
          .optional(),
      })
      .strict(),
    checkpoint_every: z.number().int().min(0).default(5),
    time_limit: z.number().positive().nullable().default(null),
  })
  .strict()
  .refine((c) => c.es.init !== 'best_fixed' || c.es.validation_episodes > 0, {
    message: '`es.init: "best_fixed"` chooses the action on the validation episodes: set `es.validation_episodes` > 0',
    path: ['es', 'validation_episodes'],
  })
  .refine((c) => c.es.switch_search === undefined || c.es.init === 'best_fixed', {
    message: '`es.switch_search` switches away from the best fixed action: set `es.init: "best_fixed"`',
    path: ['es', 'switch_search'],
  });

/** A validated flat ES config. */
export type FlatEsConfig = z.output<typeof FlatEsConfigSchema>;

/** Validates a flat ES config (`where` names the file; relative platform/workload paths are taken from `base`, and stored absolute). */
export function parseFlatEsConfig(raw: unknown, where: string, base?: string): FlatEsConfig {
  const r = FlatEsConfigSchema.safeParse(raw);
  if (!r.success) throw inputErrorFromIssues(where, r.error.issues);
  const config = base === undefined ? { ...r.data.env.config } : resolveConfigPaths(r.data.env.config, base);
  loadEnv(r.data.env.id, config); // the env's own checks
  return { ...r.data, env: { ...r.data.env, config } };
}

/** Whether a parsed JSON training config is a flat ES one. */
export function isFlatEsConfig(raw: unknown): boolean {
  return typeof raw === 'object' && raw !== null && (raw as { format?: unknown }).format === FLAT_CONFIG_FORMAT;
}

/** linear.json: the policy's parameters. */
export const LinearPolicySchema = z
  .object({
    format: z.literal(LINEAR_FORMAT),
    env_id: z.string().min(1),
    actions: z.number().int().min(1),
    observation_size: z.number().int().min(1),
    /** `actions`, or the feature map whose features the weights score (actionFeatures.ts). */
    features: z.enum(['actions', ...FEATURE_MAPS]).default('actions'),
    /** The features' names (feature maps only). */
    feature_names: z.array(z.string()).optional(),
    /** The actions the policy may play (absent: all). */
    allowed_actions: z.array(z.number().int().min(0)).min(1).optional(),
    /** Hidden tanh units (feature maps only; 0: linear). */
    hidden: z.number().int().min(0).max(64).default(0),
    /** `actions`: A x D weights, row-major; a feature map: one weight per feature. */
    weights: z.array(z.number()),
    /** `actions`: A biases; a feature map: none. */
    bias: z.array(z.number()),
  })
  .strict()
  .refine((p) => (p.features === 'actions' ? p.weights.length === p.actions * p.observation_size && p.bias.length === p.actions : p.bias.length === 0), {
    message: 'features "actions": weights must hold actions x observation_size numbers and bias actions; a feature map: bias must be empty',
  });

/** linear.json's contents. */
export type LinearPolicy = z.output<typeof LinearPolicySchema>;

/** The greedy valid action of `theta` (A x (D + 1): each row D weights then the bias) on `obs`. */
export function flatAction(theta: ArrayLike<number>, obs: ArrayLike<number>, mask: ArrayLike<number>, A: number, D: number): number {
  let best = -Infinity;
  let arg = -1;
  for (let a = 0; a < A; a++) {
    if (mask[a] !== 1) continue;
    const o = a * (D + 1);
    let s = theta[o + D]!;
    for (let i = 0; i < D; i++) s += theta[o + i]! * obs[i]!;
    if (s > best) {
      best = s;
      arg = a;
    }
  }
  if (arg < 0) throw new Error('no valid action in the mask');
  return arg;
}

/** The env's flat observation size and action count. */
export function flatShape(env: GymEnv): { A: number; D: number } {
  const space = env.observationSpace as { type?: string; shape?: number[] };
  if (space.type !== 'Box' || !space.shape || space.shape.length !== 1)
    throw new InputError(`${env.id}: the linear policy reads a flat Box observation, found ${JSON.stringify(space).slice(0, 120)}`, 'env');
  return { A: env.actionSpace.n, D: space.shape[0]! };
}

/** What defines a flat policy besides theta (the fields of a training config and of linear.json). */
export interface FlatPolicySpec {
  features: FlatEsConfig['features'];
  allowed_actions?: readonly number[] | undefined;
  hidden?: number | undefined;
}

/** The default spec: a weight row per action, every action, linear. */
export const PER_ACTION: FlatPolicySpec = { features: 'actions' };

/** How theta picks an action: its parameter count and its greedy valid action on an observation and mask. */
export interface LinearScorer {
  readonly features: FlatEsConfig['features'];
  /** Parameters. */
  readonly size: number;
  /** The parameters' names (feature maps only). */
  readonly names: readonly string[] | null;
  act(theta: ArrayLike<number>, obs: ArrayLike<number>, mask: ArrayLike<number>): number;
}

/** The scorer of `spec` on an env with A actions and D observations (playing only the allowed actions when one is valid). */
export function linearScorer(spec: FlatPolicySpec, envId: string, A: number, D: number): LinearScorer {
  const { features } = spec;
  const restrict = restriction(A, spec.allowed_actions);
  const hidden = spec.hidden ?? 0;
  if (features === 'actions') {
    if (hidden > 0) throw new InputError('hidden units need a feature map (`features`)', 'hidden');
    return { features, size: A * (D + 1), names: null, act: (theta, obs, mask) => flatAction(theta, obs, restrict(mask), A, D) };
  }
  const map = featureMap(features, envId, A, D);
  const F = map.size;
  const phi = new Float64Array(A * F);
  if (hidden === 0)
    return {
      features,
      size: F,
      names: map.names,
      act(theta, obs, mask) {
        map.fill(obs, mask, phi);
        return featureAction(theta, phi, restrict(mask), A, F);
      },
    };
  const names: string[] = [];
  for (let j = 0; j < hidden; j++) names.push(...map.names.map((n) => `h${j}:${n}`), `h${j}:bias`);
  for (let j = 0; j < hidden; j++) names.push(`out:h${j}`);
  return {
    features,
    size: names.length,
    names,
    act(theta, obs, mask) {
      map.fill(obs, mask, phi);
      const m = restrict(mask);
      const out = hidden * (F + 1);
      let best = -Infinity;
      let arg = -1;
      for (let a = 0; a < A; a++) {
        if (m[a] !== 1) continue;
        let s = 0;
        for (let j = 0; j < hidden; j++) {
          const o = j * (F + 1);
          let z = theta[o + F]!;
          for (let i = 0; i < F; i++) z += theta[o + i]! * phi[a * F + i]!;
          s += theta[out + j]! * Math.tanh(z);
        }
        if (s > best) {
          best = s;
          arg = a;
        }
      }
      if (arg < 0) throw new Error('no valid action in the mask');
      return arg;
    },
  };
}

/** The mask restricted to `allowed` (the env's mask itself when no allowed action is valid). */
function restriction(A: number, allowed: readonly number[] | undefined): (mask: ArrayLike<number>) => ArrayLike<number> {
  if (allowed === undefined) return (mask) => mask;
  for (const a of allowed) if (a >= A) throw new InputError(`allowed_actions: ${a} is not an action (the env has ${A})`, 'allowed_actions');
  const m = new Uint8Array(A);
  return (mask) => {
    m.fill(0);
    let any = false;
    for (const a of allowed)
      if (mask[a] === 1) {
        m[a] = 1;
        any = true;
      }
    return any ? m : mask;
  };
}

/** The setting's metric of a played episode (the cluster metrics from the episode's summary). */
export function episodeMetric(metric: string, e: { return: number; metrics: unknown }): number {
  return (CLUSTER_METRICS as readonly string[]).includes(metric) ? clusterMetric(metric, e.metrics as never) : systemMetric(metric, e);
}

/** The reference agent of a flat ES run: a system env's heuristic agent, or a fixed pair on PolicyPair-v0. */
export function referenceAgent(envId: string, name: string): EnvAgent<GymEnv> {
  if (envId === 'clustergym/PolicyPair-v0') {
    const agent = new PolicyPairAgent(name);
    return { name, act: (env) => agent.act(env as never) };
  }
  return systemAgent(envId, name, '$.es.reference');
}

/** The greedy linear policy `theta` as an agent (`features` as in its linear.json). */
export function linearAgent(env: GymEnv, theta: ArrayLike<number>, spec: FlatPolicySpec = PER_ACTION): EnvAgent<GymEnv> {
  const { A, D } = flatShape(env);
  const scorer = linearScorer(spec, env.id, A, D);
  if (theta.length !== scorer.size)
    throw new InputError(
      `the policy has ${theta.length} parameters; features "${spec.features}" with ${spec.hidden ?? 0} hidden units on ${env.id} need ${scorer.size}`,
      'linear.json',
    );
  return { name: 'linear', act: (en, obs) => scorer.act(theta, obs as Float32Array, en.actionMask()) };
}

/** Plays theta greedily on the episode of `seed`; the setting's metric. */
export function playFlat(
  env: GymEnv,
  theta: ArrayLike<number>,
  seed: number,
  metric: string,
  spec: FlatPolicySpec = PER_ACTION,
): { value: number; steps: number } {
  const e = playEpisode(env, linearAgent(env, theta, spec), seed);
  return { value: episodeMetric(metric, e), steps: e.steps };
}

/** The parameters of a linear.json as the flat theta. */
export function thetaOf(p: LinearPolicy): Float64Array {
  if (p.features !== 'actions') return Float64Array.from(p.weights);
  const D = p.observation_size;
  const theta = new Float64Array(p.actions * (D + 1));
  for (let a = 0; a < p.actions; a++) {
    for (let i = 0; i < D; i++) theta[a * (D + 1) + i] = p.weights[a * D + i]!;
    theta[a * (D + 1) + D] = p.bias[a]!;
  }
  return theta;
}

/** Reads a model directory's linear.json. */
export function readLinearPolicy(dir: string): LinearPolicy {
  const file = join(dir, 'linear.json');
  if (!existsSync(file)) throw new InputError('linear.json is missing', dir);
  const r = LinearPolicySchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!r.success) throw inputErrorFromIssues(file, r.error.issues);
  return r.data;
}

function writeLinear(dir: string, envId: string, theta: Float64Array, A: number, D: number, scorer: LinearScorer, spec: FlatPolicySpec): void {
  mkdirSync(dir, { recursive: true });
  const weights: number[] = [];
  const bias: number[] = [];
  if (scorer.features === 'actions')
    for (let a = 0; a < A; a++) {
      for (let i = 0; i < D; i++) weights.push(theta[a * (D + 1) + i]!);
      bias.push(theta[a * (D + 1) + D]!);
    }
  else weights.push(...theta);
  const p: LinearPolicy = {
    format: LINEAR_FORMAT,
    env_id: envId,
    actions: A,
    observation_size: D,
    features: scorer.features,
    ...(scorer.names ? { feature_names: [...scorer.names] } : {}),
    ...(spec.allowed_actions ? { allowed_actions: [...spec.allowed_actions] } : {}),
    hidden: spec.hidden ?? 0,
    weights,
    bias,
  };
  writeFileSync(join(dir, 'linear.json'), `${JSON.stringify(p)}\n`);
}

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
    let f = 0;
    for (const seed of seeds) {
      const r = playFlat(env, th, seed, c.metric, c);
      state.steps += r.steps;
      state.episodes++;
      const ref = refValue(seed);
      f += (sign * (r.value - ref)) / (Math.abs(ref) || 1);
    }
    return f / seeds.length;
  };
  const validate = (g: number) => {
    if (validation.length === 0) return;
    const f = fitness(theta, validation);
    if (!state.best || f < state.best.fitness) state.best = { generation: g, fitness: f, theta: Array.from(theta) };
    log(
      `generation ${g}: ${(100 * f).toFixed(2)}% against ${es.reference} on the ${validation.length} validation episodes (best: generation ${state.best.generation})`,
    );
  };
  if (state.generation === 0) validate(0);
  const candidate = new Float64Array(size);
  const step = new Float64Array(size);
  for (let g = state.generation; g < es.generations; g++) {
    const seeds = episodesOf(g);
    const noiseRng = derive(c.seed, `es/noise/${g}`);
    const noise: Float64Array[] = [];
    const f: number[] = [];
    for (let k = 0; k < es.population; k++) {
      const e = new Float64Array(size);
      for (let i = 0; i < size; i++) e[i] = noiseRng.normal();
      noise.push(e);
      for (const s of [1, -1]) {
        for (let i = 0; i < size; i++) candidate[i] = theta[i]! + s * es.sigma * e[i]!;
        f.push(fitness(candidate, seeds));
      }
    }
    const center = fitness(theta, seeds);
    const sorted = [...f].sort((a, b) => a - b);
    const rank = (x: number) => sorted.indexOf(x) / Math.max(1, f.length - 1) - 0.5;
    step.fill(0);
    for (let k = 0; k < es.population; k++) {
      const w = rank(f[2 * k]!) - rank(f[2 * k + 1]!);
      for (let i = 0; i < size; i++) step[i]! += w * noise[k]![i]!;
    }
    for (let i = 0; i < size; i++) theta[i]! -= (es.learning_rate * step[i]!) / es.population;
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
  // the model: the best theta on the validation episodes (or the last one without them)
  if (state.best) theta = Float64Array.from(state.best.theta);
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
        algorithm: 'es-linear-flat',
        seed: c.seed,
        // every episode seed training draws is below 2^31; the leaderboard evaluates from 2^32
        training_seeds: TRAINING_SEEDS,
        steps: state.steps,
        generations: state.generation,
        episodes: state.episodes,
        wall_seconds: seconds,
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
