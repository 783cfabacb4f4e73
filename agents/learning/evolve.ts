/**
 * Evolution strategies for the linear masked policy (config `es`, docs/agents.md): a training
 * algorithm beside PPO for settings where whole-episode returns are cheap to get and a gradient
 * through the env's many small decisions is not.
 *
 * The policy is the shipped network with no hidden layers (`network.kernel: []`, `network.wait: []`):
 * each candidate row `x` (a job, or a job x node pair on JobNode-v0, features.ts) scores
 * `w . x + b`, `wait` scores `v . p + c` on the state's pooled features `p`, and the policy plays the
 * highest score (greedy, ties to the first candidate: `choose` without a random stream). Its
 * parameters `theta = (w, b, v, c)` are trained by the antithetic, rank-shaped evolution-strategies
 * step of es.ts on whole episodes, with
 *
 *     fitness(theta) = mean over the generation's episodes e of bsld(theta, e) / bsld(reference, e)
 *                      (`fitness: "ratio_of_means"`: sum over e of bsld(theta, e) / sum of bsld(reference, e))
 *
 * Every candidate of a generation plays the same `episodes` training episodes (common random numbers), and each episode's
 * bsld is divided by the reference batch scheduler's on the same jobs (`reference`, e.g.
 * `unicep:high_gflops+easy`, run as `clustergym simulate` runs it), so a fitness of 0.95 is "5 %
 * below the reference" whatever the episode's load.
 *
 * `search` first tunes a few named parameters by coordinate search on the validation episodes
 * (each listed value tried in turn, the best kept), then ES starts from there.
 *
 * With `validation_episodes`, the initial theta and each generation's are scored on a fixed set of
 * training episodes and the model is the best of them: the rank-shaped step follows the gradient of
 * the Gaussian-smoothed fitness, whose optimum can lie away from a sharp optimum of the fitness itself.
 *
 * Budget: `generations`, and the run also stops after the generation during which `total_steps` env
 * steps or `time_limit` seconds were reached (the search and generations do not start past
 * `total_steps`).
 *
 * Seeds: the noise of generation g is `derive(seed, 'es/noise/<g>')` and its episodes' reset seeds
 * are drawn from `derive(seed, 'es/episodes/<g>')` below 2^31 (the training range; the leaderboard
 * evaluates from 2^32). A run is deterministic by its seed, and a checkpoint (`es.json`: the
 * generation and theta) resumes it exactly, since generation g's draws depend only on g.
 */
