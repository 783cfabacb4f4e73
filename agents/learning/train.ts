/**
 * PPO training (DESIGN §7), CleanRL style: `train()` below is the outline of the whole algorithm,
 * read top to bottom: collect a rollout of `num_steps` steps from `num_envs` environments with the
 * current policy, compute advantages with GAE, then optimise the clipped PPO objective for
 * `update_epochs` epochs over `num_minibatches` minibatches; repeat until `total_steps`.
 *
 * Per minibatch (B states, each with its own number of valid actions):
 *
 *     ratio   = exp(logp_new(a|s) - logp_old(a|s))
 *     L_pg    = mean(max(-A * ratio, -A * clip(ratio, 1 - clip_coef, 1 + clip_coef)))
 *     L_v     = 0.5 * mean(max((V - R)^2, (V_old + clip(V - V_old, -clip_coef, clip_coef) - R)^2))
 *     L       = L_pg - ent_coef * entropy + vf_coef * L_v
 *
 * with A the (per-minibatch normalised) GAE advantages and R = A + V_old the returns. Gradients are
 * clipped to `max_grad_norm` (global norm); Adam with eps 1e-5; the learning rate anneals linearly
 * to 0. Rewards are divided by a running standard deviation of the discounted return
 * (`normalize_reward`). A truncated episode (`max_steps`, `max_sim_time`) is bootstrapped from the
 * value of its final observation; a terminated one is not.
 *
 * The masked categorical policy: a state's logits are the kernel scores of its valid actions and
 * the wait logit (features.ts), padded with -1e9 to the largest candidate count of the minibatch,
 * so padding and masked actions get probability 0 and carry no gradient.
 *
 * Seeds: the network's initialisation (`derive(seed, 'init/<layer>')`), action sampling and
 * minibatch order (`derive(seed, 'ppo/...')`), and the training episodes (vector env reset with a
 * seed drawn from `derive(seed, 'episodes/<step>')`, below 2^31; the envs' own streams then give
 * seeds below 2^31 too). Evaluation uses seeds from 2^32 up (`EVAL_SEED_BASE`), so held-out
 * trajectories are never training ones.
 *
 * Output directory:
 *
 * ```
 * OUT/config.json                   the training configuration (validated, defaults filled)
 * OUT/metrics.csv                   one row per update (see METRICS_COLUMNS)
 * OUT/checkpoints/step-NNNNNNNNN/   model directory + optimizer.json/.bin + trainer.json
 * OUT/model/                        the final model directory (io.ts)
 * ```
 *
 * The parts, in the order `train()` uses them: `rollout.ts` (steps 1 and 2: the rollout storage, the
 * collection of steps, GAE), `update.ts` (step 3: the minibatch gradient steps, the learning rate),
 * `checkpoint.ts` (checkpoints written and resumed); the hyperparameters are `config.ts`.
 */
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { derive } from '../../src/core/rng.js';
import { makeVec, type SyncVecEnv } from '../../envs/vector.js';
import { selectBackend, tf, type BackendInfo } from './backend.js';
import { cpuSeconds, modelIdentity } from './card.js';
import { checkpointDir, initialTrainerState, loadOptimizer, readTrainerState, saveCheckpoint, type TrainerState } from './checkpoint.js';
import type { PpoConfig } from './config.js';
import { rowLayout, type RowLayout } from './features.js';
import { HeuristicBaseline } from './baseline.js';
import { loadModelDir, saveModelDir } from './io.js';
import { warmStart, type WarmStartProgress } from './warmStart.js';
import { buildModel, PolicyNetwork } from './network.js';
import { collectRollout, computeGae, currentValues, type EnvState, type FinishedEpisode, RolloutBuffer, RunningMeanStd, startEpisodes } from './rollout.js';
import { type Learner, learningRateAt, ppoUpdate, setLearningRate, type UpdateStats } from './update.js';
import { TRAINING_SEEDS } from '../leaderboard/run.js';

/** First seed of held-out (evaluation) episodes; training seeds are all below 2^31. */
export const EVAL_SEED_BASE = 2 ** 32;

/** Columns of metrics.csv. */
export const METRICS_COLUMNS = [
  'update',
  'steps',
  'episodes',
  'mean_return',
  'mean_bsld',
  'mean_wait',
  'policy_loss',
  'value_loss',
  'entropy',
  'approx_kl',
  'clip_fraction',
  'explained_variance',
  'learning_rate',
  'steps_per_s',
  'seconds',
  'mean_baseline_bsld',
] as const;

/** One row of metrics.csv (NaN when no episode ended during the update). */
export type MetricsRow = Record<(typeof METRICS_COLUMNS)[number], number>;

/** Progress of a training run, after each update. */
export interface TrainProgress {
  steps: number;
  totalSteps: number;
  episodes: number;
  row: MetricsRow;
}

