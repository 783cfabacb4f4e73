/**
 * The `clustergym` command line as a whole (the built CLI): `--version`, `--help` of the program
 * and of every command (a description for every flag), mistakes on the command line (exit 2, one
 * line naming the flag), negative numbers as values, `--json` (JSON on stdout, nothing else), and
 * the lazy loading of the commands (`simulate` loads neither ZeroMQ nor tfjs).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { flags as benchEnvFlags } from '../../cli/benchEnv.js';
import { type FlagSet, type FlagSpec, flagHelp } from '../../cli/common.js';
import { flags as compareFlags } from '../../cli/compare.js';
import { flags as convertFlags } from '../../cli/convert.js';
import { flags as demoFlags } from '../../cli/demo.js';
import { flags as evaluateFlags } from '../../cli/evaluate.js';
import { flags as serveFlags } from '../../cli/serve.js';
import { flags as simulateFlags } from '../../cli/simulate.js';
import { flags as slurmAgentFlags } from '../../cli/slurmAgent.js';
import { flags as trainFlags } from '../../cli/train.js';
import { CLI, cli, ROOT } from '../helpers.js';

const COMMANDS: [string[], FlagSet<unknown>][] = [
  [['simulate'], simulateFlags],
  [['compare'], compareFlags],
  [['convert'], convertFlags],
  [['bench', 'env'], benchEnvFlags],
  [['train'], trainFlags],
  [['evaluate'], evaluateFlags],
  [['demo'], demoFlags],
  [['serve'], serveFlags],
  [['slurm-agent'], slurmAgentFlags],
];

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The `Flags:` section of a help text: each flag with its description (wrapped lines joined). */
function flagDescriptions(help: string): Map<string, string> {
  const section = help.split('\nFlags:\n')[1]?.split('\n\n')[0] ?? '';
  const out = new Map<string, string>();
  let current: string | undefined;
  for (const line of section.split('\n')) {
    const m = /^ {2}(?:-\w, )?(--[\w-]+)(?: <[^>]*>)? {2,}(.*)$/.exec(line);
    if (m) {
      current = m[1]!;
      out.set(current, m[2]!);
    } else if (current !== undefined) out.set(current, `${out.get(current)} ${line.trim()}`);
  }
  return out;
}

/** One line on stderr: `clustergym CMD: error: ...`, no stack trace, nothing on stdout. */
function expectOneLineError(r: { code: number | null; stdout: string; stderr: string }, command: string, pattern: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.endsWith('\n')).toBe(true);
  expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr).toMatch(new RegExp(`^clustergym ${command}: error: `));
  expect(r.stderr.trimEnd()).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\s+at .*\.js:\d+/);
}

describe('clustergym --version and --help', () => {
  it('--version prints the package version', () => {
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    for (const flag of ['--version', '-V']) {
      const r = cli([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${version}\n`);
    }
  });

  it('--help lists every command with one line', () => {
    for (const args of [['--help'], ['help']]) {
      const r = cli(args);
      expect(r.code).toBe(0);
      const commands = r.stdout.split('\nCommands:\n')[1]!.split('\n\n')[0]!;
      for (const name of ['simulate', 'convert', 'compare', 'bench', 'train', 'evaluate', 'demo', 'serve'])
        expect(commands).toMatch(new RegExp(`^ {2}${name} +\\S`, 'm'));
      expect(r.stdout).toMatch(/--json prints a command's result as JSON on stdout/);
    }
    // no command: the help, and exit code 2
    const none = cli([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toMatch(/^Usage: clustergym <command> \[flags\]/);
  });

  for (const [command, flags] of COMMANDS) {
    it(`${command.join(' ')} --help shows every flag with its description and default`, () => {
      const r = cli([...command, '--help']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: clustergym ${command.join(' ')} \\[flags\\]`));
      const shown = flagDescriptions(r.stdout);
      const specs = Object.entries<FlagSpec>(flags.specs);
      expect(specs.length).toBeGreaterThan(0);
      for (const [name, spec] of specs) {
        expect(spec.help.trim(), name).not.toBe('');
        expect(squash(shown.get(`--${name}`) ?? ''), `--${name}`).toBe(squash(flagHelp(spec)));
        if (spec.schema !== undefined && spec.default !== undefined) expect(shown.get(`--${name}`), `--${name}`).toMatch(/\(default: [^)]+\)/);
      }
      // nothing else than the declared flags and --help
      expect([...shown.keys()].sort()).toEqual([...specs.map(([n]) => `--${n}`), '--help'].sort());
    });
  }

  it('help COMMAND is COMMAND --help; bench --help lists its subcommands', () => {
    expect(cli(['help', 'convert']).stdout).toBe(cli(['convert', '--help']).stdout);
    const r = cli(['bench', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {2}env +environment steps per second/m);
  });
});

