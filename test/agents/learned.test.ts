/**
 * The learned policies of the leaderboard settings: the shipped models (each loads, carries the
 * training config it was trained with, and plays its setting's env deterministically), the
 * flat-observation ES trainer (deterministic by seed, resumable exactly) and the linear policy of
 * evolve.ts (the saved network plays the same actions as the trainer's scoring).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linearPlayer, readModelCard } from '../../agents/leaderboard/models.js';
import { systemAgent } from '../../agents/leaderboard/heuristics.js';
import { episodeSeeds } from '../../agents/leaderboard/run.js';
import { playEpisode } from '../../agents/episode.js';
import { loadSetting } from '../../agents/leaderboard/settings.js';
import { initialTheta, linearAction, networkOf } from '../../agents/learning/evolve.js';
import {
  type FlatEsConfig,
  flatAction,
  flatFitness,
  linearAgent,
  parseFlatEsConfig,
  readLinearPolicy,
  thetaOf,
  trainFlat,
} from '../../agents/learning/flat.js';
import { appendState, FeatureBatch, parsePpoConfig, rowLayout, selectBackend } from '../../agents/learning/index.js';
import type { DictObservation } from '../../envs/observation.js';
import { make } from '../../envs/registry.js';
import { cardIdentity } from '../../agents/learning/card.js';
import { HAVE_SHARED, ROOT } from '../helpers.js';

const MODELS = join(ROOT, 'data/models');
const CONFIGS = join(ROOT, 'data/configs');
// the gpu models play Gavel's throughput table and Philly's jobs, in ../shared: without it they are left out (issue 45)
const linearModels = readdirSync(MODELS).filter((d) => existsSync(join(MODELS, d, 'linear.json')) && (HAVE_SHARED || !d.startsWith('gpu')));

describe('shipped linear models', () => {
  it('there is at least one (malleable)', () => {
    expect(linearModels).toContain('malleable');
  });
  for (const name of linearModels)
    it(`${name}: its card, its training config (data/configs/train-SETTING.json) and two identical plays of its setting`, async () => {
      const dir = join(MODELS, name);
      const card = readModelCard(dir);
      expect(card.training_seeds).toEqual({ from: 0, to: 2 ** 31 });
      const setting = loadSetting(join(CONFIGS, `${card.setting}.json`));
      const trainFile = join(CONFIGS, `train-${card.setting}.json`);
      const shipped = parseFlatEsConfig(JSON.parse(readFileSync(trainFile, 'utf8')), trainFile, CONFIGS);
      // the model's config.json names its files relative to the model directory (it moves with the checkout)
      const ownFile = join(dir, 'config.json');
      const ownRaw = JSON.parse(readFileSync(ownFile, 'utf8')) as FlatEsConfig;
      for (const key of ['platform', 'workload']) expect(isAbsolute(String(ownRaw.env.config[key] ?? ''))).toBe(false);
      expect(parseFlatEsConfig(ownRaw, ownFile, dir)).toEqual(shipped);
      const policy = readLinearPolicy(dir);
      expect(policy.env_id).toBe(setting.env.id);
      const player = linearPlayer({ dir, setting: card.setting!, name, identity: cardIdentity(dir) });
      const seeds = episodeSeeds(0, 2);
      const a = await player.play(setting, seeds);
      const b = await player.play(setting, seeds);
      expect(a.per_episode).toEqual(b.per_episode);
      expect(a.per_episode.every(Number.isFinite)).toBe(true);
    });
});

describe('every shipped model directory', () => {
  it('names its platform and workload relative to itself, and they exist (the checkout can move)', () => {
    const dirs = readdirSync(MODELS).filter((d) => existsSync(join(MODELS, d, 'config.json')));
    expect(dirs.length).toBeGreaterThanOrEqual(4);
    for (const d of dirs) {
      const config = (JSON.parse(readFileSync(join(MODELS, d, 'config.json'), 'utf8')) as { env: { config: Record<string, unknown> } }).env.config;
      for (const key of ['platform', 'workload']) {
        const value = config[key];
        if (typeof value !== 'string') continue;
        expect(isAbsolute(value), `${d}: ${key} ${value}`).toBe(false);
        // inside the checkout, or in ../shared beside it (never another developer's tree)
        const at = resolve(MODELS, d, value);
        expect(at.startsWith(`${ROOT}${sep}`) || at.startsWith(`${resolve(ROOT, '../shared')}${sep}`), `${d}: ${key} ${value} is ${at}`).toBe(true);
        // a trace of ../shared is there only beside a full checkout
        if (!value.includes('shared/data') || existsSync(join(ROOT, '../shared/data')))
          expect(existsSync(join(MODELS, d, value)), `${d}: ${key} ${value}`).toBe(true);
      }
    }
  });
});

describe('fair model', () => {
  it("beats DRF's time-averaged objective without stretching the episode (same tasks, higher utilisation and Jain, shorter makespan)", () => {
    const env = make('clustergym/Fair-v0', { reward: 'mixed' });
    const policy = readLinearPolicy(join(MODELS, 'fair'));
    const learned = linearAgent(env, thetaOf(policy), policy);
    const drf = systemAgent('clustergym/Fair-v0', 'drf', 'test');
    for (const seed of episodeSeeds(0, 2)) {
      const m = playEpisode(env, learned, seed).metrics as Record<string, number>;
      const r = playEpisode(env, drf, seed).metrics as Record<string, number>;
      expect(m.tasks).toBe(r.tasks);
      expect(m.objective).toBeGreaterThan(r.objective!);
      expect(m.utilisation).toBeGreaterThan(r.utilisation!);
      expect(m.jain).toBeGreaterThan(r.jain!);
      expect(m.makespan).toBeLessThan(r.makespan!);
    }
    env.close();
  });
});

describe('flat ES trainer', () => {
  it('combines episodes as the mean of relative differences, or as the difference of means (by hand)', () => {
    // a policy 10 % better on a light episode (99 vs 110) and 20 % worse on a heavy one (1200 vs 1000)
    expect(flatFitness('mean_relative', 1, [99, 1200], [110, 1000])).toBeCloseTo((-11 / 110 + 200 / 1000) / 2, 12);
    expect(flatFitness('relative_of_means', 1, [99, 1200], [110, 1000])).toBeCloseTo(189 / 1110, 12);
    // higher is better: the sign turns
    expect(flatFitness('relative_of_means', -1, [99, 1200], [110, 1000])).toBeCloseTo(-189 / 1110, 12);
  });

  const config = (generations: number): FlatEsConfig =>
    parseFlatEsConfig(
      {
        format: 'clustergym-es-flat',
        setting: 'malleable',
        env: { id: 'clustergym/Malleable-v0', config: { jobs: 8, reward: 'completion' } },
        metric: 'metrics.mean_completion',
        lower_is_better: true,
        seed: 3,
        es: { generations, population: 2, episodes: 1, reference: 'dmr' },
        checkpoint_every: 1,
      },
      'test',
    );

  it('is deterministic by seed and a resumed run equals an uninterrupted one', () => {
    const out = (s: string) => mkdtempSync(join(tmpdir(), `cg-es-${s}-`));
    const a = trainFlat(config(2), { outDir: out('a') });
    const b = trainFlat(config(2), { outDir: out('b') });
    const pa = readLinearPolicy(a.modelDir);
    expect(readLinearPolicy(b.modelDir)).toEqual(pa);
    const first = trainFlat(config(1), { outDir: out('c') });
    const resumed = trainFlat(config(2), { outDir: out('d'), resume: join(first.modelDir, '..', 'checkpoints', 'gen-00001') });
    expect(resumed.generations).toBe(2);
    expect(readLinearPolicy(resumed.modelDir)).toEqual(pa);
    // the policy plays only valid actions: the greedy choice with every action masked but one is that one
    const mask = new Uint8Array(pa.actions);
    mask[pa.actions - 1] = 1;
    expect(
      flatAction(new Float64Array(pa.actions * (pa.observation_size + 1)), new Float32Array(pa.observation_size), mask, pa.actions, pa.observation_size),
    ).toBe(pa.actions - 1);
  });
});

describe('linear policy of evolve.ts', () => {
  it("the saved network's greedy actions are the trainer's scoring's (JobNode-v0 states)", async () => {
    await selectBackend('cpu');
    const envConfig = {
      platform: join(ROOT, 'data/platforms/hetero-20.json'),
      generator: { model: 'poisson', jobs: 30, rate: 1.5, work: 'ops', mops: 16000, size: { dist: 'lognormal', mu: 1.5, sigma: 1 }, maxSize: 64 },
      k: 8,
    };
    const c = parsePpoConfig({
      env: { id: 'clustergym/JobNode-v0', config: envConfig },
      network: { kernel: [], wait: [] },
      es: { init: { 'row:job_log_req_time': -1, 'row:node_clock': 0.5, 'wait:queue_fill': 0.3, wait_bias: -0.2 } },
    });
    const env = make('clustergym/JobNode-v0', envConfig);
    const layout = rowLayout('clustergym/JobNode-v0', env.k, env.nodeCount);
    const theta = initialTheta(c.es!.init, layout);
    const network = networkOf(theta, layout, c);
    const batch = new FeatureBatch(layout.rowSize, 1, 256);
    let obs = env.reset({ seed: 5 }).observation as DictObservation;
    let decisions = 0;
    for (;;) {
      batch.clear();
      appendState(batch, layout, obs, env.actionMask());
      const mine = linearAction(theta, batch, layout);
      expect(network.greedyAction(obs, env.actionMask())).toBe(mine);
      decisions++;
      const r = env.step(mine);
      if (r.terminated || r.truncated) break;
      obs = r.observation as DictObservation;
    }
    expect(decisions).toBeGreaterThan(30);
    network.dispose();
    env.close();
  });
});
