/**
 * PPO training (DESIGN §7), CleanRL style: the whole algorithm is `train()` below, read top to
 * bottom: collect a rollout of `num_steps` steps from `num_envs` environments with the current
 * policy, compute advantages with GAE, then optimise the clipped PPO objective for `update_epochs`
 * epochs over `num_minibatches` minibatches; repeat until `total_steps`.
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
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../../src/core/errors.js';
import { derive } from '../../src/core/rng.js';
import { makeVec, type SyncVecEnv } from '../../envs/vector.js';
import { selectBackend, tf, type BackendInfo } from './backend.js';
import { parsePpoConfig, type PpoConfig } from './config.js';
import { appendBatch, FeatureBatch, POOLED_SIZE, pooledOf, rowLayout, type RowLayout } from './features.js';
import { loadModelDir, saveModelDir } from './io.js';
import { buildModel, PolicyNetwork } from './network.js';

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

/** Running mean and variance (parallel Welford), as CleanRL's RunningMeanStd. */
export class RunningMeanStd {
  mean = 0;
  var = 1;
  count = 1e-4;
  update(xs: ArrayLike<number>): void {
    const n = xs.length;
    if (n === 0) return;
    let m = 0;
    for (let i = 0; i < n; i++) m += xs[i]!;
    m /= n;
    let v = 0;
    for (let i = 0; i < n; i++) v += (xs[i]! - m) ** 2;
    v /= n;
    const delta = m - this.mean;
    const total = this.count + n;
    this.mean += (delta * n) / total;
    this.var = (this.var * this.count + v * n + (delta * delta * this.count * n) / total) / total;
    this.count = total;
  }
}

/** trainer.json of a checkpoint. */
const TrainerStateSchema = z
  .object({
    steps: z.number().int().min(0),
    updates: z.number().int().min(0),
    episodes: z.number().int().min(0),
    reward_rms: z.object({ mean: z.number(), var: z.number(), count: z.number() }).strict(),
    returns: z.array(z.number()),
  })
  .strict();
type TrainerState = z.infer<typeof TrainerStateSchema>;

/**
 * The checkpoint directory meant by `dir`: a checkpoint itself (it has trainer.json) or a training
 * output directory (its latest checkpoint). Throws an `InputError` when there is none.
 */
export function resolveCheckpoint(dir: string): string {
  if (!existsSync(dir)) throw new InputError('no such checkpoint or training directory', dir);
  if (existsSync(join(dir, 'trainer.json'))) return dir;
  const ck = join(dir, 'checkpoints');
  const steps = existsSync(ck) ? readdirSync(ck).filter((d) => /^step-\d+$/.test(d) && existsSync(join(ck, d, 'trainer.json'))) : [];
  if (steps.length === 0) throw new InputError('neither a checkpoint (trainer.json) nor a training directory with checkpoints/step-N/', dir);
  steps.sort();
  return join(ck, steps[steps.length - 1]!);
}

/** Reads the training configuration stored in a checkpoint. */
export function checkpointConfig(checkpoint: string): PpoConfig {
  const file = join(checkpoint, 'config.json');
  if (!existsSync(file)) throw new InputError('config.json is missing', checkpoint);
  return parsePpoConfig(JSON.parse(readFileSync(file, 'utf8')), file);
}

