/**
 * The power model (DESIGN §2.4) in a hand-computed scenario on tfg-2x2x4, exact numbers.
 */
import { describe, expect, it } from 'vitest';
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
