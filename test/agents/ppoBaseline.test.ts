/**
 * The PPO trainer's baseline heuristic (agents/learning/baseline.ts, warmStart.ts): the relative reward,
 * the trajectory filter and its origin pool, the behaviour-cloning warm start, the config checks,
 * and the in-env heuristics of evaluation in RLScheduler's setting.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  appendState,
  buildModel,
  candidatePosition,
  evaluateHeuristics,
  FeatureBatch,
  HeuristicBaseline,
  parsePpoConfig,
  PolicyNetwork,
  rowLayout,
  selectBackend,
  train,
  warmStart,
  type BaselineConfig,
} from '../../agents/learning/index.js';
import { PriorityAgent } from '../../agents/heuristics/index.js';
import { make, makeContext, type DictObservation } from '../../envs/index.js';
import type { JobEnv } from '../../envs/jobEnv.js';
import { homogeneousPlatform } from '../../src/platform/homogeneous.js';
import { comparePolicies, cutTrajectories } from '../../src/scheduling/compare.js';
import { parsePolicyName } from '../../src/scheduling/policyName.js';
import { loadWorkload } from '../../src/workload/index.js';
import { HAVE_SHARED, SHARED_DATA, SHARED_MISSING } from '../helpers.js';

beforeAll(async () => {
  await selectBackend('auto');
});

/** A small native workload: 60 jobs on an 8-core machine, some wide, some long. */
function smallWorkload(): Record<string, unknown> {
  const jobs = Array.from({ length: 60 }, (_, i) => ({
    id: i + 1,
    subtime: i * 30,
    runtime: 50 + ((i * 37) % 400),
    req_time: 100 + ((i * 37) % 400) * 2,
    ntasks: 1 + ((i * 5) % 8),
  }));
  return { jobs };
}

const BASE: BaselineConfig = {
  policy: 'f1',
  relative_reward: true,
  min_bsld: 0,
  origin_stride: 1,
  warm_start_steps: 0,
  warm_start_teacher: 'heuristic',
  lookahead_candidates: 4,
  warm_start_rounds: 1,
  warm_start_epochs: 2,
  warm_start_learning_rate: 0.003,
};

const platform8 = {
  name: 'p8',
  clusters: [
    { nodes: [{ count: 8, memory_gb: 64, processors: [{ count: 1, cores: 1, clock_rate: 2, dpflops_per_cycle: 1, static_power: 10, dynamic_power: 5 }] }] },
  ],
};

const ENV = { platform: platform8, workload: smallWorkload(), trajectory: { length: 20 }, k: 8, unfit: 'reserve', reward: 'bsld' };

/** A training config on the small env with `extra` fields. */
function smallConfig(extra: Record<string, unknown>) {
  return parsePpoConfig({ env: { id: 'clustergym/Job-v0', config: ENV }, ...extra });
}

describe('trajectory.origins: a pool of episode origins', () => {
  it('draws every episode from the pool, and names a bad origin with its index', () => {
    const env = make('clustergym/Job-v0', { ...ENV, trajectory: { length: 20, origins: [3, 17, 40] } });
    // every episode's origin is one of the pool (read from the episode statistics at the end)
    const origins = new Set<number>();
    for (let s = 0; s < 30; s++) {
      env.reset({ seed: s });
      let r: ReturnType<JobEnv['step']>;
      do r = env.step(env.actionMask().indexOf(1));
      while (!r.terminated && !r.truncated);
      origins.add(r.info.episode!.origin!);
    }
    expect([...origins].sort((a, b) => a - b)).toEqual([3, 17, 40]);
    expect(() => make('clustergym/Job-v0', { ...ENV, trajectory: { length: 20, origins: [3, 41] } })).toThrow(
      /\$\.trajectory\.origins\[1\]: origin 41 \+ length 20 exceeds the 60 jobs of the workload \(largest origin: 40\)/,
    );
  });
});

