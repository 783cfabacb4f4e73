/**
 * Benchmark of the PPO baseline (issue "The tfjs baseline DRL scheduler"):
 *
 * - training throughput: env steps per second INCLUDING the PPO updates, `Job-v0`, K = 64, wasm
 *   backend, 8 envs x 256 steps per update, 4 epochs of 4 minibatches, on the demo's workload
 *   (hetero-20, Lublin–Feitelson episodes of 256 jobs): with the demo's `unfit: "reserve"` + EASY
 *   and with the default `unfit: "mask"` (where `wait` is an action). Target: at least 1,000 steps/s.
 * - the demo's wall time: `clustergym demo` as a user runs it (a child process of the built CLI,
 *   tfjs start-up, training, evaluation and report included), with its PPO and FCFS mean bsld.
 * - RLScheduler's setting (`data/configs/lublin256*.json`: Job-v0, K = 128, lublin_256.swf, 16 envs x
 *   256 steps, 8 minibatches): the trajectory filter's time, the warm start's states/s, and PPO's env
 *   steps/s and updates/s, each config as shipped but shortened; then the shipped models
 *   (`data/models/lublin256*`) against the five heuristics on their cards' held-out origins.
 * - the leaderboard settings' ES trainers (`esThroughput`): seconds per generation and env steps/s.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseFlatEsConfig, trainFlat } from '../agents/learning/flat.js';
import { loadPpoConfig, selectBackend, train, trainEs, type PpoConfig } from '../agents/learning/index.js';
import { PACKAGE_ROOT } from '../src/core/paths.js';

const DEMO_CONFIG = resolve(PACKAGE_ROOT, 'data/configs/ppo-demo.json');

/** Env steps per second of a training run of `steps` steps (updates included). */
async function throughput(config: PpoConfig, steps: number): Promise<Record<string, number>> {
  const out = mkdtempSync(join(tmpdir(), 'cg-bench-ppo-'));
  try {
    const r = await train({ ...config, total_steps: steps, checkpoint_every: 0, time_limit: null, backend: 'wasm' }, { outDir: out });
    r.network.dispose();
    return { steps: r.steps, seconds: Math.round(r.seconds * 100) / 100, steps_per_s: Math.round(r.steps / r.seconds) };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * Training throughput in RLScheduler's setting: the shipped config, shortened to one warm-start round
 * (16,384 states labelled by the heuristic, or 4,096 by the lookahead, which plays 4 candidates to the
 * end of the trajectory per state) and `steps` PPO steps.
 */
async function rlschedulerThroughput(name: string, steps: number): Promise<Record<string, unknown>> {
  const config = loadPpoConfig(resolve(PACKAGE_ROOT, `data/configs/${name}.json`));
  const warm = config.baseline?.warm_start_teacher === 'lookahead' ? 4096 : 16_384;
  const out = mkdtempSync(join(tmpdir(), 'cg-bench-ppo-'));
  const phases: Record<string, number> = {};
  let mark = performance.now();
  try {
    const r = await train(
      {
        ...config,
        total_steps: steps,
        checkpoint_every: 0,
        time_limit: null,
        backend: 'wasm',
        baseline: { ...config.baseline!, warm_start_steps: warm, warm_start_rounds: 1 },
      },
      {
        outDir: out,
        onFilter: (done, total) => {
          if (done === total) {
            phases.filter_seconds = (performance.now() - mark) / 1000;
            mark = performance.now();
          }
        },
        onWarmStart: (p) => {
          if (p.steps === p.totalSteps) phases.warm_start_seconds = (performance.now() - mark) / 1000;
        },
      },
    );
    r.network.dispose();
    const updates = r.steps / (config.num_envs * config.num_steps);
    return {
      warm_start_teacher: config.baseline!.warm_start_teacher,
      filter_seconds: Math.round((phases.filter_seconds ?? NaN) * 10) / 10,
      warm_start_states_per_s: Math.round(warm / (phases.warm_start_seconds ?? NaN)),
      ppo_steps: r.steps,
      ppo_steps_per_s: Math.round(r.steps / r.seconds),
      ppo_updates_per_s: Math.round((updates / r.seconds) * 1000) / 1000,
    };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** A shipped model against the five heuristics on its card's held-out origins (`clustergym evaluate`, as a user runs it). */
function shippedModel(name: string): Record<string, unknown> {
  const dir = resolve(PACKAGE_ROOT, `data/models/${name}`);
  let card: { held_out?: { origins: number[]; length: number } };
  try {
    card = JSON.parse(readFileSync(join(dir, 'card.json'), 'utf8'));
  } catch {
    return { error: `no model card in ${dir}` };
  }
  if (!card.held_out) return { error: `${dir}/card.json has no held_out origins` };
  const out = mkdtempSync(join(tmpdir(), 'cg-bench-eval-'));
  const t0 = performance.now();
  const run = spawnSync(
    process.execPath,
    [
      resolve(PACKAGE_ROOT, 'dist/cli/main.js'),
      'evaluate',
      '--model',
      dir,
      '--origins',
      card.held_out.origins.join(','),
      '--length',
      String(card.held_out.length),
      '--out',
      out,
      '--json',
    ],
    { encoding: 'utf8' },
  );
  rmSync(out, { recursive: true, force: true });
  if (run.status !== 0) return { error: run.stderr.trim() || `exit code ${run.status}` };
  const policies = (JSON.parse(run.stdout) as { policies: { name: string; mean_bsld: number }[] }).policies;
  const best = policies.filter((p) => p.name !== 'ppo').reduce((b, p) => (p.mean_bsld < b.mean_bsld ? p : b));
  const ppo = policies.find((p) => p.name === 'ppo')!;
  return {
    origins: card.held_out.origins,
    length: card.held_out.length,
    mean_bsld: Object.fromEntries(policies.map((p) => [p.name, Math.round(p.mean_bsld * 100) / 100])),
    best_heuristic: best.name,
    ppo_beats_best: ppo.mean_bsld < best.mean_bsld,
    seconds: Math.round((performance.now() - t0) / 100) / 10,
  };
}

/**
 * Training throughput of the leaderboard settings' trainers (data/configs/train-SETTING.json, as
 * shipped but cut to `generations` generations, the search and validation left out): seconds per
 * generation and env steps per second, ES candidates' episodes included.
 */
export async function esThroughput(generations = 1): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const setting of ['hetero', 'hetero-energy', 'malleable', 'slurm', 'policy-pair', 'rlsched', 'rlsched-easy']) {
    const file = resolve(PACKAGE_ROOT, `data/configs/train-${setting}.json`);
    const dir = mkdtempSync(join(tmpdir(), 'cg-bench-es-'));
    try {
      const raw = JSON.parse(readFileSync(file, 'utf8')) as { format?: string };
      let r: { steps: number; seconds: number };
      if (raw.format === 'clustergym-es-flat') {
        const c = parseFlatEsConfig(raw, file, resolve(PACKAGE_ROOT, 'data/configs'));
        // the generations only: no best-fixed start, switch search or validation (their cost is a number of episodes)
        const es = {
          ...c.es,
          generations,
          init: c.es.init === 'best_fixed' ? ('reference' as const) : c.es.init,
          validation_episodes: 0,
          switch_search: undefined,
        };
        r = trainFlat({ ...c, es, checkpoint_every: 0 }, { outDir: dir });
      } else {
        const c = loadPpoConfig(file);
        const t = await trainEs(
          { ...c, es: { ...c.es!, generations, search: {}, validation_episodes: 0 }, checkpoint_every: 0, backend: 'wasm' },
          { outDir: dir },
        );
        t.network.dispose();
        r = t;
      }
      out[setting] = { generations, seconds_per_generation: Math.round((r.seconds / generations) * 10) / 10, steps_per_s: Math.round(r.steps / r.seconds) };
    } catch (e) {
      // the rlsched settings read the trace in ../shared/data
      out[setting] = { error: (e as Error).message.split('\n')[0] };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

/** The figures of the PPO section of `npm run bench`. */
export async function benchPpo(steps = 40_960): Promise<Record<string, unknown>> {
  const backend = await selectBackend('wasm');
  const demo = loadPpoConfig(DEMO_CONFIG);
  const reserve = await throughput(demo, steps);
  const { unfit: _unfit, backfilling: _backfilling, ...maskEnv } = demo.env.config;
  const mask = await throughput({ ...demo, env: { id: demo.env.id, config: { ...maskEnv, reward: 'flowtime' } } }, steps);

  const dir = mkdtempSync(join(tmpdir(), 'cg-bench-demo-'));
  const t0 = performance.now();
  const run = spawnSync(process.execPath, [resolve(PACKAGE_ROOT, 'dist/cli/main.js'), 'demo', '--out', join(dir, 'demo')], { encoding: 'utf8' });
  const wall = (performance.now() - t0) / 1000;
  let demoFigures: Record<string, unknown> = { error: run.stderr.trim() || `exit code ${run.status}` };
  if (run.status === 0) {
    const j = JSON.parse(readFileSync(join(dir, 'demo', 'demo.json'), 'utf8')) as {
      policies: { name: string; mean_bsld: number }[];
      leaderboard: { best_heuristic: string; diff: { mean: number; ci95: [number, number] }; verdict: string };
      train_seconds: number;
      backend: string;
    };
    const bsld = (n: string) => Math.round((j.policies.find((p) => p.name === n)?.mean_bsld ?? NaN) * 100) / 100;
    demoFigures = {
      wall_seconds: Math.round(wall * 10) / 10,
      train_seconds: Math.round(j.train_seconds * 10) / 10,
      backend: j.backend,
      ppo_mean_bsld: bsld('ppo'),
      fcfs_mean_bsld: bsld('fcfs'),
      best_heuristic: j.leaderboard.best_heuristic,
      vs_best: j.leaderboard.diff,
      verdict: j.leaderboard.verdict,
    };
  }
  rmSync(dir, { recursive: true, force: true });
  return {
    backend: backend.name,
    env: 'clustergym/Job-v0, K=64, hetero-20, Lublin-Feitelson episodes of 256 jobs, 8 envs x 256 steps, 4 epochs x 4 minibatches',
    train_reserve_easy: reserve,
    train_mask: mask,
    target_steps_per_s: 1000,
    demo: demoFigures,
    es_training: await esThroughput(),
    lublin256_training: await rlschedulerThroughput('lublin256', 8 * 4096),
    lublin256_easy_training: await rlschedulerThroughput('lublin256-easy', 8 * 4096),
    lublin256_model: shippedModel('lublin256'),
    lublin256_easy_model: shippedModel('lublin256-easy'),
  };
}
