/**
 * Heuristic agents of `clustergym/Malleable-v0` (envs/malleable), acting through the env API:
 *
 * | agent         | acts                                                                       |
 * |---------------|----------------------------------------------------------------------------|
 * | `dmrAgent`    | the size seed 002's `dmr` policy (§4.2, §4.3) picks, as the action of that size (0 when it keeps the size) |
 * | `neverAgent`  | always 0 (no-action): malleable jobs run as rigid ones at `max`             |
 *
 * On the same workload `dmrAgent` reproduces `simulate(workload, dmrPolicy)` exactly (the env
 * applies §4.3's priority rule for the shrinks the policy makes under it; at queue points the policy
 * declines, action 0, as the DMR plug-in only decides at the job's own points). `neverAgent`
 * declines queue points too, so it reproduces the rigid run.
 */
import type { MalleableEnv } from '../../envs/malleable/malleableEnv.js';
import { dmrPolicy, type ResizePolicy } from '../../src/malleable/policy.js';
import { type EnvAgent, playEpisode } from '../episode.js';

/** An agent of Malleable-v0. */
export type MalleableAgent = EnvAgent<MalleableEnv>;

/** The action of a resize policy's decision at the env's current point. */
export function policyAgent(name: string, policy: ResizePolicy): MalleableAgent {
  return {
    name,
    act(env) {
      const p = env.point();
      if (p === null) return 0;
      const d = policy(p.context);
      if (d.size === p.context.size) return 0;
      const i = p.sizes.indexOf(d.size);
      return i < 0 || env.actionMask()[i + 1] !== 1 ? 0 : i + 1;
    },
  };
}

/** The `dmr` agent. */
export const dmrAgent: MalleableAgent = policyAgent('dmr', dmrPolicy);

/** The never-resize agent. */
export const neverAgent: MalleableAgent = { name: 'never', act: () => 0 };

/** Plays one episode; returns the metrics and the return. */
export const runMalleableEpisode = playEpisode<MalleableEnv>;
