/**
 * The PPO baseline in process: a saved and reloaded model gives the same action probabilities; a
 * short training run changes the policy and lowers the value loss; the masked policy never picks a
 * masked action (fast-check); a checkpoint resumes; the heuristics of the evaluation play the same
 * trajectories as the env.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  appendState,
  buildModel,
  choose,
  evaluateHeuristics,
  evaluateNetwork,
  FeatureBatch,
  heldOutSeeds,
  loadModelDir,
  parsePpoConfig,
  PolicyNetwork,
  probabilities,
  readModelMeta,
  resolveCheckpoint,
  rowLayout,
  saveModelDir,
  selectBackend,
  train,
  type PpoConfig,
  type PpoEnvId,
} from '../../agents/learning/index.js';
import { evaluate, PriorityAgent } from '../../agents/heuristics/index.js';
import { make, makeContext, type DictObservation } from '../../envs/index.js';
import { Rng } from '../../src/core/rng.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'cg-ppo-'));

/** Small episodes of the embedded default: 20 jobs of mixed-300, K = 8. */
function tinyConfig(id: PpoEnvId, extra: Record<string, unknown> = {}): PpoConfig {
  return parsePpoConfig({
    env: { id, config: { k: 8, trajectory: { length: 20, origin: 'random' }, reward: 'flowtime' } },
    seed: 3,
    total_steps: 1024,
    num_envs: 4,
    num_steps: 32,
    checkpoint_every: 0,
    ...extra,
  });
}

/** A fresh network for `config`'s env (the one `train` starts from, same seed). */
function freshNetwork(config: PpoConfig): PolicyNetwork {
  const env = make(config.env.id, config.env.config);
  const layout = rowLayout(config.env.id, env.k, env.nodeCount);
  return new PolicyNetwork(buildModel(layout.rowSize, config.network, config.seed), layout);
}

/** A few states of `config`'s env (copies of observation and mask), played with the first valid action. */
function someStates(config: PpoConfig, n: number): { obs: DictObservation; mask: Uint8Array }[] {
  const env = make(config.env.id, config.env.config);
  const out: { obs: DictObservation; mask: Uint8Array }[] = [];
  const r = env.reset({ seed: 11 });
  let obs = r.observation as DictObservation;
  while (out.length < n) {
    const mask = env.actionMask();
    out.push({ obs: { jobs: obs.jobs.slice(), nodes: obs.nodes.slice(), global: obs.global.slice() }, mask: mask.slice() });
    const s = env.step(mask.indexOf(1));
    if (s.terminated || s.truncated) obs = env.reset().observation as DictObservation;
    else obs = s.observation as DictObservation;
  }
  return out;
}

beforeAll(async () => {
  await selectBackend('auto');
});

describe('PPO model directory', () => {
  for (const id of ['clustergym/Job-v0', 'clustergym/JobNode-v0'] as const)
    it(`save then load gives identical action probabilities (${id})`, async () => {
      const config = tinyConfig(id);
      const net = freshNetwork(config);
      // move the weights off their initial values so the test does not pass on a re-initialisation
      for (const w of net.model.trainableWeights) w.write(w.read().add(0.05 * (1 + w.shape.length)));
      const states = someStates(config, 6);
      const before = states.map((s) => net.actionProbabilities(s.obs, s.mask));
      const dir = join(tmp(), 'model');
      await saveModelDir(dir, net, { config, limits: { req_time: 1, ntasks: 2, mem: 3, mem_vol: 4 }, steps: 7, backend: 'test' });
      for (const f of ['model.json', 'weights.bin', 'policy.json', 'config.json']) expect(existsSync(join(dir, f))).toBe(true);
      const modelJson = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8'));
      expect(modelJson.weightsManifest[0].paths).toEqual(['weights.bin']);
      const loaded = await loadModelDir(dir);
      const after = states.map((s) => loaded.network.actionProbabilities(s.obs, s.mask));
      expect(after).toEqual(before);
      expect(loaded.meta).toMatchObject({ env_id: id, steps: 7, limits: { req_time: 1, ntasks: 2, mem: 3, mem_vol: 4 } });
      expect(loaded.config).toEqual(config);
      // the probabilities are a distribution over the valid actions only
      for (const [i, p] of after.entries()) {
        expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
        for (const [a, v] of p.entries()) {
          if (states[i]!.mask[a] === 1) expect(v).toBeGreaterThan(0);
          else expect(v).toBe(0);
        }
      }
      net.dispose();
      loaded.network.dispose();
    });
});

describe('PPO training', () => {
  for (const id of ['clustergym/Job-v0', 'clustergym/JobNode-v0'] as const)
    it(`a short run changes the policy and lowers the value loss (${id})`, async () => {
      const config = tinyConfig(id);
      const initial = freshNetwork(config);
      const states = someStates(config, 8);
      const before = states.map((s) => initial.actionProbabilities(s.obs, s.mask));
      const out = tmp();
      const r = await train(config, { outDir: out });
      expect(r.steps).toBe(1024);
      expect(r.metrics).toHaveLength(8);
      const after = states.map((s) => r.network.actionProbabilities(s.obs, s.mask));
      const change = Math.max(...after.flatMap((p, i) => Array.from(p, (v, a) => Math.abs(v - before[i]![a]!))));
      expect(change).toBeGreaterThan(1e-3);
      const v = r.metrics.map((m) => m.value_loss);
      const lastThree = (v[5]! + v[6]! + v[7]!) / 3;
      expect(lastThree).toBeLessThan(v[0]! / 2);
      // outputs: config, metrics (header + a row per update), the final model
      const csv = readFileSync(join(out, 'metrics.csv'), 'utf8').trim().split('\n');
      expect(csv[0]).toMatch(/^update,steps,episodes,mean_return,mean_bsld/);
      expect(csv).toHaveLength(9);
      expect(readModelMeta(join(out, 'model')).meta.steps).toBe(1024);
      expect(existsSync(join(out, 'checkpoints'))).toBe(true);
      initial.dispose();
      r.network.dispose();
    });

  it('resumes from a checkpoint and continues the step count and metrics.csv', async () => {
    const out = tmp();
    const first = await train(tinyConfig('clustergym/Job-v0', { total_steps: 256, checkpoint_every: 1 }), { outDir: out });
    first.network.dispose();
    const ck = resolveCheckpoint(out);
    expect(ck).toMatch(/step-000000256$/);
    const second = await train(tinyConfig('clustergym/Job-v0', { total_steps: 512, checkpoint_every: 1 }), { outDir: out, resume: ck });
    expect(second.steps).toBe(512);
    expect(second.metrics.map((m) => m.update)).toEqual([3, 4]);
    expect(readFileSync(join(out, 'metrics.csv'), 'utf8').trim().split('\n')).toHaveLength(5);
    expect(resolveCheckpoint(out)).toMatch(/step-000000512$/);
    second.network.dispose();
  });
});

