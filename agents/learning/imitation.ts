/**
 * A neural policy by imitation of a lookahead teacher, then evolution-strategies fine-tuning (config
 * `imitation` with `es`, docs/agents.md). The network is the shipped actor's (network.ts: a kernel
 * MLP with hidden layers scoring every candidate row, a wait head); the critic is not used.
 *
 * 1. **DAgger** (Ross, Gordon and Bagnell, 2011) on training episodes (reset seeds below 2^31 from
 *    `derive(seed, 'imitation/episodes/<round>')`), `rounds` rounds of `episodes` episodes. In the
 *    first round the teacher drives (its label at the decisions it labels, the base between them:
 *    the leaderboard's budgeted lookahead); in the others the network drives, greedily, and the
 *    teacher labels the states IT visits, the states its own mistakes lead to. The teacher
 *    (teacher.ts) labels one decision in `label_every` (a phase drawn per episode) by a lookahead
 *    on env clones; the base labels one other decision in `base_every` (cheap labels that teach the
 *    base's behaviour where the teacher did not look), weighing `base_weight`. After each round the
 *    network is fitted on everything labelled so far: `epochs` epochs of shuffled minibatches of
 *    `minibatch` states, the weighted cross-entropy of the label under the masked softmax
 *    (`cloneStep`), Adam at `learning_rate`, gradients clipped to `max_grad_norm`.
 * 2. **Selection.** After each round the network plays the `es.validation_episodes` fixed training
 *    episodes (`derive(seed, 'es/validation')`, as evolve.ts) greedily; its fitness is its metric
 *    relative to the `es.reference` batch scheduler's on the same jobs (`relativeFitness`).
 * 3. **Fine-tuning** by the ES step of es.ts on every policy weight (kernel and wait head), from the
 *    best round's weights: `es.generations` generations of `2 x es.population` candidates on
 *    `es.episodes` episodes each (`derive(seed, 'es/episodes/<g>')`, noise `derive(seed, 'es/noise/<g>')`),
 *    each generation's weights scored on the validation episodes.
 *
 * The model is the best of every round and generation on the validation episodes. Episodes are
 * played in JavaScript (jsPolicy.ts), the model is saved as a tfjs model directory like every PPO
 * and ES model; its card says `method: "imitation+es"` (`"imitation"` when no generation ran),
 * `neural` (whether the network has a hidden layer), what it `observes`, and each phase's cost.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../../src/core/errors.js';
import { derive } from '../../src/core/rng.js';
import type { ClusterEnv } from '../../envs/env.js';
import type { DictObservation } from '../../envs/observation.js';
import { envObserves } from '../../envs/observes.js';
import { makeContext, makeFromContext } from '../../envs/registry.js';
import { TRAINING_SEEDS } from '../leaderboard/run.js';
import { selectBackend, tf } from './backend.js';
import { cpuSeconds, modelIdentity } from './card.js';
import { type PpoConfig, portableConfig } from './config.js';
import { esGeneration, keepBest, type BestTheta } from './es.js';
import { playAgent, ReferenceScores, relativeFitness } from './evolve.js';
import { appendState, FeatureBatch, POOLED_SIZE, rowLayout } from './features.js';
import { saveModelDir } from './io.js';
import { JsPolicy } from './jsPolicy.js';
import { buildModel, PolicyNetwork } from './network.js';
import { type BasePolicy, loadBase, LookaheadTeacher } from './teacher.js';
import { type MetricsRow, METRICS_COLUMNS, type TrainOptions, type TrainResult, writeModelCard } from './train.js';
import { cloneStep } from './update.js';
import { candidatePosition } from './warmStart.js';

/** The labelled states collected so far: each state's label (a candidate position), its weight, and the positions equivalent to the label. */
class Dataset {
  readonly states: FeatureBatch;
  chosen = new Int32Array(1024);
  weights = new Float32Array(1024);
  /** Equivalent positions of state i: `equiv[equivStart[i] .. equivStart[i + 1])`. */
  private equiv: number[] = [];
  private equivStart: number[] = [0];
  constructor(rowSize: number) {
    this.states = new FeatureBatch(rowSize, 1024, 1024 * 32);
  }
  get size(): number {
    return this.states.size;
  }
  /** Appends state `i` of `from` labelled `position` (the label's candidate position) with `weight`; `also`: positions as good as the label. */
  add(from: FeatureBatch, i: number, position: number, weight: number, also: readonly number[] = []): void {
    const n = this.states.size;
    if (n >= this.chosen.length) {
      const c = new Int32Array(this.chosen.length * 2);
      c.set(this.chosen);
      this.chosen = c;
      const w = new Float32Array(this.weights.length * 2);
      w.set(this.weights);
      this.weights = w;
    }
    this.chosen[n] = position;
    this.weights[n] = weight;
    for (const p of new Set([...equivalentRows(from, i, position), ...also])) if (p !== position) this.equiv.push(p);
    this.equivStart.push(this.equiv.length);
    this.states.appendFrom(from, i);
  }
  /** The positions equivalent to state k's label. */
  equivalent(k: number): number[] {
    return this.equiv.slice(this.equivStart[k]!, this.equivStart[k + 1]!);
  }
}