/** Options of `train`. */
export interface TrainOptions {
  /** Output directory. */
  outDir: string;
  /** Resume from this checkpoint directory (see `resolveCheckpoint`). */
  resume?: string | undefined;
  /** Called after every update. */
  onProgress?: ((p: TrainProgress) => void) | undefined;
  /** Called with lines worth telling the user (backend, checkpoints). */
  log?: ((line: string) => void) | undefined;
  /** Called while the baseline's trajectory filter scores candidate origins. */
  onFilter?: ((done: number, total: number) => void) | undefined;
  /** Called after each chunk of the warm start. */
  onWarmStart?: ((p: WarmStartProgress) => void) | undefined;
}

/** What `train` returns. */
export interface TrainResult {
  /** The final model directory. */
  modelDir: string;
  steps: number;
  episodes: number;
  /** Wall time of this call's training loop (s). */
  seconds: number;
  backend: BackendInfo;
  /** The rows written to metrics.csv by this call. */
  metrics: MetricsRow[];
  /** The network, still loaded (dispose it when done). */
  network: PolicyNetwork;
  /** Training limits of the env (normalisation). */
  limits: { req_time: number; ntasks: number; mem: number; mem_vol: number };
}

/** Trains PPO with `config`; writes the output directory; returns the trained network. */
export async function train(config: PpoConfig, options: TrainOptions): Promise<TrainResult> {
  const c = config;
  const tStart = performance.now();
  const cpuStart = process.cpuUsage();
  const log = options.log ?? (() => {});
  const backend = await selectBackend(c.backend);

  // ---- the baseline heuristic (relative reward, trajectory filter) and the training envs: one vector env, stepped in this thread
  const baseline = c.baseline ? new HeuristicBaseline(c.env.config, c.baseline) : null;
  const envConfig = baseline
    ? { ...c.env.config, trajectory: { ...(c.env.config.trajectory as object), origins: baseline.filterOrigins(options.onFilter) } }
    : c.env.config;
  if (baseline)
    log(
      `training on ${(envConfig.trajectory as { origins: number[] }).origins.length} origins (${c.baseline!.policy} mean bsld >= ${c.baseline!.min_bsld}, every ${c.baseline!.origin_stride}-th origin)`,
    );
  const { venv, layout, limits } = trainingEnvs(c, envConfig);
  const batchSize = c.num_envs * c.num_steps;
  const numUpdates = Math.ceil(c.total_steps / batchSize);

  // ---- network and optimiser (fresh, or from a checkpoint with the trainer's progress), output directory
  const { learner, state } = await startLearner(c, layout, options.resume, log);
  const metricsFile = prepareOutDir(options.outDir, c, options.resume);

  // ---- 0. warm start (a fresh run only): behaviour cloning of the baseline heuristic
  let warm: WarmStartProgress | null = null;
  if (baseline && !options.resume && c.baseline!.warm_start_steps > 0) {
    const w = warmStart(learner.network, learner.variables, baseline, layout, envConfig, c, options.onWarmStart);
    const teacher =
      c.baseline!.warm_start_teacher === 'lookahead' ? `${c.baseline!.policy} lookahead over ${c.baseline!.lookahead_candidates} jobs` : c.baseline!.policy;
    log(`warm start: ${w.steps} states of ${teacher}, cross-entropy ${w.loss.toFixed(4)}, greedy agreement ${(100 * w.accuracy).toFixed(1)}%`);
    warm = w;
  }

  // ---- rollout storage, the sampling and shuffling streams, the training episodes
  const rollout = new RolloutBuffer(layout.rowSize, c.num_envs, c.num_steps);
  const actRng = derive(c.seed, `ppo/actions/${state.steps}`);
  const shuffleRng = derive(c.seed, `ppo/minibatches/${state.steps}`);
  const env = startEpisodes(venv, layout, c, state.steps, Object.assign(new RunningMeanStd(), state.reward_rms), Float64Array.from(state.returns), baseline);
  const rows: MetricsRow[] = [];
  const t0 = performance.now();
  let updateSeconds = 0;

  for (let update = state.updates + 1; update <= numUpdates && state.steps < c.total_steps; update++) {
    const tu = performance.now();
    const lr = learningRateAt(c, update, numUpdates);
    setLearningRate(learner.optimizer, lr);

    // ---- 1. rollout: num_steps steps of every env with the current (sampling) policy
    const finished = collectRollout(rollout, env, learner.network, actRng, c);
    state.steps += batchSize;
    state.episodes += finished.length;

    // ---- 2. advantages: GAE(gamma, lambda), bootstrapped from the value of the next observation
    computeGae(rollout, currentValues(env, learner.network), env.nextDone, c);

    // ---- 3. optimise the clipped objective: update_epochs epochs of num_minibatches minibatches
    const stats = ppoUpdate(learner, rollout, shuffleRng, c);

    // ---- 4. log, checkpoint
    updateSeconds += (performance.now() - tu) / 1000;
    const seconds = (performance.now() - t0) / 1000;
    const row = metricsRow(update, state, finished, stats, rollout, lr, { steps_per_s: ((rows.length + 1) * batchSize) / updateSeconds, seconds });
    rows.push(row);
    appendFileSync(metricsFile, csvLine(row));
    recordProgress(state, update, env);
    options.onProgress?.({ steps: state.steps, totalSteps: c.total_steps, episodes: state.episodes, row });
    const timeUp = c.time_limit !== null && seconds >= c.time_limit;
    const last = update === numUpdates || state.steps >= c.total_steps || timeUp;
    if ((c.checkpoint_every > 0 && update % c.checkpoint_every === 0) || last) {
      const dir = checkpointDir(options.outDir, state.steps);
      await saveCheckpoint(dir, learner.network, learner.optimizer, state, c, limits, backend.name);
      log(`checkpoint ${dir}`);
    }
    if (timeUp) {
      log(`time limit of ${c.time_limit} s reached after ${state.steps} steps`);
      break;
    }
  }

  const modelDir = join(options.outDir, 'model');
  await saveModelDir(modelDir, learner.network, { config: c, limits, steps: state.steps, backend: backend.name });
  const trainingOrigins = (envConfig.trajectory as { origins?: number[] } | undefined)?.origins;
  writeModelCard(modelDir, {
    env_id: c.env.id,
    ...(c.setting !== undefined ? { setting: c.setting } : {}),
    ...modelIdentity(c),
    workload: typeof c.env.config.workload === 'string' ? basename(c.env.config.workload) : null,
    trajectory_length: env.venv.envs[0]!.context.length,
    backfilling: env.venv.envs[0]!.config.backfilling,
    split: trainingOrigins
      ? {
          training_origins: trainingOrigins.length,
          origin_stride: c.baseline!.origin_stride,
          min_baseline_bsld: c.baseline!.min_bsld,
          note: 'training draws its trajectories from these origins of the whole trace (as RLScheduler); evaluation origins are drawn once with a stated seed and never used to select the model',
        }
      : null,
    seed: c.seed,
    // every episode seed training draws is below 2^31 (see the module comment); the leaderboard
    // evaluates on seeds from 2^32 and refuses a model whose card does not say so
    training_seeds: TRAINING_SEEDS,
    steps: state.steps,
    updates: state.updates,
    episodes: state.episodes,
    wall_seconds: (performance.now() - tStart) / 1000,
    cpu_seconds: cpuSeconds(cpuStart),
    ppo_seconds: (performance.now() - t0) / 1000,
    resumed_from: options.resume ?? null,
    backend: backend.name,
    tfjs: tf.version.tfjs,
    baseline: c.baseline ? { policy: c.baseline.policy, relative_reward: c.baseline.relative_reward } : null,
    warm_start: warm
      ? {
          teacher: c.baseline!.warm_start_teacher,
          ...(c.baseline!.warm_start_teacher === 'lookahead' ? { lookahead_candidates: c.baseline!.lookahead_candidates } : {}),
          rounds: c.baseline!.warm_start_rounds,
          states: warm.steps,
          cross_entropy: warm.loss,
          greedy_agreement: warm.accuracy,
        }
      : null,
    final_training: lastUpdates(rows, 10),
  });
  venv.close();
  baseline?.close();
  learner.optimizer.dispose();
  return {
    modelDir,
    steps: state.steps,
    episodes: state.episodes,
    seconds: (performance.now() - t0) / 1000,
    backend,
    metrics: rows,
    network: learner.network,
    limits,
  };
}

