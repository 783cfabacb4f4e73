/**
 * The flat-observation envs' learned policy (flat.ts trains it): its training config
 * (`clustergym-es-flat`), its parameters on disk (`linear.json`), and how it picks an action.
 *
 * **Policy.** With `features: "actions"` (the default) a linear score per action over the
 * observation `x` (length D) and a constant: `s_a = W[a] . x + b[a]`; the agent plays the valid
 * action (mask 1) of highest score, ties to the lowest index. Parameters `theta = (W, b)`,
 * A x (D + 1) numbers. With a feature map (`features: "fair-pairs"`, actionFeatures.ts) one weight
 * vector shared by all actions scores each action's features, `s_a = theta . phi(x, mask, a)`; with
 * `hidden: h > 0` (feature maps only) the score is a one-hidden-layer tanh network over the same
 * features, `s_a = sum_j v_j tanh(W_j . phi_a + c_j)`: h x F + 2h parameters, named `h<j>:<feature>`,
 * `h<j>:bias` and `out:h<j>`. `allowed_actions` restricts the policy to a subset of the actions;
 * when none of them is valid in a state it plays the env's mask.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../../src/core/errors.js';
import type { GymEnv } from '../../envs/gym.js';
import { resolveConfigPaths } from '../../envs/config.js';
import { loadEnv } from '../../envs/registry.js';
import { type EnvAgent, playEpisode } from '../episode.js';
import { PolicyPairAgent } from '../heuristics/index.js';
import { systemAgent } from '../leaderboard/heuristics.js';
import { CLUSTER_METRICS } from '../leaderboard/settings.js';
import { clusterMetric, systemMetric } from '../leaderboard/run.js';
import { FEATURE_MAPS, featureAction, featureMap } from './actionFeatures.js';
import { TrainingSeedSchema } from './config.js';

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
        /**
         * How a candidate's episodes combine: `mean_relative` (the mean over episodes of the relative
         * difference with the reference: every episode weighs alike) or `relative_of_means` (the difference of
         * the means over the reference's mean: what the leaderboard compares, ruled by the heavy episodes).
         */
        fitness: z.enum(['mean_relative', 'relative_of_means']).default('mean_relative'),
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

/** Writes `dir/linear.json`: the parameters `theta` of a policy of `scorer` (and `spec`'s allowed actions and hidden units). */
export function writeLinear(dir: string, envId: string, theta: Float64Array, A: number, D: number, scorer: LinearScorer, spec: FlatPolicySpec): void {
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
