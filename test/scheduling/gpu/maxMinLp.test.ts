/**
 * The max-min LP solver (src/scheduling/gpu/maxMinLp.ts): hand-solved instances (one type: x_i = t / c_i;
 * two types where the optimum is unique, with its dual certificate by hand; a symmetric face whose
 * analytic centre is 1/2), closed forms checked on random instances (one type; type-blind rates), and
 * properties on random instances: the allocation is feasible, the solver's dual multipliers are feasible
 * and bound t within its gap, and t is at least the minimum rate of a feasible allocation built by hand.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type MaxMinProblem, type MaxMinSolution, solveMaxMin } from '../../../src/scheduling/gpu/maxMinLp.js';

const f64 = (a: number[]) => Float64Array.from(a);

/** Largest violation of the primal constraints, and the minimum rate of the jobs that take part. */
function primal(p: MaxMinProblem, sol: MaxMinSolution): { violation: number; minRate: number } {
  const { m, k } = p;
  let violation = 0;
  let minRate = Number.POSITIVE_INFINITY;
  for (let i = 0; i < m; i++) {
    let r = 0;
    let q = 0;
    for (let j = 0; j < k; j++) {
      const x = sol.x[i * k + j]!;
      violation = Math.max(violation, -x);
      if (p.allowed && !p.allowed[i * k + j]) violation = Math.max(violation, Math.abs(x));
      r += p.rate[i * k + j]! * x;
      q += x;
    }
    violation = Math.max(violation, q - 1);
    if (!sol.excluded[i]) minRate = Math.min(minRate, r);
  }
  for (let j = 0; j < k; j++) {
    let u = 0;
    for (let i = 0; i < m; i++) u += p.size[i * k + j]! * sol.x[i * k + j]!;
    violation = Math.max(violation, u - p.capacity[j]!);
  }
  return { violation, minRate };
}

/**
 * The upper bound the solver's dual multipliers prove on t*, after making them exactly feasible (the rate
 * multipliers normalised to sum 1, each time multiplier raised to cover its rows): weak duality.
 */
function dualBound(p: MaxMinProblem, sol: MaxMinSolution): number {
  const { m, k } = p;
  const sum = sol.dual.rate.reduce((a, b) => a + b, 0);
  let bound = 0;
  for (let j = 0; j < k; j++) bound += p.capacity[j]! * Math.max(0, sol.dual.capacity[j]!);
  for (let i = 0; i < m; i++) {
    if (sol.excluded[i]) continue;
    let need = Math.max(0, sol.dual.time[i]!);
    for (let j = 0; j < k; j++) {
      if (p.allowed && !p.allowed[i * k + j]) continue;
      if (!(p.capacity[j]! > 0)) continue;
      need = Math.max(need, (p.rate[i * k + j]! * sol.dual.rate[i]!) / sum - p.size[i * k + j]! * Math.max(0, sol.dual.capacity[j]!));
    }
    bound += need;
  }
  return bound;
}

