/**
 * Evaluation (DESIGN §7): the trained policy and the heuristics on the SAME held-out trajectories,
 * with the same metrics, and the report that shows them.
 *
 * - The learned policy plays each held-out episode greedily (its most probable valid action) in the
 *   environment: one env per seed, all stepped in lock-step with one forward pass per step.
 * - On Job-v0 with `unfit: "reserve"` (RLScheduler's setting: the chosen job is committed until it
 *   starts), a plain priority name (`fcfs`, `sjf`, `f1`, `wfp3`, `unicep`) is a `PriorityAgent`
 *   playing the SAME env as the policy: the same visible window, commitment and backfilling
 *   (`backfilling` of the env config). That is the comparison RLScheduler makes, decision for
 *   decision in the same decision model.
 * - Any other name (`fcfs+easy`, `sjf:first`, and every name on other envs) is a batch scheduler of
 *   `src/scheduling`, run by the `compare` machinery (`comparePolicies`) on the very jobs each
 *   episode holds (`EnvContext.episodeJobs`), with the env's platform, models, node fit, memory and
 *   walltime options and resource policy. So "fcfs+easy" is the real batch scheduler (it re-orders
 *   at every decision and is not limited to the visible window): a reference from outside the
 *   env's decision model.
 * - Episodes (`EvalEpisode`) are a seed and, optionally, a trajectory origin: `--origins` names the
 *   trajectories (job indices `origin .. origin + length - 1` of the trace); without origins, held-out
 *   seeds `EVAL_SEED_BASE + i` (from 2^32 up; training never uses seeds above 2^31) draw them.
 *
 * Each policy's figures are the means over episodes (equal weight per episode) of mean bsld, mean
 * wait, utilisation, makespan and energy (DESIGN §2.5), as `compare` averages trajectories.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EnvContext } from '../../envs/context.js';
import type { ClusterEnv } from '../../envs/env.js';
import { makeContext, makeFromContext } from '../../envs/registry.js';
import type { DictObservation } from '../../envs/observation.js';
import { ClusterSimulator, type JobRecord } from '../../src/execution/simulator.js';
import type { Summary } from '../../src/metrics/summary.js';
import { TimelineRecorder, type TimelineRow } from '../../src/metrics/writers.js';
import { comparePolicies, type PolicyMeans, type PolicyResult } from '../../src/scheduling/compare.js';
import { makeScheduler, parsePolicyName } from '../../src/scheduling/policyName.js';
import { runSimulation } from '../../src/scheduling/run.js';
import type { Job } from '../../src/workload/job.js';
import { canonicalJobSelection } from '../../src/scheduling/jobSelection.js';
import { evaluate, PriorityAgent } from '../heuristics/index.js';
import {
  comparisonBarsSvg,
  ganttJobsFromRecords,
  ganttNodesFromPlatform,
  ganttSvg,
  learningCurveSvg,
  utilisationSvg,
  writeReport,
  type GanttRecordLike,
  type ReportFigure,
  type ReportTable,
} from '../../src/report/index.js';
import { appendState, FeatureBatch } from './features.js';
import { limitsForConfig, type PolicyMeta } from './io.js';
import type { PolicyNetwork } from './network.js';
import { EVAL_SEED_BASE, type MetricsRow } from './train.js';

/** The heuristics evaluated by default: FCFS, SJF and F1, each without and with EASY backfilling (batch schedulers). */
export const DEFAULT_HEURISTICS = ['fcfs', 'fcfs+easy', 'sjf', 'sjf+easy', 'f1', 'f1+easy'] as const;
/** The heuristics evaluated by default in RLScheduler's setting (Job-v0, `unfit: "reserve"`): its five priorities, in the env. */
export const RLSCHEDULER_HEURISTICS = ['fcfs', 'sjf', 'f1', 'wfp3', 'unicep'] as const;

/** The default heuristics of an env: RLScheduler's five in its setting, else `DEFAULT_HEURISTICS`. */
export function defaultHeuristics(context: EnvContext): readonly string[] {
  return context.id === 'clustergym/Job-v0' && context.config.unfit === 'reserve' ? RLSCHEDULER_HEURISTICS : DEFAULT_HEURISTICS;
}

/** The metrics of the evaluation table, in order. */
export const EVAL_METRICS = ['mean_bsld', 'mean_wait', 'utilisation', 'makespan', 'energy'] as const;

