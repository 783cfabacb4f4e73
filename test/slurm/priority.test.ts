import { describe, expect, it } from 'vitest';
import { UserLedger } from '../../src/scheduling/userLedger.js';
import { DEFAULT_PRIORITY, ageFactor, fairShareFactor, jobPriority, jobSizeFactor } from '../../src/slurm/priority.js';

describe('multifactor factors (Slurm priority_multifactor)', () => {
  it('age: linear up to PriorityMaxAge, then 1', () => {
    expect(ageFactor(3.5 * 86400, 7 * 86400)).toBe(0.5);
    expect(ageFactor(10 * 86400, 7 * 86400)).toBe(1);
    expect(ageFactor(-5, 100)).toBe(0);
  });

  it('job size: cores / total; favor small: (total - cores + 1) / total', () => {
    expect(jobSizeFactor(16, 64, false)).toBe(0.25);
    expect(jobSizeFactor(64, 64, false)).toBe(1);
    expect(jobSizeFactor(1, 64, true)).toBe(1);
    expect(jobSizeFactor(64, 64, true)).toBe(1 / 64);
  });

  it('classic fair share: 2^(-U/S/d)', () => {
    expect(fairShareFactor(0, 0.5, 1)).toBe(1);
    expect(fairShareFactor(0.5, 0.5, 1)).toBe(0.5);
    expect(fairShareFactor(0.25, 0.5, 1)).toBeCloseTo(Math.SQRT1_2, 15);
    expect(fairShareFactor(0.5, 0.5, 2)).toBeCloseTo(Math.SQRT1_2, 15);
    expect(fairShareFactor(0.1, 0, 1)).toBe(0);
  });

  it('the weighted sum, truncated: 1000 x 0.5 + 10000 x 0.7071 + 1000 x 0.25 + 1000 x 1 = 8821', () => {
    const p = jobPriority(DEFAULT_PRIORITY, { age: 0.5, fairshare: Math.SQRT1_2, jobSize: 0.25, partition: 1, qos: 0 });
    expect(p).toBe(8821);
  });

  it('the kept total usage equals the sum over users after accruals and decays', () => {
    const fs = UserLedger.numbered(3, 1, 1);
    expect(fs.totalUsage()).toBe(0);
    fs.accrue(2, 40);
    fs.decay(5, 10);
    fs.accrue(0, 7);
    fs.decay(0, 10); // no time: no change
    expect(fs.totalUsage()).toBeCloseTo(40 * 2 ** -0.5 + 7, 12);
    expect(fs.totalUsage()).toBeCloseTo(
      Array.from(fs.usage).reduce((a, b) => a + b, 0),
      12,
    );
  });

  it('usage decays with the half-life and normalises over users', () => {
    const fs = UserLedger.numbered(2, 1, 1);
    fs.accrue(0, 100);
    fs.accrue(1, 300);
    fs.decay(10, 10);
    expect(Array.from(fs.usage)).toEqual([50, 150]);
    const total = fs.totalUsage();
    expect(total).toBe(200);
    // U = 0.25, S = 0.5 -> 2^-0.5; U = 0.75 -> 2^-1.5
    expect(fs.fairShare(0, total, 1)).toBeCloseTo(2 ** -0.5, 15);
    expect(fs.fairShare(1, total, 1)).toBeCloseTo(2 ** -1.5, 15);
    fs.decay(10, 0);
    expect(fs.totalUsage()).toBe(200);
  });
});
