/**
 * The known future of an episode (envs/knownFuture.ts, `ClusterEnv.clone({ future: 'known' })`): on
 * hand-checked scenarios a known-future clone holds no job not yet submitted and runs every job still
 * in the system for its requested time (a running job past its request ends at once); on episodes of
 * the rlsched (SWF delay jobs) and hetero-loaded (ops jobs under memory and network contention)
 * settings, a clone taken at any decision reaches the episode's state (the clone checks it) and is
 * deterministic; and the rollout choice differs from the oracle's where the oracle uses a future
 * arrival.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PriorityAgent, rolloutChoice, SchedulerAgent } from '../../agents/heuristics/index.js';
import { loadSetting } from '../../agents/leaderboard/settings.js';
import type { ClusterEnv, StepResult } from '../../envs/env.js';
import { makeContext, makeFromContext } from '../../envs/registry.js';
import { HAVE_SHARED, ROOT, SHARED_MISSING } from '../helpers.js';
import { finishEpisode, requestEnv, TFG_PLATFORM } from './envHelpers.js';

const env = (jobs: [number, number, number, number][], extra: Record<string, unknown> = {}): ClusterEnv => requestEnv(jobs, 4, extra);
const finish = finishEpisode;

const jobIds = (e: ClusterEnv): string[] => [...e.sim.waiting.map((j) => j.id), ...[...e.sim.running()].map((rj) => rj.job.id)].sort();

describe('the known future of an episode', () => {
  it('a known-future clone holds no unsubmitted job, and every job in the system runs its requested time', () => {
    // 16 cores. t=0: j0 (16 tasks, runs 10 of its requested 40); t=5: j1 (4 tasks, runs 3 of 30) waits; t=50: j2 arrives
    const e = env([
      [0, 16, 10, 40],
      [5, 4, 3, 30],
      [50, 4, 1, 1],
    ]);
    expect(e.sim.now).toBe(0);
    e.step(0); // j0 starts; the next decision: j1 arrives at 5 (nothing fits: the env advances to j0's end at 10)
    expect(e.sim.now).toBe(10);
    expect(jobIds(e)).toEqual(['j1']);
    const oracle = e.clone() as ClusterEnv;
    const known = e.clone({ future: 'known' }) as ClusterEnv;
    // the oracle's episode: j1 runs 10..13, j2 50..51: mean wait (0 + 5 + 0) / 3
    const ro = finish(oracle, new SchedulerAgent('fcfs:first'));
    expect(ro.info.metrics!.jobs_finished).toBe(3);
    expect(ro.info.metrics!.mean_wait).toBeCloseTo(5 / 3, 12);
    expect(ro.info.metrics!.makespan).toBe(51);
    // the known future: j0 (ended: as it happened) and j1 (running its requested 30: 10..40), no j2
    expect(known.sim.waiting.map((j) => [j.id, j.runtime])).toEqual([['j1', 30]]);
    const rk = finish(known, new SchedulerAgent('fcfs:first'));
    expect(rk.info.metrics!.jobs_finished).toBe(2);
    expect(rk.info.metrics!.mean_wait).toBeCloseTo(5 / 2, 12);
    expect(rk.info.metrics!.makespan).toBe(40);
    // the two halves: the known jobs at their actual times (j1 ends at 13), every job at its requested time (j1 10..40, j2 50..51)
    const half = finish(e.clone({ future: 'known-jobs-actual-times' }) as ClusterEnv, new SchedulerAgent('fcfs:first')).info.metrics!;
    expect([half.jobs_finished, half.makespan]).toEqual([2, 13]);
    const other = e.clone({ future: 'all-jobs-requested-times' }) as ClusterEnv;
    expect(other.sim.waiting.map((j) => [j.id, j.runtime])).toEqual([['j1', 30]]);
    const rest = finish(other, new SchedulerAgent('fcfs:first')).info.metrics!;
    expect([rest.jobs_finished, rest.makespan]).toEqual([3, 51]);
    expect(rest.mean_wait).toBeCloseTo(5 / 3, 12);
    // the env itself is untouched: it plays the real episode
    expect(finish(e, new SchedulerAgent('fcfs:first')).info.metrics!.makespan).toBe(51);
  });

  it('a running job ends at its request in the known future, and at once when it already ran past it', () => {
    // j0 (8 tasks) runs 100 of its requested 20 (no walltime kill); j1 (4 tasks, runs 5 of 60) arrives at 30, when j0 ran past its request; j2 (2 tasks, 1 s) at 31
    const e = env([
      [0, 8, 100, 20],
      [30, 4, 5, 60],
      [31, 2, 1, 1],
    ]);
    e.step(0);
    expect(e.sim.now).toBe(30);
    e.step(0); // j1 starts at 30
    expect(e.sim.now).toBe(31); // j2 arrives: 4 cores are free
    const known = e.clone({ future: 'known' }) as ClusterEnv;
    const ends = new Map<string, number>();
    known.sim.addListener({ onEnd: (_s, rj) => ends.set(rj.job.id, rj.finish) });
    const rk = finish(known, new SchedulerAgent('fcfs:first'));
    // j0 past its request: ends right after the decision (31 + a relative 1e-9 of its 31 s); j1 at 30 + 60; j2 (1 s requested) starts at 31
    expect(ends.get('j0')).toBeCloseTo(31, 6);
    expect(ends.get('j0')).toBeGreaterThan(31);
    expect(ends.get('j1')).toBe(90);
    expect(ends.get('j2')).toBe(32);
    expect(rk.info.metrics!.jobs_finished).toBe(3);
    // with walltime_kill the same job is killed at 20: then j1 starts at its arrival and ends at 35 in the real episode
    const killed = env(
      [
        [0, 8, 100, 20],
        [30, 4, 5, 60],
      ],
      { walltime_kill: true },
    );
    expect(finish(killed, new SchedulerAgent('fcfs:first')).info.metrics!.jobs_killed).toBe(1);
  });

  it('ops jobs run their requested time at the reference speed (the platform’s mean core, without a generator), running or waiting', () => {
    // 16 cores of 2,000 MOPS (memory model none). j0: 4 seq tasks of 2e10 operations (10 s), requested 30 s, starts at 0;
    // j1 (2 seq tasks, 1 s, requested 4 s) arrives at 5 and fits beside it; j2 (16 MPI tasks, 1 s) arrives at 6
    const w = {
      jobs: [
        { id: 'j0', subtime: 0, res: 4, req_ops: 2e10, req_time: 30 },
        { id: 'j1', subtime: 5, res: 2, req_ops: 2e9, req_time: 4 },
        { id: 'j2', subtime: 6, type: 'mpi', ntasks: 16, req_ops: 2e9, req_time: 1 },
      ],
    };
    const e = makeFromContext(makeContext('clustergym/Job-v0', { platform: TFG_PLATFORM, workload: w, k: 4, unfit: 'mask' })) as ClusterEnv;
    e.reset({ seed: 1 });
    e.step(0);
    expect(e.sim.now).toBe(5);
    const ends = (c: ClusterEnv) => {
      const m = new Map<string, number>();
      c.sim.addListener({ onEnd: (_s, rj) => m.set(rj.job.id, rj.finish) });
      finish(c, new SchedulerAgent('fcfs:first'));
      return [...m.entries()].sort();
    };
    // the known future at 5: j0 (running) ends at its requested 30, j1 (waiting) runs its requested 4 s from 5; no j2
    expect(ends(e.clone({ future: 'known' }) as ClusterEnv)).toEqual([
      ['j0', 30],
      ['j1', 9],
    ]);
    // the oracle: j0 ends at 10, j1 at 6, j2 waits for the 16 cores: 10..11
    expect(ends(e.clone() as ClusterEnv)).toEqual([
      ['j0', 10],
      ['j1', 6],
      ['j2', 11],
    ]);
  });

  it('the rollout choice differs from the oracle’s where the oracle uses a future arrival', () => {
    // t=0: j0 (4 tasks, 100 s) is the only job; j1 (16 tasks, 1 s) arrives at t=1. The base (SJF) starts j0 at once.
    // Oracle: waiting keeps the cores for j1 (j1 runs 1..2, j0 2..102: mean wait (2 + 0) / 2 = 1) against j0 now
    // (j1 waits for j0's end at 100: mean wait 99 / 2 = 49.5). Known future: only j0 exists; waiting changes nothing
    // (no event is left: the next decision is at once, mean wait 0 either way), so the base's own action stays.
    const e = env([
      [0, 4, 100, 100],
      [1, 16, 1, 1],
    ]);
    const wait = e.actionMask().length - 1;
    expect(e.actionMask()[wait]).toBe(1);
    const base = new SchedulerAgent('sjf:first');
    const own = base.act(e);
    expect(own).toBe(0);
    const score = (r: StepResult) => r.info.metrics!.mean_wait;
    const oracle = rolloutChoice(e, [own, wait], new SchedulerAgent('sjf:first'), score);
    expect([oracle.action, oracle.score]).toEqual([wait, 1]);
    const known = rolloutChoice(e, [own, wait], new SchedulerAgent('sjf:first'), score, { future: 'known' });
    expect([known.action, known.score]).toEqual([own, 0]);
  });

  // (rlsched-easy replays lublin_256.swf from ../shared)
  for (const [name, length, agent, shared] of [
    ['rlsched-easy', 160, () => new PriorityAgent('f1'), true],
    ['hetero-loaded', 200, () => new SchedulerAgent('smallest:low_power'), false],
  ] as const)
    it.skipIf(shared && !HAVE_SHARED)(
      `on ${name} episodes a known-future clone at any decision reaches the episode's state and plays deterministically${shared && !HAVE_SHARED ? ` (${SHARED_MISSING})` : ''}`,
      () => {
        const s = loadSetting(join(ROOT, 'data/configs', `${name}.json`));
        const config = s.env.config.generator
          ? { ...s.env.config, generator: { ...(s.env.config.generator as object), jobs: length } }
          : { ...s.env.config, trajectory: { length, origin: 'random' } };
        const e = makeFromContext(makeContext(s.env.id, config)) as ClusterEnv;
        e.reset({ seed: 11 });
        const a = agent();
        let clones = 0;
        for (let i = 0; !e.episodeOver; i++) {
          if (i % 13 === 3) {
            // the clone checks that it reached this state (time, running jobs and their cores, waiting jobs)
            const c1 = e.clone({ future: 'known' }) as ClusterEnv;
            const c2 = e.clone({ future: 'known' }) as ClusterEnv;
            const submitted = e.sim.jobsSubmitted;
            const r1 = finish(c1, agent());
            const r2 = finish(c2, agent());
            expect(r1.info.metrics).toEqual(r2.info.metrics);
            const m = r1.info.metrics!;
            expect(m.jobs_finished + m.jobs_killed + m.jobs_rejected).toBe(submitted);
            clones++;
          }
          e.step(a.act(e));
        }
        expect(clones).toBeGreaterThan(3);
      },
    );
});
