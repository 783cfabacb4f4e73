/**
 * What a policy may observe (DESIGN §14), declared by each env config and recorded by every model
 * card and leaderboard row, so that a learned policy is only ever ranked against heuristics given as
 * much information as it had. Two dimensions, each ordered from less to more information:
 *
 * | dimension   | values (less to more)              | meaning |
 * |-------------|------------------------------------|---------|
 * | `durations` | `none` < `requested` < `actual`    | what the observation shows of how long a job or task will run: nothing; what was requested or declared at submission (a walltime, a user's estimate); the true run time (an oracle no live scheduler has) |
 * | `horizon`   | `seen` < `trajectory` < `future`   | what it knows of the episode's arrivals: only the jobs submitted so far (a live scheduler); the trajectory's extent (its last submission and job count, which features normalised by them reveal); every future arrival (a lookahead on env clones) |
 *
 * Every env config's default is what a live scheduler knows: `requested` durations (where the env
 * has them) and the `seen` horizon. The cluster envs (Job-v0, JobNode-v0, PolicyPair-v0) take
 * `observe: { durations, horizon }`; Fair-v0 and Malleable-v0 `observe: { durations }` (their
 * features never depend on the episode's extent); Slurm-v0 and CoSched-v0 `observe: { horizon }`
 * (they show no duration); Gpu-v0 always shows the jobs' remaining steps (`actual`, as Gavel's SRTF and
 * finish-time fairness know them) and takes no `observe`. `envObserves` reads an env config's declaration.
 */

/** What a policy may observe of durations, from less to more. */
export const DURATION_KNOWLEDGE = ['none', 'requested', 'actual'] as const;
/** What a policy may know of the episode's arrivals, from less to more. */
export const HORIZON_KNOWLEDGE = ['seen', 'trajectory', 'future'] as const;

/** What a policy observes (a model card's and a leaderboard row's `observes`). */
export interface Observes {
  durations: (typeof DURATION_KNOWLEDGE)[number];
  horizon: (typeof HORIZON_KNOWLEDGE)[number];
}

/** What a live scheduler knows: requested durations, the arrivals seen so far. */
export const LIVE_OBSERVES: Observes = { durations: 'requested', horizon: 'seen' };

/**
 * The dimensions in which `a` observes more than `b` (empty: `a` is given no more than `b`), each
 * written as `durations: actual > requested`.
 */
export function observesMore(a: Observes, b: Observes): string[] {
  const out: string[] = [];
  if (DURATION_KNOWLEDGE.indexOf(a.durations) > DURATION_KNOWLEDGE.indexOf(b.durations)) out.push(`durations: ${a.durations} > ${b.durations}`);
  if (HORIZON_KNOWLEDGE.indexOf(a.horizon) > HORIZON_KNOWLEDGE.indexOf(b.horizon)) out.push(`horizon: ${a.horizon} > ${b.horizon}`);
  return out;
}

/** The more informed of two declarations, per dimension. */
export function observesMax(a: Observes, b: Observes): Observes {
  return {
    durations: DURATION_KNOWLEDGE[Math.max(DURATION_KNOWLEDGE.indexOf(a.durations), DURATION_KNOWLEDGE.indexOf(b.durations))]!,
    horizon: HORIZON_KNOWLEDGE[Math.max(HORIZON_KNOWLEDGE.indexOf(a.horizon), HORIZON_KNOWLEDGE.indexOf(b.horizon))]!,
  };
}

/**
 * What a policy of env `envId` observes under the raw env config `config` (its `observe` field with
 * the env's defaults; an env without durations observes `none` of them). Unknown values are left to
 * the env's own validation: this reads, it does not check.
 */
export function envObserves(envId: string, config: Record<string, unknown>): Observes {
  const o = (config['observe'] ?? {}) as { durations?: Observes['durations']; horizon?: Observes['horizon'] };
  switch (envId) {
    case 'clustergym/Job-v0':
    case 'clustergym/JobNode-v0':
    case 'clustergym/PolicyPair-v0':
      return { durations: o.durations ?? 'requested', horizon: o.horizon ?? 'seen' };
    case 'clustergym/Fair-v0':
    case 'clustergym/Malleable-v0':
      return { durations: o.durations ?? 'requested', horizon: 'seen' };
    case 'clustergym/Gpu-v0':
      // every job's remaining time at its rates (its steps are known, as Gavel's schedulers know them)
      return { durations: 'actual', horizon: 'seen' };
    default:
      return { durations: 'none', horizon: o.horizon ?? 'seen' };
  }
}
