/**
 * Learned policies on the leaderboard.
 *
 * - **Model directories** (PPO models written by `clustergym train`): the model's `card.json` names
 *   the setting it plays (`"setting": "rlsched"`) and the seeds its training drew episodes from
 *   (`"training_seeds": { "from": 0, "to": 2147483648 }`, half-open). `--models SETTING=DIR` names
 *   the setting instead. A model whose training seeds meet the evaluation range (2^32 up) is
 *   refused, and so is a card without training seeds. A card with `"superseded_by": "DIR NAME"`
 *   (a newer model of the same setting) is left out of the default models, and still plays when
 *   `--models` names it. The model plays greedily in the setting's
 *   env (its config with the model's normalisation limits), one env per episode seed
 *   (`evaluateNetwork`): the same seeds, hence the same jobs, as the heuristics.
 * - **Results files** (`--results FILE`, a policy that ran elsewhere, e.g. in Python over the
 *   bridge: `python-client/examples/leaderboard_ppo.py`): `{ "format": "clustergym-leaderboard-results",
 *   "setting", "name", "seed", "per_episode": [{ "seed", "metric" }] }`; the episode seeds must be
 *   exactly the leaderboard's for that seed and episode count.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../../src/core/errors.js';
import { parseJsonText } from '../../src/core/json.js';
import { DURATION_KNOWLEDGE, envObserves, HORIZON_KNOWLEDGE, type Observes } from '../../envs/observes.js';
import { loadEnv, makeContext, makeEnv } from '../../envs/registry.js';
import { cardIdentity, type ModelIdentity } from '../learning/card.js';
import { clusterMetric, EVALUATION_SEEDS, type LearnedPlayer, meetsEvaluationSeeds } from './run.js';
import type { Setting } from './settings.js';

/** What the leaderboard reads of a model card. */
const CardSchema = z
  .object({
    setting: z.string().min(1).optional(),
    training_seeds: z.object({ from: z.number().int(), to: z.number().int() }).strict().optional(),
  })
  .passthrough();

/** A learned model to play: its directory, its setting, its display name (`METHOD:DIR NAME`) and what it is. */
export interface ModelEntry {
  dir: string;
  setting: string;
  name: string;
  identity: ModelIdentity;
}

/** Reads a model directory's card (setting, training seeds), checking the seeds against the evaluation range. */
export function readModelCard(dir: string): { setting?: string; training_seeds: { from: number; to: number } } {
  const file = join(dir, 'card.json');
  if (!existsSync(file)) throw new InputError('no card.json: the leaderboard needs the model card (its setting and training seeds)', dir);
  const r = CardSchema.safeParse(parseJsonText(readFileSync(file, 'utf8'), file));
  if (!r.success) throw inputErrorFromIssues(file, r.error.issues);
  const seeds = r.data.training_seeds;
  if (!seeds)
    throw new InputError(
      `$.training_seeds: missing; the card must record the seeds training drew episodes from (the trainer's: {"from": 0, "to": ${2 ** 31}}) so the leaderboard can check they are not its evaluation seeds`,
      file,
    );
  if (meetsEvaluationSeeds(seeds))
    throw new InputError(
      `$.training_seeds: [${seeds.from}, ${seeds.to}) meets the evaluation seeds [${EVALUATION_SEEDS.from}, ${EVALUATION_SEEDS.to}): the leaderboard's episodes may have been trained on`,
      file,
    );
  return { ...(r.data.setting !== undefined ? { setting: r.data.setting } : {}), training_seeds: seeds };
}

/** The models of `--models` entries (`DIR` or `SETTING=DIR`); each card is checked. */
export function modelEntries(specs: readonly string[]): ModelEntry[] {
  return specs.map((spec) => {
    const eq = spec.indexOf('=');
    const dir = resolve(eq > 0 ? spec.slice(eq + 1) : spec);
    const card = readModelCard(dir);
    const setting = eq > 0 ? spec.slice(0, eq) : card.setting;
    if (!setting) throw new InputError('the card names no setting; write --models SETTING=DIR', dir);
    const identity = cardIdentity(dir);
    return { dir, setting, name: `${identity.method}:${dir.replace(/[\\/]+$/, '').replace(/^.*[\\/]/, '')}`, identity };
  });
}