/** A held-out episode: the seed of its reset and, when given, its trajectory's origin (else the seed draws it). */
export interface EvalEpisode {
  seed: number;
  origin?: number | undefined;
}

/** One policy's results on one episode. */
export interface EpisodeFigures {
  seed: number;
  /** The trajectory's first job index in the workload (-1 for generated episodes). */
  origin: number;
  /** Jobs in the episode, and those that ran to the end. */
  jobs: number;
  jobs_finished: number;
  mean_bsld: number;
  mean_wait: number;
  utilisation: number;
  makespan: number;
  energy: number;
}

/** One policy's results: means over the episodes (trajectories), and each one. */
export interface PolicyFigures extends PolicyMeans {
  per_trajectory: EpisodeFigures[];
}

/** The held-out seeds: `count` seeds from `EVAL_SEED_BASE + offset`. */
export function heldOutSeeds(count: number, offset = 0): number[] {
  return Array.from({ length: count }, (_, i) => EVAL_SEED_BASE + offset + i);
}

/** Held-out episodes: one per origin when `origins` are given (seeds from `EVAL_SEED_BASE + offset`), else `count` held-out seeds. */
export function heldOutEpisodes(count: number, offset = 0, origins?: readonly number[]): EvalEpisode[] {
  if (origins) return origins.map((origin, i) => ({ seed: EVAL_SEED_BASE + offset + i, origin }));
  return heldOutSeeds(count, offset).map((seed) => ({ seed }));
}

function means(name: string, per: EpisodeFigures[]): PolicyFigures {
  const m = (k: (typeof EVAL_METRICS)[number]) => per.reduce((a, e) => a + e[k], 0) / Math.max(1, per.length);
  return {
    name,
    mean_bsld: m('mean_bsld'),
    mean_wait: m('mean_wait'),
    utilisation: m('utilisation'),
    makespan: m('makespan'),
    energy: m('energy'),
    per_trajectory: per,
  };
}

function figures(e: { seed: number; origin: number }, jobs: number, s: Pick<Summary, (typeof EVAL_METRICS)[number] | 'jobs_finished'>): EpisodeFigures {
  return {
    seed: e.seed,
    origin: e.origin,
    jobs,
    jobs_finished: s.jobs_finished,
    mean_bsld: s.mean_bsld,
    mean_wait: s.mean_wait,
    utilisation: s.utilisation,
    makespan: s.makespan,
    energy: s.energy,
  };
}

/** The schedule of one episode: finished-job records and the timeline. */
export interface EpisodeTrace {
  seed: number;
  records: GanttRecordLike[];
  timeline: TimelineRow[];
}

/** Records what a simulator does (copies, since the simulator may reuse its arrays). */
class TraceListener {
  readonly records: GanttRecordLike[] = [];
  readonly timeline: TimelineRow[] = [];
  readonly recorder = new TimelineRecorder((r) => this.timeline.push(r));
  onEnd(_sim: ClusterSimulator, r: JobRecord): void {
    this.records.push({
      job: { id: r.job.id, type: r.job.type, ntasks: r.job.ntasks },
      start: r.start,
      finish: r.finish,
      state: r.state,
      cores: r.cores.slice(),
      nodes: r.nodes.slice(),
      releases: r.releases.slice(),
      commTime: r.commTime,
    });
  }
  onAdvance(sim: ClusterSimulator, from: number): void {
    this.recorder.onAdvance(sim, from);
  }
}

/** Resets `env` to episode `e`. */
function resetTo(env: ClusterEnv, e: EvalEpisode) {
  return env.reset({ seed: e.seed, ...(e.origin !== undefined ? { options: { origin: e.origin } } : {}) });
}

/**
 * Plays the network greedily on each episode (all envs stepped together). With `traceAt` (an index
 * of `episodes`), also records that episode's schedule (for the Gantt chart and the utilisation plot).
 */
