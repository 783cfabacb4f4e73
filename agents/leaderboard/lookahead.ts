/**
 * `--lookahead`: a reference row (kind `reference`, never a competitor) for how far each policy is
 * from what a search that sees the future reaches, on the cluster settings (Job-v0, JobNode-v0,
 * PolicyPair-v0).
 *
 * **The base** is the setting's best heuristic as an agent plays it in the env
 * (`lookaheadBase`): Job-v0: `PriorityAgent` of the best heuristic's job order (the committed head
 * of `unfit: "reserve"`), or with `unfit: "mask"` `SchedulerAgent` of the best batch scheduler (it
 * re-chooses at every decision, EASY included); JobNode-v0:
 * `SchedulerAgent` of the best batch scheduler, or `irmasimAgent` of the best IRMaSim manager, in
 * an env that shows it the whole queue (`k` = the episode's jobs: the manager keeps its own queue
 * order, which is no window order of the env; so it reproduces the batch run within 0.1 % on
 * `hetero-energy`, where a 32-job window made it 10 to 20 times worse); PolicyPair-v0: the best fixed pair. A `random`
 * order or pair is not a base (the env draws it from another stream than the batch run). The env is
 * the setting's, with the base's job order as its window order (`queue_order`) and, on JobNode-v0,
 * its resource selection as the spill order (`resource_policy`): the agent-side fields a learned
 * model may set too (`AGENT_SIDE`); the jobs and the platform are the setting's. A second reference
 * row, `lookahead base: NAME (in env)`, is the base played in the env on the same episodes: how
 * close it is to the batch heuristic.
 *
 * **The search.** At a lookahead decision the candidates are the base's own action and the
 * heuristics' proposals: Job-v0: the `m` best-ranked valid jobs of each of RLScheduler's five orders
 * (fcfs, sjf, wfp3, unicep, f1); JobNode-v0: the same jobs, each with the node where each of a few
 * resource selections (the base's, first, high_gflops, low_power) would put its first task;
 * PolicyPair-v0: every pair. At most `candidates` of them (the base's first) are each tried on an
 * env clone and finished by the base in the env (`rolloutChoice`; a candidate that leads to the
 * state another one reached is not played again); the best is taken, the base's own unless another
 * is strictly better. Between lookahead decisions the base acts. By the rollout argument the row is
 * never worse than the base in the env on any episode (a test checks it on every episode).
 *
 * **Two references: oracle and parity.** The clone of the rollouts is either the episode itself
 * (`future: "episode"`, the **oracle** row `lookahead(...) (oracle: future arrivals, actual run
 * times)`): its rollouts contain the jobs not yet submitted and every job's actual run time, which no
 * policy on the leaderboard may observe; or the episode's known future (`future: "known"`, the
 * **parity** row `lookahead(...) (parity: known jobs, requested times)`): a clone with only the jobs
 * submitted so far, each still in the system running its requested time
 * (`ClusterEnv.clone({ future: 'known' })`, envs/knownFuture.ts), what a live scheduler knows at
 * that decision; the candidate is chosen on the metric of the known jobs in that rollout, and the
 * row's figure is, as every row's, the real episode's. The parity row is the reference a learned
 * policy can be held to (it observes what the policies observe: requested durations, the seen
 * horizon); the oracle row is how much knowing the future is worth on top. The rollout argument holds
 * for the oracle only: the parity search predicts a future that is not the episode's, so its row may
 * end an episode worse than its base, and the base's own action is played again at every lookahead
 * decision (the score of an earlier rollout is over other known jobs, no incumbent).
 *
 * **Cost.** A clone replays the episode's actions (`ClusterEnv.clone`), and a rollout plays the
 * rest of the episode, so each candidate costs about one episode of the base in the env: a
 * lookahead at every decision of a 256-job JobNode-v0 episode (about 500 decisions, up to 8
 * candidates, 0.3 s each on the loaded development machine) would cost about 20 minutes per episode. The search is therefore spent on `decisions` lookahead decisions per episode,
 * spread evenly over the base's episode (every `ceil(steps / decisions)`-th decision, at the next
 * decision with a choice); the setting file's `lookahead` object sets `m`, `candidates` and
 * `decisions` (`DEFAULT_LOOKAHEAD` otherwise). Looking ahead at a subset of decisions keeps the
 * guarantee. The row's `seconds` is its run time.
 *
 * The seed systems' envs (Malleable-v0, CoSched-v0, Fair-v0, Slurm-v0) have no lookahead row:
 * their clones replay the episode too (envs/episodeEnv.ts), so the same cost argument holds, and
 * their episodes are dearer (a CoSched-v0 episode plays for about 0.6 s: 8 lookahead decisions of 7
 * candidates would cost about 35 s per episode).
 */