/** The shipped models under `modelsRoot` (each directory with a card that names a setting and is not `superseded_by` another). */
export function shippedModels(modelsRoot: string): ModelEntry[] {
  if (!existsSync(modelsRoot)) return [];
  const card = (d: string) => parseJsonText(readFileSync(join(d, 'card.json'), 'utf8'), join(d, 'card.json')) as { setting?: unknown; superseded_by?: unknown };
  const dirs = readdirSync(modelsRoot)
    .map((d) => join(modelsRoot, d))
    .filter((d) => statSync(d).isDirectory() && existsSync(join(d, 'card.json')))
    .filter((d) => typeof card(d).setting === 'string' && card(d).superseded_by === undefined)
    .sort();
  return modelEntries(dirs);
}

/**
 * Env config fields a model brings from its own training config: how its window is ordered,
 * where an MPI job's tasks spill, whether a job goes whole onto its node (JobNode-v0), and what it
 * observes (`observe`: checked against the setting's heuristics by parity.ts). They shape the agent's
 * view and actions, never the episode's jobs or platform, which stay the setting's.
 */
export const AGENT_SIDE = ['queue_order', 'resource_policy', 'placement', 'observe'] as const;

/** A model directory as a learned player: a PPO/ES network, or a linear policy of a flat-observation env (linear.json). */
export function ppoPlayer(m: ModelEntry): LearnedPlayer {
  if (existsSync(join(m.dir, 'linear.json'))) return linearPlayer(m);
  return {
    name: m.name,
    model: m.dir,
    identity: m.identity,
    async play(setting: Setting, seeds: readonly number[]) {
      const ppo = await import('../learning/index.js');
      const { meta, config } = ppo.readModelMeta(m.dir);
      if (meta.env_id !== setting.env.id) throw new InputError(`the model plays ${meta.env_id}; setting ${setting.name} is ${setting.env.id}`, m.dir);
      if (meta.env_id !== 'clustergym/Job-v0' && meta.env_id !== 'clustergym/JobNode-v0')
        throw new InputError(`PPO models play Job-v0 or JobNode-v0, not ${meta.env_id}`, m.dir);
      await ppo.selectBackend(config.backend);
      // the episode (platform, jobs, seeds) is the setting's; what the agent sees and how its action
      // maps to a start (window order, spill order) is the model's own decision model (AGENT_SIDE);
      // a card without `observe` in its config saw the trajectory horizon (card.ts `legacyObserves`)
      const agentSide = Object.fromEntries(AGENT_SIDE.filter((k) => k in config.env.config).map((k) => [k, config.env.config[k]]));
      agentSide['observe'] = { durations: m.identity.observes.durations, horizon: m.identity.observes.horizon };
      const context = makeContext(setting.env.id, { ...setting.env.config, ...agentSide, limits: ppo.limitsForConfig(meta.limits) });
      const loaded = await ppo.loadModelDir(m.dir, ppo.rowLayout(meta.env_id, context.config.k, context.platform.nodeCount));
      try {
        const r = ppo.evaluateNetwork(
          loaded.network,
          context,
          seeds.map((seed) => ({ seed })),
        );
        const per = r.result.per_trajectory;
        return {
          per_episode: per.map((e) => clusterMetric(setting.metric, e)),
          complete: per.every((e) => e.jobs_finished === e.jobs),
          episodes: per.map((e) => ({ origin: e.origin, jobs: e.jobs })),
        };
      } finally {
        loaded.network.dispose();
      }
    },
  };
}

