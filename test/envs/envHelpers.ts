/**
 * Shared pieces of the environment suites: small inline platforms and workloads, and a loop that
 * plays an agent through an episode.
 */
import type { ClusterEnv, StepResult } from '../../envs/index.js';
import { makeContext, makeFromContext } from '../../envs/registry.js';

/** 2 nodes x 2 processors x 4 cores (16 cores), 2 GHz, no memory contention, power figures. */
export const TFG_PLATFORM = {
  name: 'tfg-2x2x4',
  models: { memory: 'none', comm: 'shared', comm_penalty: 0.8 },
  clusters: [
    {
      nodes: [
        {
          count: 2,
          memory_gb: 64,
          comm_bw: 125e6,
          processors: [{ count: 2, cores: 4, clock_rate: 2.0, dpflops_per_cycle: 1, static_power: 20, dynamic_power: 10, min_power: 0.05 }],
        },
      ],
    },
  ],
};

/** An inline native workload of delay jobs: `[subtime, ntasks, runtime, type?]` each. */
export function delayWorkload(jobs: [number, number, number, ('seq' | 'mpi')?][]): Record<string, unknown> {
  return {
    jobs: jobs.map(([subtime, ntasks, runtime, type], i) => ({
      id: `j${i}`,
      subtime,
      ...(type === 'seq' ? { res: ntasks } : { type: 'mpi', ntasks }),
      runtime,
      req_time: runtime,
    })),
  };
}

/** Small episodes of the embedded default (20 jobs of mixed-300 from a random origin). */
export const SMALL = { trajectory: { length: 20, origin: 'random' as const } };

/** Plays `act` until the episode ends; returns every step result (observations are not kept). */
export function play(env: ClusterEnv, act: (env: ClusterEnv) => number, seed = 0): { steps: number; rewards: number[]; last: StepResult } {
  env.reset({ seed });
  const rewards: number[] = [];
  for (;;) {
    const r = env.step(act(env));
    rewards.push(r.reward);
    if (r.terminated || r.truncated) return { steps: rewards.length, rewards, last: r };
  }
}

/** A delay MPI job with a request: `[subtime, ntasks, runtime, reqTime]`. */
export type RequestRow = [number, number, number, number];

/** An inline workload of delay MPI jobs with requests (`RequestRow`s), ids `j0`, `j1`, ... */
export function requestWorkload(jobs: readonly RequestRow[]): Record<string, unknown> {
  return { jobs: jobs.map(([subtime, ntasks, runtime, req_time], i) => ({ id: `j${i}`, subtime, type: 'mpi', ntasks, runtime, req_time })) };
}

/** Job-v0 on `TFG_PLATFORM` with `jobs`, re-choosing at every event (`unfit: mask`, window `k`), reset on seed 1. */
export function requestEnv(jobs: readonly RequestRow[], k = 4, extra: Record<string, unknown> = {}): ClusterEnv {
  const e = makeFromContext(
    makeContext('clustergym/Job-v0', { platform: TFG_PLATFORM, workload: requestWorkload(jobs), k, unfit: 'mask', ...extra }),
  ) as ClusterEnv;
  e.reset({ seed: 1 });
  return e;
}

/** Plays `env` from its current state to the end with `agent`; the last step's result. */
export function finishEpisode(env: ClusterEnv, agent: { act(env: ClusterEnv): number }): StepResult {
  let r: StepResult;
  do r = env.step(agent.act(env));
  while (!r.terminated && !r.truncated);
  return r;
}