import { InputError } from '../../src/core/errors.js';
import { Rng } from '../../src/core/rng.js';
import { makeJobSelection } from '../../src/scheduling/jobSelection.js';
import type { ResourcePolicy } from '../../src/scheduling/placement.js';
import { parsePolicyName } from '../../src/scheduling/policyName.js';
import { isResourceSelection, makeResourcePolicy } from '../../src/scheduling/resourceSelection.js';
import type { ClusterEnv, StepResult } from '../../envs/env.js';
import { JobEnv } from '../../envs/jobEnv.js';
import { JobNodeEnv } from '../../envs/jobNodeEnv.js';
import { PolicyPairEnv } from '../../envs/policyPairEnv.js';
import type { EnvContext } from '../../envs/context.js';
import type { RolloutFuture } from '../../envs/knownFuture.js';
import { LIVE_OBSERVES, type Observes } from '../../envs/observes.js';
import { makeContext, makeFromContext } from '../../envs/registry.js';
import { type Agent, irmasimAgent, PolicyPairAgent, PriorityAgent, rankedSlots, rolloutChoice, SchedulerAgent } from '../heuristics/index.js';
import { irmasimName } from './heuristics.js';
import { REFERENCE_OBSERVES } from './parity.js';
import { bestHeuristic, clusterMetric, type PolicyRow, type ReferencePlayer } from './run.js';
import type { Setting } from './settings.js';

/** The orders that propose candidate jobs (RLScheduler's five). */
export const LOOKAHEAD_ORDERS = ['fcfs', 'sjf', 'wfp3', 'unicep', 'f1'] as const;
/** The resource selections that propose nodes on JobNode-v0 (besides the base's own). */
export const LOOKAHEAD_RESOURCES = ['first', 'high_gflops', 'low_power'] as const;

/**
 * The search's budget: proposals per order, candidates per lookahead decision, lookahead decisions
 * per episode; for the sampled row, sampled futures per candidate and future arrivals in each.
 */
export interface LookaheadBudget {
  m: number;
  candidates: number;
  decisions: number;
  samples?: number;
  sampled_jobs?: number;
  /** The sampled row departs from the base's action only when better on its sampled futures by this many standard errors (`pairedBetter`). */
  confidence?: number;
}

/** The budget of a setting without a `lookahead` object. */
export const DEFAULT_LOOKAHEAD: Required<LookaheadBudget> = { m: 2, candidates: 8, decisions: 8, samples: 8, sampled_jobs: 128, confidence: 2 };

const CLUSTER_ENVS = ['clustergym/Job-v0', 'clustergym/JobNode-v0', 'clustergym/PolicyPair-v0'];

/** The base of a setting's lookahead: its agent, the env config it plays in, and the batch heuristic it plays. */
export interface LookaheadBase {
  /** The batch heuristic the agent plays (a row of the setting). */
  heuristic: PolicyRow;
  /** The env config: the setting's with the base's window and spill orders. */
  config: Record<string, unknown>;
  /** A fresh agent (the base binds to one episode's simulator at a time). */
  agent(): Agent;
}

