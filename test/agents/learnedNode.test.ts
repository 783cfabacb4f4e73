/**
 * What the hetero-energy and policy-pair models added (issue 30): the `pair_products` rows of
 * JobNode-v0 (hand-computed values; the base rows unchanged; a saved model keeps its own rows), IRMaSim
 * manager names as ES references, and the flat trainer's best fixed action and validation selection.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { irmasimName, parseIrmasimName } from '../../agents/leaderboard/heuristics.js';
import { ppoPlayer, readModelCard } from '../../agents/leaderboard/models.js';
import { episodeSeeds } from '../../agents/leaderboard/run.js';
import { loadSetting } from '../../agents/leaderboard/settings.js';
import { playEpisode } from '../../agents/episode.js';
import { initialTheta, linearAction, networkOf, ReferenceScores } from '../../agents/learning/evolve.js';
import { episodeMetric, fixedActionAgent, parseFlatEsConfig, trainFlat } from '../../agents/learning/flat.js';
import {
  appendState,
  FeatureBatch,
  loadModelDir,
  loadPpoConfig,
  PAIR_PRODUCTS,
  parsePpoConfig,
  readModelMeta,
  rowFeatureNames,
  rowLayout,
  saveModelDir,
  selectBackend,
} from '../../agents/learning/index.js';
import { make, makeContext } from '../../envs/registry.js';
import { derive } from '../../src/core/rng.js';
import type { DictObservation } from '../../envs/observation.js';
import { cardIdentity } from '../../agents/learning/card.js';
import { ROOT } from '../helpers.js';

const HETERO = join(ROOT, 'data/platforms/hetero-20.json');

describe('pair_products rows (JobNode-v0)', () => {
  it('are the base row followed by 7 job x node products (hand-computed)', () => {
    const base = rowLayout('clustergym/JobNode-v0', 1, 1);
    const layout = rowLayout('clustergym/JobNode-v0', 1, 1, 'pair_products');
    expect(base.rowSize).toBe(23);
    expect(layout.rowSize).toBe(30);
    expect(rowFeatureNames('clustergym/JobNode-v0', 'pair_products').slice(0, 23)).toEqual(rowFeatureNames('clustergym/JobNode-v0'));
    expect(PAIR_PRODUCTS).toHaveLength(7);
    // job: present, wait 0.5, req_time 0.001, ntasks 0.25, mem 0.1, mem_bw 0.8, mpi, can start
    const jobs = Float32Array.from([1, 0.5, 0.001, 0.25, 0.1, 0.8, 1, 1]);
    // node: free_cores 0.5, total_cores 1, clock 0.6, free_memory 0.9, mem_bw_use 0.3, power 0.4, comm_use 0
    const nodes = Float32Array.from([0.5, 1, 0.6, 0.9, 0.3, 0.4, 0]);
    const global = Float32Array.from([0.1, 0.2, 0.3, 0.4, 0.5]);
    const batch = new FeatureBatch(layout.rowSize);
    appendState(batch, layout, { jobs, nodes, global }, [1, 1]);
    const row = Array.from(batch.rows.subarray(0, 30));
    // log copies: log(1 + 1000 x) / log(1001); req_time 0.001 -> log(2) / log(1001)
    const lrt = Math.fround(Math.log(2) / Math.log(1001));
    const lnt = Math.fround(Math.log(251) / Math.log(1001));
    expect(row[9]).toBeCloseTo(lrt, 6);
    expect(row[10]).toBeCloseTo(lnt, 6);
    const f = Math.fround;
    expect(row.slice(23)).toEqual([
      f(lrt * f(0.6)), // log_req_time x clock
      f(lrt * 0.5), // x free_cores
      f(lrt * f(0.3)), // x mem_bw_use
      f(lrt * f(0.4)), // x power
      f(f(0.001) * f(0.6)), // req_time x clock
      f(f(0.8) * f(0.3)), // mem_bw x mem_bw_use
      f(lnt * 0.5), // log_ntasks x free_cores
    ]);
    // the base layout writes the same first 23 values
    const b = new FeatureBatch(base.rowSize);
    appendState(b, base, { jobs, nodes, global }, [1, 1]);
    expect(Array.from(b.rows.subarray(0, 23))).toEqual(row.slice(0, 23));
  });

  it('a saved model keeps its own rows whatever layout the caller passes; Job-v0 has no pair rows', async () => {
    await selectBackend('cpu');
    const envConfig = { platform: HETERO, generator: { model: 'poisson', jobs: 20, rate: 1.5, work: 'ops', mops: 16000 }, k: 4, placement: 'one_node' };
    const c = parsePpoConfig({
      env: { id: 'clustergym/JobNode-v0', config: envConfig },
      network: { kernel: [], wait: [], row_features: 'pair_products' },
      es: { init: { 'row:pair_log_req_time_x_clock': 2, 'row:node_power': 1, wait_bias: -10 } },
    });
    const env = make('clustergym/JobNode-v0', envConfig);
    const layout = rowLayout('clustergym/JobNode-v0', env.k, env.nodeCount, 'pair_products');
    const theta = initialTheta(c.es!.init, layout);
    const dir = mkdtempSync(join(tmpdir(), 'cg-pairs-'));
    const network = networkOf(theta, layout, c);
    await saveModelDir(dir, network, { config: c, limits: { ...env.limits }, steps: 0, backend: 'cpu' });
    network.dispose();
    expect(JSON.parse(readFileSync(join(dir, 'policy.json'), 'utf8')).row_features).toEqual(rowFeatureNames('clustergym/JobNode-v0', 'pair_products'));
    // the leaderboard passes a base layout of the setting's K and N: the model's rows win
    const loaded = await loadModelDir(dir, rowLayout('clustergym/JobNode-v0', env.k, env.nodeCount));
    expect(loaded.network.layout.features).toBe('pair_products');
    const batch = new FeatureBatch(layout.rowSize, 1, 256);
    let obs = env.reset({ seed: 3 }).observation as DictObservation;
    for (;;) {
      batch.clear();
      appendState(batch, layout, obs, env.actionMask());
      const mine = linearAction(theta, batch, layout);
      expect(loaded.network.greedyAction(obs, env.actionMask())).toBe(mine);
      const r = env.step(mine);
      if (r.terminated || r.truncated) break;
      obs = r.observation as DictObservation;
    }
    loaded.network.dispose();
    env.close();
    expect(() => parsePpoConfig({ env: { id: 'clustergym/Job-v0', config: {} }, network: { row_features: 'pair_products' } })).toThrow(
      /pair_products rows are for JobNode-v0/,
    );
  });
});

describe('IRMaSim managers as ES references', () => {
  it('a leaderboard name parses back to its manager, and runs as the reference', () => {
    const wm = { type: 'EnergyHeuristic', metric: 'timetasks', job_selection: 'highest', resource_selection: 'lowest' };
    const name = irmasimName(wm);
    expect(name).toBe('irmasim:EnergyHeuristic(metric=timetasks,job_selection=highest,resource_selection=lowest)');
    const h = parseIrmasimName(name, 'test');
    expect(h.manager).toEqual(wm);
    expect(h.name).toBe(name);
    expect(parseIrmasimName('irmasim:Backfill(resource_selection=first)', 'test').manager).toEqual({ type: 'Backfill', resource_selection: 'first' });
    expect(() => parseIrmasimName('irmasim:EnergyHeuristic(metric)', 'test')).toThrow(/field=value/);
    expect(() => parseIrmasimName('irmasim:Nope()', 'test')).toThrow(/unknown workload manager/);
    const context = makeContext('clustergym/JobNode-v0', {
      platform: HETERO,
      generator: { model: 'poisson', jobs: 30, rate: 1.5, work: 'ops', mops: 16000 },
    });
    const ref = new ReferenceScores(context, name, 'edp');
    const v = ref.bsld(7);
    expect(v).toBeGreaterThan(0);
    expect(ref.bsld(7)).toBe(v);
  });
});

describe('flat ES: best fixed action and validation', () => {
  it('starts from the action that is best held fixed on the validation episodes, and keeps the best validated theta', () => {
    const raw = {
      format: 'clustergym-es-flat',
      setting: 'policy-pair',
      env: {
        id: 'clustergym/PolicyPair-v0',
        config: {
          platform: HETERO,
          generator: { model: 'poisson', jobs: 24, rate: 1.5, work: 'ops', mops: 16000 },
          observation: 'minimal',
          actions: ['fcfs:high_gflops', 'sjf:high_gflops', 'sjf:low_power'],
        },
      },
      metric: 'mean_bsld',
      lower_is_better: true,
      seed: 2,
      es: { generations: 1, population: 1, episodes: 1, reference: 'fcfs:high_gflops', init: 'best_fixed', validation_episodes: 3 },
      checkpoint_every: 0,
    };
    const c = parseFlatEsConfig(raw, 'test');
    const r = trainFlat(c, { outDir: mkdtempSync(join(tmpdir(), 'cg-bestfixed-')) });
    const card = JSON.parse(readFileSync(join(r.modelDir, 'card.json'), 'utf8'));
    // recompute each fixed pair's fitness on the same validation episodes (seeds as the trainer draws them)
    const env = make('clustergym/PolicyPair-v0', c.env.config);
    const rng = derive(2, 'es/validation');
    const seeds = [rng.int(2 ** 31), rng.int(2 ** 31), rng.int(2 ** 31)];
    const value = (a: number, seed: number) => episodeMetric('mean_bsld', playEpisode(env, fixedActionAgent(a), seed));
    const fitness = [0, 1, 2].map((a) => seeds.reduce((f, s) => f + (value(a, s) - value(0, s)) / value(0, s), 0) / 3);
    const best = fitness.indexOf(Math.min(...fitness));
    expect(card.start.fixed_action).toBe(best);
    expect(card.start.fixed_fitness).toBeCloseTo(fitness[best]!, 12);
    expect(fitness[0]).toBe(0); // the reference is fixed action 0
    // the model is the best validated theta: never worse there than the fixed action it started from
    expect(card.selected.validation_fitness).toBeLessThanOrEqual(card.start.fixed_fitness + 1e-12);
    // the fixed-action agent plays its action wherever valid: a whole episode of action 1 is sjf:high_gflops
    const e = playEpisode(env, fixedActionAgent(1), 11);
    expect(e.steps).toBeGreaterThan(0);
    expect(Number.isFinite(episodeMetric('mean_bsld', e))).toBe(true);
    env.close();
    expect(() => parseFlatEsConfig({ ...raw, es: { ...raw.es, validation_episodes: 0 } }, 'test')).toThrow(/validation_episodes/);
  });
});

describe('shipped hetero-energy model', () => {
  it('was trained with data/configs/train-hetero-energy.json, sees pair_products rows, and plays its setting completely and deterministically', async () => {
    const dir = join(ROOT, 'data/models/hetero-energy');
    const card = readModelCard(dir);
    expect(card.setting).toBe('hetero-energy');
    expect(card.training_seeds).toEqual({ from: 0, to: 2 ** 31 });
    const { meta, config } = readModelMeta(dir);
    expect(meta.row_features).toEqual(rowFeatureNames('clustergym/JobNode-v0', 'pair_products'));
    const shipped = loadPpoConfig(join(ROOT, 'data/configs/train-hetero-energy.json'));
    expect(config).toEqual(shipped);
    expect(config.env.config.placement).toBe('one_node');
    const setting = loadSetting(join(ROOT, 'data/configs/hetero-energy.json'));
    const player = ppoPlayer({ dir, setting: 'hetero-energy', name: 'es-linear:hetero-energy', identity: cardIdentity(dir) });
    const seeds = episodeSeeds(0, 1);
    const a = await player.play(setting, seeds);
    const b = await player.play(setting, seeds);
    expect(a.complete).toBe(true);
    expect(a.per_episode).toEqual(b.per_episode);
    expect(a.per_episode[0]).toBeGreaterThan(0);
  });
});
