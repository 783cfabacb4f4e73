import { describe, expect, it } from 'vitest';
import { fairnessFindings, fairnessSweep, runFairness, shareRatio, speedExperiment, TABLE_5_1 } from '../../src/fairness/experiment.js';
import { drf } from '../../src/scheduling/multiResource.js';

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

  it('a user running out in the first pass gives an empty window with the loads of that pass, no NaN', () => {
    // 1 task per user (taskScale 0.0001) on 30 hosts: every task starts at t = 0, user0's (the
    // first started) empties its queue first; before the fix the window was read at the end of
    // the run (utilisation 0, first_out '', share ratio NaN)
    const r = runFairness(1, { seed: 1, taskScale: 0.0001 });
    expect(r.windowEnd).toBe(0);
    expect(r.firstOut).toBe('user0');
    // Table 5.1's one task each: 36 cores of 480, 64 memory of 1,760
    expect(r.cpu).toBeCloseTo(36 / 480, 12);
    expect(r.memory).toBeCloseTo(64 / 1760, 12);
    expect(r.meanDominantShare.user9).toBeCloseTo(10 / 480, 12);
    expect(Number.isFinite(r.shareRatio)).toBe(true);
    // a larger workload where one user still runs out at t = 0 (user0..: 15 tasks each fit at once)
    const s = runFairness(0.5, { seed: 2, taskScale: 0.01 });
    expect(s.windowEnd).toBe(0);
    expect(s.utilisation).toBeGreaterThan(0);
  });

  it('shareRatio never gives NaN', () => {
    expect(shareRatio([0, 0])).toBe(1);
    expect(shareRatio([0, 0.2])).toBe(Number.POSITIVE_INFINITY);
    expect(shareRatio([0.1, 0.2])).toBeCloseTo(2, 12);
  });

  it('speed experiment runs every task', () => {
    const s = speedExperiment(1, 20_000);
    expect(s.tasks).toBe(20_000);
    expect(s.tasks_per_s).toBeGreaterThan(0);
  });
});
