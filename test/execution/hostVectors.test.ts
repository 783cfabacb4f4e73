/**
 * The capacity of CPU and memory vectors per host (`capacity: 'vectors'`, src/execution/hostVectors.ts)
 * on the engine, by hand: fractional cores, memory, the job shapes, what never fits, and what the
 * engine refuses under it.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { ClusterSimulator, type JobRecord } from '../../src/execution/simulator.js';
import { platformFromHostGroups } from '../../src/platform/views.js';
import { makeJob, type Job } from '../../src/workload/job.js';

/** Two hosts of 4 cores / 10 memory and one of 2 cores / 40 memory. */
const HOSTS = [
  { count: 2, cpus: 4, memory: 10, name_prefix: 'a' },
  { count: 1, cpus: 2, memory: 40, name_prefix: 'b' },
];

function sim(jobs: Job[], unfit: 'error' | 'reject' = 'reject'): ClusterSimulator {
  return new ClusterSimulator(platformFromHostGroups(HOSTS), jobs, { capacity: 'vectors', unfit, timeOrigin: 0 });
}

const task = (id: string, subtime: number, cpu: number, mem: number, runtime: number, extra: Partial<Job> = {}) =>
  makeJob({ id, subtime, ntasks: 1, type: 'seq', runtime, mem, cpusPerTask: cpu, ...extra });