/** The mean training figures of the last `n` updates that ended episodes (NaN-free). */
function lastUpdates(rows: MetricsRow[], n: number): { updates: number; mean_bsld: number; mean_baseline_bsld: number } {
  const done = rows.filter((r) => Number.isFinite(r.mean_bsld)).slice(-n);
  const mean = (f: (r: MetricsRow) => number) => done.reduce((a, r) => a + f(r), 0) / Math.max(1, done.length);
  return { updates: done.length, mean_bsld: mean((r) => r.mean_bsld), mean_baseline_bsld: mean((r) => r.mean_baseline_bsld) };
}

/**
 * Writes `card.json` beside the model: what it was trained on and how (trace, trajectory length,
 * split, seed, steps, wall time, backend, warm start, the last updates' figures). `clustergym
 * evaluate --card` adds the held-out figures (`held_out`).
 */
export function writeModelCard(modelDir: string, card: Record<string, unknown>): void {
  writeFileSync(join(modelDir, 'card.json'), `${JSON.stringify({ format: 'clustergym-model-card', ...card }, null, 1)}\n`);
}

/** The vector env of `num_envs` training envs (of `envConfig`), the candidate-row layout of its observations and its normalisation limits. */
function trainingEnvs(c: PpoConfig, envConfig: Record<string, unknown>): { venv: SyncVecEnv; layout: RowLayout; limits: TrainResult['limits'] } {
  const venv = makeVec(c.num_envs, c.env.id, envConfig);
  const env0 = venv.envs[0]!;
  return { venv, layout: rowLayout(c.env.id, env0.k, env0.nodeCount, c.network.row_features), limits: { ...env0.limits } };
}

