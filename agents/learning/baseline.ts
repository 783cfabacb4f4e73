/**
 * The heuristic a Job-v0 training run measures itself against (config `baseline`, docs/agents.md):
 * its mean bounded slowdown on each trajectory of the training trace, played by a `PriorityAgent` in
 * a private env built from the training env's own configuration (same platform, window, `unfit`,
 * backfilling), so the number is exactly what the heuristic scores in the learner's setting.
 *
 * Three uses, all in train.ts:
 * - relative reward: an episode's terminal reward `-bsld` becomes `(b - bsld) / b`, `b` the
 *   heuristic's bsld on the same trajectory (`relativeReward`);
 * - trajectory filtering: training origins restricted to those where `b >= min_bsld`
 *   (`filterOrigins`), RLScheduler's way of not spending updates on trajectories where every
 *   choice is equally good;
 * - the teacher of the behaviour-cloning warm start (warmStart.ts): the heuristic itself (`agent`),
 *   or its one-step lookahead (`lookaheadAction`, the rollout algorithm of approximate dynamic
 *   programming): each of the heuristic's `m` best-ranked jobs is tried in a clone of the env, the
 *   heuristic finishes the episode from there, and the job whose episode ends with the lowest mean
 *   bsld is the teacher's choice (the heuristic's own choice unless another is strictly better). By
 *   the policy-improvement argument this teacher is never worse than the heuristic on a trajectory,
 *   but it sees the trajectory's future arrivals: the network imitating it learns what of that
 *   choice the current state predicts.
 *
 * Scores are cached per origin: the filter computes each candidate once and the episodes' rewards
 * then only look them up.
 */
import { PriorityAgent, rolloutChoice, runEpisode } from '../heuristics/index.js';
import type { JobEnv } from '../../envs/jobEnv.js';
import { make } from '../../envs/registry.js';
import type { BaselineConfig } from './config.js';

/** The heuristic's mean bsld per trajectory origin of one training env configuration. */
export class HeuristicBaseline {
  /** The heuristic, as an agent (also the warm start's teacher). */
  readonly agent: PriorityAgent;
  private readonly env: JobEnv;
  private readonly scores = new Map<number, number>();

  constructor(
    envConfig: Record<string, unknown>,
    readonly config: BaselineConfig,
  ) {
    this.agent = new PriorityAgent(config.policy);
    // the pool and the fixed origin do not matter here: every episode names its origin
    const { trajectory, ...rest } = envConfig as { trajectory?: { length?: number } };
    this.env = make('clustergym/Job-v0', { ...rest, trajectory: { length: trajectory?.length } }) as JobEnv;
  }

  /** Jobs in the workload and per trajectory. */
  get shape(): { jobs: number; length: number } {
    return { jobs: this.env.context.workload!.jobs.length, length: this.env.context.length };
  }

  /** The heuristic's mean bounded slowdown on the trajectory at `origin` (played once, then cached). */
  bsld(origin: number): number {
    let b = this.scores.get(origin);
    if (b === undefined) {
      b = runEpisode(this.env, this.agent, 0, { origin }).summary.mean_bsld;
      this.scores.set(origin, b);
    }
    return b;
  }

  /**
   * The training origins: every `origin_stride`-th valid origin whose heuristic bsld is at least
   * `min_bsld`. Throws when none is left (the threshold is above every trajectory's score).
   */
  filterOrigins(onProgress?: (done: number, total: number) => void): number[] {
    const { jobs, length } = this.shape;
    const stride = this.config.origin_stride;
    const candidates: number[] = [];
    for (let o = 0; o + length <= jobs; o += stride) candidates.push(o);
    const kept: number[] = [];
    let best = 0;
    candidates.forEach((o, i) => {
      const b = this.bsld(o);
      best = Math.max(best, b);
      if (b >= this.config.min_bsld) kept.push(o);
      if (onProgress && (i % 64 === 63 || i === candidates.length - 1)) onProgress(i + 1, candidates.length);
    });
    if (kept.length === 0)
      throw new RangeError(
        `baseline.min_bsld ${this.config.min_bsld} keeps no training origin: ${this.config.policy}'s largest mean bsld over the ${candidates.length} candidates is ${best.toFixed(2)}`,
      );
    return kept;
  }

  /**
   * The lookahead teacher's action in `env`'s current state: among the heuristic's `m` best-ranked
   * valid jobs, the one after which the heuristic finishes the episode with the lowest mean bsld
   * (ties: the heuristic's own choice).
   */
  lookaheadAction(env: JobEnv, m: number): number {
    const ranked = this.agent.ranked(env, m);
    if (ranked.length <= 1) return this.agent.act(env);
    return rolloutChoice(env, ranked, this.agent, (r) => r.info.metrics!.mean_bsld).action;
  }

  /** The relative terminal reward `(b - bsld) / b` of an episode at `origin` that scored `bsld`. */
  relativeReward(origin: number, bsld: number): number {
    const b = this.bsld(origin);
    return (b - bsld) / b;
  }

  /** Releases the private env. */
  close(): void {
    this.env.close();
  }
}
