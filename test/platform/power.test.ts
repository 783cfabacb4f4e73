/**
 * The power model (DESIGN §2.4): the formula by hand, and a hand-computed scenario on tfg-2x2x4.
 */
import { describe, expect, it } from 'vitest';
import { edp, processorPower } from '../../src/platform/power.js';
import { opsJob, runListScheduler as run, tfg2x2x4 } from '../helpers.js';

describe('tfg-2x2x4, FCFS + first', () => {
  it('energy: 6 busy cores for 1 s then idle platform power (static 20 W, dynamic 10 W, min 0.05)', () => {
    // one job of 6 tasks on node0: proc0 4 busy (40 + 20), proc1 2 busy (20 + 20), node1 idle (2 x 0.05 x 20)
    const { summary } = run(tfg2x2x4(), [opsJob('a', 6)]);
    expect(summary.energy).toBeCloseTo(60 + 40 + 2, 9);
    expect(summary.edp).toBeCloseTo(102, 9);
    expect(summary.utilisation).toBeCloseTo(6 / 16, 12);
  });
});

describe('processor power (modelV1)', () => {
  it('idle: min_power x static_power; busy: busy x dynamic_power + static_power', () => {
    // static 20 W, dynamic 10 W, min_power 0.05 (tfg-2x2x4's processors)
    expect(processorPower(0, 20, 10, 0.05)).toBe(1);
    expect(processorPower(1, 20, 10, 0.05)).toBe(30);
    expect(processorPower(4, 20, 10, 0.05)).toBe(60);
    expect(processorPower(0, 20, 10, 0)).toBe(0);
    expect(edp(102, 2)).toBe(204);
  });
});
