/**
 * The native task format of the fairness preset, in two spellings, both streamed:
 *
 * - **CSV** with a header naming the columns (any order, extra columns ignored):
 *   `submit,cpu,memory,duration,user` — `submit` and `duration` in seconds, `cpu` in cores,
 *   `memory` in the hosts' units, `user` a name (optional column, default `default`); `cpu > 0`,
 *   `submit`, `memory` and `duration` `>= 0` (as in the JSON Lines schema). This is
 *   what `clustergym convert` writes and what `convert --sort` sorts (key `submit`).
 * - **JSON Lines**: one object per line, `{"submit": 0, "cpu": 2, "memory": 4, "duration": 30,
 *   "user": "alice"}` (`user` optional), checked with zod; blank lines and `#` comments skipped.
 *
 * Both are the thesis's "Native" workload (§4.5.1, there YAML) reduced to what the model needs.
 * Rows must be in submission order for the engine (sort with `clustergym convert --sort`).
 */
import { z } from 'zod';
import { csvField } from '../../core/csv.js';
import { InputError, inputErrorFromIssues } from '../../core/errors.js';
import type { TraceTask } from '../preset.js';
import { newSummary, num, type ReadSummary, readLines } from './lines.js';

/** The native CSV header. */
export const NATIVE_CSV_HEADER = 'submit,cpu,memory,duration,user';

/** One native task as a CSV row. */
export function nativeCsvRow(t: TraceTask): string {
  const user = csvField(t.user);
  return `${t.submit},${t.cpu},${t.memory},${t.duration},${user}`;
}

function unquote(s: string): string {
  return s.length >= 2 && s.startsWith('"') && s.endsWith('"') ? s.slice(1, -1).replace(/""/g, '"') : s;
}

/** Reads a native CSV task file (see the module comment). */
export function* readNativeCsv(file: string, summary: ReadSummary = newSummary()): Generator<TraceTask, ReadSummary> {
  let cols: Record<string, number> | null = null;
  for (const { text, lineNo } of readLines(file)) {
    if (text.trim() === '') continue;
    if (cols === null) {
      const names = text.split(',').map((s) => unquote(s.trim()));
      cols = Object.fromEntries(names.map((n, i) => [n, i]));
      for (const need of ['submit', 'cpu', 'memory', 'duration']) {
        if (cols[need] === undefined)
          throw new InputError(`${file}:${lineNo}: header: missing column ${JSON.stringify(need)}; expected ${NATIVE_CSV_HEADER}, found ${text}`);
      }
      continue;
    }
    summary.rows++;
    const f = text.split(',');
    const task: TraceTask = {
      submit: num(f[cols.submit!]),
      cpu: num(f[cols.cpu!]),
      memory: num(f[cols.memory!]),
      duration: num(f[cols.duration!]),
      user: cols.user === undefined ? 'default' : unquote(f[cols.user]?.trim() ?? '') || 'default',
    };
    for (const k of ['submit', 'cpu', 'memory', 'duration'] as const) {
      if (!Number.isFinite(task[k])) throw new InputError(`${file}:${lineNo}: column ${k}: expected a number, found ${JSON.stringify(f[cols[k]!] ?? '')}`);
      // the same bounds as the JSON Lines schema: cpu > 0, the others >= 0
      if (k === 'cpu' ? !(task.cpu > 0) : task[k] < 0) {
        throw new InputError(`${file}:${lineNo}: column ${k}: expected a number ${k === 'cpu' ? '> 0' : '>= 0'}, found ${task[k]}`);
      }
    }
    summary.produced++;
    yield task;
  }
  if (cols === null) throw new InputError(`${file}: empty file; expected the header ${NATIVE_CSV_HEADER}`);
  return summary;
}

const TaskLineSchema = z
  .object({
    submit: z.number().nonnegative(),
    cpu: z.number().positive(),
    memory: z.number().nonnegative(),
    duration: z.number().nonnegative(),
    user: z.string().min(1).optional(),
  })
  .strict();

/** Reads a native JSON Lines task file (see the module comment). */
export function* readNativeJsonl(file: string, summary: ReadSummary = newSummary()): Generator<TraceTask, ReadSummary> {
  for (const { text, lineNo } of readLines(file)) {
    const t = text.trim();
    if (t === '' || t.startsWith('#')) continue;
    summary.rows++;
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch (e) {
      throw new InputError(`${file}:${lineNo}: not JSON (${(e as Error).message})`);
    }
    const r = TaskLineSchema.safeParse(v);
    if (!r.success) throw inputErrorFromIssues(`${file}:${lineNo}`, r.error.issues);
    summary.produced++;
    yield { ...r.data, user: r.data.user ?? 'default' };
  }
  return summary;
}
