/**
 * The PPO update (train.ts, step 3): `update_epochs` epochs over `num_minibatches` shuffled
 * minibatches of the rollout, each one gradient step on the clipped objective (see the formulas in
 * train.ts): padded logits, the loss, the gradients' global norm clipped, Adam. Also the learning
 * rate schedule.
 */
import type { Rng } from '../../src/core/rng.js';
import { tf } from './backend.js';
import type { PpoConfig } from './config.js';
import { FeatureBatch, POOLED_SIZE } from './features.js';
import type { PolicyNetwork } from './network.js';

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

/** What is trained: the network, its trainable variables (in a fixed order: Adam keeps its moments by position) and Adam. */
export interface Learner {
  network: PolicyNetwork;
  variables: tf.Variable[];
  optimizer: tf.Optimizer;
}

/** The learning rate of update `update` (1-based) of `numUpdates`: annealed linearly to 0 with `anneal_lr`. */
export function learningRateAt(c: PpoConfig, update: number, numUpdates: number): number {
  return c.anneal_lr ? c.learning_rate * Math.max(0, 1 - (update - 1) / numUpdates) : c.learning_rate;
}

/** Sets Adam's learning rate. */
export function setLearningRate(optimizer: tf.Optimizer, lr: number): void {
  (optimizer as unknown as { learningRate: number }).learningRate = lr;
}

/** Sums of the minibatch steps' `StepStats` over an update, and their count `n`. */
export type UpdateStats = StepStats & { n: number };

/**
 * Step 3: `update_epochs` epochs, each over the rollout's `size` samples (`states`) in a fresh
 * order (a Fisher-Yates shuffle from `shuffleRng`) cut into minibatches of
 * `ceil(size / num_minibatches)`; stops early when a minibatch's approximate KL exceeds `target_kl`.
 */
export function ppoUpdate(learner: Learner, ro: Rollout & { states: FeatureBatch; size: number }, shuffleRng: Rng, c: PpoConfig): UpdateStats {
  const { states, size } = ro;
  const minibatchSize = Math.ceil(size / c.num_minibatches);
  const order = Int32Array.from({ length: size }, (_, i) => i);
  const mb = new FeatureBatch(states.rowSize, minibatchSize, minibatchSize * 8);
  const stats = { pg: 0, v: 0, ent: 0, kl: 0, clip: 0, n: 0 };
  for (let epoch = 0; epoch < c.update_epochs; epoch++) {
    shuffle(order, shuffleRng);
    for (let start = 0; start < size; start += minibatchSize) {
      const idx = order.subarray(start, Math.min(size, start + minibatchSize));
      mb.clear();
      for (const k of idx) mb.appendFrom(states, k);
      const s = minibatchStep(learner.network, learner.variables, learner.optimizer, mb, idx, ro, c);
      stats.pg += s.pg;
      stats.v += s.v;
      stats.ent += s.ent;
      stats.kl += s.kl;
      stats.clip += s.clip;
      stats.n++;
      if (c.target_kl !== null && s.kl > c.target_kl) return stats;
    }
  }
  return stats;
}

/** Shuffles `order` in place (Fisher-Yates, from the end). */
function shuffle(order: Int32Array, rng: Rng): void {
  for (let i = order.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const x = order[i]!;
    order[i] = order[j]!;
    order[j] = x;
  }
}

/** A minibatch as the loss reads it: gather indices of its padded logits `[B, P]` and its rollout values. */
interface MinibatchInputs {
  B: number;
  P: number;
  /** Per (state, candidate position): a row, the state's wait logit (`R + i`), or the pad (`R + B`). */
  gather: Int32Array;
  chosen: Int32Array;
  oldLogp: Float32Array;
  oldValue: Float32Array;
  adv: Float32Array;
  ret: Float32Array;
}

/**
 * One gradient step on a minibatch: `mb` holds its states (in the order of `idx`, the rollout
 * indices). Builds the padded logits [B, P] by gathering row scores, wait logits and a -1e9 pad,
 * computes the PPO loss, clips the gradients' global norm and applies Adam.
 */
export function minibatchStep(
  network: PolicyNetwork,
  variables: tf.Variable[],
  optimizer: tf.Optimizer,
  mb: FeatureBatch,
  idx: Int32Array,
  ro: Rollout,
  c: PpoConfig,
): StepStats {
  const m = minibatchInputs(mb, idx, ro);
  if (c.norm_adv && m.B > 1) normalizeAdvantages(m.adv);
  const kept: tf.Scalar[] = [];
  tf.tidy(() => {
    const R = mb.rowCount;
    const rows = tf.tensor2d(mb.rows.subarray(0, R * mb.rowSize), [R, mb.rowSize]);
    const pooled = tf.tensor2d(mb.pooled.subarray(0, m.B * POOLED_SIZE), [m.B, POOLED_SIZE]);
    const t = {
      gather: tf.tensor1d(m.gather, 'int32'),
      chosen: tf.tensor1d(m.chosen, 'int32'),
      oldLogp: tf.tensor1d(m.oldLogp),
      oldValue: tf.tensor1d(m.oldValue),
      adv: tf.tensor1d(m.adv),
      ret: tf.tensor1d(m.ret),
    };
    const { value: loss, grads } = tf.variableGrads(() => ppoLoss(network.apply(rows, pooled), t, m.B, m.P, c, kept), variables);
    loss.dispose();
    applyClippedGradients(optimizer, variables, grads, c.max_grad_norm);
  });
  const [pg, v, ent, kl, clip] = kept.map((t) => {
    const x = t.dataSync()[0]!;
    t.dispose();
    return x;
  });
  return { pg: pg!, v: v!, ent: ent!, kl: kl!, clip: clip! };
}

