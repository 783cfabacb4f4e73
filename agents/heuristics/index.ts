/**
 * Heuristic agents for every action mode (DESIGN §7): baselines that act through the environment
 * API, so a learned policy and the classic heuristics are evaluated on the same episodes, by the
 * same code, with the same metrics.
 *
 * | agent                    | modes                     | acts                                                       |
 * |--------------------------|---------------------------|------------------------------------------------------------|
 * | `PriorityAgent(sel)`     | Job-v0                    | the visible job that `sel` (fcfs, sjf, f1, wfp3, unicep, ...) ranks first among the valid ones; `wait` when none |
 * | `SchedulerAgent(policy)` | Job-v0, JobNode-v0        | the next job (and node) the batch scheduler `policy` (`JOB:RESOURCE[+BACKFILL]`, e.g. `fcfs:first+easy`) would start now; `wait` when it starts none |
 * | `irmasimAgent(manager)`  | Job-v0, JobNode-v0        | the same with one of IRMaSim's workload managers (`{type: 'Backfill', resource_selection: 'energy_lowest'}`, `EnergyHeuristic`, `Duplex`, `Heuristic`, `Minimal`) |
 * | `PolicyPairAgent(pair)`  | PolicyPair-v0             | always the action of `pair` (`job:resource`)                |
 * | `RandomMaskedAgent(seed)`| every mode                | a uniformly random valid action (seeded)                   |
 *
 * `PriorityAgent` on Job-v0 with `unfit: "reserve"` is RLScheduler's heuristic baseline: with the
 * queue ordered by the same priority (`queue_order`) it reproduces `compare --commit-head` exactly.
 * `SchedulerAgent` asks the batch scheduler itself (from `src/scheduling`) which job it would start
 * first at the current state, without letting it start anything; it re-asks at every decision, so
 * on Job-v0 with `unfit: "mask"` it follows the batch policy decision by decision (EASY included).
 *
 * `heuristicAgents(env)` lists the baselines that fit an environment; `runEpisode` and `evaluate`
 * play them.
 */
import { PythonRandom, Rng } from '../../src/core/rng.js';
import { makeIrmasimManager } from '../../src/scheduling/irmasim/index.js';
import type { ClusterSimulator } from '../../src/execution/simulator.js';
import type { Summary } from '../../src/metrics/summary.js';
import { canonicalJobSelection, makeJobSelection, type JobSelection } from '../../src/scheduling/jobSelection.js';
import { makeScheduler } from '../../src/scheduling/policyName.js';
import type { Scheduler } from '../../src/scheduling/scheduler.js';
import type { Job } from '../../src/workload/job.js';
import type { ClusterEnv, StepResult } from '../../envs/env.js';
import { DEFAULT_FUTURE_SAMPLE, type RolloutFuture } from '../../envs/knownFuture.js';
import { JobEnv } from '../../envs/jobEnv.js';
import { JobNodeEnv } from '../../envs/jobNodeEnv.js';
import { PolicyPairEnv } from '../../envs/policyPairEnv.js';
import { sampleMasked } from '../../envs/spaces.js';

/** An agent: picks an action for the environment's current state (the mask allows it). */
export interface Agent {
  readonly name: string;
  /** The action for `env`'s current state. */
  act(env: ClusterEnv): number;
}

/** A valid fallback: `wait` when allowed, else the first valid action. */
function fallback(env: ClusterEnv): number {
  const mask = env.actionMask();
  const wait = mask.length - 1;
  if ((env instanceof JobEnv || env instanceof JobNodeEnv) && mask[wait] === 1) return wait;
  return mask.indexOf(1);
}

/**
 * Job-v0: the valid visible job that a job-selection policy ranks first (lower key first; ties in
 * submission order, then slot order), or `wait` when no job is valid.
 */
