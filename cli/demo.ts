/**
 * `clustergym demo` (what `npm start` runs): the embedded default end to end, in the leaderboard's
 * `hetero` setting (JobNode-v0: which job goes to which node of the bundled heterogeneous platform
 * `data/platforms/hetero-20.json`, 20 nodes of five types, 496 cores, with 256 generated MPI,
 * memory-bound and compute-bound jobs per episode). Trains the linear job x node policy by evolution
 * strategies for about a minute (`data/configs/demo-hetero.json`: the shipped hetero model's
 * training, shorter), then evaluates it on held-out episodes (the leaderboard's episodes of seed 0)
 * against batch heuristics on the same jobs, prints the table and writes the report. Its last line
 * states the verdict against the BEST heuristic at full strength (the `hetero` setting's 220 batch
 * schedulers, `data/configs/hetero.json`), with the paired 95 % bootstrap interval; the report page
 * shows that leaderboard row.
 *
 *     clustergym demo [--out DIR] [--json] [--steps N] [--episodes N] [--backend auto|tensorflow|wasm|cpu]
 *
 * The configuration is `data/configs/demo-hetero.json` (docs/agents.md explains its choices). Outputs
 * under `--out` (default `clustergym-demo`): `train/` (config, metrics.csv, checkpoints, model),
 * `evaluation.json`, `report/index.html` with the learning curve, the comparison bars, Gantt
 * charts of one held-out trajectory (PPO and FCFS) and the utilisation plot, and `demo.json`:
 * `{ "policies": [ { "name", "mean_bsld", "mean_wait", "utilisation", "makespan", "energy" } ],
 * "leaderboard": { "best_heuristic", "diff": { "mean", "ci95" }, "verdict", "heuristics": [ { "name", "mean" } ] },
 * "train_seconds", "backend" }`, the learned policy named `ppo`. `--json` prints `demo.json` on
 * stdout instead of the table (and the other lines).
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../src/core/errors.js';
import { BACKEND_CHOICES } from '../agents/learning/config.js';
import type { EvaluationResult, PolicyFigures } from '../agents/learning/evaluate.js';
import type { Setting, SettingResult } from '../agents/leaderboard/index.js';
import { defineCommand, defineFlags, formatTable, int, oneOf, PACKAGE_ROOT, text, type Values } from './common.js';
import { policyMeans } from './evaluate.js';
import { grouped, ProgressBar } from './progress.js';

/** The demo's training configuration. */
export const DEMO_CONFIG = resolve(PACKAGE_ROOT, 'data/configs/demo-hetero.json');
/** The demo's leaderboard setting (the same env; its heuristics at full strength). */
export const DEMO_SETTING = resolve(PACKAGE_ROOT, 'data/configs/hetero.json');

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
  const ppo = await import('../agents/learning/index.js');
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
  const algorithm = config.es
    ? `evolution strategies (linear job x node policy, ${config.es.generations} generations)`
    : `PPO, up to ${grouped(config.total_steps)} steps`;
  say(
    `clustergym demo: ${algorithm} on ${config.env.id} (hetero-20: 20 nodes, 496 cores; generated episodes of ${gen?.jobs ?? '?'} jobs), ` +
      `${config.time_limit ? `at most ${config.time_limit} s; ` : ''}${ppo.describeBackend(backend)}`,
  );
  const bar = new ProgressBar();
  const trained = await ppo.trainModel(config, {
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
  const lb = await import('../agents/leaderboard/index.js');
  const setting = lb.loadSetting(DEMO_SETTING);
  let board: SettingResult | undefined;
  let r: EvaluationResult;
  try {
    r = ppo.evaluatePolicy({
      network: trained.network,
      env: config.env,
      limits: trained.limits,
      episodes,
      outDir: f.out,
      metrics: trained.metrics,
      title: 'clustergym demo: a learned policy against the heuristics',
      extra: { train_seconds: trained.seconds, trained_steps: trained.steps, backend: backend.name },
      reportExtras: (policies, seeds) => {
        board = demoBoard(lb, setting, policies[0]!, seeds);
        const t = lb.settingTable(board);
        return {
          tables: [
            {
              caption: `Leaderboard row of the demo's setting: ${lb.settingHeadline(board)}; ${verdictText(board)}`,
              columns: t.header,
              rows: t.rows,
              highlight: 'ppo',
            },
          ],
          figures: [
            {
              file: 'leaderboard.svg',
              svg: lb.settingSvg(board, 0),
              title: 'Against the best heuristic',
              caption:
                "Each policy's mean bsld relative to the best heuristic's (the heuristics as batch schedulers over the whole queue with their own placement), paired by episode, with 95 % bootstrap intervals (docs/leaderboard.md).",
            },
          ],
        };
      },
    });
  } finally {
    trained.network.dispose();
  }
  say(`\nheld-out trajectories: ${episodes} episodes of ${gen?.jobs ?? '?'} jobs (seeds from 2^32; training used seeds below 2^31)`);
  say(formatTable(ppo.EVAL_COLUMNS, ppo.evaluationRows(r.policies)));
  const b = board!;
  const l = b.learned[0]!;
  const result = {
    policies: policyMeans(r.policies),
    leaderboard: {
      best_heuristic: b.best_heuristic,
      diff: l.diff,
      verdict: l.verdict,
      heuristics: b.policies.filter((p) => p.kind === 'heuristic').map((p) => ({ name: p.name, mean: p.mean })),
    },
    train_seconds: trained.seconds,
    backend: backend.name,
  };
  const file = join(f.out, 'demo.json');
  writeFileSync(file, `${JSON.stringify(result, null, 1)}\n`);
  if (f.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  say(`report: ${join(f.out, 'report', 'index.html')}; evaluation: ${join(f.out, 'evaluation.json')}; ${file}`);
  say(verdictText(b));
  return 0;
}

/** The demo's leaderboard row: its setting's heuristics at full strength on the evaluation's episodes, and `ppo`. */
function demoBoard(lb: typeof import('../agents/leaderboard/index.js'), setting: Setting, ppoFigures: PolicyFigures, seeds: readonly number[]): SettingResult {
  const expected = lb.episodeSeeds(0, seeds.length);
  if (seeds.some((s, i) => s !== expected[i])) throw new Error('the demo evaluates on the leaderboard episodes of seed 0');
  const t0 = performance.now();
  const h = lb.runHeuristics(setting, seeds);
  const per = ppoFigures.per_trajectory.map((e) => e.mean_bsld);
  const ppoRow = {
    name: 'ppo',
    kind: 'learned' as const,
    mean: ppoFigures.mean_bsld,
    per_episode: per,
    complete: ppoFigures.per_trajectory.every((e) => e.jobs_finished === e.jobs),
    seconds: 0,
  };
  return lb.settingResult(setting, 0, h.episodes, [...h.rows, ppoRow], (performance.now() - t0) / 1000);
}

/** The verdict line: ppo against the best heuristic, with the interval. */
export function verdictText(b: SettingResult): string {
  const l = b.learned[0]!;
  const best = b.policies.find((p) => p.name === b.best_heuristic)!;
  const ppo = b.policies.find((p) => p.name === l.name)!;
  const pc = (v: number) => `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}%`;
  return (
    `${l.name} mean bsld ${ppo.mean.toFixed(2)} vs the best heuristic ${best.name} ${best.mean.toFixed(2)} ` +
    `(best of ${b.policies.filter((p) => p.kind === 'heuristic').length}, same ${per(b)} episodes): ${pc(l.diff.mean)}, 95% CI [${pc(l.diff.ci95[0])}, ${pc(l.diff.ci95[1])}]; verdict: ${l.verdict}`
  );
}

function per(b: SettingResult): number {
  return b.episode_seeds.length;
}

/** `clustergym demo`. */
export const command = defineCommand(flags, demo);
