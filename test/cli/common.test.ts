/**
 * The flag declarations of `cli/common.ts`: one declaration gives the commander option (name,
 * value, `--help` line with the default) and the zod validation (defaults, required flags,
 * messages that say what was expected and what was given).
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addFlags, CliCommand, defineFlags, type FlagSet, type FlagValues, flagHelp, int, num, oneOf, readFlags, text } from '../../cli/common.js';
import { DEFAULT_WORKLOAD } from '../../src/core/paths.js';

const FLAGS = defineFlags(
  {
    seed: { value: 'N', schema: int(), default: 0, help: 'a seed' },
    penalty: { value: 'X', schema: num({ gt: 0, lte: 1 }), help: 'a fraction' },
    backfill: { schema: oneOf(['none', 'easy']), default: 'none', help: 'backfilling' },
    out: { value: 'FILE', schema: text(true), required: 'Required (the file to write)', help: 'the output' },
    workload: { value: 'FILE', schema: text(), default: DEFAULT_WORKLOAD, help: 'the workload' },
    'no-memory-limit': { help: 'no memory limit' },
    json: { help: 'JSON on stdout' },
    length: { value: 'L', schema: int({ gte: 1 }), help: 'a length' },
    origin: { value: 'N', schema: int({ gte: 0 }), help: 'an origin' },
  },
  (f, ctx) => {
    if (f.origin !== undefined && f.length === undefined) ctx.addIssue({ code: 'custom', path: ['length'], message: 'Required with --origin' });
  },
);

/** Parses `argv` as the CLI does for a command with `flags`; returns the values or throws. */
function parseWith<T>(flags: FlagSet<T>, argv: string[]): { values: FlagValues<T>; given: (flag: keyof T & string) => boolean } {
  const cmd = new CliCommand('t');
  addFlags(cmd, flags);
  let got: { values: FlagValues<T>; given: (flag: keyof T & string) => boolean } | undefined;
  cmd.action((_o: unknown, self: Command) => {
    got = readFlags(self, flags);
  });
  cmd.parse(argv, { from: 'user' });
  return got!;
}

const parse = (argv: string[]) => parseWith(FLAGS, argv);

const message = (argv: string[]) => {
  try {
    parse(argv);
  } catch (e) {
    return (e as Error).message;
  }
  return '';
};

describe('defineFlags', () => {
  it('defaults, booleans, a --no- flag and required flags', () => {
    const { values, given } = parse(['--out', 'o.json']);
    expect(values).toEqual({
      seed: 0,
      penalty: undefined,
      backfill: 'none',
      out: 'o.json',
      workload: DEFAULT_WORKLOAD,
      'no-memory-limit': false,
      json: false,
      length: undefined,
      origin: undefined,
    });
    expect(given('out')).toBe(true);
    expect(given('seed')).toBe(false);
    expect(given('no-memory-limit')).toBe(false);
    const b = parse(['--out=o', '--no-memory-limit', '--json', '--backfill', 'easy', '--penalty', '0.5']);
    expect(b.values).toMatchObject({ 'no-memory-limit': true, json: true, backfill: 'easy', penalty: 0.5, out: 'o' });
    expect(b.given('no-memory-limit')).toBe(true);
  });

  it('negative numbers are values', () => {
    expect(parse(['--out', 'o', '--seed', '-1']).values.seed).toBe(-1);
    expect(parse(['--out', 'o', '--seed=-7']).values.seed).toBe(-7);
    expect(message(['--out', 'o', '--penalty', '-0.5'])).toBe('--penalty: expected a number in (0, 1], got "-0.5"');
    expect(message(['--out', 'o', '--origin', '-1', '--length', '2'])).toBe('--origin: expected an integer >= 0, got "-1"');
  });

  it('bad values name the flag, what was expected and what was given', () => {
    expect(message(['--out', 'o', '--seed', 'x'])).toBe('--seed: expected an integer, got "x"');
    expect(message(['--out', 'o', '--seed', '1.5'])).toBe('--seed: expected an integer, got "1.5"');
    expect(message(['--out', 'o', '--seed', ''])).toBe('--seed: expected an integer, got ""');
    expect(message(['--out', 'o', '--seed', '0x10'])).toBe('--seed: expected an integer, got "0x10"');
    // beyond 2^53 - 1 the value would be rounded silently (…993 -> …992): refused instead
    expect(message(['--out', 'o', '--seed', '9007199254740993'])).toBe('--seed: expected an integer of at most 2^53 - 1 in magnitude, got "9007199254740993"');
    expect(message(['--out', 'o', '--penalty', 'x'])).toBe('--penalty: expected a number in (0, 1], got "x"');
    expect(message(['--out', 'o', '--penalty', '0'])).toBe('--penalty: expected a number in (0, 1], got "0"');
    expect(message(['--out', 'o', '--backfill', 'eazy'])).toBe('--backfill: expected one of none, easy, got "eazy"');
    expect(message(['--out', ''])).toBe('--out: expected a non-empty value');
    expect(message([])).toBe('--out: Required (the file to write)');
    expect(message(['--out', 'o', '--origin', '3'])).toBe('--length: Required with --origin');
    expect(message(['--seed', 'x'])).toBe('--seed: expected an integer, got "x"; --out: Required (the file to write)');
  });

  it('a flag followed by another flag is missing its value', () => {
    expect(message(['--out', '--json'])).toMatch(/^--out: missing value \(FILE\) before --json/);
    expect(message(['--out', 'o', '--seed', '--json'])).toMatch(/^--seed: missing value \(N\) before --json/);
  });

  it('--help shows every flag with its value, description and default', () => {
    const cmd = new CliCommand('t');
    addFlags(cmd, FLAGS);
    const help = cmd.helpInformation({ error: false });
    expect(help).toMatch(/--seed <N>\s+a seed \(default: 0\)/);
    expect(help).toMatch(/--backfill <none\|easy>\s+backfilling \(default: none\)/);
    expect(help).toMatch(/--out <FILE>\s+the output \(required\)/);
    expect(help).toMatch(/--workload <FILE>\s+the workload \(default: data\/workloads\/mixed-300\.json\)/);
    expect(help).toMatch(/--json\s+JSON on stdout\n/);
    expect(flagHelp({ help: 'x', schema: int(), default: 3 })).toBe('x (default: 3)');
    expect(flagHelp({ help: 'x' })).toBe('x');
  });
});