export class PriorityAgent implements Agent {
  readonly name: string;
  private readonly selection: JobSelection;
  constructor(selection: string, seed = 0) {
    const c = canonicalJobSelection(selection);
    if (!c || c === 'random') throw new RangeError(`PriorityAgent needs a deterministic job selection, got ${JSON.stringify(selection)}`);
    this.selection = makeJobSelection(c, new Rng(seed));
    this.name = c;
  }
  act(env: ClusterEnv): number {
    const e = jobEnv(env);
    const mask = e.actionMask();
    const sim = e.sim;
    let best = -1;
    let bestKey = Infinity;
    let bestSub = Infinity;
    for (let j = 0; j < e.visibleCount; j++) {
      if (mask[j] !== 1) continue;
      const job = e.visibleJob(j)!;
      const key = this.selection.key(job, sim.now, sim.timeOrigin);
      if (best < 0 || ranksBefore(key, job.subtime, bestKey, bestSub)) {
        best = j;
        bestKey = key;
        bestSub = job.subtime;
      }
    }
    return best >= 0 ? best : fallback(env);
  }

  /**
   * The `m` valid visible slots the priority ranks first, best first (the order of `act`: lower key
   * first, ties in submission order, then slot order). Job-v0 only.
   */
  ranked(env: ClusterEnv, m: number): number[] {
    return rankedSlots(jobEnv(env), this.selection, m);
  }
}

/**
 * Job-v0 and JobNode-v0: the `m` visible slots whose job can start now (on some node) that
 * `selection` ranks first, best first (lower key first, ties in submission order, then slot order:
 * the order of `PriorityAgent.act`).
 */
export function rankedSlots(env: JobEnv | JobNodeEnv, selection: JobSelection, m: number): number[] {
  const sim = env.sim;
  const mask = env.actionMask();
  const N = env instanceof JobNodeEnv ? env.nodeCount : 1;
  const top: { slot: number; key: number; sub: number }[] = [];
  for (let j = 0; j < env.visibleCount; j++) {
    let valid = false;
    for (let n = 0; n < N && !valid; n++) valid = mask[j * N + n] === 1;
    if (!valid) continue;
    const job = env.visibleJob(j)!;
    const key = selection.key(job, sim.now, sim.timeOrigin);
    // insertion into the sorted top-m (m is small)
    let i = top.length;
    while (i > 0 && ranksBefore(key, job.subtime, top[i - 1]!.key, top[i - 1]!.sub)) i--;
    if (i < m) {
      top.splice(i, 0, { slot: j, key, sub: job.subtime });
      if (top.length > m) top.pop();
    }
  }
  return top.map((c) => c.slot);
}

/** Whether a job of priority key `key` submitted at `sub` ranks strictly before one of `(otherKey, otherSub)`. */
function ranksBefore(key: number, sub: number, otherKey: number, otherSub: number): boolean {
  return key < otherKey || (key === otherKey && sub < otherSub);
}

/** `env` as Job-v0 (what PriorityAgent acts on). */
function jobEnv(env: ClusterEnv): JobEnv {
  if (!(env instanceof JobEnv)) throw new TypeError(`PriorityAgent acts on Job-v0, not ${env.id}`);
  return env;
}

class Captured {
  constructor(
    readonly job: Job,
    readonly cores: Int32Array,
  ) {}
}

/**
 * Job-v0 and JobNode-v0: follows a batch scheduler (`JOB:RESOURCE[+BACKFILL]`). At each decision it
 * runs the scheduler on a view of the simulator whose `startJob` only records the first job the
 * scheduler wants to start (and its cores); the agent picks that job (on JobNode-v0, with the node
 * of its first core, or another node the mask allows for it). When the scheduler starts nothing, or
 * its job is outside the visible window, the agent waits (or takes the first valid action).
 */
