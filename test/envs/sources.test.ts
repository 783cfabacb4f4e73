/**
 * Where episodes come from: workload files (SWF without a platform gets a homogeneous cluster),
 * inline workloads, generators (a fresh trajectory per episode seed), trajectories with a random
 * origin; and clones.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RandomMaskedAgent, runEpisode } from '../../agents/heuristics/index.js';
import { observationDigest } from '../../envs/checker.js';
import { make, type ClusterEnv } from '../../envs/index.js';
import { Rng } from '../../src/core/rng.js';
import { sampleMasked } from '../../envs/spaces.js';
import { TFG_PLATFORM } from './envHelpers.js';

describe('episode sources', () => {
  it('an SWF trace without a platform runs on a homogeneous cluster of its MaxProcs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-env-'));
    const file = join(dir, 'tiny.swf');
    const lines = ['; MaxProcs: 8'];
    for (let i = 0; i < 30; i++) lines.push(`${i + 1} ${i * 10} -1 ${50 + i} ${1 + (i % 8)} -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const env = make('clustergym/Job-v0', { workload: file, k: 4 });
    expect(env.context.platform.coreCount).toBe(8);
    const r = runEpisode(env, new RandomMaskedAgent(1), 0);
    expect(r.summary.jobs_finished).toBe(30);
  });

  it('an inline Batsim workload with an inline platform', () => {
    const workload = {
      nb_res: 16,
      jobs: [
        { id: 'a', subtime: 0, res: 4, walltime: 100, profile: 'd50' },
        { id: 'b', subtime: 5, res: 16, walltime: 100, profile: 'd20' },
      ],
      profiles: { d50: { type: 'delay', delay: 50 }, d20: { type: 'delay', delay: 20 } },
    };
    const env = make('clustergym/JobNode-v0', { platform: TFG_PLATFORM, workload, k: 2 });
    const r = runEpisode(env, new RandomMaskedAgent(2), 0);
    expect(r.summary.jobs_finished).toBe(2);
  });

  it('a generator gives a fresh trajectory per seed, the same one for the same seed', () => {
    const config = { generator: { model: 'lublin', jobs: 40, maxProcs: 16 }, platform: TFG_PLATFORM, k: 4 };
    const env = make('clustergym/Job-v0', config);
    expect(env.context.length).toBe(40);
    expect(env.limits.ntasks).toBeGreaterThan(0);
    const a = runEpisode(env, new RandomMaskedAgent(1), 5).summary;
    const b = runEpisode(env, new RandomMaskedAgent(1), 5).summary;
    const c = runEpisode(env, new RandomMaskedAgent(1), 6).summary;
    expect(a).toEqual(b);
    expect(a.jobs_finished + a.jobs_rejected).toBe(40);
    expect(c).not.toEqual(a);
  });

  it('origin: random draws the trajectory from the reset seed; options.origin picks one', () => {
    const env = make('clustergym/Job-v0', { trajectory: { length: 10, origin: 'random' }, k: 4 });
    const origins = new Set<number>();
    for (let s = 0; s < 8; s++) {
      env.reset({ seed: s });
      origins.add(runEpisode(env, new RandomMaskedAgent(0), s).summary.makespan);
    }
    expect(origins.size).toBeGreaterThan(4);
    const agent = new RandomMaskedAgent(0);
    env.reset({ seed: 1, options: { origin: 42 } });
    let r = env.step(agent.act(env));
    while (!r.terminated) r = env.step(agent.act(env));
    expect(r.info.episode!.origin).toBe(42);
  });
});

describe('clone', () => {
  function digestRun(env: ClusterEnv, steps: number, seed: string): string[] {
    const rng = new Rng(seed);
    const out: string[] = [];
    for (let i = 0; i < steps; i++) {
      const a = sampleMasked(env.actionMask(), rng);
      if (a < 0) break;
      const r = env.step(a);
      out.push(`${observationDigest(r.observation)}|${r.reward}|${r.info.time}`);
      if (r.terminated || r.truncated) break;
    }
    return out;
  }

  for (const [id, config] of [
    ['clustergym/JobNode-v0', { k: 4, trajectory: { length: 40 } }],
    ['clustergym/Job-v0', { k: 4, trajectory: { length: 40 }, unfit: 'reserve', backfilling: 'easy' }],
    ['clustergym/PolicyPair-v0', { trajectory: { length: 40 }, observation: 'minimal' }],
  ] as const)
    it(`${id}: a clone continues exactly as the original, independently`, () => {
      const env = make(id, config);
      env.reset({ seed: 3 });
      digestRun(env, 10, 'warm');
      const c = env.clone() as typeof env;
      const fromClone = digestRun(c, 1000, 'rest');
      const fromOriginal = digestRun(env, 1000, 'rest');
      expect(fromClone).toEqual(fromOriginal);
      expect(fromClone.length).toBeGreaterThan(3);
      // unseeded resets continue the same stream in both
      expect(observationDigest(c.reset().observation)).toBe(observationDigest(env.reset().observation));
      c.close();
      c.close();
      expect(() => c.step(0)).toThrow(/closed/);
      expect(() => env.step(env.actionMask().indexOf(1))).not.toThrow();
    });
});
