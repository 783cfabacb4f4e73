/**
 * The neural policy's training (issue 44): the network's greedy policy in JavaScript against tfjs'
 * (the same scores and actions), the residual network started at a linear base (it plays exactly as
 * the base), the lookahead teacher (its label never ends worse than the base's own choice), and a
 * smoke-sized imitation run end to end: DAgger rounds, ES fine-tuning, the model directory and its
 * card (method, neural, observes), played by the leaderboard.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ppoPlayer, modelEntries } from '../../agents/leaderboard/models.js';
import { episodeSeeds } from '../../agents/leaderboard/run.js';
import { parseSetting } from '../../agents/leaderboard/settings.js';
import { initialTheta, networkOf } from '../../agents/learning/evolve.js';
import {
  appendState,
  buildModel,
  FeatureBatch,
  JsPolicy,
  parsePpoConfig,
  PolicyNetwork,
  rowLayout,
  selectBackend,
  trainModel,
} from '../../agents/learning/index.js';
import { startAtBase } from '../../agents/learning/imitation.js';
import { loadBase, LookaheadTeacher } from '../../agents/learning/teacher.js';
import type { ClusterEnv } from '../../envs/env.js';
import type { DictObservation } from '../../envs/observation.js';
import { makeContext, makeFromContext } from '../../envs/registry.js';
import { TFG_PLATFORM } from '../envs/envHelpers.js';

/** A small JobNode-v0 episode: 40 generated jobs on the default hetero platform, window 8. */
const ENV = {
  generator: { model: 'poisson', jobs: 40, rate: 0.05, runtime: { dist: 'lognormal', mu: 5, sigma: 1 }, size: { dist: 'lognormal', mu: 1, sigma: 1 } },
  k: 8,
};

beforeAll(async () => {
  await selectBackend('wasm');
});

describe('the greedy policy in JavaScript', () => {
  it("scores every candidate as tfjs does and plays the tfjs network's episode, with and without the linear path", async () => {
    const context = makeContext('clustergym/JobNode-v0', ENV);
    const layout = rowLayout('clustergym/JobNode-v0', context.config.k, context.platform.nodeCount);
    for (const skip of [false, true]) {
      const c = parsePpoConfig({ env: { id: 'clustergym/JobNode-v0', config: ENV }, network: { kernel: [16, 8], wait: [8], skip } });
      const network = new PolicyNetwork(buildModel(layout.rowSize, c.network, 7), layout);
      // non-zero weights everywhere (the residual's output layers start at 0)
      const js0 = JsPolicy.of(network);
      const theta = js0.theta.map((v, i) => v + 0.3 * Math.sin(i));
      const js = js0.withTheta(theta);
      js.writeTo(network);
      const env = makeFromContext(context) as ClusterEnv;
      env.reset({ seed: 1 });
      const batch = new FeatureBatch(layout.rowSize, 1, 64);
      let steps = 0;
      while (!env.episodeOver) {
        batch.clear();
        appendState(batch, layout, env.observation as DictObservation, env.actionMask());
        const f = network.forward(batch);
        const tf = network.act(batch, null).actions[0]!;
        expect(js.act(batch, 0)).toBe(tf);
        if (steps === 0) expect(f.scores.length).toBeGreaterThan(1);
        env.step(tf);
        steps++;
      }
      expect(steps).toBeGreaterThanOrEqual(40);
      network.dispose();
    }
  });

  it('a residual network started at a linear policy plays exactly as that policy', () => {
    const context = makeContext('clustergym/JobNode-v0', ENV);
    const layout = rowLayout('clustergym/JobNode-v0', context.config.k, context.platform.nodeCount);
    const linear = parsePpoConfig({ env: { id: 'clustergym/JobNode-v0', config: ENV }, network: { kernel: [], wait: [] }, es: {} });
    const theta = initialTheta({ 'row:job_log_req_time': -1, 'row:node_clock': 0.3, 'row:job_log_wait': 1, wait_bias: -0.2 }, layout);
    const base = JsPolicy.of(networkOf(theta, layout, linear));
    const c = parsePpoConfig({ env: { id: 'clustergym/JobNode-v0', config: ENV }, network: { kernel: [16], wait: [8], skip: true } });
    const student = new PolicyNetwork(buildModel(layout.rowSize, c.network, 3), layout);
    // imitation's init "base": the linear paths take the base's weights, the MLPs' output layers are zero
    startAtBase(student, { policy: base }, 'base');
    const a = base.agent();
    const b = JsPolicy.of(student).agent();
    const env = makeFromContext(context) as ClusterEnv;
    let steps = 0;
    let waits = 0;
    env.reset({ seed: 2 });
    while (!env.episodeOver) {
      const x = a.act(env);
      expect(b.act(env)).toBe(x);
      if (x === env.actionMask().length - 1) waits++;
      env.step(x);
      steps++;
    }
    expect(steps).toBeGreaterThan(40);
    expect(waits).toBeGreaterThan(0);
    student.dispose();
  });
});

