/**
 * Environment throughput: steps per second with random masked actions (the agent costs next to
 * nothing: a seeded uniform draw among the valid actions). Used by `clustergym bench env` and by
 * `npm run bench`.
 */
import { Rng } from '../src/core/rng.js';
import type { GymEnv } from './gym.js';
import { sampleMasked } from './spaces.js';
import type { VecEnv } from './vector.js';

/** What a measurement gives. */
export interface EnvBenchResult {
  env: string;
  steps: number;
  seconds: number;
  steps_per_s: number;
  episodes: number;
}

/** Runs `steps` random masked steps on `env` (resetting at episode ends); wall time included resets. */
export function measureEnv(env: GymEnv, steps: number, seed = 0): EnvBenchResult {
  const rng = new Rng(`bench/${seed}`);
  let episodes = 0;
  const t0 = performance.now();
  env.reset({ seed });
  for (let s = 0; s < steps; s++) {
    const r = env.step(sampleMasked(env.actionMask(), rng));
    if (r.terminated || r.truncated) {
      episodes++;
      env.reset();
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  return { env: env.id, steps, seconds, steps_per_s: steps / seconds, episodes };
}

/** Runs `steps` env steps (in batches of `numEnvs`) of random masked actions on a vector env. */
export function measureVec(v: VecEnv, steps: number, seed = 0): EnvBenchResult {
  const rng = new Rng(`bench/${seed}`);
  const n = v.numEnvs;
  const A = v.singleActionSpace.n;
  const acts = new Int32Array(n);
  const batches = Math.max(1, Math.ceil(steps / n));
  let episodes = 0;
  const t0 = performance.now();
  v.reset({ seed });
  for (let b = 0; b < batches; b++) {
    const m = v.actionMasks();
    for (let i = 0; i < n; i++) acts[i] = sampleMasked(m.subarray(i * A, (i + 1) * A), rng);
    const r = v.step(acts);
    for (let i = 0; i < n; i++) if (r.terminated[i] || r.truncated[i]) episodes++;
  }
  const seconds = (performance.now() - t0) / 1000;
  return { env: v.id, steps: batches * n, seconds, steps_per_s: (batches * n) / seconds, episodes };
}