/** Trains PPO with `config`; writes the output directory; returns the trained network. */
export async function train(config: PpoConfig, options: TrainOptions): Promise<TrainResult> {
  const c = config;
  const log = options.log ?? (() => {});
  const backend = await selectBackend(c.backend);

  // ---- environments: one vector env, stepped in this thread
  const venv: SyncVecEnv = makeVec(c.num_envs, c.env.id, c.env.config);
  const env0 = venv.envs[0]!;
  const layout: RowLayout = rowLayout(c.env.id, env0.k, env0.nodeCount);
  const limits = { ...env0.limits };
  const N = c.num_envs;
  const T = c.num_steps;
  const batchSize = N * T;
  const minibatchSize = Math.ceil(batchSize / c.num_minibatches);
  const numUpdates = Math.ceil(c.total_steps / batchSize);

  // ---- network and optimiser (fresh, or from a checkpoint)
  let network: PolicyNetwork;
  let state: TrainerState = { steps: 0, updates: 0, episodes: 0, reward_rms: { mean: 0, var: 1, count: 1e-4 }, returns: new Array<number>(N).fill(0) };
  const optimizer = tf.train.adam(c.learning_rate, 0.9, 0.999, 1e-5);
  if (options.resume) {
    const ck = options.resume;
    network = (await loadModelDir(ck, layout)).network;
    state = readTrainerState(ck, N);
    await loadOptimizer(ck, optimizer);
    log(`resuming from ${ck} at step ${state.steps}`);
  } else network = new PolicyNetwork(buildModel(layout.rowSize, c.network, c.seed), layout);
  const variables = network.model.trainableWeights.map((w) => w.read() as tf.Variable);
  const setLearningRate = (lr: number) => ((optimizer as unknown as { learningRate: number }).learningRate = lr);
  const rewardRms = Object.assign(new RunningMeanStd(), state.reward_rms);
  const returns = Float64Array.from(state.returns);

  // ---- output directory
  mkdirSync(options.outDir, { recursive: true });
  writeFileSync(join(options.outDir, 'config.json'), JSON.stringify(c, null, 1) + '\n');
  const metricsFile = join(options.outDir, 'metrics.csv');
  if (!options.resume || !existsSync(metricsFile)) writeFileSync(metricsFile, METRICS_COLUMNS.join(',') + '\n');

  // ---- rollout storage: sample t * N + i is env i at step t
  const states = new FeatureBatch(layout.rowSize, batchSize, batchSize * 8);
  const stepBatch = new FeatureBatch(layout.rowSize, N, N * 16);
  const positions = new Int32Array(batchSize);
  const logps = new Float32Array(batchSize);
  const values = new Float32Array(batchSize);
  const rewards = new Float32Array(batchSize);
  const dones = new Uint8Array(batchSize);
  const advantages = new Float32Array(batchSize);
  const targets = new Float32Array(batchSize);
  const actRng = derive(c.seed, `ppo/actions/${state.steps}`);
  const shuffleRng = derive(c.seed, `ppo/minibatches/${state.steps}`);

  let obs = venv.reset({ seed: derive(c.seed, `episodes/${state.steps}`).int(2 ** 31 - 1024) }).observations as Record<string, Float32Array>;
  const nextDone = new Uint8Array(N);
  const rows: MetricsRow[] = [];
  const t0 = performance.now();
  let updateSeconds = 0;

  for (let update = state.updates + 1; update <= numUpdates && state.steps < c.total_steps; update++) {
    const tu = performance.now();
    const lr = c.anneal_lr ? c.learning_rate * Math.max(0, 1 - (update - 1) / numUpdates) : c.learning_rate;
    setLearningRate(lr);

    // ---- 1. rollout: num_steps steps of every env with the current (sampling) policy
    states.clear();
    const finished: { ret: number; bsld: number; wait: number }[] = [];
    for (let t = 0; t < T; t++) {
      stepBatch.clear();
      appendBatch(stepBatch, layout, obs, venv.actionMasks(), N);
      const choice = network.act(stepBatch, actRng);
      for (let i = 0; i < N; i++) {
        const k = t * N + i;
        states.appendFrom(stepBatch, i);
        positions[k] = choice.positions[i]!;
        logps[k] = choice.logps[i]!;
        values[k] = choice.values[i]!;
        dones[k] = nextDone[i]!;
      }
      const r = venv.step(choice.actions);
      obs = r.observations as Record<string, Float32Array>;
      // reward normalisation: divide by the running std of the discounted return
      for (let i = 0; i < N; i++) returns[i] = returns[i]! * c.gamma + r.rewards[i]!;
      if (c.normalize_reward) rewardRms.update(returns);
      const scale = c.normalize_reward ? 1 / Math.sqrt(rewardRms.var + 1e-8) : 1;
      const truncatedEnvs: number[] = [];
      for (let i = 0; i < N; i++) {
        const k = t * N + i;
        rewards[k] = r.rewards[i]! * scale;
        const ended = r.terminated[i] === 1 || r.truncated[i] === 1;
        nextDone[i] = ended ? 1 : 0;
        if (!ended) continue;
        returns[i] = 0;
        const info = r.infos[i]!.final_info!;
        finished.push({ ret: info.episode!.return, bsld: info.metrics!.mean_bsld, wait: info.metrics!.mean_wait });
        if (r.terminated[i] !== 1) truncatedEnvs.push(i);
      }
      // truncated (not terminated) episodes: bootstrap from the value of the final observation
      if (truncatedEnvs.length > 0) {
        const pooled = new Float32Array(truncatedEnvs.length * POOLED_SIZE);
        truncatedEnvs.forEach((i, j) => {
          const fo = r.infos[i]!.final_observation as { jobs: Float32Array; nodes: Float32Array; global: Float32Array };
          pooled.set(pooledOf(fo, layout), j * POOLED_SIZE);
        });
        const v = network.values(pooled, truncatedEnvs.length);
        truncatedEnvs.forEach((i, j) => (rewards[t * N + i]! += c.gamma * v[j]!));
      }
    }
    state.steps += batchSize;
    state.episodes += finished.length;

    // ---- 2. advantages: GAE(gamma, lambda), bootstrapped from the value of the next observation
    stepBatch.clear();
    appendBatch(stepBatch, layout, obs, venv.actionMasks(), N);
    const nextValues = network.values(stepBatch.pooled.subarray(0, N * POOLED_SIZE), N);
    const lastGae = new Float64Array(N);
    for (let t = T - 1; t >= 0; t--) {
      for (let i = 0; i < N; i++) {
        const k = t * N + i;
        const nonTerminal = t === T - 1 ? 1 - nextDone[i]! : 1 - dones[k + N]!;
        const nextValue = t === T - 1 ? nextValues[i]! : values[k + N]!;
        const delta = rewards[k]! + c.gamma * nextValue * nonTerminal - values[k]!;
        lastGae[i] = delta + c.gamma * c.gae_lambda * nonTerminal * lastGae[i]!;
        advantages[k] = lastGae[i]!;
        targets[k] = advantages[k]! + values[k]!;
      }
    }

    // ---- 3. optimise the clipped objective: update_epochs epochs of num_minibatches minibatches
    const order = Int32Array.from({ length: batchSize }, (_, i) => i);
    const mb = new FeatureBatch(layout.rowSize, minibatchSize, minibatchSize * 8);
    const stats = { pg: 0, v: 0, ent: 0, kl: 0, clip: 0, n: 0 };
    let stop = false;
    for (let epoch = 0; epoch < c.update_epochs && !stop; epoch++) {
      for (let i = batchSize - 1; i > 0; i--) {
        const j = shuffleRng.int(i + 1);
        const x = order[i]!;
        order[i] = order[j]!;
        order[j] = x;
      }
      for (let start = 0; start < batchSize; start += minibatchSize) {
        const idx = order.subarray(start, Math.min(batchSize, start + minibatchSize));
        mb.clear();
        for (const k of idx) mb.appendFrom(states, k);
        const s = minibatchStep(network, variables, optimizer, mb, idx, { positions, logps, values, advantages, targets }, c);
        stats.pg += s.pg;
        stats.v += s.v;
        stats.ent += s.ent;
        stats.kl += s.kl;
        stats.clip += s.clip;
        stats.n++;
        if (c.target_kl !== null && s.kl > c.target_kl) {
          stop = true;
          break;
        }
      }
    }

    // ---- 4. log, checkpoint
    updateSeconds += (performance.now() - tu) / 1000;
    const seconds = (performance.now() - t0) / 1000;
    const mean = (f: (e: (typeof finished)[number]) => number) => (finished.length ? finished.reduce((a, e) => a + f(e), 0) / finished.length : NaN);
    const row: MetricsRow = {
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
      explained_variance: explainedVariance(values, targets),
      learning_rate: lr,
      steps_per_s: (rows.length + 1) * batchSize / updateSeconds,
      seconds,
    };
    rows.push(row);
    appendFileSync(metricsFile, METRICS_COLUMNS.map((k) => (Number.isFinite(row[k]) ? String(row[k]) : '')).join(',') + '\n');
    state.updates = update;
    state.reward_rms = { mean: rewardRms.mean, var: rewardRms.var, count: rewardRms.count };
    state.returns = Array.from(returns);
    options.onProgress?.({ steps: state.steps, totalSteps: c.total_steps, episodes: state.episodes, row });
    const timeUp = c.time_limit !== null && seconds >= c.time_limit;
    const last = update === numUpdates || state.steps >= c.total_steps || timeUp;
    if ((c.checkpoint_every > 0 && update % c.checkpoint_every === 0) || last) {
      const dir = join(options.outDir, 'checkpoints', `step-${String(state.steps).padStart(9, '0')}`);
      await saveCheckpoint(dir, network, optimizer, state, c, limits, backend.name);
      log(`checkpoint ${dir}`);
    }
    if (timeUp) {
      log(`time limit of ${c.time_limit} s reached after ${state.steps} steps`);
      break;
    }
  }

  const modelDir = join(options.outDir, 'model');
  await saveModelDir(modelDir, network, { config: c, limits, steps: state.steps, backend: backend.name });
  venv.close();
  optimizer.dispose();
  return { modelDir, steps: state.steps, episodes: state.episodes, seconds: (performance.now() - t0) / 1000, backend, metrics: rows, network, limits };
}

