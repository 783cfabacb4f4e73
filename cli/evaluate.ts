/**
 * `clustergym evaluate`: a trained PPO model and the heuristics on the same held-out trajectories
 * (agents/learning/evaluate.ts, DESIGN §7).
 *
 *     clustergym evaluate --model DIR [--workload FILE]
 *                         [--origins A,B,... | --trajectories K [--seed S] | --episodes N] [--length L]
 *                         [--policies fcfs,sjf,f1,wfp3,unicep] [--backfill none|easy] [--out DIR]
 *                         [--config FILE] [--seed-offset N] [--backend auto|tensorflow|wasm|cpu] [--json]
 *
 * The env is the model's training env (its config.json) unless `--config` gives another training
 * config (same kind of env; K, N, platform and workload may differ); `--workload`, `--length` and
 * `--backfill` then override its workload, trajectory length and backfilling. The normalisation
 * limits are always the model's. `--origins` names the trajectories (job indices
 * `origin .. origin + length - 1` of the workload), one episode each; `--trajectories K --seed S`
 * draws K distinct origins as `compare --trajectories K --seed S` cuts them (`trajectoryOrigins`),
 * so a test set is named by its seed; otherwise `--episodes` held-out seeds draw random origins.
 * In RLScheduler's setting (Job-v0, `unfit: "reserve"`) plain priority names play in the same env
 * as the model (agents/learning/evaluate.ts). Prints the table (mean bsld, mean wait, utilisation,
 * makespan, energy per policy) and writes `evaluation.json` (every policy's means and
 * `per_trajectory` figures) and a report (`report/index.html` with the comparison bars) into
 * `--out` (default: `clustergym-evaluation/` in the current directory; never beside the model, which
 * may be the repository's own data). `--json`
 * prints `{ "policies": [ { "name", "mean_bsld", "mean_wait", "utilisation", "makespan", "energy" } ], "backend" }`
 * on stdout instead of the table.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { PolicyMeans } from '../src/scheduling/compare.js';
import { parsePolicyName } from '../src/scheduling/policyName.js';
import { BACKEND_CHOICES } from '../agents/learning/config.js';
import type { EvaluationResult } from '../agents/learning/evaluate.js';
import { InputError } from '../src/core/errors.js';
import { trajectoryOrigins } from '../src/workload/trajectory.js';
import type { PpoConfig } from '../agents/learning/config.js';
import { defineCommand, defineFlags, formatTable, int, intList, oneOf, text, type Values } from './common.js';

/** The flags of `evaluate`. */
export const flags = defineFlags(
  {
    model: {
      value: 'DIR',
      schema: text(true),
      required: 'Required (a model directory written by `clustergym train`)',
      help: 'the model directory written by clustergym train',
    },
    episodes: { value: 'N', schema: int({ gte: 1, lte: 10_000 }), help: "held-out episodes at random origins (default: the config's eval_episodes)" },
    workload: { value: 'FILE', schema: text(true), help: "evaluate on this workload instead of the model's (a trace: SWF, Batsim or native JSON)" },
    origins: { value: 'A,B,...', schema: intList, help: 'the trajectories: job indices of their first jobs, one episode each' },
    trajectories: {
      value: 'K',
      schema: int({ gte: 1, lte: 10_000 }),
      help: 'draw K distinct trajectories of the workload, seeded by --seed (the origins `compare --trajectories K --seed S` cuts)',
    },
    seed: { value: 'S', schema: int({ gte: 0 }), help: 'seed of the --trajectories draw (default: 1, as compare)' },
    length: { value: 'L', schema: int({ gte: 1 }), help: "jobs per trajectory (default: the model's env)" },
    backfill: { schema: oneOf(['none', 'easy'] as const), help: "backfilling while a committed job waits (default: the model's env)" },
    out: { value: 'DIR', schema: text(true), default: 'clustergym-evaluation', help: 'write evaluation.json and report/index.html there' },
    json: { help: "print the table (every policy's mean figures) as JSON on stdout instead" },
    config: { value: 'FILE', schema: text(true), help: "a training config whose env to evaluate on (default: the model's; the same kind of env)" },
    policies: {
      value: 'LIST',
      schema: text(),
      help: "comma-separated heuristics to compare with (default in RLScheduler's setting: fcfs,sjf,f1,wfp3,unicep, in the env; else fcfs,fcfs+easy,sjf,sjf+easy,f1,f1+easy)",
    },
    'seed-offset': { value: 'N', schema: int({ gte: 0, lte: 2 ** 30 }), default: 0, help: 'shift the held-out episode seeds by N' },
    backend: { schema: oneOf(BACKEND_CHOICES), help: "the tfjs backend (default: the config's)" },
    card: { help: "record the evaluation's means (origins, length, backfilling, every policy) as held_out in the model's card.json" },
  },
  (f, ctx) => {
    const picks = [f.origins !== undefined, f.trajectories !== undefined, f.episodes !== undefined].filter(Boolean).length;
    if (picks > 1) ctx.addIssue({ code: 'custom', path: ['origins'], message: 'give one of --origins, --trajectories, --episodes' });
    if (f.seed !== undefined && f.trajectories === undefined)
      ctx.addIssue({ code: 'custom', path: ['seed'], message: 'needs --trajectories K (the seed draws their origins)' });
  },
);