export class SchedulerAgent implements Agent {
  readonly name: string;
  private scheduler: Scheduler | null = null;
  private sim: ClusterSimulator | null = null;
  private view: ClusterSimulator | null = null;
  private readonly make: (seed: number, env: ClusterEnv) => Scheduler;
  /**
   * `policy`: a policy name, or a name and a factory of fresh schedulers (one per episode; `seed` is the
   * agent's).
   */
  constructor(
    readonly policy: string | { name: string; make: (seed: number, env: ClusterEnv) => Scheduler },
    readonly seed = 0,
  ) {
    if (typeof policy === 'string') {
      this.name = makeScheduler(policy).name;
      this.make = (s, env) => makeScheduler(policy, { seed: s, fit: env.config.node_fit });
    } else {
      this.name = policy.name;
      this.make = policy.make;
    }
  }
  act(env: ClusterEnv): number {
    if (!(env instanceof JobEnv || env instanceof JobNodeEnv)) throw new TypeError(`SchedulerAgent acts on Job-v0 or JobNode-v0, not ${env.id}`);
    const sim = env.sim;
    if (sim !== this.sim) {
      // a new episode: a fresh scheduler bound to a capturing view of its simulator
      this.sim = sim;
      this.scheduler = this.make(this.seed, env);
      const view = Object.create(sim) as ClusterSimulator;
      view.startJob = (job: Job, cores: ArrayLike<number>) => {
        throw new Captured(job, Int32Array.from(cores));
      };
      this.view = view;
    }
    let got: Captured | null = null;
    try {
      this.scheduler!.schedule(this.view!);
    } catch (e) {
      if (!(e instanceof Captured)) throw e;
      got = e;
    }
    if (!got) return fallback(env);
    const mask = env.actionMask();
    let slot = -1;
    for (let j = 0; j < env.visibleCount; j++)
      if (env.visibleJob(j) === got.job) {
        slot = j;
        break;
      }
    if (slot < 0) return fallback(env);
    if (env instanceof JobEnv) return mask[slot] === 1 ? slot : fallback(env);
    const N = env.nodeCount;
    const node = sim.platform.coreNode[got.cores[0]!]!;
    if (mask[slot * N + node] === 1) return slot * N + node;
    for (let n = 0; n < N; n++) if (mask[slot * N + n] === 1) return slot * N + n;
    return fallback(env);
  }
}

/**
 * Job-v0 and JobNode-v0: one of IRMaSim's workload managers as an agent (the `workload_manager` object
 * of an IRMaSim options file, e.g. `{ type: 'EnergyHeuristic', metric: 'edp' }`), through
 * `SchedulerAgent`; its random choices draw from `PythonRandom(seed)` as IRMaSim's would. On JobNode-v0
 * the agent picks the job and the node the manager chose; the env lays the job out by its own rules.
 */
export function irmasimAgent(manager: Record<string, unknown>, seed = 0): SchedulerAgent {
  const probe = makeIrmasimManager(manager, new PythonRandom(seed), 'agent');
  return new SchedulerAgent({ name: probe.scheduler.name, make: (s) => makeIrmasimManager(manager, new PythonRandom(s), 'agent').scheduler }, seed);
}

/** PolicyPair-v0: always the same pair. */
export class PolicyPairAgent implements Agent {
  readonly name: string;
  constructor(readonly pair: string) {
    this.name = pair;
  }
  act(env: ClusterEnv): number {
    if (!(env instanceof PolicyPairEnv)) throw new TypeError(`PolicyPairAgent acts on PolicyPair-v0, not ${env.id}`);
    const want = canonicalPair(this.pair);
    const a = env.pairs.findIndex((p) => canonicalPair(p) === want);
    if (a < 0) throw new RangeError(`pair ${this.pair} is not among this env's actions (${env.pairs.join(', ')})`);
    return a;
  }
}

function canonicalPair(p: string): string {
  const [j, r] = p.split(':');
  return `${canonicalJobSelection(j!) ?? j}:${r}`;
}

/** Any mode: a uniformly random valid action. */
export class RandomMaskedAgent implements Agent {
  readonly name = 'random';
  private readonly rng: Rng;
  constructor(seed = 0) {
    this.rng = new Rng(`random-agent/${seed}`);
  }
  act(env: ClusterEnv): number {
    const a = sampleMasked(env.actionMask(), this.rng);
    if (a < 0) throw new Error(`${env.id}: no valid action (is the episode over?)`);
    return a;
  }
}

/**
 * The baselines that fit `env`: Job-v0: FCFS, SJF, F1, WFP3, UNICEP (priority agents; with
 * `unfit: "mask"` also `fcfs:first+easy` and `sjf:first+easy` scheduler agents); JobNode-v0: the
 * same five as scheduler agents and their EASY variants; PolicyPair-v0: one agent per pair.
 */
