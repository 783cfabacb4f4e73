/**
 * The one configuration of a PPO training run (CleanRL style: every hyperparameter in one typed,
 * validated object, with the defaults a reader can see at a glance). A training config file is this
 * object as JSON:
 *
 * ```json
 * { "env": { "id": "clustergym/Job-v0", "config": { "k": 64, "generator": { "model": "lublin", "jobs": 256 } } },
 *   "seed": 1, "total_steps": 200000, "num_envs": 8, "num_steps": 256 }
 * ```
 *
 * `parsePpoConfig(raw, where)` validates it with zod and throws ONE `InputError` naming every bad
 * field with its JSON path (`$.learning_rate: Number must be greater than 0`); the env config is then
 * validated by the environment's own schema (its errors are prefixed with `$.env.config`). Unknown
 * fields are errors. See docs/agents.md for the meaning of each field.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../../src/core/errors.js';
import { EnvConfigSchema, parseEnvConfig, relativeConfigPaths, resolveConfigPaths } from '../../envs/config.js';
import { canonicalJobSelection } from '../../src/scheduling/jobSelection.js';

/** The environments PPO trains on (PolicyPair-v0 has no per-row structure to score). */
export const PPO_ENV_IDS = ['clustergym/Job-v0', 'clustergym/JobNode-v0'] as const;
/** An environment id PPO supports. */
export type PpoEnvId = (typeof PPO_ENV_IDS)[number];

/** Backends: `auto` tries tfjs-node (`tensorflow`), then `wasm`, then `cpu`. */
export const BACKEND_CHOICES = ['auto', 'tensorflow', 'wasm', 'cpu'] as const;
/** A backend choice. */
export type BackendChoice = (typeof BACKEND_CHOICES)[number];

/** A trainer's seed (PPO, ES, flat ES): an integer in [0, 2^31), default 1. */
export const TrainingSeedSchema = z
  .number()
  .int()
  .min(0)
  .max(2 ** 31 - 1)
  .default(1);

const layers = z.array(z.number().int().min(1).max(1024)).max(8);

/** The network's shape (defaults: DESIGN §7's kernel 32 -> 16 -> 8 -> 1). */
export const NetworkSchema = z
  .object({
    /** Hidden layers of the per-row kernel MLP (row features -> ... -> 1 score; none: a linear score, as `es` trains). */
    kernel: layers.default([32, 16, 8]),
    /** Hidden layers of the `wait` head (pooled features -> ... -> 1 logit). */
    wait: layers.default([32]),
    /** Hidden layers of the critic (pooled features -> ... -> 1 value). */
    critic: layers.min(1).default([64, 64]),
    /** Activation of the hidden layers. */
    activation: z.enum(['tanh', 'relu']).default('tanh'),
    /**
     * The features of each candidate row (features.ts): `base`; `priority` (base + derived job
     * features with which a linear score can express F1, WFP3 and UNICEP and whether a job starts
     * now); or on JobNode-v0 `pair_products` (base plus 7 products of a job and a node feature, which
     * a linear score needs to say "this job on that node"). A saved model's rows are its own.
     */
    row_features: z.enum(['base', 'priority', 'pair_products']).default('base'),
    /**
     * A linear path beside each head's MLP (residual: score = MLP(x) + w . x + b; the same for the
     * wait logit), whose MLP output layer starts at zero: with imitation's `init: "base"` the network
     * starts as the linear base model and its hidden layers learn the corrections (network.ts).
     */
    skip: z.boolean().default(false),
  })
  .strict();

/**
 * The heuristic a Job-v0 training run measures itself against (on a workload file): the policy a
 * `PriorityAgent` plays (`fcfs`, `sjf`, `f1`, `wfp3`, `unicep`, ...) in the training env itself, so
 * the baseline and the learner see the same trajectories under the same env semantics.
 */
