/**
 * `clustergym train`: trains a learned policy (agents/learning, DESIGN §7): PPO, evolution strategies
 * (the linear policy; the flat-observation envs' policies) or imitation of a lookahead teacher then ES
 * fine-tuning (a neural policy), as the config says.
 *
 *     clustergym train --config FILE [--steps N] [--out DIR] [--resume DIR] [--backend auto|tensorflow|wasm|cpu]
 *
 * `--config` is a training configuration (agents/learning/config.ts, docs/agents.md); `--steps`
 * overrides its `total_steps`. The output directory (default `runs/ppo`) receives `config.json`,
 * `metrics.csv` (one row per update), `checkpoints/step-N/` and the final model directory `model/`.
 * An output directory that already holds a run is refused unless `--resume` names it (or one of its
 * checkpoints): training then continues from the latest checkpoint, with the checkpoint's
 * configuration unless `--config` gives one (it must train the same kind of env).
 *
 * On a terminal a progress bar shows the ETA, steps, episodes, mean return, the running mean bsld
 * (over the last 10 updates) and, with a baseline heuristic, its mean bsld on the same trajectories,
 * and steps/s; the trajectory filter and the warm start have bars of their own.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { InputError } from '../src/core/errors.js';
import { parseJsonText } from '../src/core/json.js';
import { BACKEND_CHOICES, type PpoConfig } from '../agents/learning/config.js';
import { defineCommand, defineFlags, int, oneOf, text, type Values } from './common.js';
import { grouped, ProgressBar } from './progress.js';

/** The flags of `train`. */
export const flags = defineFlags(
  {
    config: { value: 'FILE', schema: text(true), help: "the training configuration (docs/agents.md); with --resume, default: the checkpoint's" },
    steps: { value: 'N', schema: int({ gte: 1 }), help: "env steps to train (overrides the config's total_steps)" },
    out: { value: 'DIR', schema: text(true), help: "where the run goes (default: runs/ppo, or the resumed run's directory)" },
    resume: { value: 'DIR', schema: text(true), help: 'continue a run (its directory or one of its checkpoints) from its latest checkpoint' },
    backend: { schema: oneOf(BACKEND_CHOICES), help: "the tfjs backend (overrides the config's)" },
  },
  (f, ctx) => {
    if (f.config === undefined && f.resume === undefined)
      ctx.addIssue({ code: 'custom', path: ['config'], message: 'Required (a training config file), unless --resume names a checkpoint' });
  },
);

/** Formats a number for the progress line (`n/a` when not finite). */
function short(v: number): string {
  return Number.isFinite(v) ? (Math.abs(v) >= 1000 ? v.toExponential(2) : v.toFixed(2)) : 'n/a';
}