describe('mistakes on the command line: exit 2, one line naming the flag', () => {
  for (const [command] of COMMANDS) {
    it(`${command.join(' ')} --bogus`, () => {
      expectOneLineError(cli([...command, '--bogus', '1']), command.join(' '), /error: --bogus: unknown flag; `clustergym .* --help` lists the flags$/);
    });
  }

  const BAD: [string[], string][] = [
    [['simulate', '--comm-penalty', 'x'], '--comm-penalty: expected a number in (0, 1], got "x"'],
    [['compare', '--trajectories', '3', '--length', '0'], '--length: expected an integer >= 1, got "0"'],
    [['convert', '--workload', 'w.swf', '--out', 'o.json', '--format', 'xml'], '--format: expected one of auto, swf, batsim, native, malleable, got "xml"'],
    [['bench', 'env', '--env', 'clustergym/Job-v0', '--k', 'many'], '--k: expected an integer >= 1, got "many"'],
    [['train', '--config', 'c.json', '--steps', '-5'], '--steps: expected an integer >= 1, got "-5"'],
    [['evaluate', '--model', 'm', '--seed-offset', '-1'], '--seed-offset: expected an integer in [0, 1073741824], got "-1"'],
    [['demo', '--backend', 'gpu'], '--backend: expected one of auto, tensorflow, wasm, cpu, got "gpu"'],
    [['serve', '--idle-timeout', '0'], '--idle-timeout: expected a number > 0, got "0"'],
  ];
  for (const [args, message] of BAD) {
    it(`a bad value: ${args.join(' ')}`, () => {
      const r = cli(args);
      const command = args[0] === 'bench' ? 'bench env' : args[0]!;
      expectOneLineError(r, command, /./);
      expect(r.stderr).toBe(`clustergym ${command}: error: ${message}\n`);
    });
  }

  it('a missing value, a value for a flag that takes none, an extra word, a misspelt flag or command', () => {
    expectOneLineError(cli(['simulate', '--seed']), 'simulate', /error: --seed: missing value \(N\)$/);
    expectOneLineError(cli(['simulate', '--platform', '--json']), 'simulate', /error: --platform: missing value \(FILE\) before --json/);
    expectOneLineError(cli(['simulate', '--json=yes']), 'simulate', /error: --json: takes no value$/);
    expectOneLineError(cli(['simulate', 'extra']), 'simulate', /error: unexpected argument "extra"/);
    expectOneLineError(cli(['simulate', '--sed', '3']), 'simulate', /error: --sed: unknown flag \(did you mean "--seed"\?\)/);
    // the former `--json FILE` of compare and demo
    expectOneLineError(
      cli(['compare', '--json', 'out.json']),
      'compare',
      /error: --json takes no value \(it prints the result on stdout\); "out\.json" is extra: write files with --out DIR$/,
    );
    expectOneLineError(cli(['demo', '--json', 'demo.json']), 'demo', /error: --json takes no value/);
    const r = cli(['simulat']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'clustergym: error: unknown command "simulat" (did you mean "simulate"?); expected one of simulate, convert, compare, bench, train, evaluate, leaderboard, demo, reproduce, malleable, netsim, serve, slurm-agent, slurm-replay, batsim\n',
    );
    expect(cli(['help', 'simulat']).stderr).toMatch(/^clustergym: error: unknown command "simulat"/);
  });

  it('--irmasim with a flag it replaces names the flag (given on the command line, whatever its value)', () => {
    expectOneLineError(cli(['simulate', '--irmasim', 'options.json', '--seed', '0', '--no-memory-limit']), 'simulate', /drop --seed, --no-memory-limit$/);
  });
});

