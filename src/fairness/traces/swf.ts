/**
 * The Standard Workload Format (Feitelson's archive) read as tasks of the fairness model: one job
 * line (18 whitespace-separated fields, `;` comments) becomes one task. Unlike the job-level
 * reader of `src/workload/swf.ts`, this mapping keeps memory and the user, which the fairness
 * model needs (fields 1-based, as the format numbers them):
 *
 * | field | used as |
 * |---|---|
 * | 2 submit time (s) | `submit` |
 * | 4 run time (s) | `duration` (-1: skipped, `no-runtime`) |
 * | 5 allocated processors (8, requested, when -1) | `cpu` (skipped when both are -1 or 0: `no-processors`) |
 * | 7 used memory (KB per processor; 10, requested, when -1) | `memory = KB x processors x memoryScale` (default 1/1024²: GB); 0 when both are -1 |
 * | 12 user id | `user` = `u<id>` |
 *
 * SWF files are sorted by submission time, so they stream straight into the engine (§4.5.1).
 */
import { InputError } from '../../core/errors.js';
import type { TraceTask } from '../preset.js';
import { newSummary, type ReadSummary, readLines, skip } from './lines.js';

/** Options of the SWF task reader. */
export interface SwfTaskOptions {
  /** Multiplies KB of memory (default 1 / 1024²: GB). */
  memoryScale?: number;
  /** Multiplies processors (default 1). */
  cpuScale?: number;
}

/** Tasks of an SWF file (see the module comment). */
export function* readSwfTasks(file: string, opts: SwfTaskOptions = {}, summary: ReadSummary = newSummary()): Generator<TraceTask, ReadSummary> {
  const memoryScale = opts.memoryScale ?? 1 / (1024 * 1024);
  const cpuScale = opts.cpuScale ?? 1;
  for (const { text, lineNo } of readLines(file)) {
    const t = text.trim();
    if (t === '' || t.startsWith(';')) continue;
    summary.rows++;
    const f = t.split(/\s+/).map(Number);
    if (f.length < 18 || f.slice(0, 18).some((v) => Number.isNaN(v))) {
      throw new InputError(`${file}:${lineNo}: expected 18 numeric fields (SWF), found ${f.length}: ${JSON.stringify(t.slice(0, 80))}`);
    }
    const runtime = f[3]!;
    const procs = f[4]! > 0 ? f[4]! : f[7]!;
    if (!(runtime >= 0)) {
      skip(summary, 'no-runtime');
      continue;
    }
    if (!(procs > 0)) {
      skip(summary, 'no-processors');
      continue;
    }
    const kb = f[6]! >= 0 ? f[6]! : f[9]! >= 0 ? f[9]! : 0;
    summary.produced++;
    yield { submit: f[1]!, cpu: procs * cpuScale, memory: kb * procs * memoryScale, duration: runtime, user: `u${f[11]!}` };
  }
  return summary;
}