export const BaselineSchema = z
  .object({
    /** The job-selection priority of the heuristic (a deterministic one). */
    policy: z.string().min(1).default('f1'),
    /**
     * Terminal reward relative to the heuristic on the same trajectory: `(b - bsld) / b`, with `b` its
     * mean bounded slowdown there (needs `reward: "bsld"`). Same optimum per trajectory as `-bsld`,
     * far less variance across trajectories (a 1,000-bsld trajectory no longer drowns a 3-bsld one).
     */
    relative_reward: z.boolean().default(true),
    /**
     * Trajectory filtering (RLScheduler's idea: train where decisions matter): only origins on which the
     * heuristic's mean bsld is at least this are trained on (0: every origin).
     */
    min_bsld: z.number().min(0).default(0),
    /** Candidate training origins are every `origin_stride`-th job index (the filter plays the heuristic once per candidate). */
    origin_stride: z.number().int().min(1).default(4),
    /**
     * Warm start by behaviour cloning before PPO: states collected per round (0: none), labelled by
     * the teacher; after each round `warm_start_epochs` epochs over everything collected
     * (cross-entropy of the teacher's action under the masked policy, warmStart.ts).
     */
    warm_start_steps: z.number().int().min(0).default(0),
    /**
     * The warm start's teacher: the heuristic itself, or its one-step lookahead (`lookahead`: each of
     * its `lookahead_candidates` best-ranked jobs tried, the heuristic finishing the episode; the best
     * ending wins), a teacher better than the heuristic (baseline.ts).
     */
    warm_start_teacher: z.enum(['heuristic', 'lookahead']).default('heuristic'),
    /** Jobs the lookahead teacher tries per decision. */
    lookahead_candidates: z.number().int().min(2).max(64).default(4),
    /** Rounds of the warm start: the first with the teacher driving, the others with the network driving and the teacher labelling (DAgger). */
    warm_start_rounds: z.number().int().min(1).max(20).default(1),
    /** Epochs over the states collected so far, after each round. */
    warm_start_epochs: z.number().int().min(1).max(100).default(4),
    /** Adam learning rate of the warm start. */
    warm_start_learning_rate: z.number().positive().max(1).default(1e-3),
  })
  .strict();

/**
 * Evolution strategies instead of PPO (evolve.ts): the linear policy (`network.kernel: []`,
 * `network.wait: []`) trained on whole episodes, each scored relative to a reference batch scheduler
 * on the same jobs.
 */
export const EsSchema = z
  .object({
    /** Generations (one ES step each; 0: only the search, or with `imitation` no fine-tuning). */
    generations: z.number().int().min(0).max(100_000).default(30),
    /** Antithetic pairs per generation (2 x population candidates). */
    population: z.number().int().min(1).max(1024).default(8),
    /** Training episodes every candidate of a generation plays (the same for all). */
    episodes: z.number().int().min(1).max(1024).default(6),
    /** Standard deviation of the parameter noise. */
    sigma: z.number().positive().max(100).default(0.3),
    /** Step size of the update. */
    learning_rate: z.number().positive().max(100).default(0.3),
    /**
     * How a candidate's episodes combine into its fitness: `mean_ratio` (the mean over episodes of
     * metric / reference's metric) or `ratio_of_means` (sum of the metric / sum of the reference's:
     * the leaderboard's relative difference plus 1, dominated by the episodes with the largest metric,
     * which matters for a heavy-tailed metric such as EDP).
     */
    fitness: z.enum(['mean_ratio', 'ratio_of_means']).default('mean_ratio'),
    /** What a candidate is scored by: `mean_bsld`, `mean_wait` or `edp` (energy x makespan) of each episode. */
    metric: z.enum(['mean_bsld', 'mean_wait', 'edp']).default('mean_bsld'),
    /** The batch scheduler whose metric on the same jobs divides a candidate's: a `clustergym simulate` policy name, or an IRMaSim manager as the leaderboard names it (`irmasim:EnergyHeuristic(metric=timetasks,...)`). */
    reference: z.string().min(1).default('unicep:high_gflops+easy'),
    /**
     * The reference keeps its chosen head job until it starts (`compare --commit-head`): the
     * decision model of Job-v0 with `unfit: "reserve"`, and of the `rlsched` settings' heuristics.
     */
    reference_commit_head: z.boolean().default(false),
    /**
     * Training episodes (fixed, drawn once from `derive(seed, 'es/validation')`) on which the initial
     * theta and each generation's theta are scored; the model is the best of them (0: the last theta).
     */
    validation_episodes: z.number().int().min(0).max(1024).default(0),
    /**
     * Coordinate search before ES (needs `validation_episodes`): for each named parameter in turn, every
     * listed value is tried with the others at their best so far, and the value with the best fitness on
     * the validation episodes is kept. For the few parameters whose optimum is sharp (a threshold such
     * as the wait bias), where ES's smoothed steps do not find it.
     */
    search: z.record(z.array(z.number().finite()).min(1)).default({}),
    /** Initial parameters by name (`row:<row feature>`, `row_bias`, `wait:<pooled feature>`, `wait_bias`); the others start at 0. */
    init: z.record(z.number().finite()).default({}),
  })
  .strict();