/** The other candidate positions of state i whose rows are identical to the row at `position` (none for `wait`). */
function equivalentRows(b: FeatureBatch, i: number, position: number): number[] {
  const r0 = b.rowStart[i]!;
  const n = b.rowStart[i + 1]! - r0;
  if (position >= n) return [];
  const R = b.rowSize;
  const x = (r0 + position) * R;
  const out: number[] = [];
  for (let p = 0; p < n; p++) {
    if (p === position) continue;
    const y = (r0 + p) * R;
    let same = true;
    for (let f = 0; f < R && same; f++) same = b.rows[x + f] === b.rows[y + f];
    if (same) out.push(p);
  }
  return out;
}

/** Figures of one DAgger round. */
interface RoundFigures {
  round: number;
  driver: string;
  teacher_labels: number;
  departures: number;
  base_labels: number;
  rollouts: number;
  loss: number;
  accuracy: number;
  validation_fitness: number;
  seconds: number;
}

/** Trains the network of `c` (which has `imitation` and `es`) by imitation then ES; writes OUT as `train` does. */
export async function trainImitation(c: PpoConfig, options: TrainOptions): Promise<TrainResult> {
  const im = c.imitation!;
  const es = c.es!;
  if (options.resume)
    throw new InputError('an imitation run keeps no checkpoints to resume from: train it again (it is deterministic by its seed)', options.resume);
  const tStart = performance.now();
  const cpuStart = process.cpuUsage();
  const log = options.log ?? (() => {});
  const backend = await selectBackend(c.backend);
  // the student's env: the config's, with a model base's normalisation limits (the base sees what it was trained on)
  const probe = makeContext(c.env.id, c.env.config);
  const base = await loadBase(im.base, probe);
  for (const [k, v] of Object.entries(base.agentSide ?? {})) {
    // `observe` as what it declares (a partial object and the filled-in defaults are the same)
    const mine = k === 'observe' ? envObserves(c.env.id, c.env.config) : probe.config[k as keyof typeof probe.config];
    const theirs = k === 'observe' ? envObserves(c.env.id, { observe: v }) : v;
    if (JSON.stringify(mine) !== JSON.stringify(theirs))
      throw new InputError(
        `$.env.config.${k}: the base model ${im.base} plays with ${k} ${JSON.stringify(theirs)}; the student's env must be the same (found ${JSON.stringify(mine)})`,
        '$.imitation.base',
      );
  }
  const envConfig = base.limits ? { ...c.env.config, limits: base.limits } : c.env.config;
  const context = makeContext(c.env.id, envConfig);
  const layout = rowLayout(c.env.id, context.config.k, context.platform.nodeCount, c.network.row_features);
  const limits = { ...context.limits };
  const network = new PolicyNetwork(buildModel(layout.rowSize, c.network, c.seed), layout);
  if (im.init === 'base') startAtBase(network, base, im.base, im.init_scale);
  const variables = network.model.trainableWeights
    .filter((w) => !w.name.startsWith('critic') && !(im.freeze_linear && w.name.includes('_skip')))
    .map((w) => w.read() as tf.Variable);
  const optimizer = tf.train.adam(im.learning_rate, 0.9, 0.999, 1e-5);
  const teacher = new LookaheadTeacher(base, im, es.metric);
  const reference = new ReferenceScores(context, es.reference, es.metric, es.reference_commit_head);
  const count = { steps: 0, episodes: 0 };
  const validationRng = derive(c.seed, 'es/validation');
  const validation = Array.from({ length: es.validation_episodes }, () => validationRng.int(2 ** 31));
  const validate = (p: JsPolicy) => relativeFitness(es, reference, validation, (seed) => playAgent(p.agent(), context, seed, es.metric), count);
  mkdirSync(options.outDir, { recursive: true });
  writeFileSync(join(options.outDir, 'config.json'), `${JSON.stringify(portableConfig(c, options.outDir), null, 1)}\n`);
  const metricsFile = join(options.outDir, 'metrics.csv');
  writeFileSync(metricsFile, `${METRICS_COLUMNS.join(',')}\n`);
  const baseFitness = relativeFitness(es, reference, validation, (seed) => playAgent(base.agent(), context, seed, es.metric), count);
  log(
    `imitation: the lookahead over ${base.name} (m ${im.m}, ${im.candidates} candidates${im.wait ? ', wait' : ''}, margin ${im.margin}, ${im.teacher_future} future) teaches a network of ${layout.rowSize}-feature rows; ` +
      `the base: ${(100 * (baseFitness - 1)).toFixed(2)}% against ${es.reference} on the ${validation.length} validation episodes`,
  );

  // ---- 1. DAgger rounds
  const data = new Dataset(layout.rowSize);
  const step = new FeatureBatch(layout.rowSize, 1, 1024);
  const shuffleRng = derive(c.seed, 'imitation/minibatches');
  const rounds: RoundFigures[] = [];
  const rows: MetricsRow[] = [];
  const t0 = performance.now();
  // the start (with `init: "base"`, the base itself) is a candidate too
  const initial = JsPolicy.of(network);
  const startFitness = validate(initial);
  let best: (BestTheta & { phase: string }) | null = keepPhase(null, 'start', 0, startFitness, initial.theta);
  log(`start (${im.init}): ${(100 * (startFitness - 1)).toFixed(2)}% against ${es.reference} on the validation episodes`);
  for (let round = 0; round < im.rounds; round++) {
    const tr = performance.now();
    const student = round > 0 ? JsPolicy.of(network) : null;
    const fig = { teacher_labels: 0, departures: 0, base_labels: 0, rollouts: 0 };
    const seedRng = derive(c.seed, `imitation/episodes/${round}`);
    for (let e = 0; e < im.episodes; e++) {
      const seed = seedRng.int(2 ** 31);
      const phase = seedRng.int(im.label_every);
      const basePhase = im.base_every > 0 ? seedRng.int(im.base_every) : -1;
      const env = makeFromContext(context) as ClusterEnv;
      const baseAgent = base.agent();
      try {
        env.reset({ seed });
        for (let i = 0; !env.episodeOver; i++) {
          const baseAction = baseAgent.act(env);
          step.clear();
          appendState(step, layout, env.observation as DictObservation, env.actionMask());
          let action = student ? student.act(step, 0) : baseAction;
          if (i % im.label_every === phase) {
            const l = teacher.label(env, baseAction);
            fig.teacher_labels++;
            fig.rollouts += l.rollouts;
            if (l.action !== baseAction) fig.departures++;
            data.add(
              step,
              0,
              candidatePosition(step, 0, l.action, layout.waitAction),
              1,
              l.alternatives.map((a) => candidatePosition(step, 0, a, layout.waitAction)),
            );
            if (!student) action = l.action;
          } else if (basePhase >= 0 && i % im.base_every === basePhase && im.base_weight > 0) {
            fig.base_labels++;
            data.add(step, 0, candidatePosition(step, 0, baseAction, layout.waitAction), im.base_weight);
          }
          env.step(action);
          count.steps++;
        }
        count.episodes++;
      } finally {
        env.close();
      }
    }
    // fit epoch by epoch, each scored on the validation episodes; the round keeps its best epoch
    let fit = { loss: Number.NaN, accuracy: Number.NaN };
    let roundBest: { f: number; theta: Float64Array; epoch: number } | null = null;
    for (let epoch = 0; epoch < im.epochs; epoch++) {
      fit = fitDataset(network, variables, optimizer, data, shuffleRng, im, c.max_grad_norm);
      const p = JsPolicy.of(network);
      const fe = validate(p);
      if (!roundBest || fe < roundBest.f) roundBest = { f: fe, theta: Float64Array.from(p.theta), epoch: epoch + 1 };
    }
    const policy = JsPolicy.of(network).withTheta(roundBest!.theta);
    policy.writeTo(network);
    const f = roundBest!.f;
    best = keepPhase(best, `imitation round ${round + 1} (epoch ${roundBest!.epoch})`, round + 1, f, policy.theta);
    const r: RoundFigures = {
      round: round + 1,
      driver: student ? 'network' : 'teacher',
      ...fig,
      loss: fit.loss,
      accuracy: fit.accuracy,
      validation_fitness: f,
      seconds: (performance.now() - tr) / 1000,
    };
    rounds.push(r);
    log(
      `imitation round ${r.round} (${r.driver} drives): ${r.teacher_labels} teacher labels (${r.departures} off the base, ${r.rollouts} rollouts), ${r.base_labels} base labels, ` +
        `${data.size} states in all; cross-entropy ${fit.loss.toFixed(4)}, agreement ${(100 * fit.accuracy).toFixed(1)}%; ` +
        `${(100 * (f - 1)).toFixed(2)}% against ${es.reference} on the ${validation.length} validation episodes; ${r.seconds.toFixed(0)} s`,
    );
    rows.push(metricsRow(round + 1, count, f, reference, validation, t0, fit.loss));
    appendFileSync(metricsFile, csv(rows[rows.length - 1]!));
    options.onProgress?.({ steps: round + 1, totalSteps: im.rounds + es.generations, episodes: count.episodes, row: rows[rows.length - 1]! });
  }
  optimizer.dispose();
  const imitationSeconds = (performance.now() - t0) / 1000;

  // ---- 2. ES fine-tuning of every policy weight, from the best round
  const t1 = performance.now();
  const start = JsPolicy.of(network).withTheta(best!.theta);
  const esFrom = best!.phase;
  const theta = Float64Array.from(start.theta);
  for (let g = 0; g < es.generations; g++) {
    if (c.time_limit !== null && (performance.now() - tStart) / 1000 >= c.time_limit) {
      log(`time limit of ${c.time_limit} s reached before generation ${g + 1}`);
      break;
    }
    const seedRng = derive(c.seed, `es/episodes/${g}`);
    const seeds = Array.from({ length: es.episodes }, () => seedRng.int(2 ** 31));
    esGeneration(theta, es, derive(c.seed, `es/noise/${g}`), (cand) =>
      relativeFitness(es, reference, seeds, (seed) => playAgent(start.withTheta(cand).agent(), context, seed, es.metric), count),
    );
    const f = validate(start.withTheta(theta));
    best = keepPhase(best, `es generation ${g + 1}`, im.rounds + g + 1, f, theta);
    log(`es generation ${g + 1}: ${(100 * (f - 1)).toFixed(2)}% against ${es.reference} on the validation episodes (best: ${best.phase})`);
    rows.push(metricsRow(im.rounds + g + 1, count, f, reference, validation, t0, Number.NaN));
    appendFileSync(metricsFile, csv(rows[rows.length - 1]!));
    options.onProgress?.({ steps: im.rounds + g + 1, totalSteps: im.rounds + es.generations, episodes: count.episodes, row: rows[rows.length - 1]! });
  }
  const esSeconds = (performance.now() - t1) / 1000;

  // ---- the model: the best round or generation on the validation episodes
  start.withTheta(best!.theta).writeTo(network);
  const modelDir = join(options.outDir, 'model');
  await saveModelDir(modelDir, network, { config: c, limits, steps: count.steps, backend: backend.name });
  const ran = Math.max(0, rows.length - im.rounds);
  writeModelCard(modelDir, {
    env_id: c.env.id,
    ...(c.setting !== undefined ? { setting: c.setting } : {}),
    ...modelIdentity(c, { lineage: lineageOf(best!.phase, esFrom), hiddenUsed: hiddenUsed(network) }),
    algorithm: 'imitation',
    seed: c.seed,
    // every episode seed training draws is below 2^31; the leaderboard evaluates from 2^32
    training_seeds: TRAINING_SEEDS,
    steps: count.steps,
    episodes: count.episodes,
    wall_seconds: (performance.now() - tStart) / 1000,
    cpu_seconds: cpuSeconds(cpuStart),
    imitation_seconds: imitationSeconds,
    es_seconds: esSeconds,
    backend: backend.name,
    tfjs: tf.version.tfjs,
    network: { kernel: c.network.kernel, wait: c.network.wait, activation: c.network.activation, row_features: c.network.row_features, parameters: start.size },
    imitation: { ...im, base_validation_fitness: baseFitness, rounds_run: rounds },
    es: { ...es, generations_run: ran },
    selected: { phase: best!.phase, validation_fitness: best!.fitness },
  });
  return { modelDir, steps: count.steps, episodes: count.episodes, seconds: (performance.now() - t0) / 1000, backend, metrics: rows, network, limits };
}

