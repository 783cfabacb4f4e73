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
import type { Command } from 'commander';
import { InputError } from '../src/core/errors.js';
import { readJsonFile } from '../src/core/json.js';
import { make } from '../envs/index.js';
import { measureEnv, measureVec, type EnvBenchResult } from '../envs/benchmark.js';
import { makeVec } from '../envs/vector.js';
import { makeVecWorkers } from '../envs/workerVec.js';
import { type CliCommandModule, defineCommand, defineFlags, int, text, type Values } from './common.js';

/** The flags of `bench env`. */
export const flags = defineFlags({
  env: {
    value: 'ID',
    schema: text(),
    required: 'missing; give an environment id, e.g. --env clustergym/Job-v0',
    help: 'the environment id (clustergym/Job-v0, clustergym/JobNode-v0, ...)',
  },
  config: { value: 'FILE', schema: text(), help: 'an environment configuration (JSON, docs/environments.md)' },
  workload: { value: 'FILE', schema: text(), help: "the workload (overrides the config's)" },
  k: { value: 'N', schema: int({ gte: 1 }), help: "the env's K (overrides the config's)" },
  steps: { value: 'N', schema: int({ gte: 1 }), default: 100_000, help: 'env steps to time (episodes restart; resets are timed too)' },
  seed: { value: 'N', schema: int(), default: 0, help: 'seed of the random masked actions' },
  vec: { value: 'N', schema: int({ gte: 1 }), help: 'step a vector env of N envs' },
  threads: { value: 'T', schema: int({ gte: 1 }), help: 'run the vector env on T threads (this one included)' },
  json: { help: 'print {"env", "steps", "seconds", "steps_per_s"} on stdout instead of the sentence' },
});

/** The configuration of a bench run: the file, with `--workload` and `--k` applied. */
function benchConfig(f: Values<typeof flags>): Record<string, unknown> {
  let config: Record<string, unknown> = {};
  if (f.config) {
    const data = readJsonFile(f.config);
    if (data === null || typeof data !== 'object' || Array.isArray(data))
      throw new InputError('expected a JSON object (an environment configuration)', f.config);
    config = data as Record<string, unknown>;
  }
  if (f.workload) config = { ...config, workload: f.workload };
  if (f.k !== undefined) config = { ...config, k: f.k };
  return config;
}

/** `clustergym bench env`; returns the exit code. */
export async function benchEnv(f: Values<typeof flags>): Promise<number> {
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
  if (f.json) process.stdout.write(`${JSON.stringify(out)}\n`);
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

/** Subcommands of `clustergym bench`: one line of help and what runs. */
const SUBCOMMANDS = {
  env: { summary: 'environment steps per second with random masked actions', command: defineCommand(flags, benchEnv) },
} satisfies Record<string, { summary: string; command: CliCommandModule }>;

/** `clustergym bench <subcommand>`. */
export const command: CliCommandModule = {
  configure(cmd, done) {
    for (const [name, sub] of Object.entries(SUBCOMMANDS))
      sub.command.configure(cmd.command(name).description(sub.summary).usage('[flags]').optionsGroup('Flags:'), done);
    // `bench` alone or with an unknown word: name the subcommands (commander would print the help)
    cmd.usage('<subcommand> [flags]');
    cmd.allowExcessArguments().action((_options: unknown, self: Command) => {
      const sub = self.args[0];
      throw new InputError(
        `${sub === undefined ? 'missing subcommand' : `unknown subcommand ${JSON.stringify(sub)}`}; expected one of ${Object.keys(SUBCOMMANDS).join(', ')}`,
      );
    });
  },
};
