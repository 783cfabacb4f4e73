/**
 * Heuristic agents of `clustergym/Gpu-v0` (envs/gpu): each plays a round scheduler of
 * src/scheduling/gpu/rounds.ts through the env's actions. At the first step of a round the agent lets
 * its scheduler make the round's choices on a scratch plan of the env's engine (the same state, the same
 * plan rules: the env's plan then takes the same GPUs), and plays them one by one as `(slot, GPU type,
 * servers)` actions, then ends the round. Since the env shows every active job (`K = jobs`), each agent
 * makes its scheduler's batch run decision for decision.
 *
 * | agent | round scheduler |
 * |---|---|
 * | `fifo`, `las`, `srtf` | the greedy orders: arrival, least GPU-seconds received, shortest remaining time; each job on its fastest GPU type that fits |
 * | `max_min_fairness_perf`, `max_min_fairness` | Gavel's heterogeneity-aware and agnostic max-min fairness on its round mechanism |
 * | `finish_time_fairness_perf`, `finish_time_fairness` | Gavel's finish-time fairness (Themis' metric), aware and agnostic |
 */
import { InputError } from '../../src/core/errors.js';
import type { ClusterSimulator } from '../../src/execution/simulator.js';
import { RoundPlan } from '../../src/scheduling/gpu/roundPlan.js';
import { GPU_POLICIES, makeGpuScheduler } from '../../src/scheduling/gpu/rounds.js';
import type { Job } from '../../src/workload/job.js';
import type { GpuEnv } from '../../envs/gpu/gpuEnv.js';
import { type EnvAgent, playEpisode } from '../episode.js';

/** An agent of Gpu-v0. */
export type GpuAgent = EnvAgent<GpuEnv>;

/** The agent of round scheduler `name` (`GPU_POLICIES`). */
export function gpuSchedulerAgent(name: string): GpuAgent {
  if (!(GPU_POLICIES as readonly string[]).includes(name)) throw new InputError(`no Gpu-v0 agent ${JSON.stringify(name)}; known: ${GPU_POLICIES.join(', ')}`);
  let sim: ClusterSimulator | null = null;
  let scheduler: ReturnType<typeof makeGpuScheduler> & { choose(sim: ClusterSimulator, plan: RoundPlan): void };
  let round = -1;
  let actions: number[] = [];
  return {
    name,
    act(env) {
      const end = env.K * env.G * 2;
      if (env.sim === null || env.plan === null) return end;
      if (env.sim !== sim) {
        sim = env.sim;
        scheduler = makeGpuScheduler(name, env.dl!, { round: env.roundLength, seed: 0 }) as typeof scheduler;
        round = -1;
      }
      if (env.round !== round) {
        round = env.round;
        const scratch = new RoundPlan(sim);
        scheduler.choose(sim, scratch);
        const slot = new Map<Job, number>(env.views.map((v, k) => [v.job, k]));
        const p = sim.platform;
        actions = scratch.choices.map((c) => {
          const k = slot.get(c.job);
          if (k === undefined) throw new Error(`Gpu-v0 agent ${name}: job ${c.job.id} is not in a slot`);
          const t = p.nodeGpuType[p.gpuNode[c.gpus[0]!]!]!;
          const several = c.gpus.some((u) => p.gpuNode[u] !== p.gpuNode[c.gpus[0]!]);
          return (k * env.G + t) * 2 + (several ? 1 : 0);
        });
      }
      const mask = env.actionMask();
      while (actions.length > 0) {
        const a = actions.shift()!;
        if (mask[a] === 1) return a;
      }
      // the env does not end a round with nothing chosen while a job fits: then the first allowed placement
      return mask[end] === 1 ? end : mask.indexOf(1);
    },
  };
}

/** Plays one episode; returns the metrics and the return. */
export const runGpuEpisode = playEpisode<GpuEnv>;
