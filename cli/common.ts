/**
 * Shared pieces of the `clustergym` commands: the flags (each declared once with `defineFlags`:
 * its value, one line of help, its zod validation and its default), the commander commands they
 * are attached to, the embedded defaults, and table printing.
 *
 * Commander reads the command line (flags, values, `--help`); zod validates the values (types,
 * ranges, names, rules between flags). Anything wrong on the command line is a `CommandLineError`
 * or an `InputError`, both exit code 2 with one line naming the flag.
 */
import { relative } from 'node:path';
import { Command, type ErrorOptions, Option } from 'commander';
import { z } from 'zod';
import { InputError } from '../src/core/errors.js';
import { PACKAGE_ROOT } from '../src/core/paths.js';
import { type ReplayEngine, replayEngineRefusal } from '../src/slurm/replay.js';
export { DEFAULT_PLATFORM, DEFAULT_WORKLOAD, PACKAGE_ROOT } from '../src/core/paths.js';

// ---------------------------------------------------------------------------------------------
// Flags

/** A flag's value as it comes from the command line. */
type ValueSchema = z.ZodType<unknown, z.ZodTypeDef, string>;

/**
 * One flag. Without `schema` it is a boolean flag (present or absent); with one it takes a value,
 * which `schema` validates and converts.
 */
export interface FlagSpec {
  /** The one-line description shown by `--help`. */
  help: string;
  /** Validates and converts the value (a string); absent for a boolean flag. */
  schema?: ValueSchema;
  /** The value's name in `--help` (`FILE`, `N`); default: the choices of a `oneOf`, else `VALUE`. */
  value?: string;
  /** The value when the flag is absent (shown by `--help`). */
  default?: unknown;
  /** The flag must be given; the message says what it is for (`Required (the file to convert)`). */
  required?: string;
}

/** The value a command receives for one flag. */
type ValueOf<S> = S extends { schema: infer Z extends z.ZodTypeAny }
  ? S extends { default: unknown } | { required: string }
    ? z.output<Z>
    : z.output<Z> | undefined
  : boolean;

/** The values a command receives for its flags (keys as on the command line: `comm-penalty`). */
export type FlagValues<T> = { [K in keyof T]: ValueOf<T[K]> };

/** A default must be a value of its flag's schema. */
type CheckedDefaults<T> = {
  [K in keyof T]: T[K] extends { schema: infer Z extends z.ZodTypeAny; default: unknown } ? T[K] & { default: z.output<Z> } : T[K];
};

/** The flags of a command: their declarations and the zod schema of all of them together. */
export interface FlagSet<T> {
  readonly specs: { readonly [K in keyof T]: FlagSpec };
  readonly schema: z.ZodType<FlagValues<T>, z.ZodTypeDef, Record<string, unknown>>;
}

/** The values of a flag set (`Values<typeof flags>`). */
export type Values<F> = F extends FlagSet<infer T> ? FlagValues<T> : never;

/**
 * Declares the flags of a command, each once: what `--help` shows (the value's name, the
 * description, the default) and how its value is validated. `refine` adds rules between flags
 * (zod `superRefine` on all the values; an issue's path names the flag).
 */
export function defineFlags<const T extends Record<string, FlagSpec>>(
  specs: T & CheckedDefaults<T>,
  refine?: (values: FlagValues<T>, ctx: z.RefinementCtx) => void,
): FlagSet<T> {
  const shape: Record<string, z.ZodTypeAny> = {};
  for (const [name, spec] of Object.entries(specs as Record<string, FlagSpec>)) {
    if (spec.schema === undefined) shape[name] = z.boolean().default(false);
    else if (spec.required !== undefined) shape[name] = z.string({ required_error: spec.required }).pipe(spec.schema);
    else if (spec.default !== undefined) {
      const dflt = spec.default;
      shape[name] = spec.schema.optional().transform((v) => (v === undefined ? dflt : v));
    } else shape[name] = spec.schema.optional();
  }
  const object = z.object(shape).strict();
  const schema = refine ? object.superRefine((v, ctx) => refine(v as FlagValues<T>, ctx)) : object;
  return { specs: specs as T, schema: schema as unknown as FlagSet<T>['schema'] };
}

/** How `--help` shows a default: a path under the package relative to it, others as they read. */
function defaultText(v: unknown): string {
  if (typeof v === 'string') return v.startsWith(PACKAGE_ROOT) ? relative(PACKAGE_ROOT, v) : v;
  return String(v);
}

/** The `--help` line of a flag: its description, then `(required)` or `(default: ...)`. */
export function flagHelp(spec: FlagSpec): string {
  if (spec.required !== undefined) return `${spec.help} (required)`;
  if (spec.schema !== undefined && spec.default !== undefined) return `${spec.help} (default: ${defaultText(spec.default)})`;
  return spec.help;
}

