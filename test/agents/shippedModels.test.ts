/**
 * The shipped models (data/models/lublin256, lublin256-easy): each loads, was trained with exactly the
 * shipped training config (so `clustergym train --config data/configs/NAME.json` retrains it), carries
 * its model card, and plays a held-out trajectory through `clustergym evaluate`.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPpoConfig, readModelMeta } from '../../agents/learning/index.js';
import { PACKAGE_ROOT } from '../../src/core/paths.js';
import { trajectoryOrigins } from '../../src/workload/trajectory.js';
import { cli, HAVE_SHARED, SHARED_DATA, SHARED_MISSING } from '../helpers.js';

const SHARED_TRACE = join(SHARED_DATA, 'traces/lublin_256.swf');

const MODELS = [
  { name: 'lublin256', backfilling: 'none' },
  { name: 'lublin256-easy', backfilling: 'easy' },
] as const;

describe.skipIf(!HAVE_SHARED)(`shipped models ${HAVE_SHARED ? '' : SHARED_MISSING}`, () => {
  for (const { name, backfilling } of MODELS) {
    it(`${name}: the shipped training config, the card, and an evaluation through the CLI`, () => {
      const dir = resolve(PACKAGE_ROOT, 'data/models', name);
      const { meta, config } = readModelMeta(dir);
      const shipped = loadPpoConfig(resolve(PACKAGE_ROOT, 'data/configs', `${name}.json`));
      // the model's config is the shipped one (paths resolved: the workload is the same file)
      expect(config).toEqual(shipped);
      expect(config.env.config.backfilling).toBe(backfilling);
      expect(meta.steps).toBe(shipped.total_steps);
      const card = JSON.parse(readFileSync(join(dir, 'card.json'), 'utf8'));
      expect(card).toMatchObject({
        format: 'clustergym-model-card',
        workload: 'lublin_256.swf',
        trajectory_length: 256,
        backfilling,
        seed: shipped.seed,
        steps: shipped.total_steps,
        backend: 'wasm',
      });
      expect(card.warm_start.teacher).toBe(shipped.baseline!.warm_start_teacher);
      expect(card.held_out.length).toBe(1024);
      expect(card.held_out.origins).toHaveLength(10);
      expect(card.held_out.policies.map((p: { name: string }) => p.name)).toEqual(['ppo', 'fcfs', 'sjf', 'f1', 'wfp3', 'unicep']);

      const out = mkdtempSync(join(tmpdir(), 'cg-shipped-'));
      const r = cli(['evaluate', '--model', dir, '--origins', '4000', '--length', '256', '--policies', 'f1', '--out', out, '--json']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const policies = JSON.parse(r.stdout).policies as { name: string; mean_bsld: number }[];
      expect(policies.map((p) => p.name)).toEqual(['imitation+ppo', 'f1']);
      for (const p of policies) expect(p.mean_bsld).toBeGreaterThanOrEqual(1);
    }, 60_000);
  }

  it('evaluate --trajectories K --seed S plays the origins compare --trajectories K --seed S cuts; bad combinations exit 2', () => {
    const dir = resolve(PACKAGE_ROOT, 'data/models/lublin256');
    const out = mkdtempSync(join(tmpdir(), 'cg-shipped-'));
    const r = cli(['evaluate', '--model', dir, '--trajectories', '2', '--seed', '20261123', '--length', '256', '--policies', 'f1', '--out', out, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const expected = trajectoryOrigins(10_000, { length: 256, trajectories: 2, seed: 20261123 });
    const evaluation = JSON.parse(readFileSync(join(out, 'evaluation.json'), 'utf8'));
    expect(evaluation.origins).toEqual(expected);
    expect(evaluation.policies[0].per_trajectory.map((t: { origin: number }) => t.origin)).toEqual(expected);
    // the same draw as compare's, which names its trajectories by origin
    const c = cli(['compare', '--workload', SHARED_TRACE, '--trajectories', '2', '--seed', '20261123', '--length', '256', '--policies', 'f1', '--json']);
    expect(c.code).toBe(0);
    expect(JSON.parse(c.stdout).trajectories.map((t: { label: string }) => Number(t.label))).toEqual(expected);
    for (const args of [
      ['--seed', '3', '--episodes', '2'],
      ['--trajectories', '3', '--origins', '1,2'],
      ['--trajectories', '2', '--episodes', '2'],
      ['--trajectories', '9000', '--length', '1024'],
    ]) {
      const bad = cli(['evaluate', '--model', dir, ...args]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/^clustergym evaluate: error: --(seed|origins|trajectories)/);
    }
  }, 60_000);
});
