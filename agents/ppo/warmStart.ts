/**
 * Warm start by behaviour cloning (config `baseline.warm_start_steps`, docs/agents.md): before PPO,
 * the network learns to pick what the baseline heuristic picks, so PPO starts from a policy as good
 * as the heuristic instead of from a uniform one and spends its updates on improving it.
 *
 * The teacher (`warm_start_teacher`: the heuristic, or its one-step lookahead, baseline.ts) plays
 * `num_envs` training envs (their own vector env, episodes seeded from
 * `derive(seed, 'warm_start/episodes')`, on the training origins); every `num_envs x num_steps`
 * states with the teacher's actions form a chunk, trained on for `warm_start_epochs` epochs of
 * `num_minibatches` shuffled minibatches with the cross-entropy of the heuristic's action under the
 * masked policy (`cloneStep`, update.ts), Adam at `warm_start_learning_rate`. Only the policy (kernel
 * and wait head) learns here; the critic starts with PPO.
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
  const total = c.baseline!.warm_start_steps;
  const N = c.num_envs;
  const chunk = N * c.num_steps;
  const venv = makeVec(N, c.env.id, envConfig);
  const optimizer = tf.train.adam(c.baseline!.warm_start_learning_rate, 0.9, 0.999, 1e-5);
  const shuffleRng = derive(c.seed, 'warm_start/minibatches');
  const states = new FeatureBatch(layout.rowSize, chunk, chunk * 8);
  const chosen = new Int32Array(chunk);
  const step = new FeatureBatch(layout.rowSize, N, N * 16);
  const actions = new Int32Array(N);
  let obs = venv.reset({ seed: derive(c.seed, 'warm_start/episodes').int(2 ** 31 - 1024) }).observations as Record<string, Float32Array>;
  const lookahead = c.baseline!.warm_start_teacher === 'lookahead';
  let last: WarmStartProgress = { steps: 0, totalSteps: total, loss: NaN, accuracy: NaN };
  for (let done = 0; done < total; ) {
    // collect a chunk with the heuristic playing
    states.clear();
    const n = Math.min(chunk, Math.ceil((total - done) / N) * N);
    for (let t = 0; t < n / N; t++) {
      step.clear();
      appendBatch(step, layout, obs, venv.actionMasks(), N);
      for (let i = 0; i < N; i++) {
        const env = venv.envs[i]! as JobEnv;
        actions[i] = lookahead ? baseline.lookaheadAction(env, c.baseline!.lookahead_candidates) : baseline.agent.act(env);
        chosen[states.size] = candidatePosition(step, i, actions[i]!, layout.waitAction);
        states.appendFrom(step, i);
      }
      obs = venv.step(actions).observations as Record<string, Float32Array>;
    }
    // fit it: epochs of shuffled minibatches
    const mbSize = Math.ceil(n / c.num_minibatches);
    const order = Int32Array.from({ length: n }, (_, i) => i);
    const mb = new FeatureBatch(layout.rowSize, mbSize, mbSize * 8);
    const mbChosen = new Int32Array(mbSize);
    let loss = 0;
    let accuracy = 0;
    let batches = 0;
    for (let epoch = 0; epoch < c.baseline!.warm_start_epochs; epoch++) {
      for (let i = n - 1; i > 0; i--) {
        const j = shuffleRng.int(i + 1);
        const x = order[i]!;
        order[i] = order[j]!;
        order[j] = x;
      }
      const lastEpoch = epoch === c.baseline!.warm_start_epochs - 1;
      for (let s = 0; s < n; s += mbSize) {
        mb.clear();
        const idx = order.subarray(s, Math.min(n, s + mbSize));
        idx.forEach((k, p) => {
          mb.appendFrom(states, k);
          mbChosen[p] = chosen[k]!;
        });
        const r = cloneStep(network, variables, optimizer, mb, mbChosen.subarray(0, idx.length), c.max_grad_norm);
        if (lastEpoch) {
          loss += r.loss;
          accuracy += r.accuracy;
          batches++;
        }
      }
    }
    done += n;
    last = { steps: done, totalSteps: total, loss: loss / batches, accuracy: accuracy / batches };
    onProgress?.(last);
  }
  optimizer.dispose();
  venv.close();
  return last;
}
