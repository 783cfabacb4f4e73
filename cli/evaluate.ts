/**
 * `clustergym evaluate`: a trained PPO model and the heuristics on the same held-out trajectories
 * (agents/ppo/evaluate.ts, DESIGN §7).
 *
 *     clustergym evaluate --model DIR [--episodes N] [--out DIR] [--config FILE] [--policies fcfs,sjf+easy,...]
 *                         [--seed-offset N] [--backend auto|tensorflow|wasm|cpu]
 *
 * The env is the model's training env (its config.json) unless `--config` gives another training
 * config (same kind of env; K, N, platform and workload may differ); the normalisation limits are
 * always the model's. Prints the table (mean bsld, mean wait, utilisation, makespan, energy per
 * policy) and writes `evaluation.json` and a report (`report/index.html` with SVG plots) into
 * `--out` (default: `evaluation/` beside the model directory).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { parsePolicyName } from '../src/scheduling/policyName.js';
import { formatTable, parseFlags } from './common.js';

const FLAGS = {
  model: { type: 'string' },
  episodes: { type: 'string' },
  out: { type: 'string' },
  config: { type: 'string' },
  policies: { type: 'string' },
  'seed-offset': { type: 'string' },
  backend: { type: 'string' },
} as const;

const Schema = z.object({
  model: z.string({ required_error: 'Required (a model directory written by `clustergym train`)' }).min(1),
  episodes: z.coerce.number().int().min(1).max(10_000).optional(),
  out: z.string().min(1).optional(),
  config: z.string().min(1).optional(),
  policies: z.string().optional(),
  'seed-offset': z.coerce.number().int().min(0).max(2 ** 30).default(0),
  backend: z.enum(['auto', 'tensorflow', 'wasm', 'cpu']).optional(),
});

/** Runs the command; returns the exit code. */
export async function evaluateCommand(argv: string[]): Promise<number> {
  const f = parseFlags('evaluate', argv, FLAGS, Schema);
  const ppo = await import('../agents/ppo/index.js');
  const { meta, config: modelConfig } = ppo.readModelMeta(f.model);
  const config = f.config !== undefined ? ppo.loadPpoConfig(f.config) : modelConfig;
  const heuristics = f.policies === undefined ? [...ppo.DEFAULT_HEURISTICS] : f.policies.split(',').map((s) => s.trim()).filter((s) => s !== '');
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
  console.log(`clustergym evaluate: ${f.model} (${meta.env_id}, ${meta.steps} steps) on ${config.env.id}, ${episodes} held-out episodes; ${ppo.describeBackend(backend)}`);
  let r;
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
  console.log(formatTable(ppo.EVAL_COLUMNS, ppo.evaluationRows(r.policies)));
  console.log(`evaluated in ${r.seconds.toFixed(1)} s; ${join(out, 'evaluation.json')}, report ${join(out, 'report', 'index.html')}`);
  return 0;
}
