/**
 * The communication models (DESIGN §2.3): their formulas by hand, and hand-computed scenarios on
 * tfg-2x2x4 (links of 125e6 bytes/s, comm_penalty 0.8).
 */
import { describe, expect, it } from 'vitest';
import { commModel, networkVolume, sharedComm, stepComm } from '../../src/platform/communication.js';
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
    // both its links carry 8e8 > 125e6 bytes all its run: limited by communication from 0 to its end
    expect(m.commTime).toBe(m.finish);
    expect(byId.get('s')!.commTime).toBe(0);
  });

  it('seq 6 then mpi 4 across 2 + 2 cores, comm model shared: ends at 1.54', () => {
    const { byId, summary } = run(tfg2x2x4({ comm: 'shared' }), [opsJob('s', 6), mpi()]);
    expect(byId.get('m')!.finish).toBeCloseTo(1.54, 9);
    expect(byId.get('s')!.finish).toBeCloseTo(1, 12);
    expect(byId.get('m')!.commTime).toBe(byId.get('m')!.finish); // S_comm = 0.15625 all its run
    expect(byId.get('s')!.commTime).toBe(0);
    expect(summary.network_volume).toBe(8e8);
  });

  it('an mpi job of 4 tasks that fits in one node: network volume 0, makespan 1.0', () => {
    const { summary, byId } = run(tfg2x2x4(), [mpi()]);
    expect(Array.from(byId.get('m')!.nodes)).toEqual([0]);
    expect(summary.network_volume).toBe(0);
    expect(summary.makespan).toBeCloseTo(1.0, 12);
    expect(byId.get('m')!.commTime).toBe(0);
  });
});

describe('the models by hand', () => {
  // The scenarios' MPI job: 4 tasks of 1 s, 2 per node, comm_vol 2e8 and t_compute 0.9. Each task has 2
  // peers on the other node: V = 4e8 bytes; both tasks of a node put 8e8 on its link.
  it('step: a link carrying more than comm_bw x 1 s slows its tasks to comm_penalty; S = tc S_mem + (1 - tc) S_comm', () => {
    expect(stepComm.load(4e8, 1)).toBe(4e8);
    expect(stepComm.nodeFactor(8e8, 125e6, 0.8)).toBe(0.8);
    expect(stepComm.nodeFactor(125e6, 125e6, 0.8)).toBe(1);
    expect(stepComm.combine(0.9, 1, 0.8)).toBeCloseTo(0.98, 15);
    expect(stepComm.acrossJobNodes).toBe(false);
  });

  it('shared: a link gives min(1, comm_bw / demand); S = 1 / (tc / S_mem + (1 - tc) / S_comm)', () => {
    expect(sharedComm.load(4e8, 1)).toBe(4e8);
    expect(sharedComm.load(4e8, 0)).toBe(0);
    expect(sharedComm.nodeFactor(8e8, 125e6, 0.8)).toBe(0.15625);
    expect(sharedComm.nodeFactor(1e8, 125e6, 0.8)).toBe(1);
    expect(sharedComm.combine(0.9, 1, 0.15625)).toBeCloseTo(1 / 1.54, 15);
    expect(sharedComm.acrossJobNodes).toBe(true);
    expect([commModel('step'), commModel('shared')]).toEqual([stepComm, sharedComm]);
  });

  it('network volume: comm_vol per pair of tasks on different nodes', () => {
    expect(networkVolume(2e8, [2, 2])).toBe(8e8); // 2 x 2 pairs
    expect(networkVolume(2e8, [4])).toBe(0);
    expect(networkVolume(1, [1, 2, 3])).toBe(11); // 1 x 2 + 1 x 3 + 2 x 3
  });
});