describe('HeuristicBaseline', () => {
  it('scores a trajectory as the heuristic playing the env does, and the relative reward is (b - bsld) / b', () => {
    const b = new HeuristicBaseline(ENV, BASE);
    const env = make('clustergym/Job-v0', ENV) as JobEnv;
    const agent = new PriorityAgent('f1');
    env.reset({ seed: 0, options: { origin: 12 } });
    let r: ReturnType<JobEnv['step']>;
    do r = env.step(agent.act(env));
    while (!r.terminated && !r.truncated);
    const direct = r.info.metrics!.mean_bsld;
    expect(b.bsld(12)).toBe(direct);
    expect(b.relativeReward(12, direct)).toBe(0);
    expect(b.relativeReward(12, direct / 2)).toBeCloseTo(0.5, 12);
    expect(b.relativeReward(12, direct * 3)).toBeCloseTo(-2, 12);
  });

  it('keeps the origins whose heuristic bsld reaches min_bsld, every origin_stride-th, and refuses an empty pool', () => {
    const all = new HeuristicBaseline(ENV, { ...BASE, origin_stride: 5 });
    const every = all.filterOrigins();
    expect(every).toEqual([0, 5, 10, 15, 20, 25, 30, 35, 40]);
    const scores = every.map((o) => all.bsld(o));
    const median = [...scores].sort((a, b) => a - b)[4]!;
    const kept = new HeuristicBaseline(ENV, { ...BASE, origin_stride: 5, min_bsld: median }).filterOrigins();
    expect(kept).toEqual(every.filter((_, i) => scores[i]! >= median));
    expect(() => new HeuristicBaseline(ENV, { ...BASE, origin_stride: 5, min_bsld: Math.max(...scores) + 1 }).filterOrigins()).toThrow(
      /keeps no training origin: f1's largest mean bsld over the 9 candidates is/,
    );
  });
});

describe('the lookahead teacher', () => {
  it('ranks jobs as the heuristic does, and playing the lookahead never ends a trajectory worse than the heuristic', () => {
    const b = new HeuristicBaseline(ENV, BASE);
    const env = make('clustergym/Job-v0', ENV) as JobEnv;
    let better = 0;
    for (const origin of [0, 9, 18, 27, 36]) {
      env.reset({ seed: 0, options: { origin } });
      let r: ReturnType<JobEnv['step']>;
      do {
        const ranked = b.agent.ranked(env, 4);
        expect(ranked[0]).toBe(b.agent.act(env));
        expect(new Set(ranked).size).toBe(ranked.length);
        r = env.step(b.lookaheadAction(env, 4));
      } while (!r.terminated && !r.truncated);
      const mine = r.info.metrics!.mean_bsld;
      expect(mine).toBeLessThanOrEqual(b.bsld(origin) + 1e-9);
      if (mine < b.bsld(origin) - 1e-9) better++;
    }
    // the lookahead improves on the heuristic somewhere (else this test proves nothing)
    expect(better).toBeGreaterThan(0);
  });
});

describe('warm start by behaviour cloning', () => {
  it("finds the candidate position of an action, and cloning (with a DAgger round) raises the agreement with the heuristic's choices", () => {
    const config = smallConfig({
      seed: 5,
      num_envs: 4,
      num_steps: 32,
      num_minibatches: 4,
      baseline: { ...BASE, warm_start_steps: 512, warm_start_rounds: 2, warm_start_epochs: 4, warm_start_learning_rate: 0.01 },
    });
    const layout = rowLayout('clustergym/Job-v0', 8, 8);
    const net = new PolicyNetwork(buildModel(layout.rowSize, config.network, 5), layout);
    const variables = net.model.trainableWeights.map((w) => w.read() as never);
    // agreement of the greedy network with F1 on fresh states, before and after
    const agreement = () => {
      const env = make('clustergym/Job-v0', ENV) as JobEnv;
      const agent = new PriorityAgent('f1');
      let same = 0;
      let n = 0;
      for (let s = 100; s < 106; s++) {
        let obs = env.reset({ seed: s }).observation as DictObservation;
        for (;;) {
          const a = agent.act(env);
          if (net.greedyAction(obs, env.actionMask()) === a) same++;
          n++;
          const r = env.step(a);
          obs = r.observation as DictObservation;
          if (r.terminated || r.truncated) break;
        }
      }
      return same / n;
    };
    const batch = new FeatureBatch(layout.rowSize, 1, 16);
    const env = make('clustergym/Job-v0', ENV) as JobEnv;
    const obs = env.reset({ seed: 1 }).observation as DictObservation;
    appendState(batch, layout, obs, env.actionMask());
    const valid = [...env.actionMask()].flatMap((m, a) => (m ? [a] : []));
    valid.forEach((a, p) => {
      expect(candidatePosition(batch, 0, a, layout.waitAction)).toBe(p);
    });
    expect(() => candidatePosition(batch, 0, layout.waitAction, layout.waitAction)).toThrow(/not a candidate/);

    const before = agreement();
    const w = warmStart(net, variables, new HeuristicBaseline(ENV, config.baseline!), layout, ENV, config);
    const after = agreement();
    // two rounds of 512 states: the heuristic drives the first, the network the second (DAgger)
    expect(w.steps).toBe(1024);
    expect(Number.isFinite(w.loss)).toBe(true);
    expect(after).toBeGreaterThan(before + 0.15);
    expect(after).toBeGreaterThan(0.6);
    net.dispose();
  }, 60_000);
});