export function heuristicAgents(env: ClusterEnv): Agent[] {
  const five = ['fcfs', 'sjf', 'f1', 'wfp3', 'unicep'];
  if (env instanceof PolicyPairEnv) return env.pairs.map((p) => new PolicyPairAgent(p));
  const resource = env.config.resource_policy;
  if (env instanceof JobEnv) {
    const agents: Agent[] = five.map((s) => new PriorityAgent(s));
    if (!env.reserve) agents.push(new SchedulerAgent(`fcfs:${resource}+easy`), new SchedulerAgent(`sjf:${resource}+easy`));
    return agents;
  }
  return [...five.map((s) => new SchedulerAgent(`${s}:${resource}`)), ...five.map((s) => new SchedulerAgent(`${s}:${resource}+easy`))];
}

/** What a rollout's clones hold: the future (envs/knownFuture.ts) and, for a sampled one, how many futures and how many arrivals each. */
export interface RolloutFutureSpec {
  future?: RolloutFuture;
  /** Sampled futures per candidate (`future: "sampled"`; default 1): the candidate's score is the mean over them. */
  samples?: number;
  /** Future arrivals per sampled future (default `DEFAULT_FUTURE_SAMPLE.jobs`). */
  sampledJobs?: number;
}

/** A candidate's rollouts: the mean score, each sampled future's (one for the other futures), rollouts played, and whether it repeated a state already played. */
export interface RolloutScore {
  score: number;
  scores: number[];
  rollouts: number;
  repeat: boolean;
}

/**
 * The score of `action` in `env`'s state: taken on a clone of `env` (or on each of `spec.samples`
 * sampled futures' clones, the mean) and `base` playing the clone to the end. With `seen`, a
 * candidate whose first clone, after its step, has a signature in `seen` is not played again: it
 * returns that one's scores (`repeat`: true; the same state, the same episodes); otherwise its scores
 * are added there.
 */
export function rolloutScore(
  env: ClusterEnv,
  action: number,
  base: Agent,
  score: (end: StepResult) => number,
  spec: RolloutFutureSpec = {},
  seen?: { signature: (env: ClusterEnv) => string; scores: Map<string, RolloutScore> },
): RolloutScore {
  const future = spec.future ?? 'episode';
  const samples = future === 'sampled' ? (spec.samples ?? 1) : 1;
  const jobs = spec.sampledJobs ?? DEFAULT_FUTURE_SAMPLE.jobs;
  const scores: number[] = [];
  let sig: string | null = null;
  for (let i = 0; i < samples; i++) {
    const c = env.clone({ future, sample: { index: i, jobs } }) as ClusterEnv;
    try {
      let r = c.step(action);
      if (i === 0 && seen && !r.terminated && !r.truncated) {
        sig = seen.signature(c);
        const known = seen.scores.get(sig);
        if (known !== undefined) return { ...known, rollouts: 0, repeat: true };
      }
      while (!r.terminated && !r.truncated) r = c.step(base.act(c));
      scores.push(score(r));
    } finally {
      c.close();
    }
  }
  const out = { score: scores.reduce((a, b) => a + b, 0) / samples, scores, rollouts: samples, repeat: false };
  if (sig !== null) seen!.scores.set(sig, out);
  return out;
}

/**
 * Whether `cand` beats `own` on the same sampled futures with confidence `z`: the upper bound of the
 * paired mean difference (mean + z standard errors) is below 0 (with one future: its difference is).
 */
export function pairedBetter(cand: readonly number[], own: readonly number[], z: number): boolean {
  const n = cand.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += cand[i]! - own[i]!;
  mean /= n;
  if (n < 2) return mean < 0;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (cand[i]! - own[i]! - mean) ** 2;
  return mean + z * Math.sqrt(ss / (n - 1) / n) < 0;
}