describe('hand-solved instances', () => {
  it('one GPU type: t* = min(min c_i, n / sum s_i / c_i) and x_i = t / c_i', () => {
    // c = (2, 4), s = (1, 2), n = 1: sum s / c = 1, t* = 1, x = (1/2, 1/4)
    const p = { m: 2, k: 1, rate: f64([2, 4]), size: f64([1, 2]), capacity: f64([1]) };
    const sol = solveMaxMin(p);
    expect(sol.t).toBeCloseTo(1, 7);
    expect(sol.x[0]).toBeCloseTo(0.5, 7);
    expect(sol.x[1]).toBeCloseTo(0.25, 7);
  });

  it('two types, a unique optimum: t* = 1, every x = 1/2, proven by the dual (5/14, 9/14; 2/14, 8/14; 0, 4/14)', () => {
    // job A 4x faster on V100 (c = 0.4, 1.6), job B 2x (c = 2/3, 4/3); one K80 and one V100
    const p = { m: 2, k: 2, rate: f64([0.4, 1.6, 2 / 3, 4 / 3]), size: f64([1, 1, 1, 1]), capacity: f64([1, 1]) };
    const sol = solveMaxMin(p);
    expect(sol.t).toBeCloseTo(1, 7);
    for (const x of sol.x) expect(x).toBeCloseTo(0.5, 6);
    // the hand dual: rate multipliers (5/14, 9/14), capacity (2/14, 8/14), time (0, 4/14) gives exactly 1
    const hand = { rate: f64([5 / 14, 9 / 14]), time: f64([0, 4 / 14]), capacity: f64([2 / 14, 8 / 14]) };
    expect(dualBound(p, { ...sol, dual: hand })).toBeCloseTo(1, 12);
    expect(dualBound(p, sol)).toBeCloseTo(1, 6);
  });

  it('a symmetric optimal face: the centred allocation (analytic centre 1/2), not a vertex', () => {
    const p = { m: 2, k: 2, rate: f64([1, 1, 1, 1]), size: f64([1, 1, 1, 1]), capacity: f64([1, 1]) };
    const sol = solveMaxMin(p);
    expect(sol.t).toBeCloseTo(1, 7);
    for (const x of sol.x) expect(Math.abs(x - 0.5)).toBeLessThan(1e-3);
  });

  it('excludes jobs that cannot gain, honours the allowed mask, leaves out types without GPUs', () => {
    const p = {
      m: 3,
      k: 3,
      rate: f64([0, 0, 5, 2, 2, 2, 1, 1, 1]),
      size: f64([1, 1, 1, 1, 1, 1, 2, 2, 2]),
      capacity: f64([1, 2, 0]),
      allowed: Uint8Array.from([1, 1, 1, 1, 0, 1, 1, 1, 1]),
    };
    const sol = solveMaxMin(p);
    // job 0 runs only on the type without GPUs: excluded; job 1 only on type 0 (1 GPU); job 2 (2 GPUs) anywhere
    expect(Array.from(sol.excluded)).toEqual([1, 0, 0]);
    expect(Array.from(sol.x.slice(0, 3))).toEqual([0, 0, 0]);
    expect(sol.x[4]).toBe(0);
    expect(sol.x[5]! + sol.x[8]!).toBe(0);
    // t = min(2 x10, 1 (x20 + x21)): x10 <= 1, 2 x20 + x10 <= 1, 2 x21 <= 2: t* = 1 (x21 = 1, x10 = 1/2)
    expect(sol.t).toBeCloseTo(1, 7);
    expect(primal(p, sol).violation).toBeLessThan(1e-9);
    expect(solveMaxMin({ m: 0, k: 2, rate: f64([]), size: f64([]), capacity: f64([1, 1]) }).t).toBe(0);
  });
});

/** A random problem of up to 60 jobs on up to 4 types, Gavel-like sizes. */
const problem = fc
  .record({
    m: fc.integer({ min: 1, max: 60 }),
    k: fc.integer({ min: 1, max: 4 }),
    seed: fc.integer({ min: 0, max: 1e9 }),
  })
  .map(({ m, k, seed }) => {
    let s = seed;
    const r = () => {
      s = (s * 1103515245 + 12345) % 2147483648;
      return s / 2147483648;
    };
    const rate = new Float64Array(m * k).map(() => (r() < 0.1 ? 0 : 0.05 + 10 * r()));
    const size = new Float64Array(m * k);
    for (let i = 0; i < m; i++) {
      const g = [1, 1, 1, 1, 1, 1, 1, 2, 4, 8][Math.floor(r() * 10)]!;
      for (let j = 0; j < k; j++) size[i * k + j] = g;
    }
    const capacity = new Float64Array(k).map(() => Math.floor(r() * 36) + 1);
    return { m, k, rate, size, capacity };
  });

