/**
 * The `priority` row feature set (features.ts) and the ES trainer on Job-v0 with it: the derived
 * features on a hand-made observation, the feature set a model records and is loaded with, the
 * linear score `-job_window_rank` over an F1-ordered window playing exactly F1 with the committed
 * head (the reference `es.reference_commit_head` scores against), a small ES run that is
 * deterministic by seed and resumes exactly, and the shipped rlsched models (their training configs,
 * cards, and the PPO models they supersede on the leaderboard).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initialTheta, linearAction, playLinear, ReferenceScores } from '../../agents/learning/evolve.js';
import { readModelCard, shippedModels } from '../../agents/leaderboard/models.js';
import {
  appendState,
  FeatureBatch,
  loadModelDir,
  loadPpoConfig,
  parsePpoConfig,
  PRIORITY_FEATURES,
  readModelMeta,
  rowFeatureNames,
  rowFeatureSetOf,
  rowLayout,
  selectBackend,
  trainEs,
} from '../../agents/learning/index.js';
import { makeContext, makeFromContext } from '../../envs/registry.js';
import type { DictObservation } from '../../envs/observation.js';
import { ROOT } from '../helpers.js';

const JOB = 'clustergym/Job-v0' as const;

describe('priority row features', () => {
  it('are the base rows followed by the derived job features, hand-computed', () => {
    const base = rowFeatureNames(JOB);
    const names = rowFeatureNames(JOB, 'priority');
    expect(names.slice(0, base.length)).toEqual(base);
    expect(names.slice(base.length)).toEqual(PRIORITY_FEATURES.map((f) => `job_${f}`));
    expect(rowFeatureSetOf(JOB, names)).toBe('priority');
    expect(rowFeatureSetOf(JOB, base)).toBe('base');
    expect(rowFeatureSetOf(JOB, names.slice(1))).toBeNull();
    const layout = rowLayout(JOB, 3, 1, 'priority');
    expect(layout.rowSize).toBe(base.length + 8);
    // job features: present, wait, req_time, ntasks, mem, mem_bw, is_mpi, can_start_now
    const jobs = Float32Array.from([
      ...[1, 0.5, 0.01, 0.25, 0, 0, 1, 1], // fits now, 1/100 of the req_time limit
      ...[1, 0.001, 0.1, 0.75, 0, 0, 1, 0], // does not fit: lacks 0.75 - (1 - 0.5) = 0.25
      ...[1, 0, 0, 1, 0, 0, 1, 0], // req_time 0 and wait 0: both taken as 1e-6
    ]);
    // global: time, queue_length, running_jobs, utilisation 0.5, pending_work
    const obs = { jobs, nodes: new Float32Array(7), global: Float32Array.from([0.1, 0.2, 0.3, 0.5, 0.4]) };
    const batch = new FeatureBatch(layout.rowSize, 1, 8);
    appendState(batch, layout, obs, [1, 1, 1, 0]);
    expect(batch.rowCount).toBe(3);
    const derived = (r: number) => Array.from(batch.rows.subarray(r * layout.rowSize + base.length, (r + 1) * layout.rowSize));
    // slot 0: log10(0.01) / 6 = -1/3; n x that = -1/12; fits: 0.25 and -1/3; log10(0.5 / 0.01) / 6; no shortfall; rank 0
    const expected = [
      [-1 / 3, -1 / 12, 0.25, -1 / 3, Math.log10(50) / 6, 0, 0, 0],
      // slot 1: log10(0.1) / 6 = -1/6; 0.75 x -1/6; does not fit: 0, 0; log10(0.001 / 0.1) / 6 = -1/3; shortfall 0.25, x -1/6; rank 1/3
      [-1 / 6, -0.125, 0, 0, -1 / 3, 0.25, -0.25 / 6, 1 / 3],
      // slot 2: log10(1e-6) / 6 = -1; n = 1: -1; log10(1e-6 / 1e-6) = 0; shortfall 1 - 0.5 = 0.5, x -1; rank 2/3
      [-1, -1, 0, 0, 0, 0.5, -0.5, 2 / 3],
    ];
    for (let r = 0; r < 3; r++) {
      const got = derived(r);
      for (let f = 0; f < 8; f++) expect(got[f], `row ${r} ${PRIORITY_FEATURES[f]}`).toBeCloseTo(expected[r]![f]!, 6);
    }
    // the base part is the base layout's row
    const baseLayout = rowLayout(JOB, 3, 1);
    const b = new FeatureBatch(baseLayout.rowSize, 1, 8);
    appendState(b, baseLayout, obs, [1, 1, 1, 0]);
    for (let r = 0; r < 3; r++)
      expect(Array.from(batch.rows.subarray(r * layout.rowSize, r * layout.rowSize + base.length))).toEqual(
        Array.from(b.rows.subarray(r * base.length, (r + 1) * base.length)),
      );
  });
});

/** Job-v0 on the embedded default workload: 40-job trajectories, K 8, the committed head, F1's window order. */
function envConfig(backfilling: 'none' | 'easy'): Record<string, unknown> {
  return { trajectory: { length: 40, origin: 'random' }, k: 8, unfit: 'reserve', backfilling, reward: 'bsld', queue_order: 'f1' };
}

