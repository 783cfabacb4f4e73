/**
 * The lookahead teacher of imitation (imitation.ts): the rollout algorithm of approximate dynamic
 * programming over a base policy, on env clones. At a labelled decision the candidates are the
 * base's own action, `wait` (when the mask allows it and the config asks for it), and the
 * heuristics' proposals of the leaderboard's lookahead (`proposer`: the `m` best-ranked valid jobs
 * of each of the job `orders`, by default RLScheduler's five, on JobNode-v0 each on the nodes a few
 * resource selections pick); at
 * most `candidates` of them are each taken on a clone of the env and the base plays the clone to the
 * end (a candidate that reaches a state already played is not played again: it scores as that one); the
 * label is the candidate whose episode scores best by the training metric, the base's own unless
 * another beats the base's episode by more than `margin` (relative): in a deterministic episode
 * almost any change moves the metric a little, and a departure for a tiny gain is mostly what the
 * future arrivals happened to be, which no state predicts. Following the label and then the base is
 * never worse than the base alone (the policy-improvement argument), and the teacher sees the
 * episode's future arrivals: the student learns what of its choices the current state predicts.
 * With `teacher_future: "known"` the clones hold the episode's known future instead
 * (`ClusterEnv.clone({ future: 'known' })`, envs/knownFuture.ts: the jobs submitted so far, each
 * still in the system running its requested time) and the label is scored on the known jobs: the
 * teacher then knows what the student and the heuristics know, and its labels are a function of
 * the state (up to the base's rollout), not of a future no state predicts; the policy-improvement
 * guarantee is then over the predicted future, not the episode. With `teacher_future: "sampled"`
 * each candidate is scored on `samples` sampled futures (the known future plus arrivals and run
 * times drawn from what the episode has shown so far; the same futures for every candidate of a
 * state), the mean, and departs from the base only where a candidate also beats the base's own action
 * on those futures by `confidence` standard errors (`pairedBetter`): a teacher under information
 * parity that still weighs future arrivals.
 *
 * The base is a model directory (`model:DIR`: a linear ES or network model, played greedily in
 * JavaScript, jsPolicy.ts) or a batch scheduler by name, played in the env as the leaderboard's
 * lookahead plays its base (`SchedulerAgent`; `PriorityAgent` of the order on Job-v0 with
 * `unfit: "reserve"`, where the chosen job is committed; `irmasimAgent` for an IRMaSim manager).
 */
import type { ClusterEnv, StepResult } from '../../envs/env.js';
import { JobEnv } from '../../envs/jobEnv.js';
import type { EnvContext } from '../../envs/context.js';
import { type Agent, PriorityAgent, pairedBetter, type RolloutScore, rolloutScore, SchedulerAgent, irmasimAgent } from '../heuristics/index.js';
import { parseIrmasimName } from '../leaderboard/heuristics.js';
import { proposer, stateSignature } from '../leaderboard/lookahead.js';
import { parsePolicyName } from '../../src/scheduling/policyName.js';
import { InputError } from '../../src/core/errors.js';
import { MODEL_PREFIX, type ImitationConfig } from './config.js';
import { metricOf, type EsMetric } from './evolve.js';
import { readModelMeta, loadModelDir } from './io.js';
import { JsPolicy } from './jsPolicy.js';
import { rowLayout } from './features.js';

/** A base policy: a fresh agent per episode or rollout (batch schedulers bind to one simulator at a time). */
export interface BasePolicy {
  name: string;
  agent(): Agent;
  /** A model base's normalisation limits (the student's env uses them, so the base sees what it was trained on). */
  limits?: Record<string, number>;
  /** A model base's agent-side env fields (window order, spill order, placement), which the student's env must share. */
  agentSide?: Record<string, unknown>;
  /** A model base's greedy policy. */
  policy?: JsPolicy;
}

/** The env config fields that shape an agent's view and actions (agents/leaderboard/models.ts `AGENT_SIDE`). */
const AGENT_SIDE = ['queue_order', 'resource_policy', 'placement', 'observe'] as const;

