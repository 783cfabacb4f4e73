import { describe, expect, it } from 'vitest';
import { fairnessFindings, fairnessSweep, runFairness, speedExperiment, TABLE_5_1 } from '../../src/fairness/experiment.js';
import { drf } from '../../src/fairness/schedulers.js';

describe('§5.2 fairness findings hold for several seeds', () => {
  for (const seed of [1, 7, 2024, 31337]) {
    it(`seed ${seed}`, () => {
      const runs = fairnessSweep({ seed });
      const findings = fairnessFindings(runs);
      for (const f of findings) expect(f.holds, `${f.id}: ${f.measured}`).toBe(true);
    }, 30_000);
  }
});

describe('fairness runs', () => {
  it('drf equals tetris(1) and every task of Table 5.1 runs', () => {
    const a = runFairness(drf(), { seed: 3 });
    const b = runFairness(1, { seed: 3 });
    expect(a.utilisation).toBe(b.utilisation);
    expect(a.meanDominantShare).toEqual(b.meanDominantShare);
    expect(a.users).toEqual(TABLE_5_1.map((u) => u.user));
    expect(a.windowEnd).toBeGreaterThan(0);
    expect(a.makespan).toBeGreaterThan(a.windowEnd);
  });

  it('is deterministic for a seed and differs between seeds', () => {
    expect(runFairness(0.5, { seed: 5 }).utilisation).toBe(runFairness(0.5, { seed: 5 }).utilisation);
    expect(runFairness(0.5, { seed: 5 }).windowEnd).not.toBe(runFairness(0.5, { seed: 6 }).windowEnd);
  });

  it('monitor rows over the run when an interval is given', () => {
    const r = runFairness(0.8, { seed: 1, interval: 100, taskScale: 0.1 });
    expect(r.rows!.length).toBeGreaterThan(3);
    expect(r.rows![0]!.shares).toHaveLength(10);
  });

  it('speed experiment runs every task', () => {
    const s = speedExperiment(1, 20_000);
    expect(s.tasks).toBe(20_000);
    expect(s.tasks_per_s).toBeGreaterThan(0);
  });
});
