/**
 * The sampled future of an episode (envs/knownFuture.ts `rolloutFuture`, `ClusterEnv.clone({ future:
 * 'sampled' })`): on a hand-checked scenario the clone holds the known jobs at their requested times
 * times the ended jobs' ratio and arrivals drawn from the seen gaps and jobs, with the rollout's
 * figures computed by hand; and, as a property over random workloads, it never reads the episode's
 * unseen part: two episodes that agree on every job submitted so far and differ in every later one
 * give the same sampled clones and the same sampled lookahead choice (and score), where the oracle's
 * scores differ.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rolloutChoice, rolloutScore, SchedulerAgent } from '../../agents/heuristics/index.js';
import { proposer } from '../../agents/leaderboard/lookahead.js';
import type { ClusterEnv, StepResult } from '../../envs/env.js';
import { finishEpisode, type RequestRow, requestEnv } from './envHelpers.js';

type Row = RequestRow;

/** Job-v0 on 16 cores, re-choosing at every event (`unfit: mask`), reset on seed 1. */
const env = (jobs: readonly Row[]): ClusterEnv => requestEnv(jobs, 8);
const finish = finishEpisode;

/** The jobs a clone's simulator holds or will submit, as `[id, rebased submit time, runtime]`. */
function cloneJobs(c: ClusterEnv): [string, number, number][] {
  const out: [string, number, number][] = [];
  c.sim.addListener({ onSubmit: (s, j) => out.push([j.id, s.now, j.runtime]) });
  finish(c, new SchedulerAgent('fcfs:first'));
  return out;
}

