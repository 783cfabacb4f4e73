/**
 * Per-job metrics (DESIGN §2.5), by hand: wait, turnaround, slowdown and bounded slowdown (tau = 10 s).
 */
import { describe, expect, it } from 'vitest';
import { BSLD_TAU, boundedSlowdown, slowdown, turnaround, waitTime } from '../../src/metrics/jobMetrics.js';

describe('job metrics', () => {
  it('a job submitted at 3, started at 10, finished at 25: wait 7, turnaround 22, slowdown 22 / 15, bsld 22 / 15', () => {
    expect(waitTime(3, 10)).toBe(7);
    expect(turnaround(3, 25)).toBe(22);
    expect(slowdown(3, 10, 25)).toBe(22 / 15);
    expect(boundedSlowdown(3, 10, 25)).toBe(22 / 15);
  });

  it('bsld = max(turnaround / max(run, tau), 1): short runs count as tau, and it is never below 1', () => {
    expect(BSLD_TAU).toBe(10);
    expect(boundedSlowdown(0, 100, 105)).toBe(10.5); // run 5 s counts as 10
    expect(boundedSlowdown(0, 0, 5)).toBe(1); // 5 / 10, raised to 1
    expect(boundedSlowdown(0, 100, 105, 1)).toBe(21); // another tau
    expect(slowdown(0, 100, 105)).toBe(21); // unbounded
  });

  it('a job that ran no time has slowdown 1', () => {
    expect(slowdown(0, 4, 4)).toBe(1);
  });
});
