/**
 * The actor-critic network (DESIGN §7): one tfjs functional model with two inputs and three outputs.
 *
 * ```
 * rows   [R, rowSize]  -> kernel MLP (32 -> 16 -> 8, tanh) -> 1   = score of each candidate row
 * pooled [B, 30]       -> wait MLP   (32, tanh)           -> 1   = logit of `wait`, per state
 * pooled [B, 30]       -> critic MLP (64 -> 64, tanh)     -> 1   = state value
 * ```
 *
 * The kernel is shared by every row, so one network serves any queue window K and any number of
 * nodes N: only the row's feature count is fixed (16 for Job-v0, 23 for JobNode-v0). Rows of many
 * states go through the kernel as one batch (R rows for B states); `features.ts` says which rows
 * belong to which state.
 *
 * With `network.skip` each policy head also has a linear path added to its MLP's output (a residual
 * network: `score = MLP(row) + w . row + b`, the wait logit likewise), both zero at the start.
 *
 * Initialisation follows CleanRL's gains with a scaled normal instead of orthogonal matrices:
 * weights ~ truncated normal of variance gain^2 / fan_in, gain sqrt(2) in hidden layers, 0.01 on
 * the policy outputs (so the first policy is close to uniform over the valid actions) and 1 on the
 * value output; zero biases; each layer seeded from `derive(seed, 'init/<layer>')`.
 */
import { derive } from '../../src/core/rng.js';
import { tf } from './backend.js';
import type { NetworkConfig } from './config.js';
import { appendState, choose, FeatureBatch, POOLED_SIZE, probabilities, type Choice, type ObservationRows, type RowLayout } from './features.js';

function dense(units: number, name: string, activation: 'tanh' | 'relu' | 'linear', gain: number, seed: number) {
  return tf.layers.dense({
    units,
    name,
    activation,
    // gain 0: zeros (a residual path's output layer and linear path start at 0)
    kernelInitializer:
      gain === 0
        ? 'zeros'
        : tf.initializers.varianceScaling({
            scale: gain * gain,
            mode: 'fanIn',
            distribution: 'truncatedNormal',
            seed: derive(seed, `init/${name}`).int(2 ** 31),
          }),
    biasInitializer: 'zeros',
  });
}

function mlp(input: tf.SymbolicTensor, hidden: number[], prefix: string, activation: 'tanh' | 'relu', outGain: number, seed: number): tf.SymbolicTensor {
  let h = input;
  hidden.forEach((u, i) => {
    h = dense(u, `${prefix}_${i}`, activation, Math.SQRT2, seed).apply(h) as tf.SymbolicTensor;
  });
  return dense(1, `${prefix}_out`, 'linear', outGain, seed).apply(h) as tf.SymbolicTensor;
}

/**
 * A head: its MLP, or with `skip` the MLP plus a linear path (`PREFIX_skip`, zero-initialised like
 * the MLP's output layer, so the head starts at 0 and `setSkip` can make it any linear score).
 */
function head(
  input: tf.SymbolicTensor,
  hidden: number[],
  prefix: string,
  activation: 'tanh' | 'relu',
  outGain: number,
  seed: number,
  skip: boolean,
): tf.SymbolicTensor {
  const out = mlp(input, hidden, prefix, activation, skip ? 0 : outGain, seed);
  if (!skip) return out;
  const linear = dense(1, `${prefix}_skip`, 'linear', 0, seed).apply(input) as tf.SymbolicTensor;
  return tf.layers.add({ name: `${prefix}_sum` }).apply([out, linear]) as tf.SymbolicTensor;
}

/** Builds a freshly initialised model for rows of `rowSize` features. */
export function buildModel(rowSize: number, network: NetworkConfig, seed: number): tf.LayersModel {
  const rows = tf.input({ shape: [rowSize], name: 'rows' });
  const pooled = tf.input({ shape: [POOLED_SIZE], name: 'pooled' });
  const score = head(rows, network.kernel, 'kernel', network.activation, 0.01, seed, network.skip);
  const wait = head(pooled, network.wait, 'wait', network.activation, 0.01, seed, network.skip);
  const value = mlp(pooled, network.critic, 'critic', network.activation, 1, seed);
  return tf.model({ inputs: [rows, pooled], outputs: [score, wait, value], name: 'clustergym_ppo' });
}