/** The evolution-strategies settings. */
export type EsConfig = z.output<typeof EsSchema>;

/**
 * Imitation of a lookahead teacher (imitation.ts, docs/agents.md): DAgger rounds on training
 * episodes in which a teacher labels the states the driver visits, the network fitted on everything
 * labelled so far after each round; then the `es` settings fine-tune the network's weights (the
 * model: the best of every round and generation on the `es` validation episodes).
 */
export const ImitationSchema = z
  .object({
    /**
     * The policy whose lookahead teaches (and that labels the states the teacher does not): `model:DIR`,
     * a model directory (relative to the config file; a linear ES or network model of the same env), or
     * a batch scheduler's name (`JOB:RESOURCE[+BACKFILL]`, e.g. `f1:first`), played in the env by
     * `SchedulerAgent` (`PriorityAgent` of its order on Job-v0 with `unfit: "reserve"`).
     */
    base: z.string().min(1),
    /** The lookahead: the best-ranked valid jobs each of `orders` proposes (agents/leaderboard/lookahead.ts). */
    m: z.number().int().min(1).max(16).default(2),
    /** The job orders that propose candidates, in proposal order (the first `candidates` are tried). */
    orders: z
      .array(
        z
          .string()
          .refine((o) => canonicalJobSelection(o) !== null && canonicalJobSelection(o) !== 'random', 'a deterministic job order')
          .transform((o) => canonicalJobSelection(o)!),
      )
      .min(1)
      .default(['fcfs', 'sjf', 'wfp3', 'unicep', 'f1']),
    /** Candidates per labelled decision (the base's action first, then `wait` when allowed and `wait` is set, then the proposals). */
    candidates: z.number().int().min(2).max(64).default(8),
    /** Whether `wait` is a candidate (where the mask allows it). */
    wait: z.boolean().default(true),
    /** The teacher departs from the base only for a relative gain of the episode's metric above this (teacher.ts). */
    margin: z.number().min(0).max(1).default(0),
    /**
     * What the teacher's rollouts hold (teacher.ts): `oracle`, the episode itself (its future arrivals
     * and the jobs' actual run times); `known`, the episode's known future (the jobs submitted so far,
     * each still in the system running its requested time: envs/knownFuture.ts), what the student
     * and every heuristic may know; `sampled`, the known future plus arrivals and run times drawn from
     * what the episode has shown so far (envs/knownFuture.ts), `samples` futures per candidate, the
     * mean of their scores.
     */
    teacher_future: z.enum(['oracle', 'known', 'sampled']).default('oracle'),
    /** With `teacher_future: "sampled"`: sampled futures per candidate, and future arrivals in each. */
    samples: z.number().int().min(1).max(64).default(4),
    sampled_jobs: z.number().int().min(0).max(100_000).default(128),
    /** With `teacher_future: "sampled"`: a departure from the base must beat it on the same futures by this many standard errors. */
    confidence: z.number().min(0).max(10).default(2),
    /** DAgger rounds: the first driven by the teacher (the base between labelled decisions), the others by the network (greedy). */
    rounds: z.number().int().min(1).max(100).default(4),
    /** Training episodes per round. */
    episodes: z.number().int().min(1).max(4096).default(8),
    /** The teacher labels one decision in `label_every` (at a phase drawn per episode). */
    label_every: z.number().int().min(1).max(1_000_000).default(8),
    /** The base labels one other decision in `base_every` (0: none), each weighing `base_weight` in the loss. */
    base_every: z.number().int().min(0).max(1_000_000).default(4),
    base_weight: z.number().min(0).max(1).default(0.25),
    /** Epochs over everything labelled so far, after each round; the network is scored on the validation episodes after each, and the round keeps its best epoch. */
    epochs: z.number().int().min(1).max(1000).default(10),
    /** States per minibatch. */
    minibatch: z.number().int().min(1).max(65536).default(256),
    /** Adam's learning rate. */
    learning_rate: z.number().positive().max(1).default(1e-3),
    /**
     * The network's start: `fresh` (initialised from the seed) or `base` (with `network.skip`: the
     * linear paths set to a linear base model's weights, the MLPs' output layers at zero, so the
     * network plays exactly as the base before imitation; the base must be a linear model with the
     * same row features).
     */
    init: z.enum(['fresh', 'base']).default('fresh'),
    /**
     * With `init: "base"`, the linear paths are the base's weights times this: the same greedy
     * policy (scores and the wait logit scale together), but a sharper softmax, so that the
     * cross-entropy of the base's own choices starts small and the fit spends itself on the
     * teacher's departures instead of sharpening (and disturbing) what the base already does.
     */
    init_scale: z.number().positive().max(1000).default(1),
    /** With `network.skip`: the linear paths stay as they are during imitation (only the hidden layers and their output learn); ES fine-tunes every weight. */
    freeze_linear: z.boolean().default(false),
  })
  .strict();

