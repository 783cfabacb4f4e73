/**
 * `clustergym demo` (what `npm start` runs): the embedded default end to end. Trains the PPO
 * baseline for a minute or two on the bundled heterogeneous platform (`data/platforms/hetero-20.json`,
 * 20 nodes, 496 cores) with Lublin–Feitelson jobs generated per episode, then evaluates it against
 * FCFS, SJF and F1, each with and without EASY backfilling, on held-out trajectories, prints the
 * table and writes the report.
 *
 *     clustergym demo [--out DIR] [--json] [--steps N] [--episodes N] [--backend auto|tensorflow|wasm|cpu]
 *
 * The configuration is `data/configs/ppo-demo.json` (docs/agents.md explains its choices). Outputs
 * under `--out` (default `clustergym-demo`): `train/` (config, metrics.csv, checkpoints, model),
 * `evaluation.json`, `report/index.html` with the learning curve, the comparison bars, Gantt
 * charts of one held-out trajectory (PPO and FCFS) and the utilisation plot, and `demo.json`:
 * `{ "policies": [ { "name", "mean_bsld", "mean_wait", "utilisation", "makespan", "energy" } ],
 * "train_seconds", "backend" }`, the learned policy named `ppo`. `--json` prints `demo.json` on
 * stdout instead of the table (and the other lines).
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../src/core/errors.js';
import { BACKEND_CHOICES } from '../agents/ppo/config.js';
import type { EvaluationResult } from '../agents/ppo/evaluate.js';
import { defineCommand, defineFlags, formatTable, int, oneOf, PACKAGE_ROOT, text, type Values } from './common.js';
import { policyMeans } from './evaluate.js';
import { grouped, ProgressBar } from './progress.js';

/** The demo's training configuration. */
export const DEMO_CONFIG = resolve(PACKAGE_ROOT, 'data/configs/ppo-demo.json');

/** The flags of `demo`. */
export const flags = defineFlags({
  out: { value: 'DIR', schema: text(true), default: 'clustergym-demo', help: 'write train/, evaluation.json, demo.json and report/index.html there' },
  json: { help: 'print demo.json (the table, the training time and the backend) on stdout instead of the table' },
  steps: { value: 'N', schema: int({ gte: 1 }), help: "env steps to train (default: the demo config's total_steps)" },
  episodes: { value: 'N', schema: int({ gte: 1, lte: 10_000 }), help: "held-out episodes (default: the demo config's eval_episodes)" },
  backend: { schema: oneOf(BACKEND_CHOICES), help: "the tfjs backend (default: the demo config's)" },
});

/** Runs the command; returns the exit code. */
export async function demo(f: Values<typeof flags>): Promise<number> {
  const say = f.json ? () => {} : (line: string) => console.log(line);
  const ppo = await import('../agents/ppo/index.js');
  let config = ppo.loadPpoConfig(DEMO_CONFIG);
  if (f.steps !== undefined) config = { ...config, total_steps: f.steps };
  if (f.backend !== undefined) config = { ...config, backend: f.backend };
  const trainDir = join(f.out, 'train');
  if (existsSync(trainDir)) {
    if (!existsSync(join(trainDir, 'metrics.csv')))
      throw new InputError(`${trainDir} exists and is not a previous demo's training directory; give another --out`);
    rmSync(trainDir, { recursive: true, force: true });
  }
  const backend = await ppo.selectBackend(config.backend);
  const gen = config.env.config['generator'] as { jobs?: number } | undefined;
  say(
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
  say(
    `trained ${grouped(trained.steps)} steps (${grouped(trained.episodes)} episodes) in ${trained.seconds.toFixed(1)} s${last ? `, ${grouped(last.steps_per_s)} steps/s` : ''}`,
  );
  const episodes = f.episodes ?? config.eval_episodes;
  let r: EvaluationResult;
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
  say(`\nheld-out trajectories: ${episodes} episodes of ${gen?.jobs ?? '?'} jobs (seeds from 2^32; training used seeds below 2^31)`);
  say(formatTable(ppo.EVAL_COLUMNS, ppo.evaluationRows(r.policies)));
  const ppoRow = r.policies.find((p) => p.name === 'ppo')!;
  const fcfs = r.policies.find((p) => p.name === 'fcfs');
  if (fcfs)
    say(`ppo mean bsld ${ppoRow.mean_bsld.toFixed(2)} vs fcfs ${fcfs.mean_bsld.toFixed(2)} (${ppoRow.mean_bsld < fcfs.mean_bsld ? 'lower' : 'NOT lower'})`);
  const result = { policies: policyMeans(r.policies), train_seconds: trained.seconds, backend: backend.name };
  const file = join(f.out, 'demo.json');
  writeFileSync(file, `${JSON.stringify(result, null, 1)}\n`);
  if (f.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  say(`report: ${join(f.out, 'report', 'index.html')}; evaluation: ${join(f.out, 'evaluation.json')}; ${file}`);
  return 0;
}

/** `clustergym demo`. */
export const command = defineCommand(flags, demo);