describe('masked categorical policy', () => {
  for (const id of ['clustergym/Job-v0', 'clustergym/JobNode-v0'] as const)
    it(`never samples a masked action and gives masked actions probability 0 (${id})`, () => {
      const K = 6;
      const N = 3;
      const layout = rowLayout(id, K, N);
      const config = tinyConfig(id);
      const net = new PolicyNetwork(buildModel(layout.rowSize, config.network, 5), layout);
      // large weights: sharp distributions, where a masking bug would show
      for (const w of net.model.trainableWeights) w.write(w.read().mul(40));
      const unit = fc.float({ min: 0, max: 1, noNaN: true });
      const state = fc.record({
        jobs: fc.array(unit, { minLength: K * 8, maxLength: K * 8 }),
        nodes: fc.array(unit, { minLength: N * 7, maxLength: N * 7 }),
        global: fc.array(unit, { minLength: 5, maxLength: 5 }),
        mask: fc.array(fc.boolean(), { minLength: layout.actions, maxLength: layout.actions }).filter((m) => m.some((b) => b)),
      });
      fc.assert(
        fc.property(fc.array(state, { minLength: 1, maxLength: 5 }), fc.integer({ min: 0, max: 1e6 }), (states, seed) => {
          const batch = new FeatureBatch(layout.rowSize);
          const masks = states.map((s) => Uint8Array.from(s.mask, (b) => (b ? 1 : 0)));
          for (const [i, s] of states.entries())
            appendState(batch, layout, { jobs: Float32Array.from(s.jobs), nodes: Float32Array.from(s.nodes), global: Float32Array.from(s.global) }, masks[i]!);
          const f = net.forward(batch);
          const rng = new Rng(seed);
          for (let draw = 0; draw < 20; draw++) {
            const c = choose(batch, layout, f.scores, f.wait, rng);
            for (const [i, a] of c.actions.entries()) expect(masks[i]![a]).toBe(1);
          }
          const greedy = choose(batch, layout, f.scores, f.wait, null);
          for (const [i, a] of greedy.actions.entries()) expect(masks[i]![a]).toBe(1);
          states.forEach((_, i) => {
            const p = probabilities(batch, layout, f.scores, f.wait, i);
            p.forEach((v, a) => {
              if (masks[i]![a] === 0) expect(v).toBe(0);
            });
            expect(p.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 5);
          });
        }),
        { numRuns: 60 },
      );
      net.dispose();
    });
});

describe('evaluation', () => {
  it('the policy plays whole held-out episodes, and the heuristics run on the same trajectories as the env', () => {
    const env = {
      k: 16,
      generator: { model: 'lublin', jobs: 40, maxProcs: 64 },
      platform: 'data/platforms/hetero-20.json',
      unfit: 'reserve',
      backfilling: 'easy',
    };
    const context = makeContext('clustergym/Job-v0', env);
    const seeds = heldOutSeeds(3);
    expect(seeds[0]).toBe(2 ** 32);
    // FCFS through the env (the agent commits the head; the env backfills with EASY) equals the batch fcfs+easy
    const viaEnv = evaluate(make('clustergym/Job-v0', env), new PriorityAgent('fcfs'), seeds);
    const episodes = seeds.map((seed) => ({ seed }));
    const [viaCompare, inEnv] = evaluateHeuristics(context, episodes, ['fcfs+easy', 'fcfs']);
    viaEnv.episodes.forEach((e, i) => {
      expect(viaCompare!.per_trajectory[i]!.mean_bsld).toBeCloseTo(e.summary.mean_bsld, 9);
      expect(viaCompare!.per_trajectory[i]!.makespan).toBeCloseTo(e.summary.makespan, 6);
      // a plain priority name plays in the env itself (RLScheduler's setting): the very same episodes
      expect(inEnv!.per_trajectory[i]!.mean_bsld).toBe(e.summary.mean_bsld);
    });
    const layout = rowLayout('clustergym/Job-v0', 16, context.platform.nodeCount);
    const net = new PolicyNetwork(buildModel(layout.rowSize, tinyConfig('clustergym/Job-v0').network, 1), layout);
    const { result, trace } = evaluateNetwork(net, context, episodes, 1);
    expect(result.per_trajectory.map((e) => e.seed)).toEqual(seeds);
    expect(result.per_trajectory.every((e) => e.jobs_finished === e.jobs && e.jobs === 40)).toBe(true);
    expect(trace!.records).toHaveLength(40);
    expect(trace!.timeline.length).toBeGreaterThan(10);
    net.dispose();
  });
});