describe('training with a baseline', () => {
  it('writes mean_baseline_bsld and a model card; relative rewards score 0 for the heuristic itself', async () => {
    const out = mkdtempSync(join(tmpdir(), 'cg-ppo-baseline-'));
    const config = smallConfig({
      seed: 2,
      total_steps: 256,
      num_envs: 2,
      num_steps: 64,
      checkpoint_every: 0,
      baseline: { ...BASE, origin_stride: 10, warm_start_steps: 128 },
    });
    const r = await train(config, { outDir: out });
    r.network.dispose();
    const csv = readFileSync(join(out, 'metrics.csv'), 'utf8').trim().split('\n');
    const header = csv[0]!.split(',');
    const col = header.indexOf('mean_baseline_bsld');
    expect(col).toBeGreaterThan(0);
    const values = csv.slice(1).map((l) => l.split(',')[col]);
    expect(values.some((v) => v !== '' && Number(v) >= 1)).toBe(true);
    const card = JSON.parse(readFileSync(join(out, 'model', 'card.json'), 'utf8'));
    expect(card).toMatchObject({
      format: 'clustergym-model-card',
      env_id: 'clustergym/Job-v0',
      trajectory_length: 20,
      backfilling: 'none',
      split: { training_origins: 5, origin_stride: 10, min_baseline_bsld: 0 },
      seed: 2,
      steps: 256,
      baseline: { policy: 'f1', relative_reward: true },
      warm_start: { states: 128 },
    });
    expect(card.wall_seconds).toBeGreaterThan(0);
  }, 60_000);

  it('refuses a baseline that cannot work, naming the field', () => {
    const bad =
      (baseline: unknown, env: Record<string, unknown> = ENV, id = 'clustergym/Job-v0') =>
      () =>
        parsePpoConfig({ env: { id, config: env }, baseline }, 'cfg.json');
    expect(bad({ policy: 'random' })).toThrow(/\$\.baseline\.policy: expected a deterministic job-selection priority/);
    expect(bad({ policy: 'f1' }, { ...ENV, reward: 'flowtime' })).toThrow(/\$\.baseline\.relative_reward: .*needs the env's reward "bsld"/);
    expect(bad({}, { k: 4, generator: { model: 'lublin', jobs: 20 } })).toThrow(/need a workload file/);
    expect(bad({}, { k: 4, trajectory: { length: 20 } }, 'clustergym/JobNode-v0')).toThrow(/needs clustergym\/Job-v0/);
    expect(bad({ warm_start_steps: -1 })).toThrow(/\$\.baseline\.warm_start_steps/);
    expect(bad({ min_bsd: 3 })).toThrow(/Unrecognized key/);
  });
});

describe.skipIf(!HAVE_SHARED)(`RLScheduler's setting on lublin_256 ${HAVE_SHARED ? '' : SHARED_MISSING}`, () => {
  it('the in-env heuristics of evaluation equal compare --commit-head, trajectory by trajectory', () => {
    const file = join(SHARED_DATA, 'traces/lublin_256.swf');
    const w = loadWorkload(file);
    const trajectories = cutTrajectories(w, { length: 256, trajectories: 3, seed: 7 });
    const context = makeContext('clustergym/Job-v0', { workload: file, trajectory: { length: 256 }, k: 128, unfit: 'reserve', queue_order: 'f1' });
    const episodes = trajectories.map((t, i) => ({ seed: i, origin: Number(t.label) }));
    const [f1, sjf] = evaluateHeuristics(context, episodes, ['f1', 'sjf']);
    const batch = comparePolicies(
      homogeneousPlatform(w.maxProcs!, 1),
      trajectories,
      ['f1:first', 'sjf:first'].map((p) => parsePolicyName(p)),
      {
        seed: 0,
        commitHead: true,
      },
    );
    // F1 sees the whole queue ordered by its own priority (queue_order f1), so the window of 128 holds its choice
    f1!.per_trajectory.forEach((t, i) => {
      expect(t.mean_bsld).toBeCloseTo(batch[0]!.per_trajectory[i]!.mean_bsld, 9);
    });
    expect(sjf!.per_trajectory.map((t) => t.origin)).toEqual(episodes.map((e) => e.origin));
  });
});
