/**
 * clustergym/Malleable-v0: passes the env checker; the dmr agent reproduces the dmr simulation
 * exactly and never-resize the rigid one; masks, errors, rewards summing to minus the mean wait.
 */
import { describe, expect, it } from 'vitest';
import { dmrAgent, neverAgent, runMalleableEpisode } from '../../agents/malleable/index.js';
import { checkEnv } from '../../envs/checker.js';
import { InvalidActionError } from '../../envs/errors.js';
import { loadMalleableContext, MalleableEnv } from '../../envs/malleable/index.js';
import { make } from '../../envs/registry.js';
import { simulate } from '../../src/malleable/engine.js';
import { dmrPolicy, neverPolicy } from '../../src/malleable/policy.js';
import { paperWorkload, rigidVersion } from '../../src/malleable/workload.js';

const env = (config: object = {}) => new MalleableEnv(loadMalleableContext(config));

describe('Malleable-v0', () => {
  it('is registered and passes checkEnv', () => {
    const e = make('clustergym/Malleable-v0', { jobs: 12 });
    const report = checkEnv(e, { episodes: 3, seedChangesEpisode: true });
    expect(report.steps).toBeGreaterThan(100);
  });
  it('the dmr agent reproduces simulate(dmr); never reproduces the rigid run', () => {
    for (const seed of [1, 2]) {
      const w = paperWorkload({ jobs: 40, seed });
      const d = simulate(w, dmrPolicy);
      const r = runMalleableEpisode(env({ jobs: 40 }), dmrAgent, seed);
      expect(r.metrics.mean_wait).toBe(d.meanWait);
      expect(r.metrics.makespan).toBe(d.makespan);
      expect(r.metrics.shrinks).toBe(d.shrinks);
      expect(r.metrics.expands).toBe(d.expands);
      expect(r.steps).toBe(d.expands + d.shrinks + d.noActions);
      // the return is minus the mean waiting time in ks
      expect(r.return).toBeCloseTo(-d.meanWait / 1000, 6);
      const rigid = simulate(rigidVersion(w), neverPolicy);
      const n = runMalleableEpisode(env({ jobs: 40 }), neverAgent, seed);
      expect(n.metrics.mean_wait).toBeCloseTo(rigid.meanWait, 6);
      expect(n.metrics.makespan).toBeCloseTo(rigid.makespan, 6);
      expect(n.metrics.shrinks + n.metrics.expands).toBe(0);
      expect(r.metrics.mean_wait).toBeLessThan(n.metrics.mean_wait);
    }
  });
  it('masks: no-action always, the current size never, expansions only into free nodes', () => {
    const e = env({ jobs: 10 });
    const { observation, info } = e.reset({ seed: 3 });
    const p = e.point()!;
    expect(info.action_mask[0]).toBe(1);
    const cur = p.sizes.indexOf(p.context.size) + 1;
    expect(info.action_mask[cur]).toBe(0);
    p.sizes.forEach((s, i) => {
      if (s > p.context.size && s - p.context.size > p.context.free) expect(info.action_mask[i + 1]).toBe(0);
      if (s < p.context.size) expect(info.action_mask[i + 1]).toBe(1);
    });
    expect(observation[0]).toBeCloseTo(p.context.size / 64, 6);
    expect(() => e.step(cur)).toThrow(InvalidActionError);
    expect(() => e.step(99)).toThrow(InvalidActionError);
  });
  it('resize costs come from the config', () => {
    const w = paperWorkload({ jobs: 20, seed: 6 });
    const d = simulate(w, dmrPolicy, { cost: { expand: 5, shrink: 7 } });
    const r = runMalleableEpisode(env({ jobs: 20, expand_cost: 5, shrink_cost: 7 }), dmrAgent, 6);
    expect(r.metrics.mean_wait).toBe(d.meanWait);
    expect(r.metrics.makespan).toBe(d.makespan);
    expect(() => loadMalleableContext({ shrink_cost: -1 })).toThrow(/\$\.shrink_cost/);
  });
  it('config errors name the key', () => {
    expect(() => loadMalleableContext({ jobz: 3 })).toThrow(/jobz/);
    expect(() => loadMalleableContext({ reward: 'bsld' })).toThrow(/\$\.reward/);
  });
  it('completion reward sums to minus the mean completion time', () => {
    const w = paperWorkload({ jobs: 20, seed: 5 });
    const d = simulate(w, dmrPolicy);
    const r = runMalleableEpisode(env({ jobs: 20, reward: 'completion', scale: 1 }), dmrAgent, 5);
    expect(r.return).toBeCloseTo(-d.meanCompletion, 4);
  });
});
