/**
 * Fair-v0's episodes, step for step, against recorded values (issue 42): 48 episodes (4 configurations x
 * 6 agents x 2 seeds) were recorded on the retired fairness engine (`FairEngine`, before the env moved to
 * the fairness preset of the one engine); every step's observation (its float32 bytes), action mask,
 * action, reward (its float64 bits), `terminated`/`truncated`, time, queue length and running count, and
 * the end's metrics, are hashed per episode (SHA-256) with the number of steps. The env on the preset must
 * give the same hashes. `CLUSTERGYM_GOLDEN_WRITE=1` rewrites the file (only for an intended change).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bestFitAgent, drfAgent, type FairAgent, firstFitAgent, tetrisAgent } from '../../agents/fairness/index.js';
import { FairEnv, loadFairContext } from '../../envs/fairness/index.js';
import { Rng } from '../../src/core/rng.js';

const FILE = join(import.meta.dirname, '..', 'golden', 'schedules', 'fair-env-episodes.json');
const WRITE = process.env.CLUSTERGYM_GOLDEN_WRITE === '1';

const CONFIGS: Record<string, object> = {
  default: { task_scale: 0.03 },
  mixed2: { task_scale: 0.03, scale: 2, reward: 'mixed', fairness_weight: 0.3 },
  weighted3: { task_scale: 0.03, reward: 'fairness', slots: 3, weights: { u1: 2, u4: 0.5 } },
  hosts: {
    task_scale: 0.02,
    hosts: [
      { count: 2, cpus: 16, memory: 24 },
      { count: 1, cpus: 4, memory: 64 },
    ],
    max_steps: 150,
  },
};

/** A seeded agent that picks uniformly among the allowed actions (the wait included): it reaches states no heuristic does. */
function randomAgent(seed: number): FairAgent {
  const rng = new Rng(`fair-episodes/${seed}`);
  return {
    name: 'random',
    act(env) {
      const mask = env.actionMask();
      const allowed: number[] = [];
      for (let i = 0; i < mask.length; i++) if (mask[i] === 1) allowed.push(i);
      return allowed[rng.int(allowed.length)]!;
    },
  };
}

const AGENTS: Record<string, (seed: number) => FairAgent> = {
  drf: () => drfAgent,
  'tetris(0.5)': () => tetrisAgent(0.5),
  'tetris(0)': () => tetrisAgent(0),
  'first-fit': () => firstFitAgent,
  'best-fit': () => bestFitAgent,
  random: randomAgent,
};

/** One episode's digest and length. */
function episode(config: object, agent: FairAgent, seed: number): { steps: number; sha256: string } {
  const env = new FairEnv(loadFairContext(config));
  const h = createHash('sha256');
  const f64 = new Float64Array(1);
  const num = (x: number) => {
    f64[0] = x;
    h.update(new Uint8Array(f64.buffer));
  };
  let { observation, info } = env.reset({ seed });
  const record = () => {
    h.update(new Uint8Array(observation.buffer, observation.byteOffset, observation.byteLength));
    h.update(Uint8Array.from(env.actionMask()));
    num(info.time);
    num(info.queue_length);
    num(info.running);
  };
  record();
  let steps = 0;
  for (;;) {
    const a = agent.act(env, observation);
    const r = env.step(a);
    steps++;
    num(a);
    num(r.reward);
    num(r.terminated ? 1 : 0);
    num(r.truncated ? 1 : 0);
    ({ observation, info } = r);
    record();
    if (r.terminated || r.truncated) {
      h.update(JSON.stringify(r.info.metrics));
      break;
    }
  }
  return { steps, sha256: h.digest('hex') };
}

describe('Fair-v0 episodes step for step against the recorded ones', () => {
  it('48 episodes: observations, masks, actions, rewards, metrics', () => {
    const got: Record<string, { steps: number; sha256: string }> = {};
    for (const [cn, config] of Object.entries(CONFIGS))
      for (const [an, mk] of Object.entries(AGENTS)) for (const seed of [1, 2]) got[`${cn}/${an}/${seed}`] = episode(config, mk(seed), seed);
    if (WRITE) {
      writeFileSync(FILE, `${JSON.stringify(got, null, 2)}\n`);
      return;
    }
    expect(existsSync(FILE), `${FILE} is missing`).toBe(true);
    const want = JSON.parse(readFileSync(FILE, 'utf8')) as typeof got;
    expect(Object.keys(got)).toHaveLength(48);
    // a case that steps little would prove little
    expect(Object.values(got).reduce((s, e) => s + e.steps, 0)).toBeGreaterThan(10_000);
    expect(got).toEqual(want);
  }, 120_000);
});
