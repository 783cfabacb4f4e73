#!/usr/bin/env node
/**
 * The `clustergym` command. Exit codes: 0 ok, 1 runtime error, 2 bad input (the message names the
 * file, the JSON path or SWF line, and what was expected); no stack trace unless
 * `CLUSTERGYM_DEBUG=1`.
 */
import { InputError } from '../src/core/errors.js';
import { HelpRequested } from './common.js';

/** Commands, loaded on demand (so `simulate` does not load ZeroMQ or tfjs). */
const COMMANDS: Record<string, { run: (argv: string[]) => number | Promise<number>; help: string }> = {
  simulate: {
    run: async (a) => (await import('./simulate.js')).simulateCommand(a),
    help: 'platform + workload + policy -> summary table and outputs (no arguments: the embedded default)',
  },
  convert: { run: async (a) => (await import('./convert.js')).convertCommand(a), help: 'SWF or Batsim workload -> native JSON' },
  compare: {
    run: async (a) => (await import('./compare.js')).compareCommand(a),
    help: 'policies side by side on the same trajectories (--policies fcfs,sjf+easy,... --trajectories K --length L)',
  },
  bench: {
    run: async (a) => (await import('./benchEnv.js')).benchCommand(a),
    help: 'benchmarks: `bench env --env ID [--config FILE] [--workload FILE] [--k N] [--steps N] [--json]` (env steps/s)',
  },
  train: {
    run: async (a) => (await import('./train.js')).trainCommand(a),
    help: 'train the tfjs PPO baseline: --config FILE [--steps N] [--out DIR] [--resume DIR]',
  },
  evaluate: {
    run: async (a) => (await import('./evaluate.js')).evaluateCommand(a),
    help: 'a trained model and the heuristics on the same held-out trajectories: --model DIR [--episodes N] [--out DIR]',
  },
  demo: {
    run: async (a) => (await import('./demo.js')).demoCommand(a),
    help: 'train PPO briefly on the embedded default, compare with FCFS/SJF/F1 (+EASY), write a report (what `npm start` runs)',
  },
  serve: {
    run: async (a) => (await import('./serve.js')).serveCommand(a),
    help: 'the ZeroMQ bridge for Python clients (--bind tcp://127.0.0.1:5555; port 0 picks one)',
  },
};

function usage(): string {
  return [
    'usage: clustergym <command> [flags]',
    '',
    'commands:',
    ...Object.entries(COMMANDS).map(([k, v]) => `  ${k.padEnd(10)} ${v.help}`),
  ].join('\n');
}

/** Runs the CLI with `argv` (without node and script); returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    console.log(usage());
    return cmd === undefined ? 2 : 0;
  }
  const c = COMMANDS[cmd];
  if (!c) {
    console.error(`clustergym: unknown command ${JSON.stringify(cmd)}; expected one of ${Object.keys(COMMANDS).join(', ')}`);
    return 2;
  }
  try {
    return await c.run(rest);
  } catch (e) {
    if (e instanceof HelpRequested) {
      console.log(`${c.help}\n\n${e.text}`);
      return 0;
    }
    if (e instanceof InputError) {
      console.error(`clustergym ${cmd}: error: ${e.message}`);
      return 2;
    }
    if (process.env.CLUSTERGYM_DEBUG) console.error(e);
    else console.error(`clustergym ${cmd}: runtime error: ${(e as Error).message ?? String(e)}`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  },
);
