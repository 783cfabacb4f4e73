/**
 * The greedy policy of a network (network.ts) computed in plain JavaScript: the kernel MLP scores
 * each candidate row, the wait head the state's pooled features, the highest score is played (ties
 * to the first candidate, as `choose`). This is what plays the many whole episodes that imitation
 * and evolution strategies need (the teacher's rollouts of a base model, the student driving its
 * DAgger rounds, the candidates of an ES generation), where one tfjs call per decision would cost
 * far more than the decision itself; the leaderboard and `evaluate` play the tfjs model.
 *
 * The weights are the tfjs model's (float32 values), the arithmetic is float64, so scores agree with
 * tfjs' to about 1e-6 relatively (a test checks it and that both play the same episode); on a
 * network without hidden layers (the ES linear policy) each score is rounded to float32 as
 * `linearAction` does, so both play the same actions.
 *
 * `theta` is every policy parameter (kernel then wait head, per layer its weights then its bias, in
 * tfjs' row-major `[in, out]` layout, a head's linear path `PREFIX_skip` after its MLP): what ES
 * perturbs; `writeTo` puts it back into the tfjs model.
 */
import type { ClusterEnv } from '../../envs/env.js';
import type { DictObservation } from '../../envs/observation.js';
import type { Agent } from '../heuristics/index.js';
import { tf } from './backend.js';
import { appendState, FeatureBatch, POOLED_SIZE, type RowLayout } from './features.js';
import type { PolicyNetwork } from './network.js';

/** One dense layer: `out = act(in . W + b)`, W `[inputs, units]` row-major. */
interface Dense {
  name: string;
  inputs: number;
  units: number;
  /** Offset of W in theta (b follows it). */
  offset: number;
  activation: 'tanh' | 'relu' | 'linear';
}

/** The greedy policy of a network's kernel and wait head, in JavaScript. */
export class JsPolicy {
  /** Every policy parameter (see the module comment). */
  readonly theta: Float64Array;
  private readonly kernel: Dense[];
  private readonly wait: Dense[];
  /** The heads' linear paths (`network.skip`), or null. */
  private readonly kernelSkip: Dense | null;
  private readonly waitSkip: Dense | null;
  private readonly linear: boolean;
  private readonly a: Float64Array;
  private readonly b: Float64Array;
  private readonly batch: FeatureBatch;

  private constructor(
    readonly layout: RowLayout,
    kernel: Dense[],
    wait: Dense[],
    theta: Float64Array,
  ) {
    this.kernelSkip = kernel.find((d) => d.name === 'kernel_skip') ?? null;
    this.waitSkip = wait.find((d) => d.name === 'wait_skip') ?? null;
    this.kernel = kernel.filter((d) => d !== this.kernelSkip);
    this.wait = wait.filter((d) => d !== this.waitSkip);
    this.theta = theta;
    this.linear = this.kernel.length === 1 && this.wait.length === 1 && !this.kernelSkip;
    const widest = Math.max(layout.rowSize, POOLED_SIZE, ...kernel.map((l) => l.units), ...wait.map((l) => l.units));
    this.a = new Float64Array(widest);
    this.b = new Float64Array(widest);
    this.batch = new FeatureBatch(layout.rowSize, 1, 256);
  }

  /** The policy of `network` (its current weights). */
  static of(network: PolicyNetwork): JsPolicy {
    const layers = (prefix: string): { dense: Dense; w: Float32Array; b: Float32Array }[] => {
      const out: { dense: Dense; w: Float32Array; b: Float32Array }[] = [];
      for (const layer of network.model.layers) {
        if (!layer.name.startsWith(`${prefix}_`) || layer.getWeights().length === 0) continue;
        const [w, b] = layer.getWeights();
        const shape = w!.shape as [number, number];
        const activation = (layer.getConfig() as { activation?: string }).activation;
        out.push({
          dense: {
            name: layer.name,
            inputs: shape[0],
            units: shape[1],
            offset: 0,
            activation: activation === 'tanh' || activation === 'relu' ? activation : 'linear',
          },
          w: w!.dataSync() as Float32Array,
          b: b!.dataSync() as Float32Array,
        });
      }
      // hidden layers in order, then the output layer
      return out.sort((x, y) => order(x.dense.name) - order(y.dense.name));
    };
    const all = [...layers('kernel'), ...layers('wait')];
    const size = all.reduce((n, l) => n + l.dense.inputs * l.dense.units + l.dense.units, 0);
    const theta = new Float64Array(size);
    let o = 0;
    for (const l of all) {
      l.dense.offset = o;
      theta.set(l.w, o);
      theta.set(l.b, o + l.w.length);
      o += l.w.length + l.b.length;
    }
    const k = all.filter((l) => l.dense.name.startsWith('kernel_')).map((l) => l.dense);
    const w = all.filter((l) => l.dense.name.startsWith('wait_')).map((l) => l.dense);
    return new JsPolicy(network.layout, k, w, theta);
  }