/** A linear policy of a flat-observation env (agents/learning/flat.ts), played greedily in the setting's env. */
export function linearPlayer(m: ModelEntry): LearnedPlayer {
  return {
    name: m.name,
    model: m.dir,
    identity: m.identity,
    async play(setting: Setting, seeds: readonly number[]) {
      const flat = await import('../learning/flat.js');
      const p = flat.readLinearPolicy(m.dir);
      if (p.env_id !== setting.env.id) throw new InputError(`the model plays ${p.env_id}; setting ${setting.name} is ${setting.env.id}`, m.dir);
      // what the model observed during training (its card's `observes`), in the setting's episodes
      const env = makeEnv(loadEnv(setting.env.id, { ...setting.env.config, ...systemObserve(setting.env.id, m.identity.observes) }));
      try {
        const theta = flat.thetaOf(p);
        return { per_episode: seeds.map((seed) => flat.playFlat(env, theta, seed, setting.metric, p).value), complete: true };
      } finally {
        env.close();
      }
    },
  };
}

/** The `observe` config of a system env (Fair-v0, Malleable-v0: durations; Slurm-v0, CoSched-v0: horizon) that shows `o`. */
function systemObserve(envId: string, o: Observes): Record<string, unknown> {
  if (envId === 'clustergym/Fair-v0' || envId === 'clustergym/Malleable-v0') return { observe: { durations: o.durations } };
  if (envId === 'clustergym/Slurm-v0' || envId === 'clustergym/CoSched-v0') return { observe: { horizon: o.horizon } };
  if (envId === 'clustergym/Gpu-v0') return {}; // one declaration, no option (envs/observes.ts)
  return { observe: o };
}

/** The format tag of a results file. */
export const RESULTS_FORMAT = 'clustergym-leaderboard-results';

/** A results file as zod sees it. */
export const ResultsSchema = z
  .object({
    format: z.literal(RESULTS_FORMAT),
    setting: z.string().min(1),
    name: z.string().min(1),
    seed: z.number().int(),
    per_episode: z.array(z.object({ seed: z.number().int(), metric: z.number().finite(), complete: z.boolean().default(true) }).strict()).min(1),
    /** How the policy was obtained (default `external`), whether it is a network with a hidden layer, and what it observed (default: the setting env's `observe`, what the exported episodes show). */
    method: z.string().min(1).default('external'),
    neural: z.boolean().default(false),
    observes: z
      .object({ durations: z.enum(DURATION_KNOWLEDGE), horizon: z.enum(HORIZON_KNOWLEDGE) })
      .strict()
      .optional(),
  })
  .strict();

/** A results file's contents. */
export type ResultsFile = z.output<typeof ResultsSchema>;

/** Reads a results file. */
export function readResults(file: string): ResultsFile & { file: string } {
  if (!existsSync(file)) throw new InputError('no such results file', file);
  const r = ResultsSchema.safeParse(parseJsonText(readFileSync(file, 'utf8'), file));
  if (!r.success) throw inputErrorFromIssues(file, r.error.issues);
  return { ...r.data, file: resolve(file) };
}

/**
 * A results file as a learned player of `setting`: checks that its episodes are exactly the
 * leaderboard's (`allSeeds`, the setting's episodes; default: those it is asked to play), and plays
 * those asked (a shard's: shard.ts) from it.
 */
export function resultsPlayer(r: ResultsFile & { file: string }, leaderboardSeed: number, setting: Setting, allSeeds?: readonly number[]): LearnedPlayer {
  return {
    name: r.name,
    model: r.file,
    identity: { method: r.method, neural: r.neural, observes: r.observes ?? envObserves(setting.env.id, setting.env.config) },
    async play(setting: Setting, seeds: readonly number[]) {
      if (r.seed !== leaderboardSeed) throw new InputError(`$.seed: the results are for leaderboard seed ${r.seed}, not ${leaderboardSeed}`, r.file);
      const all = allSeeds ?? seeds;
      const got = r.per_episode.map((e) => e.seed);
      if (got.length !== all.length || got.some((s, i) => s !== all[i]))
        throw new InputError(
          `$.per_episode: the episode seeds differ from setting ${setting.name}'s ${all.length} episodes of seed ${leaderboardSeed} (${all[0]}..${all[all.length - 1]}); rerun on the exported episodes with the same --episodes`,
          r.file,
        );
      const at = new Map(got.map((s, i) => [s, i]));
      const mine = seeds.map((s) => r.per_episode[at.get(s)!]!);
      return { per_episode: mine.map((e) => e.metric), complete: mine.every((e) => e.complete) };
    },
  };
}