describe('the lookahead teacher', () => {
  it("never labels an action whose episode ends worse than the base's own (mean bsld)", async () => {
    // a loaded episode, where the order of starts matters
    const context = makeContext('clustergym/JobNode-v0', {
      platform: TFG_PLATFORM,
      generator: {
        model: 'poisson',
        jobs: 60,
        rate: 0.2,
        runtime: { dist: 'lognormal', mu: 4, sigma: 1 },
        size: { dist: 'lognormal', mu: 1, sigma: 1 },
        maxSize: 16,
      },
      k: 8,
    });
    const base = await loadBase('sjf:first', context);
    const teacher = new LookaheadTeacher(base, { m: 2, candidates: 6, wait: true, margin: 0, orders: ['fcfs', 'sjf', 'wfp3', 'unicep', 'f1'] }, 'mean_bsld');
    const env = makeFromContext(context) as ClusterEnv;
    env.reset({ seed: 4 });
    const agent = base.agent();
    let departures = 0;
    for (let i = 0; !env.episodeOver; i++) {
      const own = agent.act(env);
      if (i % 3 === 1) {
        const l = teacher.label(env, own);
        const play = (first: number) => {
          const c = env.clone() as ClusterEnv;
          const rollout = base.agent();
          let r = c.step(first);
          while (!r.terminated && !r.truncated) r = c.step(rollout.act(c));
          c.close();
          return r.info.metrics!.mean_bsld;
        };
        if (l.action !== own) {
          departures++;
          expect(play(l.action)).toBeLessThan(play(own));
        }
      }
      env.step(own);
    }
    expect(departures).toBeGreaterThan(0);
  });
});

describe('the lookahead teacher on the known future (teacher_future: "known")', () => {
  it('labels the base’s start where the oracle teacher waits for a job only the future holds', async () => {
    // 16 cores; t=0: j0 (4 tasks, 100 s) is the only job, j1 (16 tasks, 1 s) arrives at t=1. SJF starts j0 at once.
    // The oracle's rollouts know j1: waiting for it (j1 runs 1..2, j0 2..102: mean wait 1) beats starting j0 (j1 waits 99 s: 49.5).
    // The known future holds j0 alone: waiting changes nothing (the next decision is at once), so the label is the base's.
    const workload = {
      jobs: [
        { id: 'j0', subtime: 0, type: 'mpi', ntasks: 4, runtime: 100, req_time: 100 },
        { id: 'j1', subtime: 1, type: 'mpi', ntasks: 16, runtime: 1, req_time: 1 },
      ],
    };
    const context = makeContext('clustergym/Job-v0', { platform: TFG_PLATFORM, workload, k: 4, unfit: 'mask' });
    const base = await loadBase('sjf:first', context);
    const settings = { m: 1, candidates: 4, wait: true, margin: 0, orders: ['sjf' as const] };
    const env = makeFromContext(context) as ClusterEnv;
    env.reset({ seed: 1 });
    const own = base.agent().act(env);
    const wait = env.actionMask().length - 1;
    expect(own).toBe(0);
    const oracle = new LookaheadTeacher(base, settings, 'mean_wait').label(env, own);
    expect(oracle.action).toBe(wait);
    expect(oracle.gain).toBeCloseTo((49.5 - 1) / 49.5, 12);
    const known = new LookaheadTeacher(base, { ...settings, teacher_future: 'known' }, 'mean_wait').label(env, own);
    expect([known.action, known.gain, known.alternatives]).toEqual([own, 0, [wait]]); // both score 0: the wait is an equal alternative
    // the sampled teacher (teacher_future: "sampled"): one job seen, no gap to draw arrivals from: the known future's label
    const sampled = new LookaheadTeacher(base, { ...settings, teacher_future: 'sampled', samples: 3, sampled_jobs: 8 }, 'mean_wait').label(env, own);
    expect([sampled.action, sampled.gain, sampled.alternatives, sampled.rollouts]).toEqual([own, 0, [wait], 6]);
  });
});

