/**
 * `clustergym demo` (what `npm start` runs): the embedded default end to end. Trains the PPO
 * baseline for a minute or two on the bundled heterogeneous platform (`data/platforms/hetero-20.json`,
 * 20 nodes, 496 cores) with Lublin–Feitelson jobs generated per episode, then evaluates it against
 * FCFS, SJF and F1, each with and without EASY backfilling, on held-out trajectories, prints the
 * table and writes the report.
 *
 *     clustergym demo [--out DIR] [--json FILE] [--steps N] [--episodes N] [--backend auto|tensorflow|wasm|cpu]
 *
 * The configuration is `data/configs/ppo-demo.json` (docs/agents.md explains its choices). Outputs
 * under `--out` (default `clustergym-demo`): `train/` (config, metrics.csv, checkpoints, model),
 * `evaluation.json` and `report/index.html` with the learning curve, the comparison bars, Gantt
 * charts of one held-out trajectory (PPO and FCFS) and the utilisation plot. `--json FILE` writes
 * `{ "policies": [ { "name", "mean_bsld", "mean_wait", "utilisation", "makespan", "energy" } ],
 * "train_seconds", "backend" }`, the learned policy named `ppo`.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { InputError } from '../src/core/errors.js';
import { formatTable, PACKAGE_ROOT, parseFlags } from './common.js';
import { grouped, ProgressBar } from './progress.js';

/** The demo's training configuration. */
export const DEMO_CONFIG = resolve(PACKAGE_ROOT, 'data/configs/ppo-demo.json');

const FLAGS = {
  out: { type: 'string' },
  json: { type: 'string' },
  steps: { type: 'string' },
  episodes: { type: 'string' },
  backend: { type: 'string' },
} as const;

const Schema = z.object({
  out: z.string().min(1).default('clustergym-demo'),
  json: z.string().min(1).optional(),
  steps: z.coerce.number().int().positive().optional(),
  episodes: z.coerce.number().int().min(1).max(10_000).optional(),
  backend: z.enum(['auto', 'tensorflow', 'wasm', 'cpu']).optional(),
});

/** Runs the command; returns the exit code. */
export async function demoCommand(argv: string[]): Promise<number> {
  const f = parseFlags('demo', argv, FLAGS, Schema);
  const ppo = await import('../agents/ppo/index.js');
  let config = ppo.loadPpoConfig(DEMO_CONFIG);
  if (f.steps !== undefined) config = { ...config, total_steps: f.steps };
  if (f.backend !== undefined) config = { ...config, backend: f.backend };
  const trainDir = join(f.out, 'train');
  if (existsSync(trainDir)) {
    if (!existsSync(join(trainDir, 'metrics.csv'))) throw new InputError(`${trainDir} exists and is not a previous demo's training directory; give another --out`);
    rmSync(trainDir, { recursive: true, force: true });
  }
  const backend = await ppo.selectBackend(config.backend);
  const gen = config.env.config['generator'] as { jobs?: number } | undefined;
  console.log(
    `clustergym demo: PPO on ${config.env.id} (hetero-20: 20 nodes, 496 cores; Lublin-Feitelson episodes of ${gen?.jobs ?? '?'} jobs), ` +
      `up to ${grouped(config.total_steps)} steps${config.time_limit ? ` or ${config.time_limit} s` : ''}; ${ppo.describeBackend(backend)}`,
  );
  const bar = new ProgressBar();
  const trained = await ppo.train(config, {
    outDir: trainDir,
    onProgress: (p) =>
      bar.update(p.steps, p.totalSteps, [
        ['steps', `${grouped(p.steps)}/${grouped(p.totalSteps)}`],
        ['episodes', grouped(p.episodes)],
        ['bsld', Number.isFinite(p.row.mean_bsld) ? p.row.mean_bsld.toFixed(2) : 'n/a'],
        ['steps/s', grouped(p.row.steps_per_s)],
      ]),
  });
  bar.done();
  const last = trained.metrics[trained.metrics.length - 1];
  console.log(`trained ${grouped(trained.steps)} steps (${grouped(trained.episodes)} episodes) in ${trained.seconds.toFixed(1)} s${last ? `, ${grouped(last.steps_per_s)} steps/s` : ''}`);
  const episodes = f.episodes ?? config.eval_episodes;
  let r;
  try {
    r = ppo.evaluatePolicy({
      network: trained.network,
      env: config.env,
      limits: trained.limits,
      episodes,
      outDir: f.out,
      metrics: trained.metrics,
      title: 'clustergym demo: PPO against the heuristics',
      extra: { train_seconds: trained.seconds, trained_steps: trained.steps, backend: backend.name },
    });
  } finally {
    trained.network.dispose();
  }
  console.log(`\nheld-out trajectories: ${episodes} episodes of ${gen?.jobs ?? '?'} jobs (seeds from 2^32; training used seeds below 2^31)`);
  console.log(formatTable(ppo.EVAL_COLUMNS, ppo.evaluationRows(r.policies)));
  const ppoRow = r.policies.find((p) => p.name === 'ppo')!;
  const fcfs = r.policies.find((p) => p.name === 'fcfs');
  if (fcfs) console.log(`ppo mean bsld ${ppoRow.mean_bsld.toFixed(2)} vs fcfs ${fcfs.mean_bsld.toFixed(2)} (${ppoRow.mean_bsld < fcfs.mean_bsld ? 'lower' : 'NOT lower'})`);
  if (f.json) {
    const out = {
      policies: r.policies.map((p) => ({ name: p.name, mean_bsld: p.mean_bsld, mean_wait: p.mean_wait, utilisation: p.utilisation, makespan: p.makespan, energy: p.energy })),
      train_seconds: trained.seconds,
      backend: backend.name,
    };
    writeFileSync(f.json, JSON.stringify(out, null, 1) + '\n');
  }
  console.log(`report: ${join(f.out, 'report', 'index.html')}; evaluation: ${join(f.out, 'evaluation.json')}${f.json ? `; ${f.json}` : ''}`);
  return 0;
}