/**
 * `init: "base"`: the network's linear paths (`network.skip`) set to the linear base model's weights
 * times `scale`; its MLPs' output layers are zero, so it plays exactly as the base.
 */
export function startAtBase(network: PolicyNetwork, base: Pick<BasePolicy, 'policy'>, spec: string, scale = 1): void {
  const p = base.policy;
  const R = network.layout.rowSize;
  if (!p || p.size !== R + 2 + POOLED_SIZE || p.layout.rowSize !== R)
    throw new InputError(
      `$.imitation.init: "base" needs a linear base model with the student's ${R}-feature rows (network.row_features); ${spec} is ${p ? `a policy of ${p.size} parameters on ${p.layout.rowSize}-feature rows` : 'not a model'}`,
      '$.imitation.base',
    );
  const t = p.theta;
  const set = (name: string, w: Float64Array, b: number) => {
    const tensors = [
      tf.tensor2d(
        Float32Array.from(w, (x) => x * scale),
        [w.length, 1],
      ),
      tf.tensor1d([b * scale]),
    ];
    network.model.getLayer(name).setWeights(tensors);
    for (const x of tensors) x.dispose();
  };
  set('kernel_skip', t.subarray(0, R), t[R]!);
  set('wait_skip', t.subarray(R + 1, R + 1 + POOLED_SIZE), t[R + 1 + POOLED_SIZE]!);
}