describe('imitation then ES fine-tuning, smoke-sized', () => {
  let out = '';
  const config = {
    setting: 'tiny',
    env: { id: 'clustergym/JobNode-v0', config: ENV },
    network: { kernel: [8], wait: [4], critic: [4] },
    imitation: { base: 'sjf:first+easy', rounds: 2, episodes: 1, label_every: 10, base_every: 2, epochs: 2, minibatch: 64, candidates: 4 },
    es: { generations: 1, population: 1, episodes: 1, sigma: 0.02, learning_rate: 0.02, reference: 'sjf:first+easy', validation_episodes: 2 },
  };
  it('writes a tfjs model directory whose card names the method, says it is neural and what it observes', async () => {
    out = mkdtempSync(join(tmpdir(), 'cg-imitation-'));
    const r = await trainModel(parsePpoConfig(config), { outDir: out });
    r.network.dispose();
    const card = JSON.parse(readFileSync(join(r.modelDir, 'card.json'), 'utf8'));
    expect(card).toMatchObject({ setting: 'tiny', neural: true, observes: { durations: 'requested', horizon: 'seen' } });
    expect(card.training_seeds).toEqual({ from: 0, to: 2 ** 31 });
    expect(card.imitation.rounds_run).toHaveLength(2);
    expect(card.imitation.rounds_run[1].driver).toBe('network');
    expect(card.imitation.rounds_run[0].teacher_labels).toBeGreaterThan(0);
    expect(card.selected.phase).toMatch(/^(start|imitation round \d+ \(epoch \d+\)|es generation \d+)$/);
    // the method says where the selected weights came from (a fresh network's start is untrained)
    const phase = card.selected.phase as string;
    expect(card.method).toEqual(
      phase === 'start' ? 'untrained' : phase.startsWith('imitation') ? 'imitation' : expect.stringMatching(/^(imitation\+es|es-mlp)$/),
    );
    // the same run again: the same weights (deterministic by seed)
    const again = await trainModel(parsePpoConfig(config), { outDir: mkdtempSync(join(tmpdir(), 'cg-imitation-')) });
    again.network.dispose();
    expect(readFileSync(join(again.modelDir, 'weights.bin'))).toEqual(readFileSync(join(r.modelDir, 'weights.bin')));
  }, 300_000);

  it('the leaderboard plays it under its method name', async () => {
    const setting = parseSetting(
      {
        format: 'clustergym-leaderboard-setting',
        name: 'tiny',
        description: 'x',
        env: { id: 'clustergym/JobNode-v0', config: ENV },
        metric: 'mean_bsld',
        lower_is_better: true,
        episodes: 2,
        heuristics: { names: ['sjf:first+easy'] },
        why: 'x',
      },
      'tiny',
    );
    const [m] = modelEntries([join(out, 'model')]);
    expect(m!.name).toBe(`${m!.identity.method}:model`);
    const r = await ppoPlayer(m!).play(setting, episodeSeeds(0, 2));
    expect(r.per_episode.every(Number.isFinite)).toBe(true);
  }, 120_000);
});
