/**
 * Shared pieces of the `clustergym` commands: flag parsing validated with zod (an unknown flag or
 * a bad value is an `InputError`, exit code 2), the embedded defaults, and table printing.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { z } from 'zod';
import { InputError } from '../src/core/errors.js';
export { DEFAULT_PLATFORM, DEFAULT_WORKLOAD, PACKAGE_ROOT } from '../src/core/paths.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** `--help` was asked for: the CLI prints `text` and exits 0. */
export class HelpRequested extends Error {
  constructor(readonly text: string) {
    super(text);
    this.name = 'HelpRequested';
  }
}

/** The flags of a command with their defaults (from the zod schema), one per line. */
export function flagsHelp(command: string, options: Options, schema: z.ZodTypeAny): string {
  // look through refinements (z.object(...).superRefine(...)) to the object's shape
  let inner = schema as unknown as { shape?: Record<string, z.ZodTypeAny>; _def: { typeName?: string; schema?: unknown } };
  while (inner._def.typeName === 'ZodEffects' && inner._def.schema) inner = inner._def.schema as typeof inner;
  const shape = inner.shape ?? {};
  const lines = Object.entries(options).map(([name, o]) => {
    const def = shape[name]?._def as { typeName?: string; defaultValue?: () => unknown } | undefined;
    const dflt = def?.typeName === 'ZodDefault' && def.defaultValue ? def.defaultValue() : undefined;
    const flag = o.type === 'boolean' ? `--${name}` : `--${name} VALUE`;
    return `  ${flag.padEnd(28)}${dflt !== undefined && dflt !== false ? ` (default: ${JSON.stringify(dflt)})` : ''}`;
  });
  return [`usage: clustergym ${command} [flags]`, '', 'flags:', ...lines, '', 'See docs/cli.md for what each flag does.'].join('\n');
}

/**
 * Parses `argv` against `options` (node:util parseArgs, strict) and validates the values with
 * `schema`. Flag names use dashes on the command line and are given to the schema as they are.
 * `--help` (or `-h`) throws `HelpRequested` with the flag list.
 */
export function parseFlags<S extends z.ZodTypeAny>(command: string, argv: string[], options: Options, schema: S): z.infer<S> {
  if (argv.includes('--help') || argv.includes('-h')) throw new HelpRequested(flagsHelp(command, options, schema));
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values as Record<string, unknown>;
  } catch (e) {
    const flags = Object.keys(options)
      .map((k) => `--${k}`)
      .join(', ');
    throw new InputError(`${(e as Error).message.split('\n')[0]}; valid flags: ${flags}`);
  }
  const r = schema.safeParse(values);
  if (!r.success) {
    const msg = r.error.issues.map((i: z.ZodIssue) => `--${i.path.join('.')}: ${i.message}`).join('; ');
    throw new InputError(msg);
  }
  return r.data;
}

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
