/**
 * The malleable model: allowed sizes, resize validity, step times, and the derivation of the
 * paper's applications from Tables 3 and 4 (the figures the module comment states).
 */
import { describe, expect, it } from 'vitest';
import {
  allowedSizes,
  deriveApps,
  PAPER_APPS,
  paperSpec,
  serialFractionFor,
  specProblem,
  stepTime,
  TABLE3,
  TABLE4,
  validResize,
} from '../../src/malleable/model.js';

describe('sizes and resizes', () => {
  it('allowed sizes are pref * factor^k within [min, max]', () => {
    expect(allowedSizes(paperSpec('cg'))).toEqual([2, 4, 8, 16, 32]);
    expect(allowedSizes(paperSpec('nbody'))).toEqual([1, 2, 4, 8, 16]);
    expect(allowedSizes({ min: 3, max: 27, pref: 9, factor: 3, inhibit: 0 })).toEqual([3, 9, 27]);
    expect(allowedSizes({ min: 2, max: 16, pref: null, factor: 2, inhibit: 0 })).toEqual([2, 4, 8, 16]);
    expect(allowedSizes({ min: 3, max: 16, pref: null, factor: 2, inhibit: 0 })).toEqual([4, 8, 16]);
  });
  it('validResize checks min, max and the factor', () => {
    const s = paperSpec('cg');
    expect(validResize(s, 32, 8)).toBe(true);
    expect(validResize(s, 8, 16)).toBe(true);
    expect(validResize(s, 8, 12)).toBe(false);
    expect(validResize(s, 2, 1)).toBe(false);
    expect(validResize(s, 32, 64)).toBe(false);
    expect(validResize(s, 8, 8)).toBe(false);
    expect(validResize({ min: 1, max: 27, pref: 3, factor: 3, inhibit: 0 }, 27, 3)).toBe(true);
    expect(validResize({ min: 1, max: 27, pref: 3, factor: 3, inhibit: 0 }, 27, 9)).toBe(true);
    expect(validResize({ min: 1, max: 24, pref: 3, factor: 3, inhibit: 0 }, 6, 3)).toBe(false);
  });
  it('specProblem names what is wrong', () => {
    expect(specProblem(paperSpec('jacobi'))).toBeNull();
    expect(specProblem({ min: 2, max: 24, pref: 8, factor: 2, inhibit: 0 })).toMatch(/max \(24\) must be pref \(8\) times a power of factor/);
    expect(specProblem({ min: 4, max: 32, pref: 2, factor: 2, inhibit: 0 })).toMatch(/min <= pref <= max/);
  });
  it('step time is Amdahl: t1 * (s + (1 - s) / n)', () => {
    expect(stepTime({ name: 'x', t1: 2, serial: 0.25 }, 4)).toBeCloseTo(2 * (0.25 + 0.75 / 4), 12);
    expect(stepTime({ name: 'x', t1: 2, serial: 0 }, 8)).toBeCloseTo(0.25, 12);
  });
});

describe('derivation of the paper applications', () => {
  const d = deriveApps();
  it('the rigid execution times come out of Table 4 (mean 564.9 s) with CG = 4 x Jacobi', () => {
    const mean = TABLE4.rigid.execution.reduce((a, b) => a + b, 0) / 4;
    expect(d.meanRigidExecution).toBeCloseTo(mean, 9);
    expect((d.atMax.cg + d.atMax.jacobi + d.atMax.nbody) / 3).toBeCloseTo(mean, 9);
    expect(d.atMax.cg / d.atMax.jacobi).toBeCloseTo(4, 12);
    expect(d.atMax.cg).toBeCloseTo(460.07, 1);
    expect(d.atMax.jacobi).toBeCloseTo(115.02, 1);
    expect(d.atMax.nbody).toBeCloseTo(1119.63, 1);
    // node-seconds per job consistent with step 3
    expect((32 * d.atMax.cg + 32 * d.atMax.jacobi + 16 * d.atMax.nbody) / 3).toBeCloseTo(d.nodeSecondsPerJob, 6);
    expect(d.nodeSecondsPerJob).toBeCloseTo(12105.6, 0);
  });
  it('every application runs rho = 1.517 times longer at pref than at max', () => {
    expect(d.rho).toBeCloseTo(856.8825 / 564.905, 9);
    for (const k of ['cg', 'jacobi', 'nbody'] as const) {
      const s = paperSpec(k);
      expect(TABLE3[k].steps * stepTime(PAPER_APPS[k], s.max)).toBeCloseTo(d.atMax[k], 6);
      expect(stepTime(PAPER_APPS[k], s.pref!) / stepTime(PAPER_APPS[k], s.max)).toBeCloseTo(d.rho, 9);
    }
    expect(serialFractionFor(8, 32, d.rho)).toBeCloseTo(0.1305, 4);
    expect(serialFractionFor(1, 16, d.rho)).toBeCloseTo(0.6365, 4);
  });
});
