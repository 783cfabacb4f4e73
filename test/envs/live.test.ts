/**
 * The env's live mode (`attachLive`, `liveDecision`, `liveApply`: what `clustergym slurm-agent`
 * observes a real cluster with) against the env itself: an episode is played in a normal env, and
 * every event of its simulator (time, submissions, starts on their cores, ends) is replayed into a
 * live mirror (`liveAdvance`, `liveSubmit`, `startJob`, `liveEnd`) observed by a second env in live
 * mode. At every decision point of the episode, the live env must give the same observation (bit
 * for bit), the same mask (but `wait`, always valid live: a job may arrive at any time), and say it
 * is a decision point; and `liveApply` of the action the agent
 * took must start the same job on the same cores. The live env gets the global features' scale as
 * slurm-agent computes it (the jobs submitted so far and the last submission), which is the env's own
 * under its default `observe.horizon: "seen"`; with `horizon: "trajectory"` the played env uses the
 * trajectory's and the test passes that.
 */
import { describe, expect, it } from 'vitest';
import { RandomMaskedAgent } from '../../agents/heuristics/index.js';
import { ClusterSimulator } from '../../src/execution/simulator.js';
import type { Job } from '../../src/workload/job.js';
import { EnvContext } from '../../envs/context.js';
import { make, makeFromContext } from '../../envs/index.js';
import type { DictObservation } from '../../envs/observation.js';
import { delayWorkload, TFG_PLATFORM } from './envHelpers.js';

type Ev = { kind: 'advance'; t: number } | { kind: 'submit'; job: Job } | { kind: 'start'; job: Job; cores: Int32Array } | { kind: 'end'; job: Job };

const WORKLOAD = delayWorkload([
  [0, 4, 30],
  [0, 8, 50, 'seq'],
  [5, 12, 20],
  [5, 2, 100, 'seq'],
  [12, 16, 10],
  [20, 3, 40],
  [20, 6, 25],
  [33, 1, 5, 'seq'],
  [40, 9, 60],
  [41, 4, 15, 'seq'],
  [70, 5, 35],
  [90, 2, 10],
]);

function check(id: 'clustergym/Job-v0' | 'clustergym/JobNode-v0', seed: number, horizon: 'seen' | 'trajectory'): number {
  const config = { platform: TFG_PLATFORM, workload: WORKLOAD, k: 6, observe: { horizon } };
  const played = make(id, config);
  const live = makeFromContext(new EnvContext(id, config));
  const agent = new RandomMaskedAgent(seed);
  let obs = played.reset({ seed }).observation as DictObservation;
  const sim = played.sim;
  const jobs = played.context.episodeJobs(seed).jobs;
  let seen = 0;
  let lastSubmit = 0;
  const scale = () =>
    horizon === 'trajectory'
      ? { horizon: EnvContext.span(jobs) + played.limits.req_time, length: jobs.length }
      : { horizon: lastSubmit + played.limits.req_time, length: seen };
  const mirror = new ClusterSimulator(played.context.platform, [], { timeOrigin: sim.timeOrigin, workloadName: 'mirror' });
  live.attachLive(mirror);
  const mine = new Map<Job, Job>();
  const submit = (job: Job) => {
    seen++;
    lastSubmit = mirror.now;
    mine.set(job, mirror.liveSubmit({ ...job, subtime: job.subtime + sim.timeOrigin, runtime: Infinity }));
  };
  // the state at the first decision point: the submissions so far, in arrival order
  mirror.liveAdvance(sim.now);
  for (const job of sim.waiting) submit(job);
  const events: Ev[] = [];
  sim.addListener({
    onAdvance: (_s, _from, to) => events.push({ kind: 'advance', t: to }),
    onSubmit: (_s, job) => events.push({ kind: 'submit', job }),
    onStart: (_s, rj) => events.push({ kind: 'start', job: rj.job, cores: rj.cores.slice() }),
    onEnd: (_s, _rec, rj) => {
      if (rj) events.push({ kind: 'end', job: rj.job });
    },
  });
  let points = 0;
  for (;;) {
    const d = live.liveDecision(scale());
    expect(d.decision, `decision point ${points}`).toBe(true);
    const got = d.observation as DictObservation;
    for (const k of ['jobs', 'nodes', 'global'] as const)
      expect(Array.from(got[k]), `${k} at decision point ${points} (t=${sim.now})`).toEqual(Array.from(obs[k]));
    // a live cluster is open (a job may arrive at any time): wait is always valid there
    const mask = Array.from(live.actionMask());
    const wait = mask.length - 1;
    expect(mask[wait], `wait at decision point ${points}`).toBe(1);
    expect(mask.slice(0, wait), `mask at decision point ${points}`).toEqual(Array.from(played.actionMask()).slice(0, wait));
    points++;
    const action = agent.act(played);
    const applied = live.liveApply(action);
    const r = played.step(action);
    // replay the step's events into the mirror; the start of the agent's own action is liveApply's
    let first = true;
    for (const e of events) {
      if (e.kind === 'advance') mirror.liveAdvance(e.t);
      else if (e.kind === 'submit') submit(e.job);
      else if (e.kind === 'end') expect(mirror.liveEnd(mine.get(e.job)!)).toBe(true);
      else if (first && applied) {
        expect(applied.job).toBe(mine.get(e.job));
        expect(Array.from(applied.running!.cores)).toEqual(Array.from(e.cores));
        first = false;
      } else mirror.startJob(mine.get(e.job)!, e.cores);
    }
    if (applied === null) expect(events.some((e) => e.kind === 'start')).toBe(false);
    events.length = 0;
    if (r.terminated || r.truncated) break;
    obs = r.observation as DictObservation;
  }
  return points;
}

describe('live mode (slurm-agent) observes a mirror exactly as the env observes its episode', () => {
  for (const id of ['clustergym/Job-v0', 'clustergym/JobNode-v0'] as const)
    for (const horizon of ['seen', 'trajectory'] as const)
      it(`${id}, horizon ${horizon}: same observation and mask at every decision point, liveApply starts the same job on the same cores`, () => {
        let points = 0;
        for (const seed of [1, 2, 3]) points += check(id, seed, horizon);
        expect(points).toBeGreaterThan(20);
      });
});