/**
 * The base of `setting`'s lookahead from its heuristics' rows: the best complete heuristic that an
 * agent plays in the env (see the module comment).
 */
export function lookaheadBase(setting: Setting, rows: readonly PolicyRow[]): LookaheadBase {
  const nodeEnv = setting.env.id === 'clustergym/JobNode-v0';
  const playable = rows.filter((r) => {
    if (r.kind !== 'heuristic') return false;
    if (r.name.startsWith('irmasim:')) return nodeEnv;
    return parsePolicyName(r.name).job !== 'random' && (setting.env.id === 'clustergym/Job-v0' || !r.name.split('+')[0]!.endsWith(':random'));
  });
  const heuristic = bestHeuristic(playable, setting.lower_is_better);
  if (heuristic.name.startsWith('irmasim:')) {
    // IRMaSim's manager keeps its own queue order: the env shows it the whole queue
    const manager = (setting.heuristics.irmasim ?? []).find((wm) => irmasimName(wm) === heuristic.name)!;
    const k = makeContext(setting.env.id, setting.env.config).length;
    return { heuristic, config: { ...setting.env.config, k }, agent: () => irmasimAgent(manager) };
  }
  const spec = parsePolicyName(heuristic.name);
  const config: Record<string, unknown> = { ...setting.env.config, queue_order: spec.job };
  switch (setting.env.id) {
    case 'clustergym/Job-v0':
      config.resource_policy = spec.resource;
      // the committed head (unfit: reserve): the priority agent; re-choosing (unfit: mask): the batch scheduler itself, EASY included
      if (makeContext(setting.env.id, setting.env.config).config.unfit === 'mask') return { heuristic, config, agent: () => new SchedulerAgent(spec.name) };
      return { heuristic, config, agent: () => new PriorityAgent(spec.job) };
    case 'clustergym/JobNode-v0':
      config.resource_policy = spec.resource;
      return { heuristic, config, agent: () => new SchedulerAgent(spec.name) };
    case 'clustergym/PolicyPair-v0':
      return { heuristic, config, agent: () => new PolicyPairAgent(`${spec.job}:${spec.resource}`) };
    default:
      throw new InputError(`$.env.id: no lookahead on ${setting.env.id}`, `setting ${setting.name}`);
  }
}

/**
 * The proposals of the heuristics in `env`'s current state (see the module comment), in proposal
 * order; `orders` are the job orders that propose, in that order (default RLScheduler's five).
 */
export function proposer(env: ClusterEnv, m: number, baseResource: string, orders: readonly string[] = LOOKAHEAD_ORDERS): () => number[] {
  if (env instanceof PolicyPairEnv) {
    const all = env.pairs.map((_, a) => a);
    return () => all;
  }
  const selections = orders.map((o) => makeJobSelection(o as never, new Rng(0)));
  if (env instanceof JobEnv)
    return () => {
      const out: number[] = [];
      for (const o of selections) out.push(...rankedSlots(env, o, m));
      return out;
    };
  if (!(env instanceof JobNodeEnv)) throw new TypeError(`no lookahead proposals on ${env.id}`);
  const names = [...new Set([baseResource, ...LOOKAHEAD_RESOURCES])].filter((r) => isResourceSelection(r) && r !== 'random');
  const resources: ResourcePolicy[] = names.map((r) => makeResourcePolicy(r as never, new Rng(0)));
  return () => {
    const sim = env.sim;
    const mask = env.actionMask();
    const out: number[] = [];
    for (const o of selections)
      for (const slot of rankedSlots(env, o, m)) {
        const job = env.visibleJob(slot)!;
        for (const r of resources) {
          const cores = r.place(sim, job, env.config.node_fit);
          if (!cores) continue;
          const a = env.action(slot, sim.platform.coreNode[cores[0]!]!);
          if (mask[a] === 1) out.push(a);
        }
      }
    return out;
  };
}

