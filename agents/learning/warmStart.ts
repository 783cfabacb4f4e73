/**
 * Warm start by behaviour cloning (config `baseline.warm_start_steps`, docs/agents.md): before PPO,
 * the network learns to pick what the baseline heuristic picks, so PPO starts from a policy as good
 * as the heuristic instead of from a uniform one and spends its updates on improving it.
 *
 * `warm_start_rounds` rounds, each collecting `warm_start_steps` states of `num_envs` training envs
 * (their own vector env, episodes seeded from `derive(seed, 'warm_start/episodes')`, on the training
 * origins), every state labelled with the teacher's action (`warm_start_teacher`: the heuristic, or
 * its one-step lookahead, baseline.ts). The teacher drives the envs in the first round; in the
 * following rounds the network drives (greedy) and the teacher only labels: DAgger (Ross, Gordon and
 * Bagnell, 2011), so the network also learns what to do in the states its own mistakes lead to.
 * After each round the network is fitted on everything collected so far: `warm_start_epochs` epochs
 * of shuffled minibatches of `num_envs x num_steps / num_minibatches` states, the cross-entropy of
 * the teacher's action under the masked policy (`cloneStep`, update.ts), Adam at
 * `warm_start_learning_rate`. Only the policy (kernel and wait head) learns here; the critic starts
 * with PPO.
 */
import { derive } from '../../src/core/rng.js';
import type { JobEnv } from '../../envs/jobEnv.js';
import { makeVec } from '../../envs/vector.js';
import type { HeuristicBaseline } from './baseline.js';
import { tf } from './backend.js';
import type { PpoConfig } from './config.js';
import { appendBatch, FeatureBatch, type RowLayout } from './features.js';
import type { PolicyNetwork } from './network.js';
import { cloneStep } from './update.js';

/** Progress of the warm start, after each chunk. */
export interface WarmStartProgress {
  steps: number;
  totalSteps: number;
  /** Mean cross-entropy over the chunk's last epoch. */
  loss: number;
  /** Fraction of the chunk's states (last epoch) whose most probable action is the heuristic's. */
  accuracy: number;
}

/** The candidate position of `action` in state `i` of `batch` (its row, or the wait candidate after the rows). */
export function candidatePosition(batch: FeatureBatch, i: number, action: number, waitAction: number): number {
  const r0 = batch.rowStart[i]!;
  const r1 = batch.rowStart[i + 1]!;
  if (action === waitAction && batch.hasWait[i] === 1) return r1 - r0;
  for (let r = r0; r < r1; r++) if (batch.rowAction[r] === action) return r - r0;
  throw new Error(`internal error: action ${action} is not a candidate of the state (the heuristic chose a masked action)`);
}

/**
 * Clones `baseline.agent` into `network` over `c.baseline.warm_start_steps` states of the training env
 * configuration `envConfig`; returns the last chunk's figures (NaN when no state was trained on).
 */
export function warmStart(
  network: PolicyNetwork,
  variables: tf.Variable[],
  baseline: HeuristicBaseline,
  layout: RowLayout,
  envConfig: Record<string, unknown>,
  c: PpoConfig,
  onProgress?: (p: WarmStartProgress) => void,
): WarmStartProgress {
  const b = c.baseline!;
  const total = b.warm_start_steps * b.warm_start_rounds;
  const N = c.num_envs;
  const venv = makeVec(N, c.env.id, envConfig);
  const optimizer = tf.train.adam(b.warm_start_learning_rate, 0.9, 0.999, 1e-5);
  const shuffleRng = derive(c.seed, 'warm_start/minibatches');
  const states = new FeatureBatch(layout.rowSize, 1024, 1024 * 32);
  let chosen = new Int32Array(1024);
  const step = new FeatureBatch(layout.rowSize, N, N * 16);
  const actions = new Int32Array(N);
  let obs = venv.reset({ seed: derive(c.seed, 'warm_start/episodes').int(2 ** 31 - 1024) }).observations as Record<string, Float32Array>;
  const lookahead = b.warm_start_teacher === 'lookahead';
  let last: WarmStartProgress = { steps: 0, totalSteps: total, loss: NaN, accuracy: NaN };
  for (let round = 0; round < b.warm_start_rounds; round++) {
    // collect: the teacher labels every state; it drives in the first round, the network (greedy) in the others (DAgger)
    const target = states.size + b.warm_start_steps;
    while (states.size < target) {
      step.clear();
      appendBatch(step, layout, obs, venv.actionMasks(), N);
      const driver = round > 0 ? network.act(step, null).actions : null;
      for (let i = 0; i < N && states.size < target; i++) {
        const env = venv.envs[i]! as JobEnv;
        const label = lookahead ? baseline.lookaheadAction(env, b.lookahead_candidates) : baseline.agent.act(env);
        if (states.size >= chosen.length) {
          const grown = new Int32Array(chosen.length * 2);
          grown.set(chosen);
          chosen = grown;
        }
        chosen[states.size] = candidatePosition(step, i, label, layout.waitAction);
        states.appendFrom(step, i);
        actions[i] = driver ? driver[i]! : label;
      }
      obs = venv.step(actions).observations as Record<string, Float32Array>;
      if (states.size % (N * c.num_steps) < N) onProgress?.({ ...last, steps: states.size });
    }
    // fit everything collected so far: epochs of shuffled minibatches of num_envs x num_steps / num_minibatches states
    last = { ...fitCollected(network, variables, optimizer, states, chosen, shuffleRng, c), steps: states.size, totalSteps: total };
    onProgress?.(last);
  }
  optimizer.dispose();
  venv.close();
  return last;
}

/** `warm_start_epochs` epochs of cloning steps over `states` (labels `chosen`); the last epoch's mean loss and agreement. */
function fitCollected(
  network: PolicyNetwork,
  variables: tf.Variable[],
  optimizer: tf.Optimizer,
  states: FeatureBatch,
  chosen: Int32Array,
  shuffleRng: ReturnType<typeof derive>,
  c: PpoConfig,
): { loss: number; accuracy: number } {
  const n = states.size;
  const mbSize = Math.max(1, Math.ceil((c.num_envs * c.num_steps) / c.num_minibatches));
  const order = Int32Array.from({ length: n }, (_, i) => i);
  const mb = new FeatureBatch(states.rowSize, mbSize, mbSize * 8);
  const mbChosen = new Int32Array(mbSize);
  let loss = 0;
  let accuracy = 0;
  let batches = 0;
  const epochs = c.baseline!.warm_start_epochs;
  for (let epoch = 0; epoch < epochs; epoch++) {
    for (let i = n - 1; i > 0; i--) {
      const j = shuffleRng.int(i + 1);
      const x = order[i]!;
      order[i] = order[j]!;
      order[j] = x;
    }
    for (let s = 0; s < n; s += mbSize) {
      mb.clear();
      const idx = order.subarray(s, Math.min(n, s + mbSize));
      idx.forEach((k, p) => {
        mb.appendFrom(states, k);
        mbChosen[p] = chosen[k]!;
      });
      const r = cloneStep(network, variables, optimizer, mb, mbChosen.subarray(0, idx.length), c.max_grad_norm);
      if (epoch === epochs - 1) {
        loss += r.loss;
        accuracy += r.accuracy;
        batches++;
      }
    }
  }
  return { loss: loss / batches, accuracy: accuracy / batches };
}