/** A negative number (`-1`, `-0.5`, `-1e3`): a value, not a flag. */
const NEGATIVE_NUMBER = /^-(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** The commander option of a flag. */
function commanderOption(cmd: Command, name: string, spec: FlagSpec): Option {
  if (spec.schema === undefined) return new Option(`--${name}`, flagHelp(spec));
  const choices = (spec.schema as { options?: unknown }).options;
  const value = spec.value ?? (Array.isArray(choices) ? choices.join('|') : 'VALUE');
  return new Option(`--${name} <${value}>`, flagHelp(spec)).argParser((v: string) => {
    // `--platform --out x`: the value is missing (the next word is a flag); `--seed -1` is a value
    if (v.startsWith('-') && v.length > 1 && !NEGATIVE_NUMBER.test(v))
      cmd.error(`--${name}: missing value (${value}) before ${v} (a value that begins with "-" is written --${name}=VALUE)`, {
        code: 'clustergym.missingValue',
      });
    return v;
  });
}

/** Adds the flags to a commander command. */
export function addFlags<T>(cmd: Command, flags: FlagSet<T>): void {
  for (const [name, spec] of Object.entries<FlagSpec>(flags.specs)) cmd.addOption(commanderOption(cmd, name, spec));
}

/** The command line's values of a parsed command, validated: an `InputError` naming the flag when bad. */
export function readFlags<T>(cmd: Command, flags: FlagSet<T>): { values: FlagValues<T>; given: (flag: keyof T & string) => boolean } {
  const options = new Map(cmd.options.map((o) => [o.long?.slice(2) ?? '', o]));
  const given = (flag: string) => {
    const o = options.get(flag);
    return o !== undefined && cmd.getOptionValueSource(o.attributeName()) === 'cli';
  };
  const raw: Record<string, unknown> = {};
  for (const name of Object.keys(flags.specs)) {
    // a `--no-x` flag is commander's negation of `x` (false when given): here it is true when given
    if (given(name)) raw[name] = options.get(name)!.negate ? true : cmd.getOptionValue(options.get(name)!.attributeName());
  }
  const r = flags.schema.safeParse(raw);
  if (!r.success) throw new InputError(r.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; '));
  return { values: r.data, given };
}

// Value schemas with messages that say what was expected and what was given.

/** `expected <what>, got "<value>"`. */
function expected(what: string, value: string): string {
  return `expected ${what}, got ${JSON.stringify(value)}`;
}

/** A decimal number as written on a command line (no hex, no empty string, no `Infinity`). */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** `in [1, 10]`, `in (0, 1]`, `>= 1`, `> 0` (empty without bounds). */
function rangeText(lo: number | undefined, loOpen: boolean, hi: number | undefined, hiOpen: boolean): string {
  if (lo !== undefined && hi !== undefined) return ` in ${loOpen ? '(' : '['}${lo}, ${hi}${hiOpen ? ')' : ']'}`;
  if (lo !== undefined) return ` ${loOpen ? '>' : '>='} ${lo}`;
  if (hi !== undefined) return ` ${hiOpen ? '<' : '<='} ${hi}`;
  return '';
}

/** Bounds of a number flag: `gt`/`gte` below, `lt`/`lte` above. */
export interface Bounds {
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
}

function numberSchema(integer: boolean, b: Bounds): z.ZodType<number, z.ZodTypeDef, string> {
  const lo = b.gt ?? b.gte;
  const hi = b.lt ?? b.lte;
  const what = `${integer ? 'an integer' : 'a number'}${rangeText(lo, b.gt !== undefined, hi, b.lt !== undefined)}`;
  return z.string().transform((s, ctx) => {
    const n = Number(s);
    const ok =
      DECIMAL.test(s.trim()) &&
      // an integer beyond 2^53 - 1 would be rounded silently (9007199254740993 -> ...992)
      (!integer || Number.isSafeInteger(n)) &&
      (b.gt === undefined || n > b.gt) &&
      (b.gte === undefined || n >= b.gte) &&
      (b.lt === undefined || n < b.lt) &&
      (b.lte === undefined || n <= b.lte);
    if (!ok) {
      const unsafe = integer && Number.isInteger(n) && !Number.isSafeInteger(n);
      ctx.addIssue({ code: 'custom', message: expected(unsafe ? `${what} of at most 2^53 - 1 in magnitude` : what, s) });
      return z.NEVER;
    }
    return n;
  });
}

/** `a,b,c`: integers >= 0. */
export const intList = z.string().transform((s, ctx) => {
  const parts = s.split(',').map((x) => x.trim());
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d+$/.test(p)) {
      ctx.addIssue({ code: 'custom', message: `expected comma-separated integers >= 0, found ${JSON.stringify(p)}` });
      return z.NEVER;
    }
    out.push(Number(p));
  }
  return out;
});

