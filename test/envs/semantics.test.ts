/**
 * Step semantics and observations on hand-computed cases (tfg-2x2x4: 2 nodes of 2 x 4 cores).
 */
import { describe, expect, it } from 'vitest';
import { make, InvalidActionError, type DictObservation, JOB_FEATURES, NODE_FEATURES, GLOBAL_FEATURES } from '../../envs/index.js';
import { delayWorkload, TFG_PLATFORM } from './envHelpers.js';

const LIMITS = { req_time: 200, ntasks: 16, mem: 1, mem_vol: 1 };

describe('observations (hand-computed)', () => {
  for (const horizon of ['seen', 'trajectory'] as const)
    it(`jobs, nodes and global features at reset and after a placement (horizon ${horizon})`, () => {
      const env = make('clustergym/Job-v0', {
        observe: { horizon },
        platform: TFG_PLATFORM,
        workload: delayWorkload([
          [0, 4, 100, 'mpi'],
          [0, 8, 50, 'seq'],
          [10, 16, 10, 'mpi'],
        ]),
        k: 4,
        limits: LIMITS,
      });
      expect(JOB_FEATURES.length).toBe(8);
      expect(NODE_FEATURES.length).toBe(7);
      expect(GLOBAL_FEATURES.length).toBe(5);
      const r = env.reset({ seed: 0 });
      const o = r.observation as DictObservation;
      const row = (a: Float32Array, i: number, w: number) => Array.from(a.subarray(i * w, (i + 1) * w));
      const f = (x: number) => Math.fround(x);
      expect(row(o.jobs, 0, 8)).toEqual([1, 0, 0.5, 0.25, 0, 0, 1, 1]);
      expect(row(o.jobs, 1, 8)).toEqual([1, 0, 0.25, 0.5, 0, 0, 0, 1]);
      expect(row(o.jobs, 2, 8)).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
      // idle node: 2 processors x 4 cores x 0.05 x 20/4 W = 2 W of 120 W peak
      expect(row(o.nodes, 0, 7)).toEqual([1, 1, 1, 1, 0, f(2 / 120), 0]);
      expect(row(o.nodes, 1, 7)).toEqual([1, 1, 1, 1, 0, f(2 / 120), 0]);
      // seen: the 2 jobs submitted at t = 0 (the third comes at t = 10); trajectory: its 3 jobs
      const jobs = horizon === 'seen' ? 2 : 3;
      expect(Array.from(o.global)).toEqual([0, f(Math.log1p(2) / Math.log1p(jobs)), 0, 0, f(800 / 3200)]);
      expect(Array.from(r.info.action_mask)).toEqual([1, 1, 0, 0, 1]);

      const s = env.step(0); // j0: 4 tasks on node 0 (first policy), time does not move
      expect(s.info.time).toBe(0);
      const o2 = s.observation as DictObservation;
      expect(row(o2.jobs, 0, 8)).toEqual([1, 0, 0.25, 0.5, 0, 0, 0, 1]);
      // node 0: 4 of 8 busy; processor 0 busy: 20 + 4 x 10 = 60 W, processor 1 idle: 1 W
      expect(row(o2.nodes, 0, 7)).toEqual([0.5, 1, 1, 1, 0, f(61 / 120), 0]);
      expect(Array.from(o2.global)).toEqual([0, f(Math.log1p(1) / Math.log1p(jobs)), f(1 / jobs), 0.25, f(400 / 3200)]);
      expect(s.reward).toBe(0);
    });

  it("observe: the time feature by the last submission so far (seen) or the trajectory's; durations requested or actual", () => {
    // j0 requests 150 s and runs 100; j1 (t = 50) requests 100 s and runs 50; j2 comes at 300; L.req_time = 200
    const workload = {
      jobs: [
        { id: 'j0', subtime: 0, type: 'mpi', ntasks: 16, runtime: 100, req_time: 150 },
        { id: 'j1', subtime: 50, type: 'mpi', ntasks: 16, runtime: 50, req_time: 100 },
        { id: 'j2', subtime: 300, type: 'mpi', ntasks: 1, runtime: 10, req_time: 10 },
      ],
    };
    const f = (x: number) => Math.fround(x);
    const run = (observe: Record<string, string>) => {
      const env = make('clustergym/Job-v0', { platform: TFG_PLATFORM, workload, k: 2, limits: LIMITS, observe });
      const o0 = env.reset({ seed: 0 }).observation as DictObservation;
      const at0 = { time: o0.global[0]!, req: o0.jobs[2]!, pending: o0.global[4]! };
      // j0 takes all 16 cores; j1 arrives at 50 and can start only at 100, when j0 ends
      const o1 = env.step(0).observation as DictObservation;
      return { at0, time100: o1.global[0]!, queue100: o1.global[1]!, req1: o1.jobs[2]!, now: env.sim.now };
    };
    const seen = run({});
    expect(seen.now).toBe(100);
    // seen: at 0 the last submission so far is 0 (horizon 0 + 200); at 100 it is j1's, 50 (horizon 250)
    expect(seen.at0).toEqual({ time: 0, req: 0.75, pending: f((16 * 150) / (16 * 200)) });
    expect(seen.time100).toBe(f(100 / 250));
    expect(seen.queue100).toBe(f(Math.log1p(1) / Math.log1p(2)));
    expect(seen.req1).toBe(0.5);
    // trajectory: the trajectory's last submission (300) + 200 and its 3 jobs, from the start
    const trajectory = run({ horizon: 'trajectory' });
    expect(trajectory.time100).toBe(f(100 / 500));
    expect(trajectory.queue100).toBe(f(Math.log1p(1) / Math.log1p(3)));
    // actual durations: the run times (100 and 50 s), in req_time and pending_work
    const actual = run({ durations: 'actual' });
    expect(actual.at0).toEqual({ time: 0, req: 0.5, pending: f((16 * 100) / (16 * 200)) });
    expect(actual.req1).toBe(0.25);
    // an ops workload has no fixed run time to show
    expect(() => make('clustergym/JobNode-v0', { observe: { durations: 'actual' } })).toThrow(/"actual" durations need fixed-duration \(delay\) jobs/);
  });

  it('the wait feature grows with time and saturates at max_wait', () => {
    const env = make('clustergym/Job-v0', {
      platform: TFG_PLATFORM,
      workload: delayWorkload([
        [0, 16, 1000, 'mpi'],
        [0, 16, 10, 'mpi'],
      ]),
      k: 2,
      max_wait: 500,
      limits: LIMITS,
    });
    env.reset({ seed: 0 });
    const s = env.step(0); // the second job waits 1000 s for the first: wait feature = min(1, 1000/500)
    expect(s.info.time).toBe(1000);
    expect((s.observation as DictObservation).jobs[1]).toBe(1);
  });
});