/** The imitation settings. */
export type ImitationConfig = z.output<typeof ImitationSchema>;

/** The PPO configuration as zod sees it. */
export const PpoConfigSchema = z
  .object({
    /** The environment: a PPO-capable id and its configuration (docs/environments.md). */
    env: z
      .object({
        id: z.enum(PPO_ENV_IDS),
        config: z.record(z.unknown()).default({}),
      })
      .strict(),
    /** Seed of everything: network initialisation, action sampling, minibatch order, episodes. */
    seed: TrainingSeedSchema,
    /** Environment steps to train for (over all envs). */
    total_steps: z.number().int().positive().default(200_000),
    /** Parallel environments (one vector env, stepped in this thread). */
    num_envs: z.number().int().min(1).max(256).default(8),
    /** Steps per environment per rollout (a rollout is `num_envs * num_steps` samples). */
    num_steps: z.number().int().min(1).max(100_000).default(256),
    /** Adam learning rate. */
    learning_rate: z.number().positive().max(1).default(3e-3),
    /** Anneal the learning rate linearly to 0 over `total_steps`. */
    anneal_lr: z.boolean().default(true),
    /** Discount factor. */
    gamma: z.number().min(0).max(1).default(0.99),
    /** GAE lambda. */
    gae_lambda: z.number().min(0).max(1).default(0.95),
    /** Minibatches per epoch. */
    num_minibatches: z.number().int().min(1).default(4),
    /** Epochs over each rollout. */
    update_epochs: z.number().int().min(1).max(100).default(4),
    /** Normalise advantages per minibatch. */
    norm_adv: z.boolean().default(true),
    /** PPO clipping coefficient of the policy ratio. */
    clip_coef: z.number().positive().max(10).default(0.2),
    /** Clip the value loss as the policy ratio (PPO2). */
    clip_vloss: z.boolean().default(true),
    /** Entropy bonus coefficient. */
    ent_coef: z.number().min(0).default(0.01),
    /** Value loss coefficient. */
    vf_coef: z.number().min(0).default(0.5),
    /** Gradients are clipped to this global norm. */
    max_grad_norm: z.number().positive().default(0.5),
    /** Stop an update's epochs early when the approximate KL exceeds this (null: never). */
    target_kl: z.number().positive().nullable().default(null),
    /** Divide rewards by a running standard deviation of the discounted return (CleanRL's NormalizeReward). */
    normalize_reward: z.boolean().default(true),
    /** Network shape. */
    network: NetworkSchema.default({}),
    /** A heuristic to measure against: relative reward, trajectory filtering, warm start (null: none). */
    baseline: BaselineSchema.nullable().default(null),
    /** Write a checkpoint every this many updates (0: only at the end). */
    checkpoint_every: z.number().int().min(0).default(10),
    /** Stop after the update during which this many seconds of training have passed (null: no limit). */
    time_limit: z.number().positive().nullable().default(null),
    /** Episodes (held-out seeds) that `evaluate` and `demo` play by default. */
    eval_episodes: z.number().int().min(1).max(10_000).default(10),
    /** tfjs backend. */
    backend: z.enum(BACKEND_CHOICES).default('auto'),
    /** The leaderboard setting the model plays (written to its card; `clustergym leaderboard` reads it). */
    setting: z.string().min(1).optional(),
    /** Train by evolution strategies instead of PPO (null: PPO). */
    es: EsSchema.nullable().default(null),
    /** Imitation of a lookahead teacher, then ES fine-tuning with `es` (null: none). */
    imitation: ImitationSchema.nullable().default(null),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.network.row_features === 'pair_products' && c.env.id !== 'clustergym/JobNode-v0')
      ctx.addIssue({
        code: 'custom',
        path: ['network', 'row_features'],
        message: 'the pair_products rows are for JobNode-v0 (their products pair a job with a node)',
      });
    if (c.es && !c.imitation && (c.network.kernel.length > 0 || c.network.wait.length > 0))
      ctx.addIssue({
        code: 'custom',
        path: ['network'],
        message: 'evolution strategies alone train the linear policy: set network.kernel and network.wait to [] (or add `imitation` to fine-tune a network)',
      });
    if (c.imitation && !c.es)
      ctx.addIssue({
        code: 'custom',
        path: ['es'],
        message: '`imitation` validates and fine-tunes with the `es` settings (reference, metric, validation_episodes; generations 0: no fine-tuning)',
      });
    if (c.imitation && c.es && c.es.validation_episodes === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['es', 'validation_episodes'],
        message: '`imitation` keeps the best round on the validation episodes: set es.validation_episodes > 0',
      });
    if (c.imitation && c.baseline)
      ctx.addIssue({ code: 'custom', path: ['baseline'], message: '`imitation` and `baseline` (the PPO warm start) are two ways to the same thing: give one' });
    if (c.num_envs * c.num_steps < c.num_minibatches)
      ctx.addIssue({
        code: 'custom',
        path: ['num_minibatches'],
        message: `${c.num_minibatches} minibatches of a rollout of ${c.num_envs * c.num_steps} samples (num_envs x num_steps): at most one per sample`,
      });
  });