describe('negative numbers are values', () => {
  it('simulate --seed -1 and --seed=-1 (random policy)', () => {
    const a = cli(['simulate', '--policy', 'random', '--seed', '-1', '--json']);
    expect(a.code, a.stderr).toBe(0);
    const b = cli(['simulate', '--policy', 'random', '--seed=-1', '--json']);
    expect(b.stdout).toBe(a.stdout);
    const c = cli(['simulate', '--policy', 'random', '--seed', '0', '--json']);
    expect(JSON.parse(c.stdout).jobs_finished).toBe(300);
    expect(c.stdout).not.toBe(a.stdout);
  });

  it('compare --seed -3 and bench env --seed -1', () => {
    const r = cli(['compare', '--policies', 'fcfs', '--trajectories', '2', '--length', '40', '--seed', '-3', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).trajectories).toHaveLength(2);
    const b = cli(['bench', 'env', '--env', 'clustergym/Job-v0', '--k', '4', '--steps', '50', '--seed', '-1', '--json']);
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(b.stdout).steps).toBe(50);
  });
});

describe('--json prints the result as JSON on stdout, nothing else', () => {
  it('simulate, compare and bench env (evaluate and demo: test/cli/train.test.ts)', () => {
    const s = cli(['simulate', '--json']);
    expect(s.code, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({ jobs_finished: 300 });
    const c = cli(['compare', '--policies', 'fcfs,sjf', '--json']);
    expect(c.code, c.stderr).toBe(0);
    const report = JSON.parse(c.stdout) as { policies: { name: string }[] };
    expect(report.policies.map((p) => p.name)).toEqual(['fcfs:first', 'sjf:first']);
    const b = cli(['bench', 'env', '--env', 'clustergym/Job-v0', '--k', '4', '--steps', '50', '--json']);
    expect(b.code, b.stderr).toBe(0);
    expect(Object.keys(JSON.parse(b.stdout))).toEqual(['env', 'steps', 'seconds', 'steps_per_s']);
  });
});

describe('commands are loaded on demand', () => {
  it('simulate and compare load neither ZeroMQ nor tfjs; no --help does; serve does when it runs on libzmq, not on its own ZMTP', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-lazy-'));
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(
      hooks,
      'export async function resolve(s, c, next) {\n  if (/zeromq|@tensorflow/.test(s)) throw new Error("loaded " + s);\n  return next(s, c);\n}\n',
    );
    const register = join(dir, 'register.mjs');
    writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`);
    const run = (args: string[]) => spawnSync(process.execPath, ['--import', register, CLI, ...args], { encoding: 'utf8' });
    for (const args of [['simulate', '--json'], ['compare', '--policies', 'fcfs', '--json'], ['--help'], ...COMMANDS.map(([c]) => [...c, '--help'])]) {
      const r = run(args);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    // the check works: serve imports ZeroMQ when it runs on libzmq's socket
    const serve = run(['serve', '--bind', 'tcp://127.0.0.1:0', '--transport', 'libzmq', '--quiet']);
    expect(serve.status).toBe(1);
    expect(serve.stderr).toMatch(/loaded zeromq/);
    // and on its own ZMTP socket (the default) it serves without ZeroMQ (a gone --parent-pid stops it)
    const gone = spawnSync('true').pid!;
    const zmtp = run(['serve', '--bind', 'tcp://127.0.0.1:0', '--quiet', '--parent-pid', String(gone)]);
    expect(zmtp.status, zmtp.stderr).toBe(0);
    expect(zmtp.stdout).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+\n$/);
  });
});