/** Rollout arrays a minibatch reads. */
export interface Rollout {
  positions: Int32Array;
  logps: Float32Array;
  values: Float32Array;
  advantages: Float32Array;
  targets: Float32Array;
}

/** Losses and diagnostics of one minibatch step. */
export interface StepStats {
  pg: number;
  v: number;
  ent: number;
  kl: number;
  clip: number;
}

/**
 * One gradient step on a minibatch: `mb` holds its states (in the order of `idx`, the rollout
 * indices). Builds the padded logits [B, P] by gathering row scores, wait logits and a -1e9 pad,
 * computes the PPO loss, clips the gradients' global norm and applies Adam.
 */
export function minibatchStep(network: PolicyNetwork, variables: tf.Variable[], optimizer: tf.Optimizer, mb: FeatureBatch, idx: Int32Array, ro: Rollout, c: PpoConfig): StepStats {
  const B = mb.size;
  const R = mb.rowCount;
  let P = 2; // at least 2 columns (tf.oneHot needs depth >= 2; an extra column is padding)
  for (let i = 0; i < B; i++) P = Math.max(P, mb.candidates(i));
  // gather index of each (state, candidate position): a row, the state's wait logit (R + i), or the pad (R + B)
  const gather = new Int32Array(B * P).fill(R + B);
  const chosen = new Int32Array(B);
  const oldLogp = new Float32Array(B);
  const oldValue = new Float32Array(B);
  const adv = new Float32Array(B);
  const ret = new Float32Array(B);
  for (let i = 0; i < B; i++) {
    const r0 = mb.rowStart[i]!;
    const count = mb.rowStart[i + 1]! - r0;
    for (let p = 0; p < count; p++) gather[i * P + p] = r0 + p;
    if (mb.hasWait[i] === 1) gather[i * P + count] = R + i;
    const k = idx[i]!;
    chosen[i] = ro.positions[k]!;
    oldLogp[i] = ro.logps[k]!;
    oldValue[i] = ro.values[k]!;
    adv[i] = ro.advantages[k]!;
    ret[i] = ro.targets[k]!;
  }
  if (c.norm_adv && B > 1) {
    let m = 0;
    for (const a of adv) m += a;
    m /= B;
    let v = 0;
    for (const a of adv) v += (a - m) ** 2;
    const sd = Math.sqrt(v / (B - 1));
    for (let i = 0; i < B; i++) adv[i] = (adv[i]! - m) / (sd + 1e-8);
  }
  const kept: tf.Scalar[] = [];
  tf.tidy(() => {
    const rows = tf.tensor2d(mb.rows.subarray(0, R * mb.rowSize), [R, mb.rowSize]);
    const pooled = tf.tensor2d(mb.pooled.subarray(0, B * POOLED_SIZE), [B, POOLED_SIZE]);
    const gatherT = tf.tensor1d(gather, 'int32');
    const chosenT = tf.tensor1d(chosen, 'int32');
    const oldLogpT = tf.tensor1d(oldLogp);
    const oldValueT = tf.tensor1d(oldValue);
    const advT = tf.tensor1d(adv);
    const retT = tf.tensor1d(ret);
    const { value: loss, grads } = tf.variableGrads(() => {
      const o = network.apply(rows, pooled);
      const all = tf.concat([o.scores, o.wait, tf.tensor1d([-1e9])]);
      const logpAll = tf.logSoftmax(gatherWithGrad(all, gatherT).reshape([B, P]));
      const newLogp = tf.sum(tf.mul(logpAll, tf.oneHot(chosenT, P).toFloat()), 1);
      const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logpAll), logpAll), 1)).mean();
      const logRatio = tf.sub(newLogp, oldLogpT);
      const ratio = tf.exp(logRatio);
      const pgLoss = tf.maximum(tf.mul(tf.neg(advT), ratio), tf.mul(tf.neg(advT), tf.clipByValue(ratio, 1 - c.clip_coef, 1 + c.clip_coef))).mean();
      const vUnclipped = tf.square(tf.sub(o.values, retT));
      const vLoss = c.clip_vloss
        ? tf.maximum(vUnclipped, tf.square(tf.sub(tf.add(oldValueT, tf.clipByValue(tf.sub(o.values, oldValueT), -c.clip_coef, c.clip_coef)), retT))).mean().mul(0.5)
        : vUnclipped.mean().mul(0.5);
      const approxKl = tf.sub(tf.sub(ratio, 1), logRatio).mean();
      const clipFrac = tf.greater(tf.abs(tf.sub(ratio, 1)), c.clip_coef).toFloat().mean();
      kept.push(...([pgLoss, vLoss, entropy, approxKl, clipFrac] as tf.Scalar[]).map((t) => tf.keep(t)));
      return tf.add(tf.sub(pgLoss, tf.mul(entropy, c.ent_coef)), tf.mul(vLoss, c.vf_coef)) as tf.Scalar;
    }, variables);
    loss.dispose();
    // every variable gets a gradient, in the same order at every step (Adam keeps its moments by position)
    const ordered: Record<string, tf.Tensor> = {};
    for (const v of variables) ordered[v.name] = grads[v.name] ?? tf.zerosLike(v);
    const norm = tf.sqrt(tf.addN(Object.values(ordered).map((g) => tf.sum(tf.square(g)))));
    const scale = tf.minimum(1, tf.div(c.max_grad_norm, tf.add(norm, 1e-6)));
    const clipped: Record<string, tf.Tensor> = {};
    for (const [k, g] of Object.entries(ordered)) clipped[k] = tf.mul(g, scale);
    optimizer.applyGradients(clipped);
  });
  const [pg, v, ent, kl, clip] = kept.map((t) => {
    const x = t.dataSync()[0]!;
    t.dispose();
    return x;
  });
  return { pg: pg!, v: v!, ent: ent!, kl: kl!, clip: clip! };
}

