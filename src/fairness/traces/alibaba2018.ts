/**
 * Alibaba cluster-trace-v2018, table `batch_task`: CSV without a header, columns (0-based) as the
 * published schema (`cluster-trace-v2018/schema.txt`, "batch task") lists them:
 *
 * | # | field | used as |
 * |---|---|---|
 * | 0 | task_name (unique within a job) | ignored |
 * | 1 | instance_num | the row becomes this many tasks (one per instance) |
 * | 2 | job_name | `user` (the trace has no users; each job is a tenant) |
 * | 3 | task_type | ignored |
 * | 4 | status | only `Terminated` rows are read (others: `status=<s>`) |
 * | 5 | start_time (s) | `submit` |
 * | 6 | end_time (s) | `duration = end_time - start_time` |
 * | 7 | plan_cpu (100 = 1 core) | `cpu = plan_cpu / 100` x `cpuScale` |
 * | 8 | plan_mem (normalised, [0, 100]) | `memory = plan_mem / 100` x `memoryScale` (1 = a machine's memory) |
 *
 * Skipped and counted: rows with a missing or non-numeric field (`missing-field`), an end before
 * the start or a zero start (`bad-times`), no instances (`no-instances`), `plan_cpu <= 0`
 * (`zero-cpu`). Rows are read as they come: the published table is not sorted by start time, so
 * sort it once (`clustergym convert --format alibaba2018 --sort`, or the raw table with
 * `convert --sort --key-column 5`). Each row is expanded lazily: memory is one row.
 */
import type { TraceTask } from '../preset.js';
import type { ScaleOptions } from './googleEvents.js';
import { newSummary, num, type ReadSummary, readLines, skip } from './lines.js';

/** Tasks of an Alibaba 2018 `batch_task` CSV (see the module comment). */
export function* readAlibaba2018(file: string, opts: ScaleOptions = {}, summary: ReadSummary = newSummary()): Generator<TraceTask, ReadSummary> {
  const cpuScale = opts.cpuScale ?? 1;
  const memoryScale = opts.memoryScale ?? 1;
  for (const { text } of readLines(file)) {
    if (text.trim() === '') continue;
    summary.rows++;
    const f = text.split(',');
    const status = f[4]?.trim() ?? '';
    if (status !== 'Terminated') {
      skip(summary, `status=${status || 'missing'}`);
      continue;
    }
    const n = num(f[1]);
    const start = num(f[5]);
    const end = num(f[6]);
    const cpu = num(f[7]);
    const mem = num(f[8]);
    const job = f[2]?.trim() ?? '';
    if ([n, start, end, cpu, mem].some((v) => !Number.isFinite(v)) || job === '') {
      skip(summary, 'missing-field');
      continue;
    }
    if (!(start > 0 && end >= start)) {
      skip(summary, 'bad-times');
      continue;
    }
    if (!(n >= 1)) {
      skip(summary, 'no-instances');
      continue;
    }
    if (!(cpu > 0)) {
      skip(summary, 'zero-cpu');
      continue;
    }
    const task: TraceTask = { submit: start, cpu: (cpu / 100) * cpuScale, memory: (Math.max(0, mem) / 100) * memoryScale, duration: end - start, user: job };
    for (let i = 0; i < n; i++) {
      summary.produced++;
      yield { ...task };
    }
  }
  return summary;
}
