import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextGridPoint } from '../../src/core/grid.js';
import { DEFAULT_SLURM, type SlurmJobInput } from '../../src/slurm/config.js';
import { SlurmEngine } from '../../src/slurm/engine.js';
import { SlurmPlatform, type SlurmPlatformSpec } from '../../src/slurm/platform.js';
import { runSlurmPreset } from '../../src/slurm/preset.js';
import { expectSlurmEngine } from '../golden/slurmEngine.js';

describe('nextGridPoint', () => {
  it('hand-computed: the next point of 17.9 + k x 60 after 0, 17.9, 100 and 257.9 (where the floor falls a hair short)', () => {
    expect(nextGridPoint(0, 60, 17.9)).toBeCloseTo(17.9, 12);
    expect(nextGridPoint(17.9, 60, 17.9)).toBeCloseTo(77.9, 12);
    expect(nextGridPoint(100, 60, 17.9)).toBeCloseTo(137.9, 12);
    // (257.9 - 17.9) / 60 is 3.9999999999999996 in floating point: the bare formula gives 257.9 again
    expect(Math.floor((257.9 - 17.9) / 60)).toBe(3);
    expect(nextGridPoint(257.9, 60, 17.9)).toBeCloseTo(317.9, 12);
  });

  it('walks the grid one period at a time from any origin, never standing still (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 1000, noNaN: true }),
        fc.double({ min: 0, max: 1000, noNaN: true }),
        fc.integer({ min: 1, max: 200 }),
        (period, origin, steps) => {
          let t = origin;
          for (let i = 0; i < steps; i++) {
            const next = nextGridPoint(t, period, origin);
            expect(next).toBeGreaterThan(t);
            // one period on, to rounding
            expect(Math.abs(next - t - period)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(next)));
            t = next;
          }
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });
});

describe('PriorityCalcPeriod ticks on a phase that floating point rounds short', () => {
  it('both engines run past the tick the bare formula repeated for ever (period 60 s, phase 17.9 s) and give the same schedule', () => {
    const spec: SlurmPlatformSpec = { groups: [{ name: 'g', count: 1, cores: 2 }], partitions: [{ name: 'p', groups: ['g'] }] };
    const jobs: SlurmJobInput[] = [0, 1, 2, 3, 4].map((i) => ({ id: i, submit: 10 * i, cores: 2, timeLimit: 200, runTime: 100, user: i % 2 }));
    const config = { users: 2, priority: { ...DEFAULT_SLURM.priority, calcPeriod: 60, calcPhase: 17.9 } };
    const one = new Map<number, [number, number]>();
    runSlurmPreset(spec, jobs, config, [{ onEnd: (_s, r) => void one.set(Number(r.job.id), [r.start, r.finish]) }]);
    // one job at a time, in submission order (equal priorities but for fair share, which the first tick changes)
    expect(one.size).toBe(5);
    expectSlurmEngine('start-end', { spec, config, jobs }, one, () => {
      const slurm = new Map<number, [number, number]>();
      const e = new SlurmEngine(new SlurmPlatform(spec), config);
      e.onFinish((J, s) => void slurm.set(J.id[s]!, [J.start[s]!, J.end[s]!]));
      e.stream(jobs);
      e.run();
      return slurm;
    });
    expect(Math.max(...[...one.values()].map((x) => x[1]))).toBeGreaterThan(317.9);
  });
});
