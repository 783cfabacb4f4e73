/**
 * `clustergym demo` (what `npm start` runs): the embedded default end to end, in the leaderboard's
 * `hetero` setting (JobNode-v0: which job goes to which node of the bundled heterogeneous platform
 * `data/platforms/hetero-20.json`, 20 nodes of five types, 496 cores, with 256 generated MPI,
 * memory-bound and compute-bound jobs per episode). Trains the linear job x node policy by evolution
 * strategies for about a minute (`data/configs/demo-hetero.json`: the shipped hetero model's
 * training, shorter), then evaluates it on held-out episodes (the leaderboard's episodes of seed 0)
 * beside the shipped neural policy of the setting (`data/models/hetero-neural`: a network with
 * hidden layers trained by imitation of the lookahead teacher then ES fine-tuning, which takes far
 * longer than a demo) and batch heuristics on the same jobs, each learned policy labelled by its
 * method (`es-linear:demo`, `imitation+es:hetero-neural`); prints the table and writes the report.
 * Its last lines state each learned policy's verdict against the BEST heuristic at full strength (the
 * `hetero` setting's 220 batch schedulers, `data/configs/hetero.json`), with the paired 95 %
 * bootstrap interval; the report page shows that leaderboard row.
 *
 *     clustergym demo [--out DIR] [--json] [--steps N] [--episodes N] [--backend auto|tensorflow|wasm|cpu]
 *
 * The configuration is `data/configs/demo-hetero.json` (docs/agents.md explains its choices). Outputs
 * under `--out` (default `clustergym-demo`): `train/` (config, metrics.csv, checkpoints, model),
 * `evaluation.json`, `report/index.html` with the learning curve, the comparison bars, Gantt
 * charts of one held-out trajectory (PPO and FCFS) and the utilisation plot, and `demo.json`:
 * `{ "policies": [ { "name", "mean_bsld", "mean_wait", "utilisation", "makespan", "energy" } ],
 * "leaderboard": { "best_heuristic", "diff": { "mean", "ci95" }, "verdict", "heuristics": [ { "name", "mean" } ] },
 * "learned": [ { "name", "method", "neural", "diff", "verdict" } ], "train_seconds", "backend" }`
 * (`leaderboard` is the trained linear policy's row, `learned` every learned policy's). `--json`
 * prints `demo.json` on stdout instead of the table (and the other lines).
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
/** The shipped neural model the demo plays beside the linear policy it trains. */
export const DEMO_NEURAL_MODEL = resolve(PACKAGE_ROOT, 'data/models/hetero-neural');
/** The name of the policy the demo trains (its method, and where it comes from). */
const TRAINED = 'es-linear:demo';

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
  // the shipped neural policy, in the setting's env with its own window, spill order, observation and limits
  const neural = await ppo.loadModelDir(DEMO_NEURAL_MODEL);
  const identity = ppo.cardIdentity(DEMO_NEURAL_MODEL);
  const neuralName = `${identity.method}:hetero-neural`;
  const agentSide = Object.fromEntries(lb.AGENT_SIDE.filter((k) => k in neural.config.env.config).map((k) => [k, neural.config.env.config[k]]));
  say(
    `beside it: the shipped neural policy ${DEMO_NEURAL_MODEL} (${identity.method}, a network with hidden layers ${JSON.stringify(neural.config.network.kernel)})`,
  );
  let board: SettingResult | undefined;
  let r: EvaluationResult;
  try {
    r = ppo.evaluatePolicy({
      network: trained.network,
      name: TRAINED,
      others: [{ name: neuralName, network: neural.network, limits: neural.meta.limits, agentSide }],
      env: config.env,
      limits: trained.limits,
      episodes,
      outDir: f.out,
      metrics: trained.metrics,
      title: 'clustergym demo: a linear and a neural policy against the heuristics',
      extra: { train_seconds: trained.seconds, trained_steps: trained.steps, backend: backend.name },
      reportExtras: (policies, seeds) => {
        board = demoBoard(
          lb,
          setting,
          [
            { figures: policies[0]!, method: 'es-linear', neural: false },
            { figures: policies[1]!, method: identity.method, neural: identity.neural },
          ],
          seeds,
        );
        const t = lb.settingTable(board);
        return {
          tables: [
            {
              caption: `Leaderboard rows of the demo's setting: ${lb.settingHeadline(board)}; ${board.learned.map((l) => verdictText(board!, l.name)).join('; ')}`,
              columns: t.header,
              rows: t.rows,
              highlight: TRAINED,
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
    neural.network.dispose();
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
    learned: b.learned.map((x) => {
      const row = b.policies.find((p) => p.name === x.name)!;
      return { name: x.name, method: row.method, neural: row.neural, diff: x.diff, verdict: x.verdict };
    }),
    train_seconds: trained.seconds,
    backend: backend.name,
  };
  const file = join(f.out, 'demo.json');
  writeFileSync(file, `${JSON.stringify(result, null, 1)}\n`);
  if (f.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  say(`report: ${join(f.out, 'report', 'index.html')}; evaluation: ${join(f.out, 'evaluation.json')}; ${file}`);
  for (const x of b.learned) say(verdictText(b, x.name));
  return 0;
}

/** The demo's leaderboard rows: its setting's heuristics at full strength on the evaluation's episodes, and the learned policies. */
function demoBoard(
  lb: typeof import('../agents/leaderboard/index.js'),
  setting: Setting,
  learned: readonly { figures: PolicyFigures; method: string; neural: boolean }[],
  seeds: readonly number[],
): SettingResult {
  const expected = lb.episodeSeeds(0, seeds.length);
  if (seeds.some((s, i) => s !== expected[i])) throw new Error('the demo evaluates on the leaderboard episodes of seed 0');
  const t0 = performance.now();
  const h = lb.runHeuristics(setting, seeds);
  const rows = learned.map((x) => ({
    name: x.figures.name,
    kind: 'learned' as const,
    mean: x.figures.mean_bsld,
    per_episode: x.figures.per_trajectory.map((e) => e.mean_bsld),
    complete: x.figures.per_trajectory.every((e) => e.jobs_finished === e.jobs),
    seconds: 0,
    method: x.method,
    neural: x.neural,
  }));
  return lb.settingResult(setting, 0, h.episodes, [...h.rows, ...rows], (performance.now() - t0) / 1000);
}

/** The verdict line of learned policy `name` (default: the first) against the best heuristic, with the interval. */
export function verdictText(b: SettingResult, name = b.learned[0]!.name): string {
  const l = b.learned.find((x) => x.name === name)!;
  const best = b.policies.find((p) => p.name === b.best_heuristic)!;
  const row = b.policies.find((p) => p.name === l.name)!;
  const pc = (v: number) => `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}%`;
  return (
    `${l.name}${row.neural === undefined ? '' : row.neural ? ' (neural)' : ' (linear)'} mean bsld ${row.mean.toFixed(2)} vs the best heuristic ${best.name} ${best.mean.toFixed(2)} ` +
    `(best of ${b.policies.filter((p) => p.kind === 'heuristic').length}, same ${per(b)} episodes): ${pc(l.diff.mean)}, 95% CI [${pc(l.diff.ci95[0])}, ${pc(l.diff.ci95[1])}]; verdict: ${l.verdict}`
  );
}

function per(b: SettingResult): number {
  return b.episode_seeds.length;
}

/** `clustergym demo`. */
export const command = defineCommand(flags, demo);