/** The outputs of a forward pass on a batch, as JS arrays. */
export interface Forward {
  /** Score of each row. */
  scores: Float32Array;
  /** Wait logit of each state. */
  wait: Float32Array;
  /** Value of each state. */
  values: Float32Array;
}

/** The model with the env layout it serves: forward passes, acting, action probabilities. */
export class PolicyNetwork {
  private readonly scratch: FeatureBatch;

  constructor(
    readonly model: tf.LayersModel,
    readonly layout: RowLayout,
  ) {
    const shape = (model.inputs[0]!.shape as (number | null)[])[1];
    if (shape !== layout.rowSize) throw new Error(`the model reads rows of ${shape} features, the env's rows have ${layout.rowSize}`);
    this.scratch = new FeatureBatch(layout.rowSize, 1, 64);
  }

  /**
   * The symbolic forward pass (inside a `tf.tidy` or a gradient): scores [R], wait logits [B],
   * values [B]. An empty row batch is allowed (scores is then empty).
   */
  apply(rows: tf.Tensor2D, pooled: tf.Tensor2D): { scores: tf.Tensor1D; wait: tf.Tensor1D; values: tf.Tensor1D } {
    const empty = rows.shape[0] === 0;
    const rowsIn = empty ? tf.zeros([1, this.layout.rowSize]) : rows;
    const [s, w, v] = this.model.apply([rowsIn, pooled]) as tf.Tensor2D[];
    const scores = empty ? tf.zeros([0]) : s!.reshape([-1]);
    return { scores: scores as tf.Tensor1D, wait: w!.reshape([-1]) as tf.Tensor1D, values: v!.reshape([-1]) as tf.Tensor1D };
  }

  /** Forward pass on a feature batch, values copied back to JS. */
  forward(batch: FeatureBatch): Forward {
    const [s, w, v] = tf.tidy(() => {
      const rows = tf.tensor2d(batch.rows.subarray(0, batch.rowCount * this.layout.rowSize), [batch.rowCount, this.layout.rowSize]);
      const pooled = tf.tensor2d(batch.pooled.subarray(0, batch.size * POOLED_SIZE), [batch.size, POOLED_SIZE]);
      const o = this.apply(rows, pooled);
      return [o.scores, o.wait, o.values];
    });
    const out = { scores: s!.dataSync() as Float32Array, wait: w!.dataSync() as Float32Array, values: v!.dataSync() as Float32Array };
    s!.dispose();
    w!.dispose();
    v!.dispose();
    return out;
  }

  /** Values of states given by their pooled features (n x POOLED_SIZE). */
  values(pooled: Float32Array, n: number): Float32Array {
    const v = tf.tidy(() => this.apply(tf.zeros([0, this.layout.rowSize]) as tf.Tensor2D, tf.tensor2d(pooled, [n, POOLED_SIZE])).values);
    const out = v.dataSync() as Float32Array;
    v.dispose();
    return out;
  }

  /** Acts on every state of `batch`: sampled with `rng`, greedy (most probable) without. */
  act(batch: FeatureBatch, rng: Parameters<typeof choose>[4]): Choice & { values: Float32Array } {
    const f = this.forward(batch);
    return { ...choose(batch, this.layout, f.scores, f.wait, rng), values: f.values };
  }

  /** The action distribution of one state (length = the action count; 0 on masked actions). */
  actionProbabilities(obs: ObservationRows, mask: ArrayLike<number>): Float64Array {
    const b = this.scratch;
    b.clear();
    appendState(b, this.layout, obs, mask);
    const f = this.forward(b);
    return probabilities(b, this.layout, f.scores, f.wait, 0);
  }

  /** The greedy action of one state. */
  greedyAction(obs: ObservationRows, mask: ArrayLike<number>): number {
    const b = this.scratch;
    b.clear();
    appendState(b, this.layout, obs, mask);
    return this.act(b, null).actions[0]!;
  }

  /** Releases the model's weights. */
  dispose(): void {
    this.model.dispose();
  }
}