/**
 * The network and Adam (eps 1e-5) to train, with the trainer's progress: fresh (the network
 * initialised from `seed`), or restored from checkpoint `resume`.
 */
async function startLearner(
  c: PpoConfig,
  layout: RowLayout,
  resume: string | undefined,
  log: (line: string) => void,
): Promise<{ learner: Learner; state: TrainerState }> {
  let network: PolicyNetwork;
  let state = initialTrainerState(c.num_envs);
  const optimizer = tf.train.adam(c.learning_rate, 0.9, 0.999, 1e-5);
  if (resume) {
    network = (await loadModelDir(resume, layout)).network;
    state = readTrainerState(resume, c.num_envs);
    await loadOptimizer(resume, optimizer);
    log(`resuming from ${resume} at step ${state.steps}`);
  } else network = new PolicyNetwork(buildModel(layout.rowSize, c.network, c.seed), layout);
  const variables = network.model.trainableWeights.map((w) => w.read() as tf.Variable);
  return { learner: { network, variables, optimizer }, state };
}

/** Creates the output directory with config.json and, unless resuming onto an existing one, the header of metrics.csv; returns metrics.csv's path. */
function prepareOutDir(outDir: string, c: PpoConfig, resume: string | undefined): string {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'config.json'), `${JSON.stringify(c, null, 1)}\n`);
  const metricsFile = join(outDir, 'metrics.csv');
  if (!resume || !existsSync(metricsFile)) writeFileSync(metricsFile, `${METRICS_COLUMNS.join(',')}\n`);
  return metricsFile;
}

/** The metrics.csv row of an update: progress, the episodes that ended, the mean losses and diagnostics, timing. */
function metricsRow(
  update: number,
  state: TrainerState,
  finished: FinishedEpisode[],
  stats: UpdateStats,
  ro: RolloutBuffer,
  lr: number,
  timing: { steps_per_s: number; seconds: number },
): MetricsRow {
  const mean = (f: (e: FinishedEpisode) => number) => (finished.length ? finished.reduce((a, e) => a + f(e), 0) / finished.length : NaN);
  return {
    update,
    steps: state.steps,
    episodes: state.episodes,
    mean_return: mean((e) => e.ret),
    mean_bsld: mean((e) => e.bsld),
    mean_wait: mean((e) => e.wait),
    policy_loss: stats.pg / stats.n,
    value_loss: stats.v / stats.n,
    entropy: stats.ent / stats.n,
    approx_kl: stats.kl / stats.n,
    clip_fraction: stats.clip / stats.n,
    explained_variance: explainedVariance(ro.values, ro.targets),
    learning_rate: lr,
    steps_per_s: timing.steps_per_s,
    seconds: timing.seconds,
    mean_baseline_bsld: mean((e) => e.baselineBsld),
  };
}

/** A metrics.csv line (non-finite values left empty). */
function csvLine(row: MetricsRow): string {
  return `${METRICS_COLUMNS.map((k) => (Number.isFinite(row[k]) ? String(row[k]) : '')).join(',')}\n`;
}

/** Stores what a checkpoint resumes from: the updates done, the reward normaliser and the envs' discounted returns. */
function recordProgress(state: TrainerState, update: number, env: EnvState): void {
  state.updates = update;
  state.reward_rms = { mean: env.rewardRms.mean, var: env.rewardRms.var, count: env.rewardRms.count };
  state.returns = Array.from(env.returns);
}

/** 1 - Var(targets - values) / Var(targets): how much of the returns the critic explains. */
function explainedVariance(values: Float32Array, targets: Float32Array): number {
  const n = values.length;
  let mt = 0;
  let md = 0;
  for (let i = 0; i < n; i++) {
    mt += targets[i]!;
    md += targets[i]! - values[i]!;
  }
  mt /= n;
  md /= n;
  let vt = 0;
  let vd = 0;
  for (let i = 0; i < n; i++) {
    vt += (targets[i]! - mt) ** 2;
    vd += (targets[i]! - values[i]! - md) ** 2;
  }
  return vt === 0 ? NaN : 1 - vd / vt;
}
