/**
 * `clustergym evaluate`: a trained PPO model and the heuristics on the same held-out trajectories
 * (agents/ppo/evaluate.ts, DESIGN §7).
 *
 *     clustergym evaluate --model DIR [--episodes N] [--out DIR] [--config FILE] [--policies fcfs,sjf+easy,...]
 *                         [--seed-offset N] [--backend auto|tensorflow|wasm|cpu] [--json]
 *
 * The env is the model's training env (its config.json) unless `--config` gives another training
 * config (same kind of env; K, N, platform and workload may differ); the normalisation limits are
 * always the model's. Prints the table (mean bsld, mean wait, utilisation, makespan, energy per
 * policy) and writes `evaluation.json` and a report (`report/index.html` with SVG plots) into
 * `--out` (default: `evaluation/` beside the model directory). `--json` prints
 * `{ "policies": [ { "name", "mean_bsld", "mean_wait", "utilisation", "makespan", "energy" } ], "backend" }`
 * on stdout instead of the table.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { PolicyMeans } from '../src/scheduling/compare.js';
import { parsePolicyName } from '../src/scheduling/policyName.js';
import { BACKEND_CHOICES } from '../agents/ppo/config.js';
import type { EvaluationResult } from '../agents/ppo/evaluate.js';
import { defineCommand, defineFlags, formatTable, int, oneOf, text, type Values } from './common.js';

/** The flags of `evaluate`. */
export const flags = defineFlags({
  model: {
    value: 'DIR',
    schema: text(true),
    required: 'Required (a model directory written by `clustergym train`)',
    help: 'the model directory written by clustergym train',
  },
  episodes: { value: 'N', schema: int({ gte: 1, lte: 10_000 }), help: "held-out episodes (default: the config's eval_episodes)" },
  out: { value: 'DIR', schema: text(true), help: 'write evaluation.json and report/index.html there (default: evaluation/ beside the model directory)' },
  json: { help: "print the table (every policy's mean figures) as JSON on stdout instead" },
  config: { value: 'FILE', schema: text(true), help: "a training config whose env to evaluate on (default: the model's; the same kind of env)" },
  policies: { value: 'LIST', schema: text(), help: 'comma-separated heuristics to compare with (default: fcfs,fcfs+easy,sjf,sjf+easy,f1,f1+easy)' },
  'seed-offset': { value: 'N', schema: int({ gte: 0, lte: 2 ** 30 }), default: 0, help: 'shift the held-out episode seeds by N' },
  backend: { schema: oneOf(BACKEND_CHOICES), help: "the tfjs backend (default: the config's)" },
});

/** Runs the command; returns the exit code. */
export async function evaluate(f: Values<typeof flags>): Promise<number> {
  const ppo = await import('../agents/ppo/index.js');
  const { meta, config: modelConfig } = ppo.readModelMeta(f.model);
  const config = f.config !== undefined ? ppo.loadPpoConfig(f.config) : modelConfig;
  const heuristics =
    f.policies === undefined
      ? [...ppo.DEFAULT_HEURISTICS]
      : f.policies
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
  const backend = await ppo.selectBackend(f.backend ?? config.backend);
  const { makeContext } = await import('../envs/registry.js');
  // the env of the evaluation, to check the model fits it before anything runs
  const context = makeContext(config.env.id, { ...config.env.config, limits: ppo.limitsForConfig(meta.limits) });
  const layout = ppo.rowLayout(config.env.id, context.config.k, context.platform.nodeCount);
  const loaded = await ppo.loadModelDir(f.model, layout);
  for (const h of heuristics) parsePolicyName(ppo.heuristicSpec(h, context), undefined, '--policies');
  const out = f.out ?? join(dirname(resolve(f.model)), 'evaluation');
  const metricsFile = [join(f.model, 'metrics.csv'), join(dirname(resolve(f.model)), 'metrics.csv')].find((p) => existsSync(p));
  const metrics = metricsFile ? ppo.parseMetricsCsv(readFileSync(metricsFile, 'utf8')) : undefined;
  const episodes = f.episodes ?? config.eval_episodes;
  if (!f.json)
    console.log(
      `clustergym evaluate: ${f.model} (${meta.env_id}, ${meta.steps} steps) on ${config.env.id}, ${episodes} held-out episodes; ${ppo.describeBackend(backend)}`,
    );
  let r: EvaluationResult;
  try {
    r = ppo.evaluatePolicy({
      network: loaded.network,
      env: config.env,
      limits: meta.limits,
      episodes,
      heuristics,
      seedOffset: f['seed-offset'],
      outDir: out,
      metrics,
      extra: { model: resolve(f.model), trained_steps: meta.steps, backend: backend.name },
    });
  } finally {
    loaded.network.dispose();
  }
  if (f.json) {
    process.stdout.write(`${JSON.stringify({ policies: policyMeans(r.policies), backend: backend.name })}\n`);
    return 0;
  }
  console.log(formatTable(ppo.EVAL_COLUMNS, ppo.evaluationRows(r.policies)));
  console.log(`evaluated in ${r.seconds.toFixed(1)} s; ${join(out, 'evaluation.json')}, report ${join(out, 'report', 'index.html')}`);
  return 0;
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