import { readFileSync, writeFileSync, appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../../src/core/errors.js';
import { derive } from '../../src/core/rng.js';
import { ClusterSimulator } from '../../src/execution/simulator.js';
import { makeScheduler, parsePolicyName } from '../../src/scheduling/policyName.js';
import { runSimulation } from '../../src/scheduling/run.js';
import type { EnvContext } from '../../envs/context.js';
import type { Agent } from '../heuristics/index.js';
import type { DictObservation } from '../../envs/observation.js';
import { makeContext, makeFromContext } from '../../envs/registry.js';
import { parseIrmasimName, runClusterHeuristic } from '../leaderboard/heuristics.js';
import { selectBackend, tf } from './backend.js';
import { cpuSeconds, modelIdentity } from './card.js';
import { checkpointDir } from './checkpoint.js';
import { esGeneration, keepBest } from './es.js';
import { type EsConfig, type PpoConfig, portableConfig } from './config.js';
import { appendState, FeatureBatch, POOLED_FEATURES, POOLED_SIZE, rowFeatureNames, rowLayout, type RowLayout } from './features.js';
import { saveModelDir } from './io.js';
import { buildModel, PolicyNetwork } from './network.js';
import { METRICS_COLUMNS, type MetricsRow, type TrainOptions, type TrainResult, writeModelCard } from './train.js';
import { TRAINING_SEEDS } from '../leaderboard/run.js';

/** The parameters of the linear policy, as a flat vector: kernel weights, kernel bias, wait weights, wait bias. */
export interface LinearLayout {
  rowSize: number;
  /** Total parameters: rowSize + 1 + POOLED_SIZE + 1. */
  size: number;
}

/** The parameter layout of rows of `rowSize` features. */
export function linearLayout(rowSize: number): LinearLayout {
  return { rowSize, size: rowSize + 2 + POOLED_SIZE };
}

/** The names of theta's entries (`row:<feature>`, `row_bias`, `wait:<pooled feature>`, `wait_bias`), for `es.init`. */
export function parameterNames(layout: RowLayout): string[] {
  return [...rowFeatureNames(layout.envId, layout.features).map((f) => `row:${f}`), 'row_bias', ...POOLED_FEATURES.map((f) => `wait:${f}`), 'wait_bias'];
}

/** The greedy action of the linear policy `theta` in the state held by `batch` (one state). */
export function linearAction(theta: Float64Array, batch: FeatureBatch, layout: RowLayout): number {
  const R = layout.rowSize;
  const rows = batch.rows;
  let best = -Infinity;
  let action = layout.waitAction;
  for (let r = 0; r < batch.rowCount; r++) {
    let s = theta[R]!;
    const o = r * R;
    for (let f = 0; f < R; f++) s += theta[f]! * rows[o + f]!;
    // float32 like the network, so the saved model plays the same actions
    s = Math.fround(s);
    if (s > best) {
      best = s;
      action = batch.rowAction[r]!;
    }
  }
  if (batch.hasWait[0] === 1) {
    let w = theta[R + 1 + POOLED_SIZE]!;
    for (let f = 0; f < POOLED_SIZE; f++) w += theta[R + 1 + f]! * batch.pooled[f]!;
    if (Math.fround(w) > best) action = layout.waitAction;
  }
  return action;
}

/** Plays `theta` greedily on the episode of reset seed `seed`; its mean bsld and its steps. */
export function playLinear(
  theta: Float64Array,
  context: EnvContext,
  layout: RowLayout,
  seed: number,
  batch: FeatureBatch,
  metric: EsMetric = 'mean_bsld',
): { bsld: number; value: number; steps: number } {
  const env = makeFromContext(context);
  let obs = env.reset({ seed }).observation as DictObservation;
  let steps = 0;
  try {
    for (;;) {
      batch.clear();
      appendState(batch, layout, obs, env.actionMask());
      const r = env.step(linearAction(theta, batch, layout));
      steps++;
      if (r.terminated || r.truncated) return { bsld: r.info.metrics!.mean_bsld, value: metricOf(metric, r.info.metrics!), steps };
      obs = r.observation as DictObservation;
    }
  } finally {
    env.close();
  }
}

/** The metrics ES can train for (the leaderboard's cluster metrics). */
export type EsMetric = 'mean_bsld' | 'mean_wait' | 'edp';

/** An episode's metric from its summary (`edp`: energy in J x makespan in s). */
export function metricOf(metric: EsMetric, s: { mean_bsld: number; mean_wait: number; energy: number; makespan: number }): number {
  return metric === 'edp' ? s.energy * s.makespan : s[metric];
}

/** The reference batch scheduler's metric on each episode (cached by seed). */
export class ReferenceScores {
  private readonly cache = new Map<number, number>();
  private readonly probe: ClusterSimulator;

  private readonly irmasim: ReturnType<typeof parseIrmasimName> | null;

  constructor(
    private readonly context: EnvContext,
    readonly policy: string,
    readonly metric: EsMetric = 'mean_bsld',
    /** The reference keeps its chosen head job until it starts (`compare --commit-head`). */
    readonly commitHead = false,
  ) {
    // a policy name (`JOB:RESOURCE[+BACKFILL]`) or an IRMaSim manager as the leaderboard names it
    this.irmasim = policy.startsWith('irmasim:') ? parseIrmasimName(policy, '$.es.reference') : null;
    if (!this.irmasim) parsePolicyName(policy, 'none', '$.es.reference');
    this.probe = new ClusterSimulator(context.platform, [], { enforceMemory: context.config.enforce_memory });
  }

  /**
   * The reference's metric (by default mean bsld) on the jobs of episode `seed` (those that fit the
   * platform, as the env keeps them); NaN when an IRMaSim reference cannot run the episode.
   */
  bsld(seed: number): number {
    let b = this.cache.get(seed);
    if (b === undefined) {
      const c = this.context.config;
      const jobs = this.context.episodeJobs(seed).jobs.filter((j) => this.probe.unfitReason(j) === null);
      const o = { enforceMemory: c.enforce_memory, walltimeKill: c.walltime_kill };
      if (this.irmasim) {
        try {
          b = metricOf(this.metric, runClusterHeuristic(this.irmasim, this.context.platform, jobs, { ...o, fit: c.node_fit, commitHead: false }));
        } catch {
          // an IRMaSim manager's placement ignores node memory, and the engine refuses such a start:
          // no reference on this episode (the leaderboard lists the manager as incomplete there)
          b = Number.NaN;
        }
      } else {
        const scheduler = makeScheduler(this.policy, { seed: 0, fit: c.node_fit, commitHead: this.commitHead });
        b = metricOf(this.metric, runSimulation(this.context.platform, jobs, scheduler, o).summary);
      }
      this.cache.set(seed, b);
    }
    return b;
  }
}

/**
 * A policy's fitness relative to the reference over the episodes `seeds` (lower is better): the mean
 * over episodes of its metric over the reference's (`mean_ratio`), or the ratio of the sums
 * (`ratio_of_means`), over the episodes the reference could run (all of them with a policy-name
 * reference; 1 when none). `play` plays one episode; its steps and the episodes are counted into `count`.
 */
export function relativeFitness(
  es: Pick<EsConfig, 'fitness'>,
  reference: ReferenceScores,
  seeds: readonly number[],
  play: (seed: number) => { value: number; steps: number },
  count: { steps: number; episodes: number },
): number {
  let f = 0;
  let sum = 0;
  let refSum = 0;
  let n = 0;
  for (const seed of seeds) {
    const ref = reference.bsld(seed);
    if (!Number.isFinite(ref)) continue;
    const r = play(seed);
    count.steps += r.steps;
    count.episodes++;
    f += r.value / ref;
    sum += r.value;
    refSum += ref;
    n++;
  }
  if (n === 0) return 1;
  return es.fitness === 'ratio_of_means' ? sum / refSum : f / n;
}

/** Plays `agent` on the episode of reset seed `seed` in a fresh env of `context`; the episode's metric and its steps. */
export function playAgent(agent: Agent, context: EnvContext, seed: number, metric: EsMetric): { value: number; steps: number } {
  const env = makeFromContext(context);
  try {
    env.reset({ seed });
    for (let steps = 1; ; steps++) {
      const r = env.step(agent.act(env));
      if (r.terminated || r.truncated) return { value: metricOf(metric, r.info.metrics!), steps };
    }
  } finally {
    env.close();
  }
}

/** es.json of a checkpoint: the generations done and theta after them (flat.ts extends it). */
export const EsStateSchema = z
  .object({
    generation: z.number().int().min(0),
    steps: z.number().int().min(0),
    episodes: z.number().int().min(0),
    theta: z.array(z.number()),
    /** The best theta on the validation episodes so far, and its fitness there (with `validation_episodes`). */
    best: z
      .object({ generation: z.number().int().min(0), fitness: z.number(), theta: z.array(z.number()) })
      .strict()
      .nullable()
      .default(null),
  })
  .strict();

/** The progress of an ES run. */
export type EsState = z.infer<typeof EsStateSchema>;

function readEsState(dir: string, size: number): EsState {
  const file = join(dir, 'es.json');
  if (!existsSync(file)) throw new InputError('es.json is missing: not a checkpoint of an evolution-strategies run', dir);
  const r = EsStateSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!r.success) throw inputErrorFromIssues(file, r.error.issues);
  if (r.data.theta.length !== size) throw new InputError(`$.theta: ${r.data.theta.length} parameters, the policy has ${size}`, file);
  return r.data;
}