/**
 * One behaviour-cloning step (the warm start, warmStart.ts; imitation, imitation.ts): the
 * cross-entropy `-mean log p(a*|s)` of the teacher's candidate positions `chosen` (one per state of
 * `mb`) under the masked policy, gradients clipped to `max_grad_norm`, Adam. Options: `weights`
 * (one per state) make it the weighted mean `-sum w log p / sum w`; `equivalent(i)` lists, for state
 * i, the other candidate positions that are the same choice as the label (candidates whose rows are
 * identical, e.g. one job on two identical idle nodes): the loss is then `-log` of the probability
 * of the whole set, so the network is not taught to tell identical rows apart. Returns the loss and
 * the fraction of states whose most probable action is in the label's set.
 */
export function cloneStep(
  network: PolicyNetwork,
  variables: tf.Variable[],
  optimizer: tf.Optimizer,
  mb: FeatureBatch,
  chosen: Int32Array,
  maxGradNorm: number,
  o: { weights?: Float32Array; equivalent?: (i: number) => ArrayLike<number> } = {},
): { loss: number; accuracy: number } {
  const B = mb.size;
  const idx = Int32Array.from({ length: B }, (_, i) => i);
  const zeros = new Float32Array(B);
  const m = minibatchInputs(mb, idx, { positions: chosen, logps: zeros, values: zeros, advantages: zeros, targets: zeros });
  // the label's set per state, as a 0/1 matrix [B, P]
  const target = new Float32Array(B * m.P);
  for (let i = 0; i < B; i++) {
    target[i * m.P + m.chosen[i]!] = 1;
    if (o.equivalent) for (const p of Array.from(o.equivalent(i))) target[i * m.P + p] = 1;
  }
  const kept: tf.Tensor[] = [];
  tf.tidy(() => {
    const R = mb.rowCount;
    const rows = tf.tensor2d(mb.rows.subarray(0, R * mb.rowSize), [R, mb.rowSize]);
    const pooled = tf.tensor2d(mb.pooled.subarray(0, B * POOLED_SIZE), [B, POOLED_SIZE]);
    const gather = tf.tensor1d(m.gather, 'int32');
    const inSet = tf.tensor2d(target, [B, m.P]);
    const { value: loss, grads } = tf.variableGrads(() => {
      const logpAll = paddedLogProbs(network.apply(rows, pooled), gather, B, m.P);
      const best = tf.oneHot(tf.argMax(logpAll, 1), m.P).toFloat();
      kept.push(tf.keep(tf.sum(tf.mul(best, inSet), 1).mean()));
      // log of the set's probability: logsumexp over the set's columns
      const logp = tf.logSumExp(tf.add(logpAll, tf.mul(tf.sub(inSet, 1), 1e9)), 1);
      if (!o.weights) return tf.neg(logp.mean()) as tf.Scalar;
      const w = tf.tensor1d(o.weights.subarray(0, B));
      return tf.neg(tf.div(tf.sum(tf.mul(logp, w)), tf.maximum(tf.sum(w), 1e-9))) as tf.Scalar;
    }, variables);
    kept.push(tf.keep(loss));
    applyClippedGradients(optimizer, variables, grads, maxGradNorm);
  });
  const [accuracy, loss] = kept.map((t) => {
    const x = t.dataSync()[0]!;
    t.dispose();
    return x;
  });
  return { loss: loss!, accuracy: accuracy! };
}

/** The gather indices (at least 2 columns: tf.oneHot needs depth >= 2; an extra column is padding) and the rollout values of a minibatch. */
function minibatchInputs(mb: FeatureBatch, idx: Int32Array, ro: Rollout): MinibatchInputs {
  const B = mb.size;
  const R = mb.rowCount;
  let P = 2;
  for (let i = 0; i < B; i++) P = Math.max(P, mb.candidates(i));
  const m: MinibatchInputs = {
    B,
    P,
    gather: new Int32Array(B * P).fill(R + B),
    chosen: new Int32Array(B),
    oldLogp: new Float32Array(B),
    oldValue: new Float32Array(B),
    adv: new Float32Array(B),
    ret: new Float32Array(B),
  };
  for (let i = 0; i < B; i++) {
    const r0 = mb.rowStart[i]!;
    const count = mb.rowStart[i + 1]! - r0;
    for (let p = 0; p < count; p++) m.gather[i * P + p] = r0 + p;
    if (mb.hasWait[i] === 1) m.gather[i * P + count] = R + i;
    const k = idx[i]!;
    m.chosen[i] = ro.positions[k]!;
    m.oldLogp[i] = ro.logps[k]!;
    m.oldValue[i] = ro.values[k]!;
    m.adv[i] = ro.advantages[k]!;
    m.ret[i] = ro.targets[k]!;
  }
  return m;
}