/** The base of `spec` (`model:DIR` or a batch scheduler's name) in env `context`. */
export async function loadBase(spec: string, context: EnvContext): Promise<BasePolicy> {
  if (spec.startsWith(MODEL_PREFIX)) {
    const dir = spec.slice(MODEL_PREFIX.length);
    const { meta, config } = readModelMeta(dir);
    if (meta.env_id !== context.id) throw new InputError(`$.imitation.base: the model plays ${meta.env_id}, the training env is ${context.id}`, dir);
    const layout = rowLayout(context.id as never, context.config.k, context.platform.nodeCount, config.network.row_features);
    const loaded = await loadModelDir(dir, layout);
    const policy = JsPolicy.of(loaded.network);
    loaded.network.dispose();
    const limits = Object.fromEntries(Object.entries(meta.limits).filter(([, v]) => v > 0));
    const agentSide = Object.fromEntries(AGENT_SIDE.filter((k) => k in config.env.config).map((k) => [k, config.env.config[k]]));
    return { name: `model ${dir}`, agent: () => policy.agent(dir), limits, agentSide, policy };
  }
  if (spec.startsWith('irmasim:')) {
    const h = parseIrmasimName(spec, '$.imitation.base');
    return { name: spec, agent: () => irmasimAgent(h.manager) };
  }
  const p = parsePolicyName(spec, 'none', '$.imitation.base');
  if (context.id === 'clustergym/Job-v0' && context.config.unfit === 'reserve') return { name: p.name, agent: () => new PriorityAgent(p.job) };
  return { name: p.name, agent: () => new SchedulerAgent(p.name) };
}

/** What one label cost and whether it departed from the base. */
export interface Label {
  action: number;
  /** The base's own action. */
  base: number;
  rollouts: number;
  /** The label's relative gain over the base's own episode (0 when it is the base's action). */
  gain: number;
  /** The other candidates whose episodes score within the margin of the label's. */
  alternatives: number[];
}

/** The lookahead teacher over `base` (see the module comment); `metric` scores the rollouts' episodes (lower is better). */
export class LookaheadTeacher {
  private readonly rollout: Agent;
  private readonly score: (end: StepResult) => number;

  constructor(
    readonly base: BasePolicy,
    readonly settings: Pick<ImitationConfig, 'm' | 'candidates' | 'wait' | 'margin' | 'orders'> &
      Partial<Pick<ImitationConfig, 'teacher_future' | 'samples' | 'sampled_jobs' | 'confidence'>>,
    metric: EsMetric,
  ) {
    this.rollout = base.agent();
    this.score = (r) => metricOf(metric, r.info.metrics!);
  }

  /**
   * The teacher's action in `env`'s current state, where the base plays `baseAction`, and the other
   * candidates that are as good (`alternatives`: their episodes score within `margin` of the
   * label's): in a deterministic episode several actions often lead to the same outcome, and the
   * student is then taught the set, not an arbitrary one of them.
   */
  label(env: ClusterEnv, baseAction: number): Label {
    const mask = env.actionMask();
    const wait = mask.length - 1;
    const cands = [baseAction];
    if (this.settings.wait && (env instanceof JobEnv ? !env.reserve : true) && mask[wait] === 1) cands.push(wait);
    for (const a of proposer(env, this.settings.m, String(env.config.resource_policy), this.settings.orders)()) cands.push(a);
    const unique = [...new Set(cands)].slice(0, this.settings.candidates);
    if (unique.length < 2) return { action: baseAction, base: baseAction, rollouts: 0, gain: 0, alternatives: [] };
    // every candidate's episode (one that reaches a state already played scores as that one)
    const scores = new Map<number, number>();
    const seen = { signature: stateSignature, scores: new Map<string, RolloutScore>() };
    const tf = this.settings.teacher_future ?? 'oracle';
    const spec = { future: tf === 'oracle' ? ('episode' as const) : tf, samples: this.settings.samples ?? 1, sampledJobs: this.settings.sampled_jobs };
    let rollouts = 0;
    // with sampled futures, a candidate must also beat the base's own on them with the configured confidence (pairedBetter)
    const perFuture = new Map<number, number[]>();
    for (const a of unique) {
      const r = rolloutScore(env, a, this.rollout, this.score, spec, seen);
      rollouts += r.rollouts;
      scores.set(a, r.score);
      perFuture.set(a, r.scores);
    }
    // the base's own unless another beats its episode by more than the margin
    const own = scores.get(baseAction)!;
    const z = this.settings.confidence;
    const eligible = (a: number) => a === baseAction || tf !== 'sampled' || z === undefined || pairedBetter(perFuture.get(a)!, perFuture.get(baseAction)!, z);
    let best = baseAction;
    for (const a of unique) if (scores.get(a)! < scores.get(best)! && eligible(a)) best = a;
    const gain = (own - scores.get(best)!) / Math.abs(own || 1);
    const action = best !== baseAction && gain > this.settings.margin ? best : baseAction;
    const target = scores.get(action)!;
    const alternatives = unique.filter((a) => a !== action && scores.get(a)! <= target + this.settings.margin * Math.abs(target || 1));
    return { action, base: baseAction, rollouts, gain: action === baseAction ? 0 : gain, alternatives };
  }
}