/** Runs the command; returns the exit code. */
export async function trainRun(f: Values<typeof flags>): Promise<number> {
  const flat = await flatRun(f);
  if (flat !== null) return flat;
  const ppo = await import('../agents/learning/index.js');
  let checkpoint: string | undefined;
  let config: PpoConfig;
  if (f.resume !== undefined) {
    checkpoint = ppo.resolveCheckpoint(f.resume);
    config = f.config !== undefined ? ppo.loadPpoConfig(f.config) : ppo.checkpointConfig(checkpoint);
    const { meta } = ppo.readModelMeta(checkpoint);
    if (meta.env_id !== config.env.id)
      throw new InputError(`the checkpoint trains ${meta.env_id}, --config ${f.config} trains ${config.env.id}: resume needs the same kind of env`, '--resume');
  } else config = ppo.loadPpoConfig(f.config!);
  if (f.steps !== undefined) config = { ...config, total_steps: f.steps };
  if (f.backend !== undefined) config = { ...config, backend: f.backend };
  const out = f.out ?? (checkpoint ? ppo.runDirOf(checkpoint) : 'runs/ppo');
  if (!checkpoint && existsSync(join(out, 'metrics.csv')))
    throw new InputError(`${out} already holds a training run (metrics.csv): give another --out, or --resume ${out} to continue it`);

  const backend = await ppo.selectBackend(config.backend);
  const es = config.es;
  const im = config.imitation;
  console.log(
    im && es
      ? `clustergym train: ${config.env.id}, imitation of the lookahead over ${im.base} (${im.rounds} DAgger rounds x ${im.episodes} episodes) into a network ${JSON.stringify(config.network.kernel)}, then ES fine-tuning: ${es.generations} generations x ${2 * es.population + 1} candidates x ${es.episodes} episodes; ${ppo.describeBackend(backend)}`
      : es
        ? `clustergym train: ${config.env.id}, evolution strategies (linear policy): ${es.generations} generations x ${2 * es.population + 1} candidates x ${es.episodes} episodes; ${ppo.describeBackend(backend)}`
        : `clustergym train: ${config.env.id}, ${config.num_envs} envs x ${config.num_steps} steps per update, ${grouped(config.total_steps)} steps; ${ppo.describeBackend(backend)}`,
  );
  const bar = new ProgressBar();
  // running means over the last RUNNING updates that ended episodes
  const RUNNING = 10;
  const recent: { bsld: number; baseline: number }[] = [];
  const result = await ppo.trainModel(config, {
    outDir: out,
    resume: checkpoint,
    log: (line) => {
      if (bar.enabled) bar.done();
      console.log(line);
    },
    onFilter: (done, total) => bar.update(done, total, [['filtering origins', `${grouped(done)}/${grouped(total)}`]]),
    onWarmStart: (p) =>
      bar.update(p.steps, p.totalSteps, [
        ['warm start', `${grouped(p.steps)}/${grouped(p.totalSteps)} states`],
        ['cross-entropy', short(p.loss)],
        ['agreement', `${(100 * p.accuracy).toFixed(1)}%`],
      ]),
    onProgress: (p) => {
      if (Number.isFinite(p.row.mean_bsld)) recent.push({ bsld: p.row.mean_bsld, baseline: p.row.mean_baseline_bsld });
      if (recent.length > RUNNING) recent.shift();
      const mean = (f: (r: { bsld: number; baseline: number }) => number) => (recent.length ? recent.reduce((a, r) => a + f(r), 0) / recent.length : NaN);
      const fields: [string, string][] = [
        ['steps', `${grouped(p.steps)}/${grouped(p.totalSteps)}`],
        ['episodes', grouped(p.episodes)],
        ['return', short(p.row.mean_return)],
        ['bsld', short(mean((r) => r.bsld))],
      ];
      if (config.baseline) fields.push([config.baseline.policy, short(mean((r) => r.baseline))]);
      fields.push(['steps/s', grouped(p.row.steps_per_s)]);
      bar.update(p.steps, p.totalSteps, fields);
    },
  });
  bar.done();
  result.network.dispose();
  const last = result.metrics[result.metrics.length - 1];
  console.log(
    `trained ${grouped(result.steps)} steps (${grouped(result.episodes)} episodes) in ${result.seconds.toFixed(1)} s` +
      `${last ? `, ${grouped(last.steps_per_s)} steps/s` : ''}; model in ${result.modelDir}, metrics in ${join(out, 'metrics.csv')}`,
  );
  return 0;
}

/**
 * A flat ES config (`"format": "clustergym-es-flat"`, agents/learning/flat.ts: the linear policy of the
 * flat-observation envs), or a resumed run of one; null for the PPO configs.
 */
async function flatRun(f: Values<typeof flags>): Promise<number | null> {
  const flatEs = await import('../agents/learning/flat.js');
  let resume: string | undefined;
  let file = f.config;
  if (f.resume !== undefined) {
    const ck = join(f.resume, 'checkpoints');
    const gens = existsSync(ck)
      ? readdirSync(ck)
          .filter((d) => /^gen-\d+$/.test(d))
          .sort()
      : [];
    if (existsSync(join(f.resume, 'es.json')) && existsSync(join(f.resume, 'linear.json'))) resume = f.resume;
    else if (gens.length > 0) resume = join(ck, gens[gens.length - 1]!);
    else return null;
    file ??= join(resume, 'config.json');
  }
  if (file === undefined || !existsSync(file)) return null;
  const raw = parseJsonText(readFileSync(file, 'utf8'), file);
  if (!flatEs.isFlatEsConfig(raw)) return null;
  const c = flatEs.parseFlatEsConfig(raw, file, dirname(file));
  const out = f.out ?? (resume ? join(resume, '..', '..') : 'runs/es');
  if (!resume && existsSync(join(out, 'metrics.csv')))
    throw new InputError(`${out} already holds a training run (metrics.csv): give another --out, or --resume ${out} to continue it`);
  console.log(
    `clustergym train: evolution strategies, linear policy on ${c.env.id}, ${c.es.generations} generations x ${2 * c.es.population + 1} candidates x ${c.es.episodes} episodes`,
  );
  const bar = new ProgressBar();
  const r = flatEs.trainFlat(c, {
    outDir: out,
    resume,
    log: (line) => {
      if (bar.enabled) bar.done();
      console.log(line);
    },
    onProgress: (p) =>
      bar.update(p.generation, p.generations, [
        ['generation', `${p.generation}/${p.generations}`],
        [`vs ${c.es.reference}`, `${(100 * p.fitness).toFixed(2)}%`],
      ]),
  });
  bar.done();
  console.log(
    `trained ${r.generations} generations (${grouped(r.episodes)} episodes, ${grouped(r.steps)} steps) in ${r.seconds.toFixed(1)} s; model in ${r.modelDir}`,
  );
  return 0;
}

/** `clustergym train`. */
export const command = defineCommand(flags, trainRun);
