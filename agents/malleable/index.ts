/**
 * Heuristic agents of `clustergym/Malleable-v0` (envs/malleable), acting through the env API:
 *
 * | agent         | acts                                                                       |
 * |---------------|----------------------------------------------------------------------------|
 * | `dmrAgent`    | the size seed 002's `dmr` policy (§4.2, §4.3) picks, as the action of that size (0 when it keeps the size) |
 * | `neverAgent`  | always 0 (no-action): malleable jobs run as rigid ones at `max`             |
 * | `dmrShrinkAgent` (`dmr+shrink`) | `dmr` at the job's reconfiguration points; at a queue point (the queue's head would start if running jobs shrank) a request to shrink to the job's smallest size: the rule the first learned malleable model was found to play (docs/agents.md) |
 * | `minAgent` (`min`) | every job at its smallest size: at each of its points the smallest allowed size, at a queue point a request for it (narrow jobs start at once and leave the rest of the machine to the queue) |
 * | `srptAgent(T)` (`srpt(T)`) | SRPT-style: nodes go to the jobs nearest completion. A job is long when its observed remaining time at its current size exceeds T seconds. At a queue point a long job shrinks to its smallest size and a short one declines (it frees its nodes soon); at a reconfiguration point a job expands to the largest size the free nodes allow when no job waits, or when it is short and the free nodes fit none of the queued jobs; a long job shrinks to its smallest size while jobs wait; otherwise `dmr` |
 *
 * On the same workload `dmrAgent` reproduces `simulate(workload, dmrPolicy)` exactly (the env
 * applies §4.3's priority rule for the shrinks the policy makes under it; at queue points the policy
 * declines, action 0, as the DMR plug-in only decides at the job's own points). `neverAgent`
 * declines queue points too, so it reproduces the rigid run. `srpt(T)` reads the remaining time the
 * observation shows (`observe.durations: "requested"`, the default; under `"none"` every job looks
 * short), the information a learned policy of the same env config has; the others use no duration.
 */
import type { MalleableEnv } from '../../envs/malleable/malleableEnv.js';
import { dmrPolicy, type PointContext, type ResizePolicy } from '../../src/malleable/policy.js';
import { type EnvAgent, playEpisode } from '../episode.js';

/** An agent of Malleable-v0. */
export type MalleableAgent = EnvAgent<MalleableEnv>;

/** The observation's remaining-time feature (remaining time at the job's size / 10,000 s). */
const REMAINING = 5;

/** The action of size `size` at the env's current point (0: keep the size, or the size is not allowed now). */
function actionOf(env: MalleableEnv, size: number): number {
  const p = env.point();
  if (p === null || size === p.context.size) return 0;
  const i = p.sizes.indexOf(size);
  return i < 0 || env.actionMask()[i + 1] !== 1 ? 0 : i + 1;
}

/** An agent from a rule that picks a size from the point's context, its allowed sizes and the job's progress. */
function sizeAgent(name: string, pick: (ctx: PointContext, sizes: readonly number[], remaining: number) => number): MalleableAgent {
  return {
    name,
    act(env, obs) {
      const p = env.point();
      if (p === null) return 0;
      return actionOf(env, pick(p.context, p.sizes, obs[REMAINING]! * 10_000));
    },
  };
}

/** The action of a resize policy's decision at the env's current point. */
export function policyAgent(name: string, policy: ResizePolicy): MalleableAgent {
  return sizeAgent(name, (ctx) => policy(ctx).size);
}

/** The `dmr` agent. */
export const dmrAgent: MalleableAgent = policyAgent('dmr', dmrPolicy);

/** The never-resize agent. */
export const neverAgent: MalleableAgent = { name: 'never', act: () => 0 };

/** `dmr`, and a request to shrink to the smallest size at every queue point. */
export const dmrShrinkAgent: MalleableAgent = sizeAgent('dmr+shrink', (ctx, sizes) => (ctx.kind === 'queue' ? sizes[0]! : dmrPolicy(ctx).size));

/** Every job at its smallest size. */
export const minAgent: MalleableAgent = sizeAgent('min', (_ctx, sizes) => sizes[0]!);

/** SRPT-style shrink and expand with a job long above `T` seconds of observed remaining time (see the module comment). */
export function srptAgent(T: number): MalleableAgent {
  return sizeAgent(`srpt(${T})`, (ctx, sizes, remaining) => {
    const long = remaining > T;
    if (ctx.kind === 'queue') return long ? sizes[0]! : ctx.size;
    const widest = sizes.filter((s) => s - ctx.size <= ctx.free).pop() ?? ctx.size;
    if (ctx.queue.length === 0) return Math.max(widest, ctx.size);
    if (long) return sizes[0]!;
    if (!ctx.queue.some((q) => q <= ctx.free)) return Math.max(widest, ctx.size);
    return dmrPolicy(ctx).size;
  });
}

/** The malleable heuristic of a name: `dmr`, `never`, `dmr+shrink`, `min`, `srpt(T)` (T in seconds); undefined for another. */
export function malleableAgent(name: string): MalleableAgent | undefined {
  const srpt = /^srpt\((\d+(?:\.\d+)?)\)$/.exec(name);
  if (srpt) return srptAgent(Number(srpt[1]));
  return [dmrAgent, neverAgent, dmrShrinkAgent, minAgent].find((a) => a.name === name);
}

/** Plays one episode; returns the metrics and the return. */
export const runMalleableEpisode = playEpisode<MalleableEnv>;
