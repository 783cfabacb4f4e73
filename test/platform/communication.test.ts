/**
 * The communication models (DESIGN §2.3) in hand-computed scenarios on tfg-2x2x4, exact numbers.
 */
import { describe, expect, it } from 'vitest';
import { opsJob, runListScheduler as run, tfg2x2x4 } from '../helpers.js';

describe('tfg-2x2x4, FCFS + first', () => {
  const mpi = () => opsJob('m', 4, { type: 'mpi', nodes: 0, commVol: 2e8, tCompute: 0.9 });

  it('seq 6 then mpi 4 across 2 + 2 cores, comm model step: ends at 1/0.98, network volume 8e8', () => {
    const { summary, byId } = run(tfg2x2x4({ comm: 'step' }), [opsJob('s', 6), mpi()]);
    const m = byId.get('m')!;
    expect(Array.from(m.nodes)).toEqual([0, 1]);
    expect(Array.from(m.cores)).toEqual([6, 7, 8, 9]);
    expect(m.finish).toBeCloseTo(1 / 0.98, 7);
    expect(summary.network_volume).toBe(8e8);
    expect(summary.makespan).toBeCloseTo(1 / 0.98, 7);
  });

  it('seq 6 then mpi 4 across 2 + 2 cores, comm model shared: ends at 1.54', () => {
    const { byId, summary } = run(tfg2x2x4({ comm: 'shared' }), [opsJob('s', 6), mpi()]);
    expect(byId.get('m')!.finish).toBeCloseTo(1.54, 9);
    expect(byId.get('s')!.finish).toBeCloseTo(1, 12);
    expect(summary.network_volume).toBe(8e8);
  });

  it('an mpi job of 4 tasks that fits in one node: network volume 0, makespan 1.0', () => {
    const { summary, byId } = run(tfg2x2x4(), [mpi()]);
    expect(Array.from(byId.get('m')!.nodes)).toEqual([0]);
    expect(summary.network_volume).toBe(0);
    expect(summary.makespan).toBeCloseTo(1.0, 12);
  });
});