/** theta from `es.init` (parameter name -> value; the others 0). */
export function initialTheta(init: Record<string, number>, layout: RowLayout): Float64Array {
  const names = parameterNames(layout);
  const theta = new Float64Array(names.length);
  for (const [k, v] of Object.entries(init)) {
    const i = names.indexOf(k);
    if (i < 0) throw new InputError(`$.es.init: no parameter ${JSON.stringify(k)}; expected one of ${names.join(', ')}`, 'es.init');
    theta[i] = v;
  }
  return theta;
}

/** The network holding linear policy theta (critic freshly initialised: ES does not use it). */
export function networkOf(theta: Float64Array, layout: RowLayout, c: PpoConfig): PolicyNetwork {
  const model = buildModel(layout.rowSize, c.network, c.seed);
  const R = layout.rowSize;
  const set = (name: string, w: Float64Array, b: number) => {
    const layer = model.getLayer(name);
    const tensors = [tf.tensor2d(Float32Array.from(w), [w.length, 1]), tf.tensor1d([b])];
    layer.setWeights(tensors);
    for (const t of tensors) t.dispose();
  };
  set('kernel_out', theta.subarray(0, R), theta[R]!);
  set('wait_out', theta.subarray(R + 1, R + 1 + POOLED_SIZE), theta[R + 1 + POOLED_SIZE]!);
  return new PolicyNetwork(model, layout);
}