export function evaluateNetwork(
  network: PolicyNetwork,
  context: EnvContext,
  episodes: readonly EvalEpisode[],
  traceAt = -1,
  name = 'ppo',
): { result: PolicyFigures; trace: EpisodeTrace | null } {
  const layout = network.layout;
  const envs: ClusterEnv[] = episodes.map(() => makeFromContext(context));
  const batch = new FeatureBatch(layout.rowSize, episodes.length, episodes.length * 16);
  const done: (EpisodeFigures | null)[] = episodes.map(() => null);
  const tracer = traceAt >= 0 ? new TraceListener() : null;
  const obs: DictObservation[] = envs.map((env, i) => {
    const r = resetTo(env, episodes[i]!);
    // the first decision point is the first submission: nothing has started or ended yet
    if (i === traceAt) env.sim.addListener(tracer!);
    return r.observation as DictObservation;
  });
  const active: number[] = [];
  for (;;) {
    active.length = 0;
    batch.clear();
    for (let i = 0; i < envs.length; i++) {
      if (done[i]) continue;
      active.push(i);
      appendState(batch, layout, obs[i]!, envs[i]!.actionMask());
    }
    if (active.length === 0) break;
    const choice = network.act(batch, null);
    active.forEach((i, j) => {
      const env = envs[i]!;
      const r = env.step(choice.actions[j]!);
      obs[i] = r.observation as DictObservation;
      if (r.terminated || r.truncated) {
        done[i] = figures({ seed: episodes[i]!.seed, origin: r.info.episode!.origin }, r.info.episode!.length, r.info.metrics!);
        if (i === traceAt) tracer!.recorder.finish(env.sim);
      }
    });
  }
  for (const e of envs) e.close();
  return {
    result: means(name, done as EpisodeFigures[]),
    trace: tracer ? { seed: episodes[traceAt]!.seed, records: tracer.records, timeline: tracer.timeline } : null,
  };
}

/** Whether heuristic `name` plays in the env itself (a `PriorityAgent`: plain priority names on Job-v0 with `unfit: "reserve"`). */
export function playsInEnv(name: string, context: EnvContext): boolean {
  if (context.id !== 'clustergym/Job-v0' || context.config.unfit !== 'reserve') return false;
  const c = canonicalJobSelection(name);
  return c !== null && c !== 'random';
}

/** A `PriorityAgent` on each episode of the env (RLScheduler's heuristic baseline, in the policy's own decision model). */
export function evaluatePriorityAgent(context: EnvContext, episodes: readonly EvalEpisode[], name: string): PolicyFigures {
  const env = makeFromContext(context);
  const r = evaluate(env, new PriorityAgent(name), episodes);
  env.close();
  return means(
    name,
    r.episodes.map((e) => figures(e, e.length, e.summary)),
  );
}

/** The jobs of episode `e` (from its reset's trajectory), without those that can never fit (the env rejects them). */
export function episodeJobs(context: EnvContext, e: EvalEpisode): Job[] {
  return fitting(context, context.episodeJobs(e.seed, e.origin).jobs);
}

/** `jobs` without those that can never fit the env's platform. */
function fitting(context: EnvContext, jobs: Job[]): Job[] {
  const probe = new ClusterSimulator(context.platform, [], { enforceMemory: context.config.enforce_memory });
  return jobs.filter((j) => probe.unfitReason(j) === null);
}

/** A heuristic name completed with the env's resource policy (`sjf+easy` -> `sjf:first+easy`). */
export function heuristicSpec(name: string, context: EnvContext): string {
  if (name.includes(':')) return name;
  const [job, ...bf] = name.split('+');
  return `${job}:${context.config.resource_policy}${bf.length ? `+${bf.join('+')}` : ''}`;
}

/**
 * Runs the heuristics on each held-out episode: plain priorities in the env itself on Job-v0 with
 * `unfit: "reserve"` (`playsInEnv`), the others as batch schedulers (the `compare` machinery).
 * Results in the order of `names`.
 */
export function evaluateHeuristics(context: EnvContext, episodes: readonly EvalEpisode[], names: readonly string[]): PolicyFigures[] {
  const c = context.config;
  const batchNames = names.filter((n) => !playsInEnv(n, context));
  const specs = batchNames.map((n) => parsePolicyName(heuristicSpec(n, context), undefined, 'heuristic policies'));
  const cut = specs.length > 0 ? episodes.map((e) => ({ e, ...context.episodeJobs(e.seed, e.origin) })) : [];
  const trajectories = cut.map((t) => ({ label: String(t.origin), jobs: fitting(context, t.jobs) }));
  const results: PolicyResult[] =
    specs.length > 0
      ? comparePolicies(context.platform, trajectories, specs, { seed: 0, fit: c.node_fit, enforceMemory: c.enforce_memory, walltimeKill: c.walltime_kill })
      : [];
  const batch = new Map(
    results.map((r, i) => [
      batchNames[i]!,
      means(
        batchNames[i]!,
        r.per_trajectory.map((t, j) => figures({ seed: cut[j]!.e.seed, origin: cut[j]!.origin }, t.jobs, t)),
      ),
    ]),
  );
  return names.map((n) => batch.get(n) ?? evaluatePriorityAgent(context, episodes, n));
}

