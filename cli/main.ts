#!/usr/bin/env node
/**
 * The `clustergym` command (commander). Exit codes: 0 ok, 1 runtime error, 2 bad input (a bad flag
 * or value: one line naming the flag; a bad file: the file, the JSON path or SWF line, and what was
 * expected); no stack trace unless `CLUSTERGYM_DEBUG=1`.
 *
 * The commands' modules are loaded on demand: only the one that runs (so `simulate` does not load
 * ZeroMQ or tfjs), and `clustergym --help` lists the commands without loading any.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { didYouMean, InputError } from '../src/core/errors.js';
import { CliCommand, type CliCommandModule, CommandLineError, commandPath, PACKAGE_ROOT } from './common.js';

/** The commands: one line for `clustergym --help`, and the module that sets the command up. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<CliCommandModule> }> = {
  simulate: {
    summary: 'platform + workload + policy -> summary table and outputs (no flags: the embedded default)',
    load: async () => (await import('./simulate.js')).command,
  },
  convert: { summary: 'SWF or Batsim workload, or a platform (SimGrid XML), -> native JSON', load: async () => (await import('./convert.js')).command },
  compare: { summary: 'scheduling policies side by side on the same trajectories', load: async () => (await import('./compare.js')).command },
  bench: { summary: 'benchmarks: `bench env` measures environment steps per second', load: async () => (await import('./benchEnv.js')).command },
  train: { summary: 'train the tfjs PPO baseline from a training config', load: async () => (await import('./train.js')).command },
  evaluate: { summary: 'a trained model and the heuristics on the same held-out trajectories', load: async () => (await import('./evaluate.js')).command },
  leaderboard: {
    summary: "every setting's heuristics at full strength and the learned models on the same held-out episodes, with paired intervals",
    load: async () => (await import('./leaderboard.js')).command,
  },
  demo: {
    summary: 'train PPO briefly on the embedded default, compare with FCFS/SJF/F1 (+EASY), write a report (`npm start`)',
    load: async () => (await import('./demo.js')).command,
  },
  reproduce: {
    summary: "reruns a source document's published experiments and checks its findings (dmr, cosched, fairness, raijin)",
    load: async () => (await import('./reproduce.js')).command,
  },
  malleable: {
    summary: 'a malleable workload (seed 002, DMR) under dmr or never: summary, jobs.csv, resizes.csv',
    load: async () => (await import('./malleable.js')).command,
  },
  netsim: {
    summary: "transfers on a platform's network with the flow model (CM02/LV08, as SimGrid): completion times",
    load: async () => (await import('./netsim.js')).command,
  },
  serve: { summary: 'the ZeroMQ bridge for Python clients', load: async () => (await import('./serve.js')).command },
  'slurm-agent': { summary: 'a policy schedules a live Slurm (held jobs, scontrol)', load: async () => (await import('./slurmAgent.js')).command },
  'slurm-replay': {
    summary: 'job records (SWF, sacct) on the Slurm preset under a slurm.conf; --live: against the live Slurm of SLURM_CONF',
    load: async () => (await import('./slurmReplay.js')).command,
  },
  batsim: {
    summary: "plays Batsim's side of its protocol for Batsim schedulers (pybatsim...): -p PLATFORM -w WORKLOAD [-s ENDPOINT] [-e PREFIX]",
    load: async () => (await import('./batsim.js')).command,
  },
};

const FOOTER = `
Every command has --help. --json prints a command's result as JSON on stdout
instead of the table; --out DIR is the directory a command writes its files to.
Exit codes: 0 ok, 1 runtime error, 2 bad input. Details: docs/cli.md`;

function version(): string {
  return (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The program with every command listed; `name` (the one that runs) is set up in full. */