/** An integer value, within the bounds (`--seed -1` is a value). */
export function int(bounds: Bounds = {}): z.ZodType<number, z.ZodTypeDef, string> {
  return numberSchema(true, bounds);
}

/** A number value, within the bounds. */
export function num(bounds: Bounds = {}): z.ZodType<number, z.ZodTypeDef, string> {
  return numberSchema(false, bounds);
}

/** One of the names (`--help` shows them as the value: `--backfill <none|easy|conservative>`). */
export function oneOf<const V extends readonly [string, ...string[]]>(values: V): z.ZodEnum<[V[number], ...V[number][]]> {
  const list = values as unknown as [V[number], ...V[number][]];
  return z.enum(list, { errorMap: (_issue, ctx) => ({ message: expected(`one of ${values.join(', ')}`, String(ctx.data)) }) });
}

/**
 * `--engine` of the Slurm replays (`reproduce raijin`, `slurm-replay`): `one`, the one engine's Slurm preset, the
 * only engine since the Slurm engine was retired (issue 42), still accepted so that scripts that chose it run on;
 * `slurm` refused, saying so (`replayEngineRefusal`).
 */
export const REPLAY_ENGINE_FLAG = {
  value: 'one',
  schema: z
    .string()
    .superRefine((v, ctx) => {
      const why = replayEngineRefusal(v);
      if (why !== null) ctx.addIssue({ code: z.ZodIssueCode.custom, message: why });
    })
    .transform((): ReplayEngine => 'one'),
  default: 'one' as ReplayEngine,
  help: "the engine that replays: the one engine running the Slurm preset (docs/model.md, 'The Slurm preset'), the only one since the Slurm engine's retirement; kept for scripts that name it",
};

/** A string value (`nonEmpty`: the empty string is refused). */
export function text(nonEmpty = false): z.ZodType<string, z.ZodTypeDef, string> {
  return nonEmpty ? z.string().min(1, 'expected a non-empty value') : z.string();
}

// ---------------------------------------------------------------------------------------------
// Commands

/** A mistake on the command line found by commander (unknown flag, missing value, extra word...). */
export class CommandLineError extends Error {
  constructor(
    /** The command whose line it is. */
    readonly command: Command,
    message: string,
    /** Commander's error code (`commander.unknownOption`, ...). */
    readonly code: string,
  ) {
    super(message);
    this.name = 'CommandLineError';
  }
}

/** A commander command whose errors are thrown (`CommandLineError`) rather than printed. */
export class CliCommand extends Command {
  override createCommand(name?: string): CliCommand {
    return new CliCommand(name);
  }

  override error(message: string, options?: ErrorOptions): never {
    throw new CommandLineError(this, message, options?.code ?? 'commander.error');
  }
}

/** `simulate`, `bench env`: the command's words after `clustergym`. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Receives the exit code of the command that ran. */
export type Done = (code: number) => void;

/** What a command module gives the CLI: how to set up its commander command. */
export interface CliCommandModule {
  /** Adds the flags (and subcommands) to `cmd` and the action that runs it (reporting its exit code to `done`). */
  configure(cmd: Command, done: Done): void;
}

/**
 * A command from its flags and what it does with them: `run` receives the validated values and
 * `given(flag)` (the flag was on the command line, not a default).
 */
export function defineCommand<T>(
  flags: FlagSet<T>,
  run: (values: FlagValues<T>, given: (flag: keyof T & string) => boolean) => number | Promise<number>,
): CliCommandModule {
  return {
    configure(cmd, done) {
      addFlags(cmd, flags);
      cmd.action(async (_options: unknown, self: Command) => {
        const { values, given } = readFlags(self, flags);
        done(await run(values, given));
      });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Output

/** Formats rows as an aligned text table. */
export function formatTable(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? formatNumber(c) : c)))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? '').length)));
  return cells
    .map((r, ri) => {
      const line = r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]!) : String(c).padStart(widths[i]!))).join('  ');
      return ri === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('  ')}` : line;
    })
    .join('\n');
}

/** A number for humans: integers as they are, others with 4 significant digits (exponent when huge). */
export function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v) && Math.abs(v) < 1e12) return String(v);
  if (Math.abs(v) >= 1e7 || (Math.abs(v) < 1e-3 && v !== 0)) return v.toExponential(3);
  return v.toPrecision(Math.max(4, Math.floor(Math.log10(Math.abs(v) || 1)) + 3)).replace(/\.?0+$/, '');
}
