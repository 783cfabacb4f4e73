/**
 * Hand-computed scenarios of the execution model (DESIGN §2.3–§2.5), exact numbers.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/execution/simulator.js';
import { loadPlatform } from '../../src/platform/loader.js';
import { runSimulation } from '../../src/scheduling/run.js';
import { ListScheduler } from '../../src/scheduling/scheduler.js';
import { parseNativeWorkload } from '../../src/workload/nativeJson.js';
import { readJsonFile } from '../../src/core/json.js';
import { HAVE_SHARED, SHARED_DATA, SHARED_MISSING, opsJob, tfg2x2x4 } from '../helpers.js';

function run(platform: ReturnType<typeof tfg2x2x4>, jobs: Parameters<typeof runSimulation>[1]) {
  const records: JobRecord[] = [];
  const res = runSimulation(platform, jobs, new ListScheduler(), { listeners: [{ onJobEnded: (_s, r) => records.push(r) }] });
  const byId = new Map(records.map((r) => [r.job.id, r]));
  return { ...res, records, byId };
}

describe.skipIf(!HAVE_SHARED)(`IRMaSim dual_core example ${HAVE_SHARED ? '' : SHARED_MISSING}`, () => {
  it('reproduces IRMaSim: makespan 1.8 s, energy 350 J, job57218 0->1.3, job57219 0.5->1.8', () => {
    const dir = join(SHARED_DATA, 'irmasim/dual_core');
    const platform = loadPlatform(join(dir, 'platform.json'));
    const wl = parseNativeWorkload(readJsonFile(join(dir, 'jobs.json')), 'jobs.json');
    const { summary, byId } = run(platform, wl.jobs);
    expect(summary.makespan).toBeCloseTo(1.8, 9);
    expect(summary.energy).toBeCloseTo(350.0, 6);
    const a = byId.get('job57218')!;
    const b = byId.get('job57219')!;
    expect([a.start, a.finish]).toEqual([0, expect.closeTo(1.3, 9)]);
    expect([b.start, b.finish]).toEqual([0.5, expect.closeTo(1.8, 9)]);
    expect(Array.from(a.cores)).toEqual([0]);
    expect(Array.from(b.cores)).toEqual([1]);
    expect(platform.corePath(1)).toBe('platform.cluster0.node0.processor0.core1');
  });
});

describe('tfg-2x2x4, FCFS + first', () => {
  it('three seq jobs of 6, 6, 4: the first two on different nodes, the third waits until 1.0', () => {
    const { summary, byId } = run(tfg2x2x4(), [opsJob('a', 6), opsJob('b', 6), opsJob('c', 4)]);
    expect(Array.from(byId.get('a')!.nodes)).toEqual([0]);
    expect(Array.from(byId.get('b')!.nodes)).toEqual([1]);
    expect(byId.get('a')!.finish).toBeCloseTo(1, 12);
    const c = byId.get('c')!;
    expect(c.start).toBeCloseTo(1.0, 12);
    expect(c.finish).toBeCloseTo(2.0, 12);
    expect(Array.from(c.nodes)).toEqual([0]);
    expect(summary.makespan).toBeCloseTo(2.0, 12);
    expect(summary.network_volume).toBe(0);
  });

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

  it('energy: 6 busy cores for 1 s then idle platform power (static 20 W, dynamic 10 W, min 0.05)', () => {
    // one job of 6 tasks on node0: proc0 4 busy (40 + 20), proc1 2 busy (20 + 20), node1 idle (2 x 0.05 x 20)
    const { summary } = run(tfg2x2x4(), [opsJob('a', 6)]);
    expect(summary.energy).toBeCloseTo(60 + 40 + 2, 9);
    expect(summary.edp).toBeCloseTo(102, 9);
    expect(summary.utilisation).toBeCloseTo(6 / 16, 12);
  });

  it('MPI release is synchronised: no core is freed before the last task ends', () => {
    const tasks = [
      { ops: 2e9, runtime: 0, mem: 0, memVol: 0 },
      { ops: 4e9, runtime: 0, mem: 0, memVol: 0 },
    ];
    // node0 busy for 10 s; the MPI job takes cores 8, 9 of node1; x needs 7 cores of one node
    const jobs = [opsJob('fill', 8, { ops: 2e10 }), opsJob('m', 2, { type: 'mpi', nodes: 0, tasks }), opsJob('x', 7)];
    const { byId } = run(tfg2x2x4(), jobs);
    expect(Array.from(byId.get('m')!.cores)).toEqual([8, 9]);
    expect(byId.get('m')!.finish).toBeCloseTo(2, 12);
    expect(byId.get('x')!.start).toBeCloseTo(2, 12);
  });

  it('a seq job frees each core when its task ends', () => {
    const tasks = [
      { ops: 2e9, runtime: 0, mem: 0, memVol: 0 },
      { ops: 4e9, runtime: 0, mem: 0, memVol: 0 },
    ];
    const jobs = [opsJob('fill', 8, { ops: 2e10 }), opsJob('s', 2, { tasks }), opsJob('x', 7)];
    const { byId } = run(tfg2x2x4(), jobs);
    expect(byId.get('s')!.finish).toBeCloseTo(2, 12);
    expect(byId.get('x')!.start).toBeCloseTo(1, 12);
  });

  it('walltime kill: a job still running at start + req_time is killed', () => {
    const p = tfg2x2x4();
    const jobs = [opsJob('long', 4, { reqTime: 0.5 }), opsJob('ok', 4, { reqTime: 2 })];
    const records: JobRecord[] = [];
    const res = runSimulation(p, jobs, new ListScheduler(), { walltimeKill: true, listeners: [{ onJobEnded: (_s, r) => records.push(r) }] });
    const long = records.find((r) => r.job.id === 'long')!;
    expect(long.state).toBe('killed');
    expect(long.finish).toBeCloseTo(0.5, 12);
    expect(res.summary.jobs_killed).toBe(1);
    expect(res.summary.jobs_finished).toBe(1);
    expect(res.summary.makespan).toBeCloseTo(1, 12);
  });
});
