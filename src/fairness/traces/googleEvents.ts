/**
 * Tasks from the event tables of Google's cluster traces (2011 `task_events`, 2019
 * `instance_events`): both record each task (2019: instance) as a sequence of events, so a task's
 * duration is only known at the event that ends it (§4.5.1: "для того, чтобы выяснить время
 * выполнение задачи, необходимо прочитать трейс до события окончания задачи").
 *
 * The pairing, per task key (job or collection id, task or instance index), with the rows in time
 * order as published:
 * - `SUBMIT` opens the task (or, after an `EVICT`/`FAIL`, opens its next run) with `submit` = its time;
 * - `SCHEDULE` starts the run (a run with no `SUBMIT` seen, e.g. submitted before the trace
 *   window, is submitted at its `SCHEDULE` time and counted under `no-submit`);
 * - `UPDATE_PENDING`/`UPDATE_RUNNING` replace the resource request when they carry one;
 * - `EVICT`, `FAIL`, `FINISH`, `KILL`, `LOST` end the run: it becomes one task
 *   `{submit, cpu, memory, duration = end - schedule, user}`. A rescheduled task (evicted or
 *   failed, then submitted again) therefore gives one task per run, each with the resources and
 *   the time it really held; the summary counts runs by how they ended (`ends`).
 * - A task ended without having run (`KILL` while pending) gives nothing (`never-scheduled`);
 *   runs still open at the end of the file give nothing (`running-at-end`, `pending-at-end`);
 *   a run whose CPU or memory request is missing (empty field) or whose CPU request is 0 is
 *   skipped (`missing-request`, `zero-cpu`).
 *
 * Memory is one entry per task currently open, not the trace. Tasks come out in the order their
 * runs END, not in submission order: convert them to the native format and sort it
 * (`clustergym convert --format google2011 --sort`), which is what the thesis recommends too.
 * Rows out of time order are refused with their line (sort the raw table first:
 * `clustergym convert --sort --key-column 0`).
 */
import { InputError } from '../../core/errors.js';
import type { TraceTask } from '../preset.js';
import { type ReadSummary, skip } from './lines.js';

/** The event kinds both versions share (each version maps its own codes to these). */
export type GoogleEvent = 'SUBMIT' | 'QUEUE' | 'ENABLE' | 'SCHEDULE' | 'EVICT' | 'FAIL' | 'FINISH' | 'KILL' | 'LOST' | 'UPDATE_PENDING' | 'UPDATE_RUNNING';

/** One parsed event row. */
export interface GoogleEventRow {
  /** Seconds. */
  time: number;
  type: GoogleEvent;
  key: string;
  /** Normalised requests (NaN when the field is empty). */
  cpu: number;
  memory: number;
  /** User name ('' when the row has none). */
  user: string;
  lineNo: number;
}

/** Summary of a Google reader: also the runs by how they ended. */
export interface GoogleSummary extends ReadSummary {
  ends: Record<string, number>;
}

/** Scales applied to the normalised sizes (the thesis's user-chosen constants, §4.2.1). */
export interface ScaleOptions {
  /** Multiplies CPU requests (default 1: fractions of the largest machine). */
  cpuScale?: number;
  /** Multiplies memory requests (default 1). */
  memoryScale?: number;
}

interface Open {
  submit: number;
  sched: number;
  cpu: number;
  memory: number;
  user: string;
  sawSubmit: boolean;
}

/** Pairs events into tasks (see the module comment). */
export function* pairGoogleEvents(rows: Iterable<GoogleEventRow>, file: string, summary: GoogleSummary, opts: ScaleOptions): Generator<TraceTask> {
  const cpuScale = opts.cpuScale ?? 1;
  const memoryScale = opts.memoryScale ?? 1;
  const open = new Map<string, Open>();
  let last = -Infinity;
  for (const r of rows) {
    if (r.time < last) {
      throw new InputError(
        `${file}:${r.lineNo}: rows are not in time order (${r.time} s after ${last} s); sort the table first (clustergym convert --sort --key-column 0)`,
      );
    }
    last = r.time;
    let s = open.get(r.key);
    const setRequest = (o: Open) => {
      if (!Number.isNaN(r.cpu)) o.cpu = r.cpu;
      if (!Number.isNaN(r.memory)) o.memory = r.memory;
      if (r.user !== '') o.user = r.user;
    };
    switch (r.type) {
      case 'SUBMIT':
      case 'QUEUE':
      case 'ENABLE':
        if (s === undefined) {
          s = { submit: r.time, sched: Number.NaN, cpu: Number.NaN, memory: Number.NaN, user: '', sawSubmit: true };
          open.set(r.key, s);
        }
        setRequest(s);
        break;
      case 'SCHEDULE':
        if (s === undefined) {
          s = { submit: r.time, sched: Number.NaN, cpu: Number.NaN, memory: Number.NaN, user: '', sawSubmit: false };
          open.set(r.key, s);
          skip(summary, 'no-submit');
        }
        s.sched = r.time;
        setRequest(s);
        break;
      case 'UPDATE_PENDING':
      case 'UPDATE_RUNNING':
        if (s !== undefined) setRequest(s);
        break;
      default: {
        // EVICT, FAIL, FINISH, KILL, LOST: the run ends
        if (s === undefined) {
          skip(summary, 'end-without-task');
          break;
        }
        open.delete(r.key);
        if (Number.isNaN(s.sched)) {
          skip(summary, 'never-scheduled');
          break;
        }
        summary.ends[r.type] = (summary.ends[r.type] ?? 0) + 1;
        if (Number.isNaN(s.cpu) || Number.isNaN(s.memory)) {
          skip(summary, 'missing-request');
          break;
        }
        if (!(s.cpu > 0)) {
          skip(summary, 'zero-cpu');
          break;
        }
        summary.produced++;
        yield { submit: s.submit, cpu: s.cpu * cpuScale, memory: s.memory * memoryScale, duration: r.time - s.sched, user: s.user || 'unknown' };
      }
    }
  }
  for (const s of open.values()) skip(summary, Number.isNaN(s.sched) ? 'pending-at-end' : 'running-at-end');
}
