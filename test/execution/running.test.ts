/**
 * The running job's representation (`running.ts`): a job keeps only what every job needs, and what few jobs
 * use (communication, suspensions, a model's state, a first start after a preemption) lives in sub-objects
 * created when a job first needs them; the public views (`commTime`, `suspensions`, `suspended`, `holding`,
 * `suspendedTime`, `ranFor`, `firstStart`) read the same with or without them. Hand-computed scenarios.
 */
import { describe, expect, it } from 'vitest';
import { ClusterSimulator, type RunningJob } from '../../src/execution/simulator.js';
import type { DecisionMaker } from '../../src/execution/simulatorOptions.js';
import { homogeneousPlatform } from '../../src/platform/homogeneous.js';
import { makeJob } from '../../src/workload/job.js';
import { opsJob, runListScheduler, tfg2x2x4 } from '../helpers.js';

/** Starts waiting jobs in order on the lowest free cores while they fit. */
const firstFit: DecisionMaker = {
  schedule(sim) {
    for (const job of sim.queue.toArray()) {
      const cores: number[] = [];
      for (let c = 0; c < sim.platform.coreCount && cores.length < job.ntasks; c++) if (sim.coreOwner[c] === -1) cores.push(c);
      if (cores.length < job.ntasks) return;
      sim.startJob(job, Int32Array.from(cores));
    }
  },
};

describe('a running job keeps what every job needs; the rest when it needs it', () => {
  it('a plain job of 100 s has no sub-object, and its views read as never suspended nor communicating', () => {
    const sim = new ClusterSimulator(homogeneousPlatform(4, 4), [makeJob({ id: 'a', subtime: 0, ntasks: 4, type: 'mpi', runtime: 100 })], {});
    sim.setScheduler(firstFit);
    let a: RunningJob | null = null;
    sim.addListener({
      onEnd: (_s, rec) => {
        a = rec as RunningJob;
      },
    });
    sim.runUntil(40);
    const rj = [...sim.running()][0]!;
    expect(rj.ranFor(40)).toBe(40);
    expect(rj.suspended).toBe(false);
    expect(rj.holding).toBe(true);
    sim.runUntil(Number.POSITIVE_INFINITY);
    expect(a).toBe(rj);
    expect(rj.comm).toBeNull();
    expect(rj.sus).toBeNull();
    expect(rj.extra).toBeNull();
    expect([rj.commTime, rj.suspensions, rj.suspendedTime, rj.firstStart, rj.finish]).toEqual([0, null, 0, 0, 100]);
    expect(rj.suspendedAt).toBeNaN();
    expect(rj.communicating).toBe(false);
    expect(rj.malleable).toBeNull();
    expect(rj.extension).toBeUndefined();
  });

  it('operator events: the suspension state exists from the first one scheduled, its periods from the first suspension', () => {
    const jobs = [
      makeJob({ id: 'a', subtime: 0, ntasks: 4, type: 'mpi', runtime: 100, operatorEvents: [{ after: 30, duration: 50 }] }),
      makeJob({ id: 'b', subtime: 0, ntasks: 4, type: 'mpi', runtime: 60 }),
    ];
    const sim = new ClusterSimulator(homogeneousPlatform(16, 4), jobs, {});
    sim.setScheduler(firstFit);
    sim.runUntil(10);
    const [a, b] = [...sim.running()].sort((x, y) => x.job.id.localeCompare(y.job.id));
    expect(a!.sus).not.toBeNull(); // its first operator event is pending
    expect(a!.suspensions).toBeNull();
    expect(b!.sus).toBeNull();
    sim.runUntil(50); // a suspended at 30
    expect(a!.suspended).toBe(true);
    expect(a!.suspendedAt).toBe(30);
    expect(a!.ranFor(50)).toBe(30);
    expect(a!.holding).toBe(true);
    expect(b!.suspended).toBe(false);
    sim.runUntil(Number.POSITIVE_INFINITY); // resumed at 80, 70 s of work left
    expect(a!.finish).toBe(150);
    expect(a!.suspensions).toEqual([30, 80]);
    expect(a!.suspendedTime).toBe(50);
    expect(a!.suspended).toBe(false);
    expect(a!.ranFor(150)).toBe(100);
    expect(a!.expectedEnd).toBe(a!.job.reqTime + 50);
    expect(a!.sus!.opNext).toBe(1);
    expect([a!.comm, a!.extra, b!.sus, b!.comm, b!.extra]).toEqual([null, null, null, null, null]);
    expect(b!.finish).toBe(60);
  });

  it('a job suspended without its cores does not hold them; it holds them again once resumed', () => {
    const sim = new ClusterSimulator(homogeneousPlatform(4, 4), [makeJob({ id: 'a', subtime: 0, ntasks: 4, type: 'mpi', runtime: 100 })], {});
    sim.setScheduler(firstFit);
    sim.runUntil(20);
    const a = [...sim.running()][0]!;
    sim.suspend(a, false);
    expect([a.suspended, a.holding, a.suspendedAt]).toEqual([true, false, 20]);
    sim.runUntil(Number.POSITIVE_INFINITY); // its cores are free: it resumes at once, at 20
    expect([a.suspended, a.holding, a.finish]).toEqual([false, true, 100]);
    expect(a.suspensions).toEqual([20, 20]);
  });

  it('communication: only a job whose tasks talk across nodes has the state; its commTime is its whole run under step', () => {
    const { byId } = runListScheduler(tfg2x2x4({ comm: 'step' }), [opsJob('s', 6), opsJob('m', 4, { type: 'mpi', nodes: 0, commVol: 2e8, tCompute: 0.9 })]);
    const m = byId.get('m') as RunningJob;
    const s = byId.get('s') as RunningJob;
    expect(m.finish).toBeCloseTo(1 / 0.98, 7);
    expect(m.comm).not.toBeNull();
    expect(m.communicating).toBe(true);
    expect(m.commTime).toBe(m.finish);
    expect(m.comm!.limitedTasks).toBe(0); // every task left: the last period closed at its end
    expect(m.comm!.limitedSince).toBeNaN();
    expect(s.comm).toBeNull();
    expect(s.commTime).toBe(0);
  });
});
