/**
 * Google cluster data 2011 (ClusterData2011_2), table `task_events`: CSV without a header, one
 * event per row, columns (0-based) as the published schema document (format v2.1) lists them:
 *
 * | # | field | used as |
 * |---|---|---|
 * | 0 | timestamp (µs since the trace start; 0 = before the window, 2^63-1 = after it) | time / 1e6 s; rows at 2^63-1 skipped (`after-window`) |
 * | 1 | missing info | ignored |
 * | 2 | job ID | task key with 3 |
 * | 3 | task index | task key |
 * | 4 | machine ID | ignored (the simulated scheduler places) |
 * | 5 | event type: 0 SUBMIT, 1 SCHEDULE, 2 EVICT, 3 FAIL, 4 FINISH, 5 KILL, 6 LOST, 7 UPDATE_PENDING, 8 UPDATE_RUNNING | the pairing of `googleEvents.ts` |
 * | 6 | user (hashed) | `user` |
 * | 7, 8 | scheduling class, priority | ignored |
 * | 9 | CPU request (normalised: 1 = the largest machine's cores) | `cpu` x `cpuScale` |
 * | 10 | memory request (normalised: 1 = the largest machine's memory) | `memory` x `memoryScale` |
 * | 11, 12 | disk request, different-machines restriction | ignored |
 *
 * Empty fields are missing values (NaN); rows with an unknown event type are refused with their
 * line. The table ships as 500 gzipped parts in time order: decompress and concatenate them.
 */
import { InputError } from '../../core/errors.js';
import type { TraceTask } from '../preset.js';
import { type GoogleEvent, type GoogleEventRow, type GoogleSummary, pairGoogleEvents, type ScaleOptions } from './googleEvents.js';
import { num, readLines, skip } from './lines.js';

const TYPES_2011: readonly GoogleEvent[] = ['SUBMIT', 'SCHEDULE', 'EVICT', 'FAIL', 'FINISH', 'KILL', 'LOST', 'UPDATE_PENDING', 'UPDATE_RUNNING'];
const AFTER_WINDOW = 9.2e18;

function* rows2011(file: string, summary: GoogleSummary): Generator<GoogleEventRow> {
  for (const { text, lineNo } of readLines(file)) {
    if (text.trim() === '') continue;
    summary.rows++;
    const f = text.split(',');
    const ts = num(f[0]);
    if (!Number.isFinite(ts)) throw new InputError(`${file}:${lineNo}: field 0 (timestamp): expected a number, found ${JSON.stringify(f[0] ?? '')}`);
    if (ts >= AFTER_WINDOW) {
      skip(summary, 'after-window');
      continue;
    }
    const code = num(f[5]);
    const type = TYPES_2011[code];
    if (type === undefined || !Number.isInteger(code)) {
      throw new InputError(`${file}:${lineNo}: field 5 (event type): expected an integer 0-8, found ${JSON.stringify(f[5] ?? '')}`);
    }
    if (f[2] === undefined || f[2] === '' || f[3] === undefined || f[3] === '') {
      throw new InputError(`${file}:${lineNo}: fields 2-3 (job ID, task index): missing`);
    }
    yield { time: ts / 1e6, type, key: `${f[2]}:${f[3]}`, cpu: num(f[9]), memory: num(f[10]), user: f[6]?.trim() ?? '', lineNo };
  }
}

/** Tasks of a Google 2011 `task_events` CSV, in the order their runs end (see `googleEvents.ts`). */
export function readGoogle2011(
  file: string,
  opts: ScaleOptions = {},
  summary: GoogleSummary = { rows: 0, produced: 0, skipped: {}, ends: {} },
): Generator<TraceTask> {
  return pairGoogleEvents(rows2011(file, summary), file, summary, opts);
}