describe('a linear score over an F1-ordered window', () => {
  for (const backfilling of ['none', 'easy'] as const)
    it(`-job_window_rank plays exactly F1 with the committed head (backfilling ${backfilling})`, () => {
      const context = makeContext(JOB, envConfig(backfilling));
      const env = makeFromContext(context);
      const layout = rowLayout(JOB, env.k, env.nodeCount, 'priority');
      env.close();
      const theta = initialTheta({ 'row:job_window_rank': -1 }, layout);
      const reference = new ReferenceScores(context, backfilling === 'none' ? 'f1' : 'f1:first+easy', 'mean_bsld', true);
      const uncommitted = new ReferenceScores(context, backfilling === 'none' ? 'f1' : 'f1:first+easy', 'mean_bsld', false);
      const batch = new FeatureBatch(layout.rowSize, 1, 64);
      let differs = 0;
      for (const seed of [1, 2, 3, 4]) {
        const played = playLinear(theta, context, layout, seed, batch).bsld;
        expect(played).toBe(reference.bsld(seed));
        if (uncommitted.bsld(seed) !== played) differs++;
      }
      // the committed head is a different scheduler from the one that re-chooses its head
      if (backfilling === 'none') expect(differs).toBeGreaterThan(0);
    });
});

describe('ES on Job-v0 with priority rows', () => {
  const config = (generations: number) =>
    parsePpoConfig({
      env: { id: JOB, config: envConfig('none') },
      seed: 5,
      network: { kernel: [], wait: [], critic: [8], row_features: 'priority' },
      es: {
        generations,
        population: 2,
        episodes: 2,
        sigma: 0.1,
        learning_rate: 0.1,
        reference: 'f1',
        reference_commit_head: true,
        validation_episodes: 2,
        init: { 'row:job_window_rank': -1 },
      },
      checkpoint_every: 1,
      total_steps: 1_000_000,
    });

  it('is deterministic by seed, resumes exactly, and saves a model that loads with its feature set', async () => {
    await selectBackend('cpu');
    const out = (s: string) => mkdtempSync(join(tmpdir(), `cg-es-prio-${s}-`));
    const esState = (dir: string) => JSON.parse(readFileSync(join(dir, 'checkpoints', 'step-000000002', 'es.json'), 'utf8'));
    const a = await trainEs(config(2), { outDir: out('a') });
    const b = await trainEs(config(2), { outDir: out('b') });
    expect(esState(b.modelDir.replace(/model$/, ''))).toEqual(esState(a.modelDir.replace(/model$/, '')));
    expect(a.steps).toBe(b.steps);
    const first = await trainEs(config(1), { outDir: out('c') });
    const resumed = await trainEs(config(2), { outDir: out('d'), resume: join(first.modelDir, '..', 'checkpoints', 'step-000000001') });
    expect(esState(resumed.modelDir.replace(/model$/, ''))).toEqual(esState(a.modelDir.replace(/model$/, '')));

    // the model records its rows; loaded for a base layout, it still sees its own
    const { meta, config: own } = readModelMeta(a.modelDir);
    expect(meta.row_features).toEqual(rowFeatureNames(JOB, 'priority'));
    expect(own.network.row_features).toBe('priority');
    const loaded = await loadModelDir(a.modelDir, rowLayout(JOB, 8, 1));
    expect(loaded.network.layout.features).toBe('priority');
    const card = JSON.parse(readFileSync(join(a.modelDir, 'card.json'), 'utf8'));
    const theta = Float64Array.from((card.selected ? esStateBest(a.modelDir) : esState(a.modelDir.replace(/model$/, '')).theta) as number[]);
    const env = makeFromContext(makeContext(JOB, envConfig('none')));
    const batch = new FeatureBatch(loaded.network.layout.rowSize, 1, 64);
    let obs = env.reset({ seed: 9 }).observation as DictObservation;
    for (;;) {
      batch.clear();
      appendState(batch, loaded.network.layout, obs, env.actionMask());
      const mine = linearAction(theta, batch, loaded.network.layout);
      expect(loaded.network.greedyAction(obs, env.actionMask())).toBe(mine);
      const r = env.step(mine);
      if (r.terminated || r.truncated) break;
      obs = r.observation as DictObservation;
    }
    env.close();
    loaded.network.dispose();

    // a policy.json whose rows are not those of its config's feature set is refused
    const cfgFile = join(a.modelDir, 'config.json');
    const raw = JSON.parse(readFileSync(cfgFile, 'utf8'));
    raw.network.row_features = 'base';
    writeFileSync(cfgFile, JSON.stringify(raw));
    expect(() => readModelMeta(a.modelDir)).toThrow(/row features .* are not those of clustergym\/Job-v0 with network.row_features "base"/);
  }, 120_000);
});