/** The schedule of one heuristic on one episode (for a Gantt chart beside the policy's). */
export function heuristicTrace(context: EnvContext, e: EvalEpisode, name: string): EpisodeTrace {
  const c = context.config;
  const trace = new TraceListener();
  if (playsInEnv(name, context)) {
    const agent = new PriorityAgent(name);
    const env = makeFromContext(context);
    resetTo(env, e);
    env.sim.addListener(trace);
    for (;;) {
      const r = env.step(agent.act(env));
      if (r.terminated || r.truncated) break;
    }
    trace.recorder.finish(env.sim);
    env.close();
    return { seed: e.seed, records: trace.records, timeline: trace.timeline };
  }
  const spec = parsePolicyName(heuristicSpec(name, context), undefined, 'heuristic policies');
  const { sim } = runSimulation(context.platform, episodeJobs(context, e), makeScheduler(spec, { seed: 0, fit: c.node_fit }), {
    enforceMemory: c.enforce_memory,
    walltimeKill: c.walltime_kill,
    listeners: [trace],
  });
  trace.recorder.finish(sim);
  return { seed: e.seed, records: trace.records, timeline: trace.timeline };
}

/** The evaluation table's rows (policy, then the metrics). */
export function evaluationRows(policies: readonly PolicyFigures[]): (string | number)[][] {
  return policies.map((p) => [p.name, p.mean_bsld, p.mean_wait, p.utilisation, p.makespan, p.energy]);
}

/** Column titles of the evaluation table. */
export const EVAL_COLUMNS = ['policy', 'mean bsld', 'mean wait (s)', 'utilisation', 'makespan (s)', 'energy (J)'];

/** What a report needs. */
export interface ReportInput {
  title: string;
  intro: string;
  policies: PolicyFigures[];
  /** The learned policy's name (highlighted; default `ppo`). */
  highlight?: string | undefined;
  /** Training metrics (learning curve), when known. */
  metrics?: MetricsRow[] | undefined;
  context: EnvContext;
  /** The learned policy's schedule of one episode, and a heuristic's on the same episode. */
  traces?: { name: string; trace: EpisodeTrace }[] | undefined;
  /** More tables and figures, after the evaluation's (the demo's leaderboard row). */
  extras?: ReportExtras | undefined;
}

/** Tables and figures a caller adds to the evaluation report. */
export interface ReportExtras {
  tables?: ReportTable[];
  figures?: ReportFigure[];
}