describe('the sampled future of an episode', () => {
  it('hand-checked: known jobs run request x the ended jobs’ ratio, arrivals follow the seen gaps, the unseen jobs are absent', () => {
    // 16 cores. j0, j1, j2: 4 tasks each, run 5 s of a requested 10 s, submitted at 0, 10, 20; j3 (16 tasks) at 25 is the unseen future.
    const e = env([
      [0, 4, 5, 10],
      [10, 4, 5, 10],
      [20, 4, 5, 10],
      [25, 16, 1, 1],
    ]);
    e.step(0); // j0 0..5
    expect(e.sim.now).toBe(10);
    e.step(0); // j1 10..15
    expect(e.sim.now).toBe(20); // j2 waits: the decision
    // ended: j0 and j1, both at 5 / 10; the seen gaps: 10 and 10, none passed since j2's submission.
    // The sampled future (2 arrivals): j2 runs 10 x 0.5 = 5 s; arrivals at 30 and 40, each a copy of a seen job
    // (all alike: 4 tasks, 5 s of 10 requested); no j3.
    const c = e.clone({ future: 'sampled', sample: { index: 0, jobs: 2 } }) as ClusterEnv;
    expect(c.sim.waiting.map((j) => [j.id, j.runtime])).toEqual([['j2', 5]]);
    const ends = new Map<string, [number, number]>();
    c.sim.addListener({ onEnd: (_s, rj) => ends.set(rj.job.id, [rj.start, rj.finish]) });
    const r = finish(c, new SchedulerAgent('fcfs:first'));
    expect([...ends.entries()].sort()).toEqual([
      ['j2', [20, 25]],
      ['sampled-0-0', [30, 35]],
      ['sampled-0-1', [40, 45]],
    ]);
    // the rollout's metrics are over the clone's jobs: j0, j1 as they happened, j2 and the two arrivals
    const m = r.info.metrics!;
    expect([m.jobs_finished, m.makespan, m.mean_wait]).toEqual([5, 45, 0]);
    // another sampled future of the same decision: the same here (every draw is alike); 0 arrivals: the known jobs only
    expect(cloneJobs(e.clone({ future: 'sampled', sample: { index: 3, jobs: 2 } }) as ClusterEnv).map(([id, t]) => [id, t])).toEqual([
      ['sampled-3-0', 30],
      ['sampled-3-1', 40],
    ]);
    const none = finish(e.clone({ future: 'sampled', sample: { index: 0, jobs: 0 } }) as ClusterEnv, new SchedulerAgent('fcfs:first')).info.metrics!;
    expect([none.jobs_finished, none.makespan]).toEqual([3, 25]);
    // the env itself plays the real episode: j2 20..25, j3 25..26
    expect(finish(e, new SchedulerAgent('fcfs:first')).info.metrics!.makespan).toBe(26);
  });

  it('the first arrival is drawn among the seen gaps longer than the time passed since the last submission', () => {
    // seen gaps 30 and 2; j1 (16 tasks) blocks j2 until 50, 18 s after j2's submission: the only seen gap
    // longer than 18 is 30, so the first arrival is at 32 + 30 = 62, the next 2 or 30 later
    const e = env([
      [0, 4, 5, 10],
      [30, 16, 20, 20],
      [32, 4, 5, 10],
      [200, 1, 1, 1],
    ]);
    e.step(0);
    expect(e.sim.now).toBe(30);
    e.step(0);
    expect(e.sim.now).toBe(50);
    const times = cloneJobs(e.clone({ future: 'sampled', sample: { index: 0, jobs: 2 } }) as ClusterEnv)
      .filter(([id]) => id.startsWith('sampled'))
      .map(([, t]) => t);
    expect(times[0]).toBe(62);
    expect([64, 92]).toContain(times[1]);
  });

  it('property: the sampled lookahead never reads the unseen future (the same choice and score on any other future of the same past)', () => {
    let oracleDiffers = 0;
    let decisions = 0;
    const row = fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 40 }));
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 12, maxLength: 24 }),
        fc.array(row, { minLength: 12, maxLength: 24 }),
        fc.integer({ min: 2, max: 8 }),
        (a, b, at) => {
          // two workloads with the same first `at` jobs and different later ones (gaps, sizes, run times, requests)
          const build = (rows: readonly [number, number, number, number][]): Row[] => {
            let t = 0;
            return rows.map(([gap, n, run, extra]) => {
              t += gap;
              return [t, n, run, run + extra];
            });
          };
          const past = build(a.slice(0, at));
          const last = past.at(-1)![0];
          const later = (rows: readonly [number, number, number, number][]): Row[] => build(rows).map(([t, n, run, req]) => [last + 1 + t, n, run, req]);
          const e1 = env([...past, ...later(a.slice(at))]);
          const e2 = env([...past, ...later(b)]);
          // both play FCFS while their pasts agree: the first decision after which a later job has arrived is past the common part
          const base = new SchedulerAgent('fcfs:first');
          while (!e1.episodeOver && !e2.episodeOver && e1.sim.jobsSubmitted <= at && e2.sim.jobsSubmitted <= at && e1.sim.now <= last) {
            expect(e2.sim.now).toBe(e1.sim.now);
            const own = base.act(e1);
            expect(base.act(e2)).toBe(own);
            const cands = [...new Set([own, ...proposer(e1, 2, 'first')()])];
            expect([...new Set([own, ...proposer(e2, 2, 'first')()])]).toEqual(cands);
            const score = (r: StepResult) => r.info.metrics!.mean_bsld;
            const opts = { future: 'sampled' as const, samples: 3, sampledJobs: 6, confidence: 0 };
            const c1 = rolloutChoice(e1, cands, new SchedulerAgent('fcfs:first'), score, opts);
            const c2 = rolloutChoice(e2, cands, new SchedulerAgent('fcfs:first'), score, opts);
            expect(c2).toEqual(c1);
            for (let i = 0; i < 3; i++)
              expect(cloneJobs(e2.clone({ future: 'sampled', sample: { index: i, jobs: 6 } }) as ClusterEnv)).toEqual(
                cloneJobs(e1.clone({ future: 'sampled', sample: { index: i, jobs: 6 } }) as ClusterEnv),
              );
            if (rolloutScore(e1, own, base, score).score !== rolloutScore(e2, own, base, score).score) oracleDiffers++;
            decisions++;
            e1.step(own);
            e2.step(own);
          }
        },
      ),
      { numRuns: 25, seed: 44 },
    );
    // decisions were compared, and the futures differed where it mattered: the oracle's scores told the two episodes apart
    expect(decisions).toBeGreaterThan(25);
    expect(oracleDiffers).toBeGreaterThan(5);
  });
});