/** The selected (best on validation) theta of a run, from its last checkpoint. */
function esStateBest(modelDir: string): number[] {
  const s = JSON.parse(readFileSync(join(modelDir, '..', 'checkpoints', 'step-000000002', 'es.json'), 'utf8'));
  return s.best.theta;
}

describe('the shipped rlsched models', () => {
  for (const name of ['rlsched', 'rlsched-easy'])
    it(`${name}: trained with data/configs/train-${name}.json (priority rows, F1 window, F1 reference with the committed head); its card`, () => {
      const dir = join(ROOT, 'data/models', name);
      const { meta, config } = readModelMeta(dir);
      const shipped = loadPpoConfig(join(ROOT, 'data/configs', `train-${name}.json`));
      expect(config).toEqual(shipped);
      expect(config.network.row_features).toBe('priority');
      expect(meta.row_features).toEqual(rowFeatureNames(JOB, 'priority'));
      expect(config.env.config.queue_order).toBe('f1');
      expect(config.es!.reference_commit_head).toBe(true);
      expect(config.es!.init).toEqual({ 'row:job_window_rank': -1 });
      const card = JSON.parse(readFileSync(join(dir, 'card.json'), 'utf8'));
      expect(readModelCard(dir)).toEqual({ setting: name, training_seeds: { from: 0, to: 2 ** 31 } });
      expect(card.es).toEqual(shipped.es);
      expect(card.steps).toBe(meta.steps);
      // the row of the setting's default episodes (data/configs/NAME.json)
      const setting = JSON.parse(readFileSync(join(ROOT, 'data/configs', `${name}.json`), 'utf8')) as { episodes: number };
      expect(card.leaderboard).toMatchObject({ seed: 0, episodes: setting.episodes, metric: 'mean_bsld', lower_is_better: true });
    });
  it('supersede the PPO models on the leaderboard (lublin256*: played only when named)', () => {
    const names = shippedModels(join(ROOT, 'data/models')).map((m) => m.name);
    expect(names).toEqual(expect.arrayContaining(['es-linear:rlsched', 'es-linear:rlsched-easy']));
    expect(names).not.toContain('imitation+ppo:lublin256');
    expect(names).not.toContain('imitation+ppo:lublin256-easy');
  });
});