describe('the vector capacity', () => {
  it('holds fractional cores and memory per host, and gives them back', () => {
    const s = sim([task('x', 0, 1.5, 4, 10), task('y', 0, 2.5, 6, 20)]);
    const hv = s.hostVectors!;
    expect(s.capacity).toBe(hv);
    expect([hv.count, hv.totalCpu, hv.totalMem]).toEqual([3, 10, 60]);
    expect(s.runUntil(0)).toBe(0);
    const [x, y] = s.waiting;
    // x on host 0: 2.5 cores and 6 memory left; y (2.5, 6) fits exactly, then nothing more
    s.startJob(x!, [0]);
    expect(s.placementError(y!, [0])).toBeNull();
    s.startJob(y!, [0]);
    expect([hv.freeCpu[0], hv.freeMem[0], hv.usedCpu, hv.usedMem, hv.idleNodes, s.freeCores, s.busyCores]).toEqual([0, 0, 4, 10, 2, 6, 4]);
    expect(s.placementError(task('z', 0, 0.1, 0, 1), [0])).toMatch(/host a0 has 0 cores and 0 memory free; a task of 0.1 cores and 0 memory does not fit/);
    const ends: JobRecord[] = [];
    s.addListener({ onEnd: (_s, rec) => void ends.push(rec) });
    s.runUntil(Number.POSITIVE_INFINITY);
    expect(ends.map((r) => [r.job.id, r.finish, Array.from(r.nodes), Array.from(r.cores)])).toEqual([
      ['x', 10, [0], [0]],
      ['y', 20, [0], [0]],
    ]);
    expect([hv.freeCpu[0], hv.freeMem[0], hv.usedCpu, hv.usedMem, hv.idleNodes]).toEqual([4, 10, 0, 0, 3]);
    expect(s.power).toBe(0);
  });

  it('job shapes: a seq job on one host, an mpi job over exactly `nodes` hosts, tasks anywhere', () => {
    const seq = makeJob({ id: 's', subtime: 0, ntasks: 2, type: 'seq', runtime: 5, mem: 5, cpusPerTask: 2 });
    const exact = makeJob({ id: 'e', subtime: 0, ntasks: 2, type: 'mpi', nodes: 2, runtime: 5, mem: 1 });
    const free = makeJob({ id: 'f', subtime: 0, ntasks: 3, type: 'mpi', runtime: 5, mem: 20 });
    const s = sim([seq, exact, free]);
    s.runUntil(0);
    expect(s.placementError(seq, [0, 1])).toBe('a seq job runs on one host; the placement spans 2');
    expect(s.placementError(seq, [0, 0])).toBeNull();
    expect(s.placementError(seq, [2, 2])).toMatch(/host b0 has 2 cores and 40 memory free; the job's tasks there need 4 cores and 10 memory/);
    expect(s.placementError(exact, [1, 1])).toBe('the job asks for exactly 2 hosts; the placement spans 1');
    expect(s.placementError(exact, [1, 3])).toBe('host 3 does not exist');
    expect(s.placementError(exact, [1])).toBe('expected 2 hosts (one per task), got 1');
    // 20 memory a task: only b0 holds one (and then two)
    expect(s.placementError(free, [2, 2, 0])).toMatch(/host a0 has 4 cores and 10 memory free/);
    expect(s.placementError(free, [2, 2, 2])).toMatch(/host b0 has 2 cores and 40 memory free; the job's tasks there need 3 cores and 60 memory/);
    const rj = s.startJob(seq, [1, 1]);
    expect([Array.from(rj.nodes), Array.from(rj.perNode)]).toEqual([[1], [2]]);
    const rj2 = s.startJob(exact, [2, 0]);
    expect([Array.from(rj2.nodes), Array.from(rj2.perNode)]).toEqual([
      [0, 2],
      [1, 1],
    ]);
    expect(s.hostVectors!.idleNodes).toBe(0);
  });

  it('what never fits is rejected (or an error) with the reason', () => {
    const s = sim([task('big', 0, 5, 1, 1), task('fat', 0, 1, 41, 1), task('ok', 0, 2, 40, 1)]);
    const rejected: string[] = [];
    s.addListener({ onReject: (_s, rec) => void rejected.push(rec.job.id) });
    s.runUntil(0);
    expect(rejected).toEqual(['big', 'fat']);
    expect(s.waiting.map((j) => j.id)).toEqual(['ok']);
    expect(s.unfitReason(task('z', 0, 4, 11, 1))).toBe('needs a host with 4 cores and 11 MB of memory; no host has both');
    expect(s.unfitReason(makeJob({ id: 'w', subtime: 0, ntasks: 5, type: 'mpi', runtime: 1, mem: 10 }))).toBe(
      'needs 5 tasks of 1 cores and up to 10 MB; the empty hosts hold 4',
    );
    expect(() => sim([task('big', 0, 5, 1, 1)], 'error').runUntil(0)).toThrow(/job big can never fit the platform: it needs a host with 5 cores/);
  });

  it('runs fixed durations only, and has no per-core arrays', () => {
    const ops = makeJob({ id: 'o', subtime: 0, ntasks: 1, work: 'ops', ops: 1e9 });
    expect(() => sim([ops]).runUntil(0)).toThrow(InputError);
    expect(() => sim([ops]).runUntil(0)).toThrow(/job o has ops work; the vector capacity runs fixed durations of whole jobs/);
    const s = sim([task('x', 0, 1, 1, 1)]);
    for (const read of [() => s.allocation, () => s.coreOwner, () => s.nodeFree, () => s.freeTree, () => s.procBusy, () => s.coreTask, () => s.nodeFreeMem])
      expect(read).toThrow(/vector capacity.*no per-core allocation/);
    expect(() => new ClusterSimulator(platformFromHostGroups(HOSTS), [], { capacity: 'vectors', malleable: 'steps' })).toThrow(/malleable steps/);
    expect(() => new ClusterSimulator(platformFromHostGroups(HOSTS), [], { capacity: 'vectors', semantics: 'irmasim' })).toThrow(/irmasim/);
  });

  it('the core allocation refuses fractional cores per task', () => {
    const s = new ClusterSimulator(platformFromHostGroups(HOSTS), [task('h', 0, 0.5, 1, 1)], { unfit: 'reject' });
    expect(s.unfitReason(task('h', 0, 0.5, 1, 1))).toMatch(/asks for 0.5 cores per task; the core allocation runs one task per core/);
    expect(s.unfitReason(task('one', 0, 1, 1, 1))).toBeNull();
  });
});