/**
 * `tf.gather(x, idx)` on a 1-D `x` with its gradient written as a scatter (`ScatterNd`): tfjs'
 * own gather gradient needs `UnsortedSegmentSum`, which the wasm backend lacks. Only the pad
 * index repeats in `idx`, and the pad is a constant, so summing or overwriting duplicates is the same.
 */
function gatherWithGrad(x: tf.Tensor1D, idx: tf.Tensor1D): tf.Tensor1D {
  const f = tf.customGrad((...inputs: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const xs = inputs[0] as tf.Tensor;
    return { value: tf.gather(xs, idx), gradFunc: (dy: tf.Tensor) => tf.scatterND(idx.expandDims(1), dy, xs.shape) };
  });
  return f(x) as tf.Tensor1D;
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

/** Writes a checkpoint: the model directory plus Adam's state and the trainer's progress. */
async function saveCheckpoint(dir: string, network: PolicyNetwork, optimizer: tf.Optimizer, state: TrainerState, c: PpoConfig, limits: TrainResult['limits'], backend: string): Promise<void> {
  await saveModelDir(dir, network, { config: c, limits, steps: state.steps, backend });
  const weights = await optimizer.getWeights();
  const specs = weights.map((w) => ({ name: w.name, shape: w.tensor.shape }));
  const total = weights.reduce((a, w) => a + w.tensor.size, 0);
  const data = new Float32Array(total);
  let o = 0;
  for (const w of weights) {
    const d = w.tensor.dataSync() as Float32Array;
    data.set(d, o);
    o += d.length;
  }
  // the iteration count comes as a fresh scalar; the moments are the optimizer's own variables
  for (const w of weights) if (!(w.tensor instanceof tf.Variable)) w.tensor.dispose();
  writeFileSync(join(dir, 'optimizer.json'), JSON.stringify({ optimizer: 'adam', weights: specs }) + '\n');
  writeFileSync(join(dir, 'optimizer.bin'), new Uint8Array(data.buffer));
  writeFileSync(join(dir, 'trainer.json'), JSON.stringify(state) + '\n');
}

const OptimizerJsonSchema = z.object({ optimizer: z.literal('adam'), weights: z.array(z.object({ name: z.string(), shape: z.array(z.number().int().min(0)) }).strict()) }).strict();

async function loadOptimizer(dir: string, optimizer: tf.Optimizer): Promise<void> {
  const file = join(dir, 'optimizer.json');
  if (!existsSync(file)) throw new InputError('optimizer.json is missing: not a checkpoint', dir);
  const r = OptimizerJsonSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!r.success) throw inputErrorFromIssues(file, r.error.issues);
  const bin = readFileSync(join(dir, 'optimizer.bin'));
  const data = new Float32Array(bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength));
  let o = 0;
  const named = r.data.weights.map((w) => {
    const size = w.shape.reduce((a, b) => a * b, 1);
    const t = tf.tensor(data.subarray(o, o + size), w.shape);
    o += size;
    return { name: w.name, tensor: t };
  });
  if (o !== data.length) throw new InputError(`optimizer.bin holds ${data.length} values, optimizer.json describes ${o}`, dir);
  await optimizer.setWeights(named);
  for (const w of named) w.tensor.dispose(); // setWeights made variables of them
}

function readTrainerState(dir: string, numEnvs: number): TrainerState {
  const file = join(dir, 'trainer.json');
  const r = TrainerStateSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!r.success) throw inputErrorFromIssues(file, r.error.issues);
  const s = r.data;
  if (s.returns.length !== numEnvs) s.returns = new Array<number>(numEnvs).fill(0);
  return s;
}

/** The training output directory a checkpoint belongs to (`OUT/checkpoints/step-N` -> `OUT`). */
export function runDirOf(checkpoint: string): string {
  const abs = resolve(checkpoint);
  return dirname(dirname(abs));
}
