/**
 * IRMaSim's modelV1 memory contention, by hand (the coefficients of the DESIGN's processors:
 * b = -1.85e-5, c = 32000, da = 1.75, db = 2000, dc = 50000, dd = 6000).
 */
import { describe, expect, it } from 'vitest';
import { bandwidthRequest, irmasimV1, memoryModel, noMemoryContention, round9, saturatedFactor, smoothStepDown } from '../../src/platform/memoryContention.js';

const K = { b: -1.85e-5, c: 32000, da: 1.75, db: 2000, dc: 50000, dd: 6000 };

describe('modelV1', () => {
  it('ss(z) = 1 - z^3 (6 z^2 - 15 z + 10), 1 below 0 and 0 above 1', () => {
    expect([-1, 0, 0.5, 1, 2].map(smoothStepDown)).toEqual([1, 1, 0.5, 0, 0]);
  });

  it('d(y, n) = ss((y - (da - n) db) / (dc - n dd)) 0.6n / (1 + 0.6n) + 1 / (1 + 0.6n)', () => {
    // n = 1: z = (y - 1500) / 44000; d runs from 1 (y <= 1500) down to 1 / 1.6 = 0.625 (y >= 45500)
    expect(saturatedFactor(K, 1500, 1)).toBe(1);
    expect(saturatedFactor(K, 23500, 1)).toBeCloseTo(0.5 * 0.375 + 0.625, 12);
    expect(saturatedFactor(K, 45500, 1)).toBe(0.625);
    // n = 0 (one busy core): always 1
    expect(saturatedFactor(K, 1e9, 0)).toBe(1);
  });

  it('S_mem: 1 below c, the line b (x - c) + 1, then d(y, n) past where they meet', () => {
    expect(irmasimV1.speedFactor(K, 5e4, 31999, 1)).toBe(1);
    // 32000 < x = 40000 < (0.625 + b c - 1) / b = 52270.3 (y = 5e4, n = 1): 1 - 1.85e-5 x 8000
    expect(irmasimV1.speedFactor(K, 5e4, 40000, 1)).toBe(0.852);
    expect(irmasimV1.speedFactor(K, 5e4, 60000, 1)).toBe(0.625);
    // a processor without coefficients, and the model none
    expect(irmasimV1.speedFactor(null, 5e4, 60000, 1)).toBe(1);
    expect(noMemoryContention.speedFactor(K, 5e4, 60000, 1)).toBe(1);
    expect([memoryModel('irmasim-v1'), memoryModel('none')]).toEqual([irmasimV1, noMemoryContention]);
  });

  it('rounds to 9 decimals as Python round(x, 9)', () => {
    expect(round9(1 / 3)).toBe(0.333333333);
    expect(round9(0.6666666666)).toBe(0.666666667);
    expect(round9(0.852)).toBe(0.852);
  });

  it('a task requests mem_vol / t_alone MB/s, t_alone = ops / (mops 1e6)', () => {
    expect(bandwidthRequest(2e5, 4e9, 1000)).toBe(5e4); // 4 s alone
    expect(bandwidthRequest(2e5, 1e9, 1000)).toBe(2e5); // 1 s alone
    expect(bandwidthRequest(0, 1e9, 1000)).toBe(0);
    expect(bandwidthRequest(2e5, 0, 1000)).toBe(0);
  });
});