/** Writes `dir/index.html` and its SVGs: learning curve, comparison bars, Gantt charts, utilisation. */
export function writeEvaluationReport(dir: string, r: ReportInput): string[] {
  const figures: ReportFigure[] = [];
  const m = r.metrics?.filter((x) => Number.isFinite(x.mean_return)) ?? [];
  const withBaseline = m.some((x) => Number.isFinite(x.mean_baseline_bsld));
  if (m.length > 0) {
    figures.push({
      file: 'learning_curve.svg',
      svg: learningCurveSvg(
        [
          { name: 'mean return', points: m.map((x) => ({ x: x.steps, y: x.mean_return })) },
          { name: 'mean bsld', points: m.map((x) => ({ x: x.steps, y: x.mean_bsld })), axis: 'right' },
          ...(withBaseline
            ? [{ name: 'baseline heuristic bsld', points: m.map((x) => ({ x: x.steps, y: x.mean_baseline_bsld })), axis: 'right' as const }]
            : []),
        ],
        { title: 'Training: episodes finished in each update', smoothing: 0.6 },
      ),
      title: 'Learning curve',
      caption:
        'Mean return (left axis) and mean bounded slowdown (right axis) of the training episodes that ended in each PPO update, against environment steps (faint: raw; bold: smoothed)' +
        (withBaseline ? '; with a baseline heuristic, its mean bsld on the same trajectories (the return is then relative to it: (b - bsld) / b).' : '.'),
    });
  }
  const highlight = r.highlight ?? 'ppo';
  const ppo = r.policies.find((p) => p.name === highlight);
  figures.push({
    file: 'comparison.svg',
    svg: comparisonBarsSvg(
      r.policies.map((p) => ({
        name: p.name,
        values: { mean_bsld: p.mean_bsld, mean_wait: p.mean_wait, utilisation: p.utilisation, makespan: p.makespan, energy: p.energy },
      })),
      [...EVAL_METRICS],
      { title: `Held-out trajectories (${r.policies[0]?.per_trajectory.length ?? 0} episodes)`, ...(ppo ? { highlight } : {}) },
    ),
    title: 'Comparison',
    caption: 'Means over the held-out episodes, the same jobs for every policy; the best value of each panel is starred.',
  });
  const nodes = ganttNodesFromPlatform(r.context.platform);
  for (const { name, trace } of r.traces ?? []) {
    figures.push({
      file: `gantt_${name.replace(/[^A-Za-z0-9_-]+/g, '_')}.svg`,
      svg: ganttSvg(
        { coreCount: r.context.platform.coreCount, nodes, jobs: ganttJobsFromRecords(trace.records) },
        { title: `Schedule of ${name}, held-out episode ${trace.seed}` },
      ),
      title: `Schedule: ${name}`,
      caption: `Cores (grouped by node) against time for episode ${trace.seed}; MPI jobs spanning nodes are hatched and joined. Hover a bar in the SVG for the job.`,
    });
  }
  const first = r.traces?.[0];
  if (first && first.trace.timeline.length > 1) {
    figures.push({
      file: 'utilisation.svg',
      svg: utilisationSvg(first.trace.timeline, { title: `Utilisation, queue and power under ${first.name}, episode ${first.trace.seed}` }),
      title: `Utilisation: ${first.name}`,
      caption: 'Fraction of busy cores, jobs waiting and power drawn over the episode, with time-weighted means.',
    });
  }
  const written = writeReport(dir, {
    title: r.title,
    intro: r.intro,
    tables: [
      { caption: 'Means over the held-out episodes', columns: EVAL_COLUMNS, rows: evaluationRows(r.policies), ...(ppo ? { highlight } : {}) },
      ...(r.extras?.tables ?? []),
    ],
    figures: [...figures, ...(r.extras?.figures ?? [])],
  });
  return [written.index, ...written.figures];
}

/** Writes evaluation.json. */
export function writeEvaluationJson(file: string, data: Record<string, unknown>): void {
  writeFileSync(file, `${JSON.stringify(data, null, 1)}\n`);
}

/** `metrics.csv` rows read back (for the learning curve of `evaluate`). */
export function parseMetricsCsv(text: string): MetricsRow[] {
  const lines = text.trim().split('\n');
  const header = lines[0]!.split(',');
  return lines.slice(1).map((l) => {
    const cells = l.split(',');
    return Object.fromEntries(header.map((h, i) => [h, cells[i] === '' || cells[i] === undefined ? NaN : Number(cells[i])])) as MetricsRow;
  });
}

/** Options of `evaluatePolicy`. */
export interface EvaluationOptions {
  /** The loaded policy network. */
  network: PolicyNetwork;
  /** Its name in the tables (default `ppo`; the CLI and the demo name a model by its method). */
  name?: string | undefined;
  /**
   * More learned policies played on the same episodes, each in the env with its own normalisation
   * limits and agent-side fields (`agentSide`: window order, spill order, placement, observe).
   */
  others?: readonly { name: string; network: PolicyNetwork; limits: PolicyMeta['limits']; agentSide?: Record<string, unknown> }[] | undefined;
  /** The env to evaluate on: the training config's env (its limits are replaced by `limits`). */
  env: { id: string; config: Record<string, unknown> };
  /** The normalisation limits the network was trained with. */
  limits: PolicyMeta['limits'];
  /** Held-out episodes (ignored with `origins`). */
  episodes: number;
  /** The trajectories to evaluate on, by origin (job index in the workload): one episode each. */
  origins?: readonly number[] | undefined;
  /** Heuristics to compare with (default: `defaultHeuristics` of the env). */
  heuristics?: readonly string[] | undefined;
  /** First held-out seed offset (seeds `EVAL_SEED_BASE + offset + i`). */
  seedOffset?: number | undefined;
  /** Directory of evaluation.json and the report (index.html, SVGs). */
  outDir: string;
  /** Training metrics for the learning curve. */
  metrics?: MetricsRow[] | undefined;
  /** Report title and introduction. */
  title?: string | undefined;
  intro?: string | undefined;
  /** Extra fields of evaluation.json. */
  extra?: Record<string, unknown> | undefined;
  /** More report tables and figures, made from the evaluated policies (`ppo` first) and the episodes' seeds. */
  reportExtras?: ((policies: readonly PolicyFigures[], seeds: readonly number[]) => ReportExtras) | undefined;
}

