/**
 * Shared pieces of the environment suites: small inline platforms and workloads, and a loop that
 * plays an agent through an episode.
 */
import type { ClusterEnv, StepResult } from '../../envs/index.js';

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
