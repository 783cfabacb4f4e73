/**
 * Hand-computed scenarios of the execution model (DESIGN §2.3–§2.5), exact numbers. The scenarios of
 * the communication and power models are in test/platform/communication.test.ts and power.test.ts.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/execution/simulator.js';
import { loadPlatform } from '../../src/platform/loader.js';
import { runSimulation } from '../../src/scheduling/run.js';
import { ListScheduler } from '../../src/scheduling/scheduler.js';
import { parseNativeWorkload } from '../../src/workload/nativeJson.js';
import { readJsonFile } from '../../src/core/json.js';
import { HAVE_SHARED, SHARED_DATA, SHARED_MISSING, opsJob, runListScheduler as run, tfg2x2x4 } from '../helpers.js';

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
    const res = runSimulation(p, jobs, new ListScheduler(), { walltimeKill: true, listeners: [{ onEnd: (_s, r) => records.push(r) }] });
    const long = records.find((r) => r.job.id === 'long')!;
    expect(long.state).toBe('killed');
    expect(long.finish).toBeCloseTo(0.5, 12);
    expect(res.summary.jobs_killed).toBe(1);
    expect(res.summary.jobs_finished).toBe(1);
    expect(res.summary.makespan).toBeCloseTo(1, 12);
  });
});