  /** Parameters (the length of `theta`). */
  get size(): number {
    return this.theta.length;
  }

  /** A policy with the same layers and `theta` (copied). */
  withTheta(theta: ArrayLike<number>): JsPolicy {
    const t = Float64Array.from(theta);
    if (t.length !== this.theta.length) throw new RangeError(`theta has ${t.length} parameters, the policy ${this.theta.length}`);
    return new JsPolicy(this.layout, this.layers(this.kernel, this.kernelSkip), this.layers(this.wait, this.waitSkip), t);
  }

  private layers(mlp: Dense[], skip: Dense | null): Dense[] {
    return skip ? [...mlp, skip] : mlp;
  }

  /** Writes `theta` into the tfjs model's kernel and wait layers. */
  writeTo(network: PolicyNetwork): void {
    for (const d of [...this.layers(this.kernel, this.kernelSkip), ...this.layers(this.wait, this.waitSkip)]) {
      const n = d.inputs * d.units;
      const tensors = [
        tf.tensor2d(Float32Array.from(this.theta.subarray(d.offset, d.offset + n)), [d.inputs, d.units]),
        tf.tensor1d(Float32Array.from(this.theta.subarray(d.offset + n, d.offset + n + d.units))),
      ];
      network.model.getLayer(d.name).setWeights(tensors);
      for (const t of tensors) t.dispose();
    }
  }

  /** The head of MLP `layers` and linear path `skip` on the features at `x[x0 ..]`. */
  private head(layers: readonly Dense[], skip: Dense | null, x: Float32Array, x0: number): number {
    let s = this.mlp(layers, x, x0);
    if (skip) {
      const th = this.theta;
      let l = th[skip.offset + skip.inputs]!;
      for (let f = 0; f < skip.inputs; f++) l += x[x0 + f]! * th[skip.offset + f]!;
      s += l;
    }
    return s;
  }

  /** The MLP `layers` on `x[x0 ..]`; the output (one value). */
  private mlp(layers: readonly Dense[], x: Float32Array, x0: number): number {
    let input: Float64Array | Float32Array = x;
    let i0 = x0;
    let out = this.a;
    const th = this.theta;
    for (const d of layers) {
      for (let u = 0; u < d.units; u++) {
        let s = th[d.offset + d.inputs * d.units + u]!;
        for (let f = 0; f < d.inputs; f++) s += input[i0 + f]! * th[d.offset + f * d.units + u]!;
        out[u] = d.activation === 'tanh' ? Math.tanh(s) : d.activation === 'relu' ? (s > 0 ? s : 0) : s;
      }
      input = out;
      i0 = 0;
      out = out === this.a ? this.b : this.a;
    }
    return (input as Float64Array)[0]!;
  }

  /** The greedy action of state `i` of `batch`. */
  act(batch: FeatureBatch, i: number): number {
    const R = this.layout.rowSize;
    const r0 = batch.rowStart[i]!;
    const r1 = batch.rowStart[i + 1]!;
    let best = -Infinity;
    let action = this.layout.waitAction;
    for (let r = r0; r < r1; r++) {
      let s = this.head(this.kernel, this.kernelSkip, batch.rows, r * R);
      if (this.linear) s = Math.fround(s);
      if (s > best) {
        best = s;
        action = batch.rowAction[r]!;
      }
    }
    if (batch.hasWait[i] === 1) {
      let w = this.head(this.wait, this.waitSkip, batch.pooled, i * POOLED_SIZE);
      if (this.linear) w = Math.fround(w);
      if (w > best) action = this.layout.waitAction;
    }
    return action;
  }

  /** The greedy action in `env`'s current state. */
  actIn(env: ClusterEnv): number {
    const b = this.batch;
    b.clear();
    appendState(b, this.layout, env.observation as DictObservation, env.actionMask());
    return this.act(b, 0);
  }

  /** This policy as an agent of the env (for rollouts and episodes). */
  agent(name = 'network'): Agent {
    return { name, act: (env) => this.actIn(env) };
  }
}

/** The position of a layer in its head: `PREFIX_0`, `PREFIX_1`, ..., `PREFIX_out`, then the linear path `PREFIX_skip`. */
function order(name: string): number {
  const tail = name.slice(name.lastIndexOf('_') + 1);
  return tail === 'out' ? Number.MAX_SAFE_INTEGER - 1 : tail === 'skip' ? Number.MAX_SAFE_INTEGER : Number(tail);
}