/** The baseline heuristic's settings. */
export type BaselineConfig = z.output<typeof BaselineSchema>;

/** A training configuration as written in a file (every field but `env` optional). */
export type PpoConfigInput = z.input<typeof PpoConfigSchema>;
/** A validated training configuration, defaults filled in. */
export type PpoConfig = z.output<typeof PpoConfigSchema>;
/** The network's shape. */
export type NetworkConfig = z.output<typeof NetworkSchema>;

/**
 * Validates a training configuration (and its env config, with the environment's own schema).
 * `where` names the source in error messages (a file name). Throws one `InputError` naming every bad
 * field with its JSON path.
 */
export function parsePpoConfig(raw: unknown, where = 'PPO config'): PpoConfig {
  const issues: { path: (string | number)[]; message: string }[] = [];
  const r = PpoConfigSchema.safeParse(raw);
  if (!r.success) issues.push(...r.error.issues);
  // the env config's own schema, so its bad fields are named together with the others
  const env = (raw as { env?: { id?: unknown; config?: unknown } } | null)?.env;
  const id = typeof env?.id === 'string' && (PPO_ENV_IDS as readonly string[]).includes(env.id) ? (env.id as PpoEnvId) : null;
  if (id) {
    const e = EnvConfigSchema.safeParse(env!.config ?? {});
    if (!e.success) issues.push(...e.error.issues.map((i) => ({ path: ['env', 'config', ...i.path], message: i.message })));
    else if (e.data.observation !== 'dict')
      issues.push({
        path: ['env', 'config', 'observation'],
        message: `PPO reads the \`dict\` observation (per-row job and node features), not ${JSON.stringify(e.data.observation)}`,
      });
  }
  if (r.success && r.data.baseline) issues.push(...baselineIssues(r.data.baseline, r.data.env.id, r.data.env.config));
  if (issues.length > 0 || !r.success) throw inputErrorFromIssues(where, issues);
  // then the env's checks across fields (their messages carry their own paths)
  parseEnvConfig(r.data.env.id, r.data.env.config, `${where} $.env.config`);
  return r.data;
}