/** Normalises a minibatch's advantages in place: zero mean, unit (sample) standard deviation. */
function normalizeAdvantages(adv: Float32Array): void {
  const B = adv.length;
  let m = 0;
  for (const a of adv) m += a;
  m /= B;
  let v = 0;
  for (const a of adv) v += (a - m) ** 2;
  const sd = Math.sqrt(v / (B - 1));
  for (let i = 0; i < B; i++) adv[i] = (adv[i]! - m) / (sd + 1e-8);
}

/**
 * The PPO loss `L_pg - ent_coef * entropy + vf_coef * L_v` of the network's output `o` on a
 * minibatch (tensors `t`, B states, P logit columns); keeps the policy loss, value loss, entropy,
 * approximate KL and clip fraction in `kept`.
 */
function ppoLoss(
  o: { scores: tf.Tensor1D; wait: tf.Tensor1D; values: tf.Tensor1D },
  t: { gather: tf.Tensor1D; chosen: tf.Tensor1D; oldLogp: tf.Tensor1D; oldValue: tf.Tensor1D; adv: tf.Tensor1D; ret: tf.Tensor1D },
  B: number,
  P: number,
  c: PpoConfig,
  kept: tf.Scalar[],
): tf.Scalar {
  const logpAll = paddedLogProbs(o, t.gather, B, P);
  const newLogp = tf.sum(tf.mul(logpAll, tf.oneHot(t.chosen, P).toFloat()), 1);
  const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logpAll), logpAll), 1)).mean();
  const logRatio = tf.sub(newLogp, t.oldLogp);
  const ratio = tf.exp(logRatio);
  const pgLoss = tf.maximum(tf.mul(tf.neg(t.adv), ratio), tf.mul(tf.neg(t.adv), tf.clipByValue(ratio, 1 - c.clip_coef, 1 + c.clip_coef))).mean();
  const vUnclipped = tf.square(tf.sub(o.values, t.ret));
  const vLoss = c.clip_vloss
    ? tf
        .maximum(vUnclipped, tf.square(tf.sub(tf.add(t.oldValue, tf.clipByValue(tf.sub(o.values, t.oldValue), -c.clip_coef, c.clip_coef)), t.ret)))
        .mean()
        .mul(0.5)
    : vUnclipped.mean().mul(0.5);
  const approxKl = tf.sub(tf.sub(ratio, 1), logRatio).mean();
  const clipFrac = tf
    .greater(tf.abs(tf.sub(ratio, 1)), c.clip_coef)
    .toFloat()
    .mean();
  kept.push(...([pgLoss, vLoss, entropy, approxKl, clipFrac] as tf.Scalar[]).map((s) => tf.keep(s)));
  return tf.add(tf.sub(pgLoss, tf.mul(entropy, c.ent_coef)), tf.mul(vLoss, c.vf_coef)) as tf.Scalar;
}

/**
 * The log-probabilities `[B, P]` of every candidate of a minibatch's states: the row scores, the wait
 * logits and a -1e9 pad gathered by `gather` (see `minibatchInputs`), then a log-softmax per state.
 */
function paddedLogProbs(o: { scores: tf.Tensor1D; wait: tf.Tensor1D }, gather: tf.Tensor1D, B: number, P: number): tf.Tensor2D {
  const all = tf.concat([o.scores, o.wait, tf.tensor1d([-1e9])]);
  return tf.logSoftmax(gatherWithGrad(all, gather).reshape([B, P])) as tf.Tensor2D;
}

/** Scales the gradients to a global norm of at most `maxNorm` and applies them with Adam. */
function applyClippedGradients(optimizer: tf.Optimizer, variables: tf.Variable[], grads: tf.NamedTensorMap, maxNorm: number): void {
  // every variable gets a gradient, in the same order at every step (Adam keeps its moments by position)
  const ordered: Record<string, tf.Tensor> = {};
  for (const v of variables) ordered[v.name] = grads[v.name] ?? tf.zerosLike(v);
  const norm = tf.sqrt(tf.addN(Object.values(ordered).map((g) => tf.sum(tf.square(g)))));
  const scale = tf.minimum(1, tf.div(maxNorm, tf.add(norm, 1e-6)));
  const clipped: Record<string, tf.Tensor> = {};
  for (const [k, g] of Object.entries(ordered)) clipped[k] = tf.mul(g, scale);
  optimizer.applyGradients(clipped);
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
