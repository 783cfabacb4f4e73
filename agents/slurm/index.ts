/**
 * Heuristic operators for `clustergym/Slurm-v0` (envs/slurm): baselines that act through the env API.
 *
 * | agent | acts |
 * |-------|------|
 * | `FixedSettingAgent(a)` | always action `a` (`FixedSettingAgent(0)` = Slurm's defaults with fair share dominant and backfill) |
 * | `QueueAdaptiveAgent()` | reads the observation: when the queue holds many pending jobs and most of them are one-core jobs, favours small jobs (profile `small`); when the pending jobs have waited more than 30 min on average, orders by age; otherwise fair share; backfill with Slurm's defaults throughout |
 *
 * `runSlurmEpisode(env, agent, seed)` plays one episode and returns its return and calcmets' metrics.
 */
import type { SlurmEnv } from '../../envs/slurm/index.js';
import { type EnvAgent, playEpisode } from '../episode.js';

/** An agent of Slurm-v0. */
export type SlurmAgent = EnvAgent<SlurmEnv>;

/** Always the same setting. */
export class FixedSettingAgent implements SlurmAgent {
  readonly name: string;
  constructor(private readonly action: number) {
    this.name = `fixed-${action}`;
  }
  act(): number {
    return this.action;
  }
}

/** A rule-based operator reading the queue (see the module comment). */
export class QueueAdaptiveAgent implements SlurmAgent {
  readonly name = 'queue-adaptive';
  act(_env: SlurmEnv, o: Float32Array): number {
    const pending = o[1]! * 1000;
    const oneCoreShare = o[4]!;
    const meanWaitH = o[5]!;
    if (meanWaitH > 0.5) return 1; // age / backfill
    if (pending > 50 && oneCoreShare > 0.5) return 2; // small / backfill
    return 0; // fairshare / backfill
  }
}

/** Plays one episode of `env` with `agent`; returns the return, steps and metrics (calcmets). */
export const runSlurmEpisode = playEpisode<SlurmEnv>;