/** A state's signature: the time and the running jobs with their cores (two candidates that reach the same one play the same episode). */
export function stateSignature(env: ClusterEnv): string {
  const sim = env.sim;
  const parts: string[] = [];
  for (const rj of sim.running()) parts.push(`${rj.job.id}@${rj.cores.join('.')}`);
  parts.sort();
  return `${sim.now}|${parts.join(',')}`;
}

/** The two lookahead references: what their rollouts' clones hold, their rows' names and what they observe. */
export const LOOKAHEAD_FUTURES: Record<RolloutFuture, { label: string; observes: Observes }> = {
  episode: { label: 'oracle: future arrivals, actual run times', observes: REFERENCE_OBSERVES },
  known: { label: 'parity: known jobs, requested times', observes: LIVE_OBSERVES },
  sampled: { label: 'sampled: known jobs, arrivals and run times drawn from the seen ones', observes: LIVE_OBSERVES },
  'known-jobs-actual-times': { label: 'half oracle: known jobs, actual run times', observes: { durations: 'actual', horizon: 'seen' } },
  'all-jobs-requested-times': { label: 'half oracle: future arrivals, requested times', observes: { durations: 'requested', horizon: 'future' } },
};

/** One episode of a lookahead: its metric, the base's in the env, and the work done. */
export interface LookaheadEpisode {
  metric: number;
  /**
   * The metric the search predicted for the episode it chose last (oracle: equal to `metric`, episodes
   * are deterministic; parity: the metric of the jobs known at that decision in its rollout).
   */
  predicted: number;
  base: number;
  /** Whether both episodes ended with every job done (not truncated). */
  complete: boolean;
  /** Lookahead decisions made and rollouts played. */
  lookaheads: number;
  rollouts: number;
}

/**
 * Plays the episode of `seed` with the lookahead over `base` (see the module comment); `lowerIsBetter`
 * and `metric` are the setting's; `future` is what the rollouts' clones hold (the oracle's episode,
 * or the known future of the parity reference).
 */
export function lookaheadEpisode(
  context: EnvContext,
  seed: number,
  base: Pick<LookaheadBase, 'agent'>,
  metric: string,
  lowerIsBetter: boolean,
  budget: LookaheadBudget,
  future: RolloutFuture = 'episode',
): LookaheadEpisode {
  const value = (r: StepResult) => clusterMetric(metric, r.info.metrics!);
  const score = (r: StepResult) => (lowerIsBetter ? 1 : -1) * value(r);
  const env = makeFromContext(context) as ClusterEnv;
  try {
    // the base alone: its figure and its number of decisions
    const alone = base.agent();
    env.reset({ seed });
    let r: StepResult | null = null;
    let steps = 0;
    if (!env.episodeOver)
      do {
        r = env.step(alone.act(env));
        steps++;
      } while (!r.terminated && !r.truncated);
    if (!r) throw new Error(`${context.id}: the episode of seed ${seed} has no decision`);
    const baseMetric = value(r);
    const baseDone = r.terminated;
    const stride = Math.max(1, Math.ceil(steps / budget.decisions));
    // The lookahead: the base acts, and every `stride` decisions the search chooses. `own` is the
    // base on the episode the search last chose (bound to the env, as the rollout that scored it
    // was, right after that choice), so its score is known: the candidates must beat it.
    let own = base.agent();
    let ownScore = score(r);
    const rollout = base.agent();
    env.reset({ seed });
    const propose = proposer(env, budget.m, String(env.config.resource_policy));
    let next = 0;
    let lookaheads = 0;
    let rollouts = 0;
    for (let i = 0; ; i++) {
      let a = own.act(env);
      let rebind = false;
      if (i >= next && lookaheads < budget.decisions) {
        const cands = [...new Set([a, ...propose()])].slice(0, budget.candidates);
        if (cands.length > 1) {
          const c = rolloutChoice(env, cands, rollout, score, {
            signature: stateSignature,
            future,
            samples: budget.samples ?? DEFAULT_LOOKAHEAD.samples,
            sampledJobs: budget.sampled_jobs ?? DEFAULT_LOOKAHEAD.sampled_jobs,
            ...(future === 'sampled' ? { confidence: budget.confidence ?? DEFAULT_LOOKAHEAD.confidence } : {}),
            ...(future === 'episode' ? { incumbent: { action: a, score: ownScore } } : {}),
          });
          rollouts += c.rollouts;
          lookaheads++;
          next = i + stride;
          if (future !== 'episode') ownScore = c.score;
          if (c.action !== a) {
            a = c.action;
            ownScore = c.score;
            rebind = true;
          }
        }
      }
      const s = env.step(a);
      if (s.terminated || s.truncated)
        return { metric: value(s), predicted: (lowerIsBetter ? 1 : -1) * ownScore, base: baseMetric, complete: baseDone && s.terminated, lookaheads, rollouts };
      if (rebind) own = base.agent();
    }
  } finally {
    env.close();
  }
}