/** How the selected weights came about: the phase selected, and (for an ES generation) the phase ES started from. */
function lineageOf(selected: string, esFrom: string): 'start' | 'imitation' | 'imitation+es' | 'es' {
  if (selected === 'start') return 'start';
  if (selected.startsWith('imitation')) return 'imitation';
  return esFrom.startsWith('imitation') ? 'imitation+es' : 'es';
}

/** Whether the network's hidden layers feed its scores (some output-layer weight of a head's MLP is not zero). */
function hiddenUsed(network: PolicyNetwork): boolean {
  for (const name of ['kernel_out', 'wait_out']) {
    const layer = network.model.layers.find((l) => l.name === name);
    const inputs = (layer?.getWeights()[0]?.shape as number[] | undefined)?.[0] ?? 0;
    // a head without hidden layers reads the features directly: that is not a hidden layer's output
    const hidden = network.model.layers.some((l) => l.name.startsWith(name.replace('_out', '_')) && /_\d+$/.test(l.name));
    if (hidden && inputs > 0 && (layer!.getWeights()[0]!.dataSync() as Float32Array).some((v) => v !== 0)) return true;
  }
  return false;
}

/** `best` kept with the phase that produced it. */
function keepPhase(best: (BestTheta & { phase: string }) | null, phase: string, g: number, f: number, theta: ArrayLike<number>): BestTheta & { phase: string } {
  const b = keepBest(best, g, f, theta);
  return b === best ? best : { ...b, phase };
}

