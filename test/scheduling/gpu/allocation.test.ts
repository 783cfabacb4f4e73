/**
 * Gavel's allocation policies (src/scheduling/gpu/allocation.ts) and the job orders (jobOrders.ts), on
 * instances solved by hand: proportional and isolated throughputs, heterogeneity-aware and agnostic
 * max-min fairness (weights, scale factors, a unique optimum), finish-time fairness (one job, two equal
 * jobs, a job whose best is its bound), its isolated-time bookkeeping across calls, and FIFO / LAS / SRTF.
 */
import { describe, expect, it } from 'vitest';
import {
  allocationRates,
  FinishTimeFairness,
  finishTimeFairness,
  isolatedAllocation,
  maxMinFairness,
  proportionalThroughput,
  referenceThroughputs,
} from '../../../src/scheduling/gpu/allocation.js';
import { orderJobs } from '../../../src/scheduling/gpu/jobOrders.js';

const close = (a: ArrayLike<number>, b: number[], digits = 5) => {
  expect(a.length).toBe(b.length);
  b.forEach((v, i) => {
    expect(a[i]).toBeCloseTo(v, digits);
  });
};

// job A: 1 step/s on a K80, 4 on a V100; job B: 1 and 2; one K80 and one V100
const A = { throughput: [1, 4], scale: 1 };
const B = { throughput: [1, 2], scale: 1 };
const ONE_EACH = [1, 1];

describe('throughputs under reference allocations', () => {
  it('proportional: an equal share of every GPU', () => {
    expect(proportionalThroughput([1, 4], ONE_EACH)).toBe(2.5);
    expect(proportionalThroughput([3, 0, 6], [2, 4, 2])).toBe((3 * 2 + 6 * 2) / 8);
  });

  it('isolated: (n_j / m) / s_i, rows scaled to at most 1', () => {
    const jobs = [1, 2, 4].map((scale) => ({ throughput: [1, 1], scale }));
    close(isolatedAllocation(jobs, [2, 4]), [1 / 3, 2 / 3, 1 / 3, 2 / 3, 1 / 6, 1 / 3], 12);
    close(allocationRates([A], isolatedAllocation([A], ONE_EACH), 2), [2.5], 12);
  });
});

describe('max-min fairness', () => {
  it('heterogeneity-aware: A (4x on V100) and B (2x) share both GPUs half and half, each at its proportional rate', () => {
    // c_A = (1, 4) / 2.5, c_B = (1, 2) / 1.5: the unique optimum (solved by hand in maxMinLp.test.ts)
    const a = maxMinFairness([A, B], ONE_EACH, { aware: true });
    expect(a.objective).toBeCloseTo(1, 6);
    close(a.x, [0.5, 0.5, 0.5, 0.5]);
    close(allocationRates([A, B], a.x, 2), [2.5, 1.5]);
  });

  it('heterogeneity-agnostic: time shares only (t* = min(min s/w, N / sum w))', () => {
    const a = maxMinFairness([A, B], ONE_EACH, { aware: false });
    expect(a.objective).toBeCloseTo(1, 6);
    for (const i of [0, 1]) expect(a.x[2 * i]! + a.x[2 * i + 1]!).toBeCloseTo(1, 6);
    // weights 1 and 5 on one GPU: t* = min(1/5, 1/6) = 1/6, x = t w / s = (1/6, 5/6)
    const w = maxMinFairness(
      [
        { throughput: [3], scale: 1 },
        { throughput: [7], scale: 1, weight: 5 },
      ],
      [1],
      { aware: false },
    );
    expect(w.objective).toBeCloseTo(1 / 6, 6);
    close(w.x, [1 / 6, 5 / 6]);
    // scale factors 1 and 2 on two GPUs: a 2-GPU job gets half the time for the same normalised rate
    const s = maxMinFairness(
      [
        { throughput: [3], scale: 1 },
        { throughput: [7], scale: 2 },
      ],
      [2],
      { aware: false },
    );
    close(s.x, [1, 0.5]);
  });
});

describe('finish-time fairness', () => {
  const fresh = (remainingSteps: number, timeSinceStart = 0) => ({ timeSinceStart, remainingSteps, cumulativeIsolatedTime: 0 });

  it('one job alone: ratio 1 on its whole GPU', () => {
    const a = finishTimeFairness([{ throughput: [2], scale: 1 }], [fresh(100)], [1]);
    expect(a.objective).toBeCloseTo(1, 5);
    close(a.x, [1], 4);
  });

  it('two equal jobs on one GPU: half each, ratio 1', () => {
    const jobs = [0, 1].map(() => ({ throughput: [1], scale: 1 }));
    const a = finishTimeFairness(jobs, [fresh(100), fresh(100)], [1]);
    expect(a.objective).toBeCloseTo(1, 5);
    close(a.x, [0.5, 0.5], 4);
  });

  it('A has waited 40 s: its best (all the V100) is the optimum, ratio 1 + 2.5 / 4 = 1.625', () => {
    // isolated rates 2.5 and 1.5, E_A = 40, E_B = 66.7: rho_A = 1 + 2.5 / y_A >= 1.625 (y_A <= 4), and B
    // on the K80 gets rho_B = 1.5 <= 1.625
    const a = finishTimeFairness([A, B], [fresh(100, 40), fresh(100)], ONE_EACH);
    expect(a.objective).toBeCloseTo(1.625, 5);
    expect(a.x[1]).toBeCloseTo(1, 4);
    const rates = allocationRates([A, B], a.x, 2);
    expect(100 / rates[1]! / (100 / 1.5)).toBeLessThanOrEqual(1.625 + 1e-6);
  });

  it('heterogeneity-agnostic FTF takes every type at the reference type’s rate', () => {
    expect(referenceThroughputs(A, 1).throughput).toEqual([4, 4]);
  });

  it('keeps each job’s isolated time across calls: 10 steps done at an isolated rate of 2 are 5 s', () => {
    const ftf = new FinishTimeFairness();
    const job = { throughput: [2], scale: 1 };
    ftf.allocate(['a'], [job], [{ timeSinceStart: 0, remainingSteps: 100 }], [1]);
    // second call: 90 steps left, 5 s of isolated time banked: E = 5 + 90 / 2 = 50; t = 5: rho = (5 + 90 / 2) / 50 = 1
    const a = ftf.allocate(['a'], [job], [{ timeSinceStart: 5, remainingSteps: 90 }], [1]);
    expect(a.objective).toBeCloseTo(1, 5);
  });
});

describe('job orders', () => {
  const jobs = [
    { arrival: 0, attained: 7200, remainingSteps: 100, bestRate: 1 },
    { arrival: 10, attained: 0, remainingSteps: 1000, bestRate: 100 },
    { arrival: 5, attained: 0, remainingSteps: 30, bestRate: 0 },
    { arrival: 20, attained: 3600, remainingSteps: 50, bestRate: 10 },
  ];
  it('FIFO by arrival, LAS by attained service (ties by arrival), SRTF by remaining time (no rate last)', () => {
    expect(Array.from(orderJobs('fifo', jobs))).toEqual([0, 2, 1, 3]);
    expect(Array.from(orderJobs('las', jobs))).toEqual([2, 1, 3, 0]);
    // remaining times 100, 10, infinite, 5 s
    expect(Array.from(orderJobs('srtf', jobs))).toEqual([3, 1, 0, 2]);
  });
});
