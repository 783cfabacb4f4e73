/**
 * Google cluster data 2019 (ClusterData2019), table `instance_events`, as exported from BigQuery
 * to newline-delimited JSON (one event object per line; 64-bit integers may come as strings).
 * Fields, per the published protocol buffer (`clusterdata_trace_format_v3.proto`, `InstanceEvent`):
 *
 * | field | used as |
 * |---|---|
 * | `time` (µs since the trace start) | time / 1e6 s |
 * | `type`: 0 SUBMIT, 1 QUEUE, 2 ENABLE, 3 SCHEDULE, 4 EVICT, 5 FAIL, 6 FINISH, 7 KILL, 8 LOST, 9 UPDATE_PENDING, 10 UPDATE_RUNNING (the number or the name) | the pairing of `googleEvents.ts` (QUEUE and ENABLE like SUBMIT: the wait counts from the first) |
 * | `collection_id`, `instance_index` | task key |
 * | `resource_request.cpus` (normalised GCUs) | `cpu` x `cpuScale` |
 * | `resource_request.memory` (normalised bytes) | `memory` x `memoryScale` |
 * | everything else (machine, priority, constraints, alloc sets...) | ignored |
 *
 * Instance events carry no user: the user is the collection's (`CollectionEvent.user`) when a
 * `collection_events` file (same JSON export) is given (`collectionEvents`; read once into a map
 * collection id -> user, one entry per collection), else `collection:<id>`.
 */
import { InputError } from '../../core/errors.js';
import type { TraceTask } from '../preset.js';
import { type GoogleEvent, type GoogleEventRow, type GoogleSummary, pairGoogleEvents, type ScaleOptions } from './googleEvents.js';
import { readLines } from './lines.js';

const TYPES_2019: readonly GoogleEvent[] = [
  'SUBMIT',
  'QUEUE',
  'ENABLE',
  'SCHEDULE',
  'EVICT',
  'FAIL',
  'FINISH',
  'KILL',
  'LOST',
  'UPDATE_PENDING',
  'UPDATE_RUNNING',
];

/** Options of the 2019 reader. */
export interface Google2019Options extends ScaleOptions {
  /** A `collection_events` JSON Lines file giving each collection's user. */
  collectionEvents?: string;
}

function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') return Number(v);
  return Number.NaN;
}

function parseLine(file: string, text: string, lineNo: number): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new InputError(`${file}:${lineNo}: not JSON (${(e as Error).message})`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new InputError(`${file}:${lineNo}: expected an event object`);
  return v as Record<string, unknown>;
}

/** collection id -> user from a `collection_events` export. */
export function readCollectionUsers(file: string): Map<string, string> {
  const users = new Map<string, string>();
  for (const { text, lineNo } of readLines(file)) {
    if (text.trim() === '') continue;
    const o = parseLine(file, text, lineNo);
    if (typeof o.user === 'string' && o.collection_id !== undefined) users.set(String(o.collection_id), o.user);
  }
  return users;
}

function* rows2019(file: string, summary: GoogleSummary, users: Map<string, string> | null): Generator<GoogleEventRow> {
  for (const { text, lineNo } of readLines(file)) {
    if (text.trim() === '') continue;
    summary.rows++;
    const o = parseLine(file, text, lineNo);
    const time = toNumber(o.time);
    if (!Number.isFinite(time)) throw new InputError(`${file}:${lineNo}: $.time: expected a number, found ${JSON.stringify(o.time)}`);
    const type = typeof o.type === 'string' && Number.isNaN(Number(o.type)) ? (o.type as GoogleEvent) : TYPES_2019[toNumber(o.type)];
    if (type === undefined || !TYPES_2019.includes(type)) {
      throw new InputError(`${file}:${lineNo}: $.type: expected 0-10 or one of ${TYPES_2019.join(', ')}, found ${JSON.stringify(o.type)}`);
    }
    if (o.collection_id === undefined) throw new InputError(`${file}:${lineNo}: $.collection_id: missing`);
    const coll = String(o.collection_id);
    const req = (typeof o.resource_request === 'object' && o.resource_request !== null ? o.resource_request : {}) as Record<string, unknown>;
    yield {
      time: time / 1e6,
      type,
      key: `${coll}:${String(o.instance_index ?? 0)}`,
      cpu: toNumber(req.cpus),
      memory: toNumber(req.memory),
      user: users?.get(coll) ?? `collection:${coll}`,
      lineNo,
    };
  }
}

/** Tasks of a Google 2019 `instance_events` JSON Lines export, in the order their runs end. */
export function readGoogle2019(
  file: string,
  opts: Google2019Options = {},
  summary: GoogleSummary = { rows: 0, produced: 0, skipped: {}, ends: {} },
): Generator<TraceTask> {
  const users = opts.collectionEvents ? readCollectionUsers(opts.collectionEvents) : null;
  return pairGoogleEvents(rows2019(file, summary, users), file, summary, opts);
}