/** One epoch of weighted cloning steps over the dataset; its mean loss and agreement. */
function fitDataset(
  network: PolicyNetwork,
  variables: tf.Variable[],
  optimizer: tf.Optimizer,
  data: Dataset,
  rng: ReturnType<typeof derive>,
  im: NonNullable<PpoConfig['imitation']>,
  maxGradNorm: number,
): { loss: number; accuracy: number } {
  const n = data.size;
  const order = Int32Array.from({ length: n }, (_, i) => i);
  const mb = new FeatureBatch(data.states.rowSize, im.minibatch, im.minibatch * 8);
  const mbChosen = new Int32Array(im.minibatch);
  const mbWeights = new Float32Array(im.minibatch);
  const mbEquivalent: number[][] = [];
  let loss = 0;
  let accuracy = 0;
  let batches = 0;
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const x = order[i]!;
    order[i] = order[j]!;
    order[j] = x;
  }
  for (let s = 0; s < n; s += im.minibatch) {
    mb.clear();
    const idx = order.subarray(s, Math.min(n, s + im.minibatch));
    idx.forEach((k, p) => {
      mb.appendFrom(data.states, k);
      mbChosen[p] = data.chosen[k]!;
      mbWeights[p] = data.weights[k]!;
      mbEquivalent[p] = data.equivalent(k);
    });
    const r = cloneStep(network, variables, optimizer, mb, mbChosen.subarray(0, idx.length), maxGradNorm, {
      weights: mbWeights.subarray(0, idx.length),
      equivalent: (i) => mbEquivalent[i]!,
    });
    loss += r.loss;
    accuracy += r.accuracy;
    batches++;
  }
  return { loss: loss / Math.max(1, batches), accuracy: accuracy / Math.max(1, batches) };
}

