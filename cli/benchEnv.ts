/**
 * `clustergym bench env`: environment steps per second with random masked actions (the agent costs
 * next to nothing: a seeded uniform draw among the valid actions).
 *
 *     clustergym bench env --env ID [--config FILE] [--workload FILE] [--k N] [--steps N] [--seed N]
 *                          [--vec N [--threads T]] [--json]
 *
 * `--config` is an environment configuration (JSON, see docs/environments.md); `--workload` and
 * `--k` override its `workload` and `k`. Episodes restart until `--steps` steps are done (resets
 * are counted in the time). `--vec N` steps a vector env of N envs (`--threads T`: on T threads
 * with `makeVecWorkers`, this one included; steps are env steps). Prints
 * `{"env", "steps", "seconds", "steps_per_s"}` with `--json` (plus `envs`/`threads` for `--vec`).
 */
import { z } from 'zod';
import { InputError } from '../src/core/errors.js';
import { readJsonFile } from '../src/core/json.js';
import { make } from '../envs/index.js';
import { measureEnv, measureVec, type EnvBenchResult } from '../envs/benchmark.js';
import { makeVec } from '../envs/vector.js';
import { makeVecWorkers } from '../envs/workerVec.js';
import { parseFlags } from './common.js';

const FLAGS = {
  env: { type: 'string' },
  config: { type: 'string' },
  workload: { type: 'string' },
  k: { type: 'string' },
  steps: { type: 'string' },
  seed: { type: 'string' },
  vec: { type: 'string' },
  threads: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const Schema = z.object({
  env: z.string({ required_error: 'missing; give an environment id, e.g. --env clustergym/Job-v0' }),
  config: z.string().optional(),
  workload: z.string().optional(),
  k: z.coerce.number().int().positive().optional(),
  steps: z.coerce.number().int().positive().default(100_000),
  seed: z.coerce.number().int().default(0),
  vec: z.coerce.number().int().positive().optional(),
  threads: z.coerce.number().int().positive().optional(),
  json: z.boolean().default(false),
});

/** The configuration of a bench run: the file, with `--workload` and `--k` applied. */
function benchConfig(f: z.infer<typeof Schema>): Record<string, unknown> {
  let config: Record<string, unknown> = {};
  if (f.config) {
    const data = readJsonFile(f.config);
    if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new InputError('expected a JSON object (an environment configuration)', f.config);
    config = data as Record<string, unknown>;
  }
  if (f.workload) config = { ...config, workload: f.workload };
  if (f.k !== undefined) config = { ...config, k: f.k };
  return config;
}

/** `clustergym bench env`; returns the exit code. */
export async function benchEnvCommand(argv: string[]): Promise<number> {
  const f = parseFlags('bench env', argv, FLAGS, Schema);
  const config = benchConfig(f);
  let result: EnvBenchResult & { envs?: number; threads?: number };
  if (f.vec !== undefined) {
    const v = f.threads !== undefined ? await makeVecWorkers(f.vec, f.env, config, { threads: f.threads }) : makeVec(f.vec, f.env, config);
    try {
      result = { ...measureVec(v, f.steps, f.seed), envs: f.vec, threads: f.threads ?? 1 };
    } finally {
      v.close();
    }
  } else {
    const env = make(f.env, config);
    result = measureEnv(env, f.steps, f.seed);
    env.close();
  }
  const out: Record<string, unknown> = { env: result.env, steps: result.steps, seconds: round(result.seconds, 4), steps_per_s: Math.round(result.steps_per_s) };
  if (result.envs !== undefined) Object.assign(out, { envs: result.envs, threads: result.threads });
  if (f.json) process.stdout.write(JSON.stringify(out) + '\n');
  else
    console.log(
      `${result.env}: ${result.steps} steps in ${result.seconds.toFixed(3)} s = ${Math.round(result.steps_per_s)} steps/s (${result.episodes} episodes ended` +
        `${result.envs !== undefined ? `; ${result.envs} envs on ${result.threads} thread(s)` : ''})`,
    );
  return 0;
}

function round(x: number, d: number): number {
  const p = 10 ** d;
  return Math.round(x * p) / p;
}

/** Subcommands of `clustergym bench`. */
const SUBCOMMANDS: Record<string, (argv: string[]) => Promise<number> | number> = {
  env: benchEnvCommand,
};

/** `clustergym bench <subcommand>`; returns the exit code. */
export async function benchCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const run = sub === undefined ? undefined : SUBCOMMANDS[sub];
  if (!run) throw new InputError(`${sub === undefined ? 'missing subcommand' : `unknown subcommand ${JSON.stringify(sub)}`}; expected one of ${Object.keys(SUBCOMMANDS).join(', ')}`);
  return run(rest);
}