/** Runs the command; returns the exit code. */
export async function evaluate(f: Values<typeof flags>): Promise<number> {
  const ppo = await import('../agents/learning/index.js');
  const { meta, config: modelConfig } = ppo.readModelMeta(f.model);
  const base = f.config !== undefined ? ppo.loadPpoConfig(f.config) : modelConfig;
  const env = evaluationEnv(base.env, f);
  const config = { ...base, env };
  const backend = await ppo.selectBackend(f.backend ?? config.backend);
  const { makeContext } = await import('../envs/registry.js');
  // the env of the evaluation, to check the model and the origins fit it before anything runs
  const context = makeContext(config.env.id, { ...config.env.config, limits: ppo.limitsForConfig(meta.limits) });
  let origins = f.origins;
  if (f.trajectories !== undefined || origins !== undefined) {
    const flag = f.trajectories !== undefined ? '--trajectories' : '--origins';
    const n = context.workload?.jobs.length;
    if (n === undefined) throw new InputError(`${flag} needs a workload file (the env generates its jobs)`, flag);
    if (f.trajectories !== undefined) {
      // drawn among the valid origins: nothing to check after the draw
      try {
        origins = trajectoryOrigins(n, { length: context.length, trajectories: f.trajectories, seed: f.seed ?? 1 });
      } catch (e) {
        throw e instanceof InputError ? new InputError(e.message, '--trajectories') : e;
      }
    } else {
      const bad = origins!.find((o) => o + context.length > n);
      if (bad !== undefined)
        throw new InputError(
          `origin ${bad} + length ${context.length} exceeds the ${n} jobs of the workload (largest origin: ${n - context.length})`,
          '--origins',
        );
    }
  }
  const heuristics =
    f.policies === undefined
      ? [...ppo.defaultHeuristics(context)]
      : f.policies
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
  const layout = ppo.rowLayout(config.env.id, context.config.k, context.platform.nodeCount);
  const loaded = await ppo.loadModelDir(f.model, layout);
  for (const h of heuristics) if (!ppo.playsInEnv(h, context)) parsePolicyName(ppo.heuristicSpec(h, context), undefined, '--policies');
  const out = f.out;
  const metricsFile = [join(f.model, 'metrics.csv'), join(dirname(resolve(f.model)), 'metrics.csv')].find((p) => existsSync(p));
  const metrics = metricsFile ? ppo.parseMetricsCsv(readFileSync(metricsFile, 'utf8')) : undefined;
  const episodes = f.episodes ?? config.eval_episodes;
  if (!f.json)
    console.log(
      `clustergym evaluate: ${f.model} (${meta.env_id}, ${meta.steps} steps) on ${config.env.id}, ` +
        `${origins ? `${origins.length} trajectories of ${context.length} jobs` : `${episodes} held-out episodes`}, backfilling ${context.config.backfilling}; ${ppo.describeBackend(backend)}`,
    );
  let r: EvaluationResult;
  try {
    r = ppo.evaluatePolicy({
      network: loaded.network,
      // the model by its method (its card's, or its config's for a checkpoint without a card)
      name: existsSync(join(f.model, 'card.json')) ? ppo.cardIdentity(f.model).method : ppo.modelIdentity(modelConfig).method,
      env: config.env,
      limits: meta.limits,
      episodes,
      origins,
      heuristics,
      seedOffset: f['seed-offset'],
      outDir: out,
      metrics,
      extra: { model: resolve(f.model), trained_steps: meta.steps, backend: backend.name },
    });
  } finally {
    loaded.network.dispose();
  }
  if (f.card) {
    const file = join(f.model, 'card.json');
    const card = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : { format: 'clustergym-model-card' };
    card.held_out = {
      workload: typeof config.env.config.workload === 'string' ? basename(config.env.config.workload) : null,
      origins: r.origins,
      length: context.length,
      backfilling: context.config.backfilling,
      policies: policyMeans(r.policies),
    };
    writeFileSync(file, `${JSON.stringify(card, null, 1)}\n`);
  }
  if (f.json) {
    process.stdout.write(`${JSON.stringify({ policies: policyMeans(r.policies), backend: backend.name })}\n`);
    return 0;
  }
  console.log(formatTable(ppo.EVAL_COLUMNS, ppo.evaluationRows(r.policies)));
  console.log(`evaluated in ${r.seconds.toFixed(1)} s; ${join(out, 'evaluation.json')}, report ${join(out, 'report', 'index.html')}`);
  return 0;
}

/** The model's env with the evaluation's overrides (`--workload`, `--length`, `--backfill`). */
function evaluationEnv(env: PpoConfig['env'], f: Values<typeof flags>): PpoConfig['env'] {
  const config: Record<string, unknown> = { ...env.config };
  if (f.workload !== undefined) {
    config.workload = resolve(f.workload);
    delete config.generator;
  }
  const trajectory = { ...((config.trajectory as Record<string, unknown> | undefined) ?? {}) };
  delete trajectory.origins;
  if (f.length !== undefined) trajectory.length = f.length;
  config.trajectory = trajectory;
  if (f.backfill !== undefined) config.backfilling = f.backfill;
  return { ...env, config };
}

/** The table as JSON: each policy's mean figures (the learned policy named `ppo`), without the per-episode ones. */
export function policyMeans(policies: readonly PolicyMeans[]): PolicyMeans[] {
  return policies.map((p) => ({
    name: p.name,
    mean_bsld: p.mean_bsld,
    mean_wait: p.mean_wait,
    utilisation: p.utilisation,
    makespan: p.makespan,
    energy: p.energy,
  }));
}

/** `clustergym evaluate`. */
export const command = defineCommand(flags, evaluate);