/**
 * One step of the rollout algorithm (approximate dynamic programming's one-step lookahead): each
 * candidate action is taken on a clone of `env` and `base` plays the clone to the end; the
 * candidate whose episode scores lowest (`score` of the final step: lower is better) is returned.
 * `candidates[0]` must be `base`'s own action in this state: another candidate is chosen only when
 * strictly better, so, when `base` is deterministic, following the choice and then `base` never
 * ends worse than `base` alone (the policy-improvement argument). With `incumbent` (an action whose
 * episode's score is already known: the base's own, when the caller has followed the episode it
 * scored), that action is not played again and the candidates must beat its score. With
 * `signature`, a candidate whose clone, after its step, has the signature of one already played is
 * not played again (the same state: the same episode). With `future: "known"` the clones hold the
 * episode's known future (`ClusterEnv.clone`, envs/knownFuture.ts) instead of the episode itself;
 * with `future: "sampled"` each candidate is scored on `samples` sampled futures (the same ones for
 * every candidate of the state), the mean (`rolloutScore`), and with `confidence` (z) a candidate
 * must also beat the base's own action on those futures with that confidence (`pairedBetter`): the
 * best of 8 noisy means is otherwise often a candidate that only drew luckier futures.
 */
export function rolloutChoice(
  env: ClusterEnv,
  candidates: readonly number[],
  base: Agent,
  score: (end: StepResult) => number,
  options: { signature?: (env: ClusterEnv) => string; incumbent?: { action: number; score: number }; confidence?: number } & RolloutFutureSpec = {},
): { action: number; score: number; rollouts: number } {
  const { signature, incumbent, confidence } = options;
  let best = incumbent ? incumbent.action : candidates[0]!;
  let bestScore = incumbent ? incumbent.score : Infinity;
  let rollouts = 0;
  let own: readonly number[] | null = null;
  const seen = signature ? { signature, scores: new Map<string, RolloutScore>() } : undefined;
  for (const a of candidates) {
    if (incumbent && a === incumbent.action) continue;
    const r = rolloutScore(env, a, base, score, options, seen);
    rollouts += r.rollouts;
    if (a === candidates[0]) own = r.scores;
    if (r.repeat || r.score >= bestScore) continue;
    if (confidence !== undefined && own && a !== candidates[0] && !pairedBetter(r.scores, own, confidence)) continue;
    best = a;
    bestScore = r.score;
  }
  return { action: best, score: bestScore, rollouts };
}

/** Result of one episode. */
export interface EpisodeResult {
  summary: Summary;
  return: number;
  steps: number;
  seed: number;
  /** The trajectory's first job index in the workload (-1 for generated episodes). */
  origin: number;
  /** Jobs in the trajectory. */
  length: number;
}

/** Plays one episode of `agent` on `env` from `reset({ seed, options })`. */
export function runEpisode(env: ClusterEnv, agent: Agent, seed: number, options?: { origin?: number }): EpisodeResult {
  env.reset({ seed, options });
  let ret = 0;
  for (let steps = 1; ; steps++) {
    const r = env.step(agent.act(env));
    ret += r.reward;
    if (r.terminated || r.truncated)
      return { summary: r.info.metrics!, return: ret, steps, seed, origin: r.info.episode!.origin, length: r.info.episode!.length };
  }
}

/** Mean of the §2.5 metrics over episodes. */
export function meanSummary(summaries: readonly Summary[]): Summary {
  const keys = Object.keys(summaries[0]!) as (keyof Summary)[];
  const out = {} as Summary;
  for (const k of keys) out[k] = summaries.reduce((s, x) => s + x[k], 0) / summaries.length;
  return out;
}

/** An episode to play: a seed, or a seed with reset options (e.g. the trajectory's `origin`). */
export type EpisodeSpec = number | { seed: number; origin?: number };

/**
 * Plays `agent` on `episodes` (the same for every agent: seeds, or `{ seed, origin }` to replay the
 * trajectories `compare --origins` runs); per-episode results and the mean (equal weight per
 * episode, as `compare` averages trajectories).
 */
export function evaluate(env: ClusterEnv, agent: Agent, episodes: readonly EpisodeSpec[]): { name: string; episodes: EpisodeResult[]; mean: Summary } {
  const results = episodes.map((e) =>
    typeof e === 'number' ? runEpisode(env, agent, e) : runEpisode(env, agent, e.seed, e.origin === undefined ? undefined : { origin: e.origin }),
  );
  return { name: agent.name, episodes: results, mean: meanSummary(results.map((r) => r.summary)) };
}