/** The lookahead budget of a setting (its file's `lookahead`, else `DEFAULT_LOOKAHEAD`). */
export function lookaheadBudget(setting: Setting): LookaheadBudget {
  return { ...DEFAULT_LOOKAHEAD, ...(setting.lookahead ?? {}) };
}

/** The name of a lookahead row of `budget` whose rollouts hold `future`. */
export function lookaheadName(budget: LookaheadBudget, future: RolloutFuture): string {
  const b = { ...DEFAULT_LOOKAHEAD, ...budget };
  const sampled = future === 'sampled' ? `,s=${b.samples},n=${b.sampled_jobs},z=${b.confidence}` : '';
  return `lookahead(m=${budget.m},c=${budget.candidates},d=${budget.decisions}${sampled}) (${LOOKAHEAD_FUTURES[future].label})`;
}

/**
 * The reference players of a setting under `--lookahead`: the oracle lookahead, the parity lookahead,
 * the sampled lookahead and their base in the env (none on the seed systems' envs); `futures`: the lookaheads' (the first
 * must be `episode`: the base row reuses the oracle's episodes, it is played there).
 */
export function lookaheadPlayers(setting: Setting, futures: readonly RolloutFuture[] = ['episode', 'known', 'sampled']): ReferencePlayer[] {
  if (futures[0] !== 'episode') throw new Error(`internal error: the first lookahead must be the oracle's, got ${futures[0]}`);
  if (!CLUSTER_ENVS.includes(setting.env.id)) return [];
  const budget = lookaheadBudget(setting);
  let played: { seeds: readonly number[]; episodes: LookaheadEpisode[] } | null = null;
  const baseRow: ReferencePlayer = {
    name: 'lookahead base (in env)',
    model: 'reference',
    observes: LIVE_OBSERVES,
    async play(_s, seeds) {
      if (!played || played.seeds !== seeds) throw new Error('internal error: the lookahead base row plays after the lookahead row');
      return { per_episode: played.episodes.map((e) => e.base), complete: played.episodes.every((e) => e.complete) };
    },
  };
  const search = (future: RolloutFuture): ReferencePlayer => ({
    name: lookaheadName(budget, future),
    model: 'reference',
    observes: LOOKAHEAD_FUTURES[future].observes,
    async play(s, seeds, heuristics) {
      const base = lookaheadBase(s, heuristics);
      const context = makeContext(s.env.id, base.config);
      const episodes = seeds.map((seed) => lookaheadEpisode(context, seed, base, s.metric, s.lower_is_better, budget, future));
      if (future === 'episode') {
        baseRow.name = `lookahead base: ${base.heuristic.name} (in env)`;
        played = { seeds, episodes };
      }
      return { per_episode: episodes.map((e) => e.metric), complete: episodes.every((e) => e.complete) };
    },
  });
  return [...futures.map(search), baseRow];
}
