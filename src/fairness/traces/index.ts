/**
 * Task-trace readers of the fairness preset, by format name, and the conversion to the native CSV.
 * Every reader streams (one chunk of the file and the open tasks in memory, see each module).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { InputError } from '../../core/errors.js';
import type { TraceTask } from '../preset.js';
import { readAlibaba2018 } from './alibaba2018.js';
import { readGoogle2011 } from './google2011.js';
import { readGoogle2019 } from './google2019.js';
import { NATIVE_CSV_HEADER, nativeCsvRow, readNativeCsv, readNativeJsonl } from './native.js';
import { readSwfTasks } from './swf.js';

export { readAlibaba2018 } from './alibaba2018.js';
export { externalSortCsv, type ExternalSortOptions, type ExternalSortResult } from './externalSort.js';
export type { GoogleSummary, ScaleOptions } from './googleEvents.js';
export { readGoogle2011 } from './google2011.js';
export { type Google2019Options, readCollectionUsers, readGoogle2019 } from './google2019.js';
export { newSummary, type ReadSummary, readLines } from './lines.js';
export { NATIVE_CSV_HEADER, nativeCsvRow, readNativeCsv, readNativeJsonl } from './native.js';
export { readSwfTasks, type SwfTaskOptions } from './swf.js';

/** Trace formats by name. */
export const TRACE_FORMATS = ['native-csv', 'native-jsonl', 'google2011', 'google2019', 'alibaba2018', 'swf'] as const;
/** A trace format. */
export type TraceFormat = (typeof TRACE_FORMATS)[number];

/** Whether a format's reader yields tasks in submission order when its file is (the Google readers yield them by end). */
export function submitOrdered(format: TraceFormat): boolean {
  return format !== 'google2011' && format !== 'google2019';
}

/** Options shared by the readers. */
export interface TraceOptions {
  cpuScale?: number;
  memoryScale?: number;
  /** Google 2019: a `collection_events` export for the users. */
  collectionEvents?: string;
}

/** The tasks of `file` in `format`. */
export function readTrace(file: string, format: TraceFormat, opts: TraceOptions = {}): Iterable<TraceTask> {
  switch (format) {
    case 'native-csv':
      return readNativeCsv(file);
    case 'native-jsonl':
      return readNativeJsonl(file);
    case 'google2011':
      return readGoogle2011(file, opts);
    case 'google2019':
      return readGoogle2019(file, opts);
    case 'alibaba2018':
      return readAlibaba2018(file, opts);
    case 'swf':
      return readSwfTasks(file, opts);
    default:
      throw new InputError(`unknown trace format ${JSON.stringify(format)}; expected one of ${TRACE_FORMATS.join(', ')}`);
  }
}

/** Writes tasks as native CSV (streamed, buffered); returns the number written. */
export function writeNativeCsv(tasks: Iterable<TraceTask>, file: string): number {
  const fd = openSync(file, 'w');
  let n = 0;
  try {
    let batch: string[] = [NATIVE_CSV_HEADER];
    for (const t of tasks) {
      batch.push(nativeCsvRow(t));
      n++;
      if (batch.length >= 65536) {
        writeSync(fd, `${batch.join('\n')}\n`);
        batch = [];
      }
    }
    if (batch.length > 0) writeSync(fd, `${batch.join('\n')}\n`);
  } finally {
    closeSync(fd);
  }
  return n;
}