/** What a baseline needs of the env: Job-v0, a deterministic priority, a workload file for filtering, `reward: "bsld"` for relative rewards. */
function baselineIssues(b: BaselineConfig, envId: PpoEnvId, env: Record<string, unknown>): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  if (envId !== 'clustergym/Job-v0')
    out.push({ path: ['baseline'], message: `a baseline heuristic needs clustergym/Job-v0 (a PriorityAgent picks jobs), not ${envId}` });
  const c = canonicalJobSelection(b.policy);
  if (!c || c === 'random')
    out.push({
      path: ['baseline', 'policy'],
      message: `expected a deterministic job-selection priority (fcfs, sjf, f1, wfp3, unicep, ...), found ${JSON.stringify(b.policy)}`,
    });
  if (b.relative_reward && (env.reward ?? 'bsld') !== 'bsld')
    out.push({
      path: ['baseline', 'relative_reward'],
      message: `a reward relative to the heuristic's bsld needs the env's reward "bsld", found ${JSON.stringify(env.reward)}`,
    });
  if ((b.min_bsld > 0 || b.relative_reward) && env.workload === undefined)
    out.push({ path: ['baseline'], message: 'relative rewards and trajectory filtering need a workload file (origins of one trace), not a generator' });
  return out;
}

/**
 * Reads and validates a training configuration file. Relative `platform` and `workload` paths of
 * the env config are taken relative to the file's directory (absolute in the result; written back
 * relative to the directory they go to, `portableConfig`).
 */
export function loadPpoConfig(file: string): PpoConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read the training config: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`, file);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new InputError(`not valid JSON: ${(e as Error).message}`, file);
  }
  const env = (raw as { env?: { config?: Record<string, unknown> } } | null)?.env;
  if (env?.config && typeof env.config === 'object') env.config = resolveConfigPaths(env.config, dirname(file));
  const imitation = (raw as { imitation?: { base?: unknown } } | null)?.imitation;
  if (imitation && typeof imitation.base === 'string') imitation.base = resolveBase(imitation.base, dirname(file));
  return parsePpoConfig(raw, file);
}

/**
 * `config` as it is written to `dir/config.json`: the env's absolute `platform` and `workload` paths
 * made relative to `dir`, so that a model or run directory keeps working when the checkout moves
 * (every reader resolves relative paths against the config file's directory).
 */
export function portableConfig<C extends { env: { config: Record<string, unknown> } }>(config: C, dir: string): C {
  const out = { ...config, env: { ...config.env, config: relativeConfigPaths(config.env.config, dir) } };
  const imitation = (config as { imitation?: ImitationConfig | null }).imitation;
  if (imitation?.base.startsWith(MODEL_PREFIX) && isAbsolute(imitation.base.slice(MODEL_PREFIX.length)))
    Object.assign(out, { imitation: { ...imitation, base: MODEL_PREFIX + (relative(resolve(dir), imitation.base.slice(MODEL_PREFIX.length)) || '.') } });
  return out;
}

/** The prefix of an imitation base that is a model directory. */
export const MODEL_PREFIX = 'model:';

/** An imitation base with a relative model directory taken relative to `dir` (a heuristic name is returned as is). */
export function resolveBase(base: string, dir: string): string {
  if (!base.startsWith(MODEL_PREFIX)) return base;
  const path = base.slice(MODEL_PREFIX.length);
  return MODEL_PREFIX + (isAbsolute(path) ? path : resolve(dir, path));
}