/** A metrics.csv row of a round or generation (validation fitness as `mean_return` = -fitness; the reference's mean on the validation episodes). */
function metricsRow(
  update: number,
  count: { steps: number; episodes: number },
  fitness: number,
  reference: ReferenceScores,
  validation: readonly number[],
  t0: number,
  loss: number,
): MetricsRow {
  const refs = validation.map((s) => reference.bsld(s)).filter((b) => Number.isFinite(b));
  const refMean = refs.reduce((a, b) => a + b, 0) / Math.max(1, refs.length);
  const seconds = (performance.now() - t0) / 1000;
  return {
    update,
    steps: count.steps,
    episodes: count.episodes,
    mean_return: -fitness,
    mean_bsld: fitness * refMean,
    mean_wait: Number.NaN,
    policy_loss: loss,
    value_loss: Number.NaN,
    entropy: Number.NaN,
    approx_kl: Number.NaN,
    clip_fraction: Number.NaN,
    explained_variance: Number.NaN,
    learning_rate: Number.NaN,
    steps_per_s: count.steps / Math.max(1e-9, seconds),
    seconds,
    mean_baseline_bsld: refMean,
  };
}

function csv(row: MetricsRow): string {
  return `${METRICS_COLUMNS.map((k) => (Number.isFinite(row[k]) ? String(row[k]) : '')).join(',')}\n`;
}