describe('closed forms on random instances', () => {
  it('one type: t* = min(min_i c_i, n / sum_i s_i / c_i)', () => {
    fc.assert(
      fc.property(problem, ({ m, rate, size, capacity }) => {
        const c = Float64Array.from({ length: m }, (_, i) => rate[i * (rate.length / m)]! + 0.01);
        const s = Float64Array.from({ length: m }, (_, i) => size[i * (size.length / m)]!);
        const sol = solveMaxMin({ m, k: 1, rate: c, size: s, capacity: capacity.subarray(0, 1) });
        let sum = 0;
        for (let i = 0; i < m; i++) sum += s[i]! / c[i]!;
        const expected = Math.min(Math.min(...c), capacity[0]! / sum);
        expect(Math.abs(sol.t - expected)).toBeLessThan(1e-6 * expected);
      }),
      { numRuns: 60 },
    );
  });

  it('type-blind rates c_ij = s_i / w_i (the agnostic policy): t* = min(min_i s_i / w_i, N / sum_i w_i)', () => {
    fc.assert(
      fc.property(problem, ({ m, k, size, capacity }) => {
        const w = Float64Array.from({ length: m }, (_, i) => 1 + (i % 5 === 0 ? 4 : 0));
        const rate = Float64Array.from(size, (s, v) => s / w[Math.floor(v / k)]!);
        const sol = solveMaxMin({ m, k, rate, size, capacity });
        const N = capacity.reduce((a, b) => a + b, 0);
        let minSw = Number.POSITIVE_INFINITY;
        for (let i = 0; i < m; i++) minSw = Math.min(minSw, size[i * k]! / w[i]!);
        const expected = Math.min(minSw, N / w.reduce((a, b) => a + b, 0));
        expect(Math.abs(sol.t - expected)).toBeLessThan(1e-6 * expected);
      }),
      { numRuns: 60 },
    );
  });
});

describe('properties on random instances', () => {
  it('feasible, certified by its dual within 1e-5 relative, at least a hand-built feasible allocation', () => {
    fc.assert(
      fc.property(problem, (p) => {
        const sol = solveMaxMin(p);
        const { violation, minRate } = primal(p, sol);
        expect(violation).toBeLessThan(1e-9);
        expect(minRate).toBeGreaterThanOrEqual(sol.t - 1e-9 * (1 + sol.t));
        const bound = dualBound(p, sol);
        expect(bound).toBeGreaterThanOrEqual(sol.t - 1e-9 * (1 + sol.t));
        // (t = 0 when no job can run anywhere: then the bound is 0 too)
        expect(bound - sol.t).toBeLessThanOrEqual(1e-5 * sol.t);
        // a feasible allocation by hand: each job an equal share of each type's GPUs, scaled to fit
        const { m, k } = p;
        const x = new Float64Array(m * k);
        for (let i = 0; i < m; i++) for (let j = 0; j < k; j++) x[i * k + j] = p.capacity[j]! / m / p.size[i * k + j]! / k;
        let scale = 1;
        for (let i = 0; i < m; i++) {
          let q = 0;
          for (let j = 0; j < k; j++) q += x[i * k + j]!;
          scale = Math.min(scale, 1 / q);
        }
        let hand = Number.POSITIVE_INFINITY;
        for (let i = 0; i < m; i++) {
          if (sol.excluded[i]) continue;
          let r = 0;
          for (let j = 0; j < k; j++) r += p.rate[i * k + j]! * x[i * k + j]! * scale;
          hand = Math.min(hand, r);
        }
        if (Number.isFinite(hand)) expect(sol.t).toBeGreaterThanOrEqual(hand - 1e-9 * (1 + hand));
      }),
      { numRuns: 150 },
    );
  });

  it('a few hundred jobs on three types: certified to 1e-5 in well under a second', () => {
    const p = fc.sample(
      problem.map((q) => q),
      { numRuns: 1, seed: 3 },
    )[0]!;
    const m = 400;
    const k = 3;
    const big = {
      m,
      k,
      rate: Float64Array.from({ length: m * k }, (_, v) => p.rate[v % p.rate.length]! + 0.1),
      size: Float64Array.from({ length: m * k }, (_, v) => [1, 1, 1, 2, 4, 8][Math.floor(v / k) % 6]!),
      capacity: f64([36, 36, 36]),
    };
    const t0 = performance.now();
    const sol = solveMaxMin(big);
    const ms = performance.now() - t0;
    expect(primal(big, sol).violation).toBeLessThan(1e-9);
    expect(dualBound(big, sol) - sol.t).toBeLessThan(1e-5 * sol.t);
    expect(sol.gap).toBeCloseTo(dualBound(big, sol) - sol.t, 9);
    expect(ms).toBeLessThan(2000);
  });
});