/** What `evaluatePolicy` returns. */
export interface EvaluationResult {
  /** The learned policy first (then `others`), then the heuristics. */
  policies: PolicyFigures[];
  seeds: number[];
  /** The trajectories' origins (-1 for generated episodes). */
  origins: number[];
  /** Files written (evaluation.json, index.html, the SVGs). */
  files: string[];
  seconds: number;
}

/**
 * The whole evaluation: the policy (greedy) and the heuristics on the same held-out episodes,
 * `evaluation.json`, and the report (comparison bars, learning curve when `metrics` are given,
 * Gantt charts of the policy and of FCFS on the first episode, the policy's utilisation).
 */
export function evaluatePolicy(o: EvaluationOptions): EvaluationResult {
  const t0 = performance.now();
  const context = makeContext(o.env.id, { ...o.env.config, limits: limitsForConfig(o.limits) });
  const episodes = heldOutEpisodes(o.episodes, o.seedOffset ?? 0, o.origins);
  const seeds = episodes.map((e) => e.seed);
  const heuristics = o.heuristics ?? defaultHeuristics(context);
  const name = o.name ?? 'ppo';
  const { result, trace } = evaluateNetwork(o.network, context, episodes, 0, name);
  const others = (o.others ?? []).map(
    (x) =>
      evaluateNetwork(x.network, makeContext(o.env.id, { ...o.env.config, ...(x.agentSide ?? {}), limits: limitsForConfig(x.limits) }), episodes, -1, x.name)
        .result,
  );
  const policies = [result, ...others, ...evaluateHeuristics(context, episodes, heuristics)];
  const origins = result.per_trajectory.map((t) => t.origin);
  mkdirSync(o.outDir, { recursive: true });
  const json = join(o.outDir, 'evaluation.json');
  writeEvaluationJson(json, {
    env_id: o.env.id,
    episodes: seeds.length,
    seeds,
    origins,
    length: context.length,
    backfilling: context.config.backfilling,
    ...(o.extra ?? {}),
    policies,
  });
  const traces: { name: string; trace: EpisodeTrace }[] = [];
  if (trace) traces.push({ name, trace });
  const best = policies.slice(1 + others.length).reduce<PolicyFigures | null>((b, p) => (b === null || p.mean_bsld < b.mean_bsld ? p : b), null);
  if (best) traces.push({ name: best.name, trace: heuristicTrace(context, episodes[0]!, best.name) });
  const inEnv = heuristics.filter((h) => playsInEnv(h, context));
  const which =
    origins[0]! >= 0
      ? `trajectories of ${context.length} jobs at origins ${origins.join(', ')}`
      : `held-out episodes (seeds ${seeds[0]} to ${seeds[seeds.length - 1]}; training never uses seeds above 2^31)`;
  const files = writeEvaluationReport(join(o.outDir, 'report'), {
    title: o.title ?? 'clustergym: PPO against the heuristics',
    intro:
      o.intro ??
      `${o.env.id}, ${seeds.length} ${which}, backfilling ${context.config.backfilling}. The learned policy acts greedily;` +
        (inEnv.length ? ` ${inEnv.join(', ')} pick jobs in the same env (RLScheduler's heuristic baselines);` : '') +
        (inEnv.length < heuristics.length ? ' the other heuristics are the batch schedulers on the same jobs.' : ''),
    policies,
    highlight: name,
    metrics: o.metrics,
    context,
    traces,
    extras: o.reportExtras?.(policies, seeds),
  });
  return { policies, seeds, origins, files: [json, ...files], seconds: (performance.now() - t0) / 1000 };
}