async function program(name: string | undefined, done: (code: number) => void): Promise<CliCommand> {
  const root = new CliCommand('clustergym')
    .optionsGroup('Flags:')
    .description('A discrete-event simulator of HPC clusters, wrapped as a reinforcement-learning gym.')
    .usage('<command> [flags]')
    .version(version(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show this help')
    .helpCommand('help [command]', 'show the help of a command')
    .showSuggestionAfterError(false)
    .exitOverride()
    .addHelpText('after', FOOTER);
  root.configureHelp({ subcommandTerm: (c) => c.name() });
  for (const [n, c] of Object.entries(COMMANDS)) {
    const cmd = root.command(n).description(c.summary).usage('[flags]').optionsGroup('Flags:');
    if (n === name) (await c.load()).configure(cmd, done);
  }
  return root;
}

/** One line for a mistake on the command line, naming the flag. */
function explain(e: CommandLineError, argv: string[]): string {
  const cmd = e.command;
  const flags = cmd.options.map((o) => o.long ?? '');
  const quoted = /'([^']*)'/.exec(e.message)?.[1] ?? '';
  const where = commandPath(cmd) || 'clustergym';
  switch (e.code) {
    case 'commander.unknownOption': {
      const [flag = quoted, value] = quoted.split('=');
      const known = cmd.options.find((o) => o.long === flag);
      if (known && value !== undefined) return `${flag}: takes no value`;
      return `${quoted}: unknown flag${didYouMean(quoted, flags)}; \`clustergym ${where} --help\` lists the flags`;
    }
    case 'commander.optionMissingArgument': {
      const [flag = quoted, value = ''] = quoted.split(' ');
      return `${flag}: missing value${value ? ` (${value.replace(/[<>]/g, '')})` : ''}`;
    }
    case 'commander.excessArguments': {
      const extra = cmd.args[cmd.registeredArguments.length] ?? '';
      const i = argv.lastIndexOf(extra);
      const before = i > 0 ? cmd.options.find((o) => o.long === argv[i - 1] && o.isBoolean()) : undefined;
      if (before?.long === '--json')
        return `--json takes no value (it prints the result on stdout); ${JSON.stringify(extra)} is extra: write files with --out DIR`;
      if (before) return `${before.long} takes no value; ${JSON.stringify(extra)} is extra`;
      return `unexpected argument ${JSON.stringify(extra)} (flags are written --name VALUE)`;
    }
    case 'commander.unknownCommand': {
      const names = cmd.commands.map((c) => c.name()).filter((c) => c !== 'help');
      return `unknown command ${JSON.stringify(quoted)}${didYouMean(quoted, names)}; expected one of ${names.join(', ')}`;
    }
    default:
      return e.message.replace(/^error: /, '');
  }
}

/** `clustergym simulate` (`clustergym` alone for the program). */
function label(path: string): string {
  return path ? `clustergym ${path}` : 'clustergym';
}

/** Runs the CLI with `argv` (without node and script); returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  let code = 0;
  const done = (c: number) => {
    code = c;
  };
  const name = argv[0] === 'help' ? argv[1] : argv[0];
  let where = name !== undefined && name in COMMANDS ? name : '';
  try {
    const root = await program(where || undefined, done);
    if (argv.length === 0) {
      root.outputHelp();
      return 2;
    }
    if (argv[0] === 'help' && name !== undefined && !where) root.error(`error: unknown command '${name}'`, { code: 'commander.unknownCommand' });
    root.hook('preAction', (_root, action) => {
      where = commandPath(action);
    });
    await root.parseAsync(argv, { from: 'user' });
    return code;
  } catch (e) {
    const prefix = label(where);
    // help or the version shown (exit code 0), or the help shown for a missing command (2)
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof CommandLineError) {
      console.error(`${label(commandPath(e.command))}: error: ${explain(e, argv)}`);
      return 2;
    }
    if (e instanceof InputError) {
      console.error(`${prefix}: error: ${e.message}`);
      return 2;
    }
    if (process.env.CLUSTERGYM_DEBUG) console.error(e);
    else console.error(`${prefix}: runtime error: ${(e as Error).message ?? String(e)}`);
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