/** Trains the linear policy of config `c` (which has `es`) by evolution strategies; writes the output directory as `train` does. */
export async function trainEs(c: PpoConfig, options: TrainOptions): Promise<TrainResult> {
  const es = c.es!;
  const tStart = performance.now();
  const cpuStart = process.cpuUsage();
  const log = options.log ?? (() => {});
  const backend = await selectBackend(c.backend);
  const context = makeContext(c.env.id, c.env.config);
  const env0 = makeFromContext(context);
  const layout = rowLayout(c.env.id as RowLayout['envId'], env0.k, env0.nodeCount, c.network.row_features);
  const limits = { ...env0.limits };
  env0.close();
  const size = linearLayout(layout.rowSize).size;
  const reference = new ReferenceScores(context, es.reference, es.metric, es.reference_commit_head);

  let theta = initialTheta(es.init, layout);
  let state: EsState = { generation: 0, steps: 0, episodes: 0, theta: [], best: null };
  if (options.resume) {
    state = readEsState(options.resume, size);
    theta = Float64Array.from(state.theta);
    log(`resuming from ${options.resume} at generation ${state.generation}`);
  }
  mkdirSync(options.outDir, { recursive: true });
  writeFileSync(join(options.outDir, 'config.json'), `${JSON.stringify(portableConfig(c, options.outDir), null, 1)}\n`);
  const metricsFile = join(options.outDir, 'metrics.csv');
  if (!options.resume || !existsSync(metricsFile)) writeFileSync(metricsFile, `${METRICS_COLUMNS.join(',')}\n`);

  const batch = new FeatureBatch(layout.rowSize, 1, 1024);
  const rows: MetricsRow[] = [];
  const t0 = performance.now();
  const fitness = (th: Float64Array, seeds: readonly number[]) =>
    relativeFitness(es, reference, seeds, (seed) => playLinear(th, context, layout, seed, batch, es.metric), state);
  const validationRng = derive(c.seed, 'es/validation');
  const validation = Array.from({ length: es.validation_episodes }, () => validationRng.int(2 ** 31));
  const validate = (g: number) => {
    if (validation.length === 0) return;
    const f = fitness(theta, validation);
    state.best = keepBest(state.best, g, f, theta);
    log(
      `generation ${g}: ${(100 * (f - 1)).toFixed(2)}% against ${es.reference} on the ${validation.length} validation episodes (best: generation ${state.best.generation})`,
    );
  };
  if (state.generation === 0 && Object.keys(es.search).length > 0) {
    if (validation.length === 0) throw new InputError('$.es.search needs validation_episodes > 0 (the search scores on them)', 'es.search');
    const names = parameterNames(layout);
    for (const [name, values] of Object.entries(es.search)) {
      if (state.steps >= c.total_steps) break;
      const i = names.indexOf(name);
      if (i < 0) throw new InputError(`$.es.search: no parameter ${JSON.stringify(name)}; expected one of ${names.join(', ')}`, 'es.search');
      let bestValue = theta[i]!;
      let bestF = fitness(theta, validation);
      for (const v of values) {
        if (state.steps >= c.total_steps) break; // the step budget covers the search too
        theta[i] = v;
        const f = fitness(theta, validation);
        if (f < bestF) {
          bestF = f;
          bestValue = v;
        }
      }
      theta[i] = bestValue;
      log(`search: ${name} = ${bestValue} (${(100 * (bestF - 1)).toFixed(2)}% against ${es.reference} on the validation episodes)`);
    }
  }
  if (state.generation === 0) validate(0);
  for (let g = state.generation; g < es.generations && state.steps < c.total_steps; g++) {
    const seedRng = derive(c.seed, `es/episodes/${g}`);
    const seeds = Array.from({ length: es.episodes }, () => seedRng.int(2 ** 31));
    const center = fitness(theta, seeds);
    const f = esGeneration(theta, es, derive(c.seed, `es/noise/${g}`), (candidate) => fitness(candidate, seeds));
    state.generation = g + 1;
    state.theta = Array.from(theta);
    validate(g + 1);
    const refs = seeds.map((s) => reference.bsld(s)).filter((b) => Number.isFinite(b));
    const refMean = refs.reduce((a, b) => a + b, 0) / Math.max(1, refs.length);
    const seconds = (performance.now() - t0) / 1000;
    const row: MetricsRow = {
      update: g + 1,
      steps: state.steps,
      episodes: state.episodes,
      mean_return: -center,
      mean_bsld: center * refMean,
      mean_wait: Number.NaN,
      policy_loss: Math.min(...f),
      value_loss: Number.NaN,
      entropy: Number.NaN,
      approx_kl: Number.NaN,
      clip_fraction: Number.NaN,
      explained_variance: Number.NaN,
      learning_rate: es.learning_rate,
      steps_per_s: state.steps / Math.max(1e-9, seconds),
      seconds,
      mean_baseline_bsld: refMean,
    };
    rows.push(row);
    appendFileSync(metricsFile, `${METRICS_COLUMNS.map((k) => (Number.isFinite(row[k]) ? String(row[k]) : '')).join(',')}\n`);
    options.onProgress?.({ steps: state.generation, totalSteps: es.generations, episodes: state.episodes, row });
    const timeUp = (c.time_limit !== null && seconds >= c.time_limit) || state.steps >= c.total_steps;
    const last = g + 1 === es.generations || timeUp;
    if ((c.checkpoint_every > 0 && (g + 1) % c.checkpoint_every === 0) || last) {
      const dir = checkpointDir(options.outDir, state.generation);
      await saveEsCheckpoint(dir, theta, layout, c, limits, state, backend.name);
      log(`checkpoint ${dir}`);
    }
    if (timeUp) {
      log(`${state.steps >= c.total_steps ? `${state.steps} env steps` : `time limit of ${c.time_limit} s`} reached after generation ${state.generation}`);
      break;
    }
  }
  // the model: the best theta on the validation episodes (or the last one without them)
  if (state.best) theta = Float64Array.from(state.best.theta);
  const network = networkOf(theta, layout, c);
  const modelDir = join(options.outDir, 'model');
  await saveModelDir(modelDir, network, { config: c, limits, steps: state.steps, backend: backend.name });
  const done = rows.slice(-5);
  writeModelCard(modelDir, {
    env_id: c.env.id,
    ...(c.setting !== undefined ? { setting: c.setting } : {}),
    ...modelIdentity(c),
    algorithm: 'es',
    seed: c.seed,
    // every episode seed training draws is below 2^31; the leaderboard evaluates from 2^32
    training_seeds: TRAINING_SEEDS,
    steps: state.steps,
    generations: state.generation,
    episodes: state.episodes,
    wall_seconds: (performance.now() - tStart) / 1000,
    cpu_seconds: cpuSeconds(cpuStart),
    es_seconds: (performance.now() - t0) / 1000,
    resumed_from: options.resume ?? null,
    backend: backend.name,
    tfjs: tf.version.tfjs,
    es: { ...es },
    ...(state.best ? { selected: { generation: state.best.generation, validation_fitness: state.best.fitness } } : {}),
    final_training: {
      generations: done.length,
      mean_bsld: done.reduce((a, r) => a + r.mean_bsld, 0) / Math.max(1, done.length),
      mean_reference_bsld: done.reduce((a, r) => a + r.mean_baseline_bsld, 0) / Math.max(1, done.length),
    },
  });
  return { modelDir, steps: state.steps, episodes: state.episodes, seconds: (performance.now() - t0) / 1000, backend, metrics: rows, network, limits };
}

/** A checkpoint of an ES run: the model directory, es.json and a trainer.json (so `resolveCheckpoint` finds it). */
async function saveEsCheckpoint(
  dir: string,
  theta: Float64Array,
  layout: RowLayout,
  c: PpoConfig,
  limits: TrainResult['limits'],
  state: EsState,
  backend: string,
): Promise<void> {
  const network = networkOf(theta, layout, c);
  try {
    await saveModelDir(dir, network, { config: c, limits, steps: state.steps, backend });
  } finally {
    network.dispose();
  }
  writeFileSync(join(dir, 'es.json'), `${JSON.stringify(state)}\n`);
  const trainer = {
    steps: state.steps,
    updates: state.generation,
    episodes: state.episodes,
    reward_rms: { mean: 0, var: 1, count: 1e-4 },
    returns: new Array<number>(c.num_envs).fill(0),
  };
  writeFileSync(join(dir, 'trainer.json'), `${JSON.stringify(trainer)}\n`);
}