describe('step semantics', () => {
  it('several decisions per timestamp, then time advances by itself past points where nothing can start', () => {
    const env = make('clustergym/Job-v0', {
      platform: TFG_PLATFORM,
      workload: delayWorkload([
        [0, 8, 100, 'mpi'],
        [0, 8, 100, 'mpi'],
        [10, 4, 20, 'mpi'],
        [20, 4, 5, 'mpi'],
      ]),
      k: 4,
      reward: 'dt',
    });
    const r = env.reset({ seed: 0 });
    expect(r.info.time).toBe(0);
    let s = env.step(0);
    expect(s.info.time).toBe(0); // placing does not advance time
    s = env.step(0);
    // the machine is full: the arrivals at 10 and 20 cannot start, time jumps to 100
    expect(s.info.time).toBe(100);
    expect(s.reward).toBe(-100);
    expect(s.info.queue_length).toBe(2);
    s = env.step(0);
    s = env.step(0);
    expect(s.terminated).toBe(true);
    expect(s.info.metrics!.jobs_finished).toBe(4);
  });

  it('wait advances to the next event; it is refused when nothing runs and nothing is left to arrive', () => {
    const env = make('clustergym/Job-v0', {
      platform: TFG_PLATFORM,
      workload: delayWorkload([
        [0, 4, 100, 'mpi'],
        [30, 4, 10, 'mpi'],
      ]),
      k: 2,
    });
    let r = env.reset({ seed: 0 });
    expect(r.info.action_mask[2]).toBe(1); // wait: something is still to arrive
    let s = env.step(2); // wait -> the arrival at 30
    expect(s.info.time).toBe(30);
    expect(s.info.queue_length).toBe(2);
    s = env.step(1);
    s = env.step(0);
    expect(s.terminated).toBe(true);

    const lone = make('clustergym/Job-v0', { platform: TFG_PLATFORM, workload: delayWorkload([[0, 4, 100, 'mpi']]), k: 2, invalid_action: 'raise' });
    r = lone.reset({ seed: 0 });
    expect(Array.from(r.info.action_mask)).toEqual([1, 0, 0]);
    expect(() => lone.step(2)).toThrow(/waiting would never end/);
  });

  it('an invalid action throws InvalidActionError with the mask, and changes nothing (invalid_action: "raise")', () => {
    const env = make('clustergym/Job-v0', {
      platform: TFG_PLATFORM,
      workload: delayWorkload([
        [0, 12, 100, 'mpi'],
        [0, 8, 100, 'seq'],
        [0, 2, 50, 'mpi'],
      ]),
      k: 3,
      invalid_action: 'raise',
    });
    env.reset({ seed: 0 });
    env.step(0); // 12 cores busy: the seq job of 8 no longer fits, the job of 2 does
    const before = env.actionMask().slice();
    let err: unknown;
    try {
      env.step(0);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidActionError);
    expect((err as Error).message).toMatch(/invalid action 0: job j1 .* does not fit .*valid actions now: 1, 3; mask: 0101/);
    expect(Array.from((err as InvalidActionError).mask)).toEqual(Array.from(before));
    expect(() => env.step(7)).toThrow(/outside the action space Discrete\(4\)/);
    expect(() => env.step(1.5)).toThrow(InvalidActionError);
    expect(Array.from(env.actionMask())).toEqual(Array.from(before));
    expect(env.step(3).info.time).toBe(100); // wait: to the next event, the end of j0
  });

  it('Job-v0 unfit: reserve: a job that does not fit is reserved and starts when it can (no wait action)', () => {
    const env = make('clustergym/Job-v0', {
      platform: TFG_PLATFORM,
      workload: delayWorkload([
        [0, 12, 100, 'mpi'],
        [0, 8, 50, 'mpi'],
        [0, 2, 10, 'mpi'],
      ]),
      k: 3,
      unfit: 'reserve',
      backfilling: 'easy',
    });
    const r = env.reset({ seed: 0 });
    expect(Array.from(r.info.action_mask)).toEqual([1, 1, 1, 0]);
    const starts: string[] = [];
    env.sim.addListener({ onStart: (sim, rj) => starts.push(`${rj.job.id}@${sim.now}`) });
    env.step(0);
    // reserve j1 (8 cores, 4 free): j2 (2 cores, 10 s) backfills at 0, j1 starts at 100; then nothing is left
    const s = env.step(0);
    expect(starts).toEqual(['j0@0', 'j2@0', 'j1@100']);
    expect(s.terminated).toBe(true);
    expect(s.info.time).toBe(150);
  });

  it('JobNode-v0: a seq job runs on the chosen node; an MPI job starts there and spills over', () => {
    const env = make('clustergym/JobNode-v0', {
      platform: TFG_PLATFORM,
      workload: delayWorkload([
        [0, 3, 100, 'seq'],
        [0, 12, 100, 'mpi'],
      ]),
      k: 2,
    });
    const N = 2;
    const r = env.reset({ seed: 0 });
    expect(Array.from(r.info.action_mask)).toEqual([1, 1, 1, 1, 0]); // nothing runs or arrives: no wait
    env.step(0 * N + 1); // seq job on node 1: cores 8..10
    const seq = [...env.sim.running()][0]!;
    expect(Array.from(seq.cores)).toEqual([8, 9, 10]);
    // the MPI job (12) with node 1 first: the 5 free cores of node 1, then 7 of node 0
    expect(Array.from(env.actionMask())).toEqual([1, 1, 0, 0, 1]);
    let cores: number[] = [];
    env.sim.addListener({ onStart: (_s, rj) => (cores = Array.from(rj.cores)) });
    expect(env.step(0 * N + 1).terminated).toBe(true); // nothing left to decide: runs to the end
    expect(cores).toEqual([11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6]);
  });

  it('JobNode-v0 with placement one_node: a job goes whole onto its node; a job wider than every node still spills', () => {
    const env = make('clustergym/JobNode-v0', {
      platform: TFG_PLATFORM,
      workload: delayWorkload([
        [0, 3, 100, 'seq'],
        [0, 6, 100, 'mpi'],
        [0, 12, 100, 'mpi'],
      ]),
      k: 3,
      placement: 'one_node',
    });
    const N = 2;
    const r = env.reset({ seed: 0 });
    // every job fits on an empty 8-core node but the 12-task one, which keeps the spilling placement
    expect(Array.from(r.info.action_mask)).toEqual([1, 1, 1, 1, 1, 1, 0]);
    const starts: string[] = [];
    env.sim.addListener({ onStart: (_s, rj) => starts.push(`${rj.job.id}:${Array.from(rj.cores).join(',')}`) });
    env.step(0 * N + 1); // seq job (3) on node 1: cores 8..10, 5 left there
    // the 6-task MPI job fits node 0 (8 free) but not node 1 (5 free): with spill both were allowed
    // (the spill test above); the 12-task job spills from either node (13 cores free in all)
    expect(Array.from(env.actionMask())).toEqual([1, 0, 1, 1, 0, 0, 1]);
    env.step(1 * N + 1); // the 12-task job from node 1: its 5 free cores, then 7 of node 0
    expect(starts).toEqual(['j0:8,9,10', 'j2:11,12,13,14,15,0,1,2,3,4,5,6']);
  });

  it('JobNode-v0 with placement one_node: all tasks of an MPI job on the chosen node', () => {
    const env = make('clustergym/JobNode-v0', {
      platform: TFG_PLATFORM,
      workload: delayWorkload([
        [0, 3, 100, 'seq'],
        [0, 5, 100, 'mpi'],
      ]),
      k: 2,
      placement: 'one_node',
    });
    const N = 2;
    env.reset({ seed: 0 });
    const starts: string[] = [];
    env.sim.addListener({ onStart: (_s, rj) => starts.push(`${rj.job.id}:${Array.from(rj.cores).join(',')}`) });
    env.step(0 * N + 0); // seq job (3) on node 0: cores 0..2, 5 left there
    expect(Array.from(env.actionMask())).toEqual([1, 1, 0, 0, 1]); // the 5-task job (now slot 0) fits node 0 exactly, and node 1; something runs: wait
    expect(env.step(0 * N + 0).terminated).toBe(true);
    expect(starts).toEqual(['j0:0,1,2', 'j1:3,4,5,6,7']);
  });

  it('placement is a JobNode-v0 option', () => {
    expect(() => make('clustergym/Job-v0', { platform: TFG_PLATFORM, workload: delayWorkload([[0, 1, 10]]), placement: 'one_node' })).toThrow(/placement/);
  });
});
