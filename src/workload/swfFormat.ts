/**
 * The Standard Workload Format (SWF) of the Parallel Workloads Archive (Feitelson et al.,
 * https://www.cs.huji.ac.il/labs/parallel/workload/swf.html), DESIGN §3: its fields, its header keys,
 * the reader's options, and the parsing of one job line into a `Job`. `swf.ts` reads files with it.
 *
 * An SWF file is a header of comment lines (`; Key: value`, e.g. `; MaxProcs: 128`) followed by one
 * line per job of 18 whitespace-separated numbers:
 *
 * ```
 *  1 job number   2 submit time   3 wait time   4 run time   5 allocated processors
 *  6 average CPU time   7 used memory   8 requested processors   9 requested time
 * 10 requested memory  11 status  12 user  13 group  14 executable  15 queue  16 partition
 * 17 preceding job  18 think time           (-1: unknown)
 * ```
 *
 * Mapping to a `Job` (DESIGN §3): `id` = field 1, `subtime` = field 2, `runtime` = field 4,
 * `ntasks` = field 5 (allocated processors), or field 8 (requested) when field 5 is -1 (option
 * `processors: 'requested'` prefers field 8), `reqTime` = field 9, or the run time when field 9 is -1
 * (or always, with `reqTimeFromRuntime`). Status (field 11) can filter jobs (`statuses`). A job is an
 * `mpi` job whose tasks may go on any cores (`nodes = 0`) under the `delay` work model (each task runs
 * exactly the recorded run time); with option `mops` it becomes an `ops` job of
 * `ops = ceil(runtime * mops * 1e6)` operations per task, i.e. the recorded run time on a core of
 * `mops` millions of operations per second. Jobs with run time <= 0 or processors <= 0 (and jobs
 * whose status is filtered out) are skipped and counted by reason in `skipped`. Facets (`job.ts`), as
 * decimal strings, absent when the field is -1: `user` = field 12 (user id), `account` = field 13
 * (group id), `qos` = field 15 (queue number), `partition` = field 16 (partition number).
 *
 * Job lines are parsed directly on the bytes: fields split at whitespace, numbers read without
 * building strings. A malformed line (not 18 fields, a field that is not a number) is reported through
 * the caller's `fail`, which names the line.
 */
import { z } from 'zod';
import type { Job, JobType } from './job.js';

/** Number of fields of an SWF job line. */
export const SWF_FIELDS = 18;

/** Names of the 18 SWF fields, 1-based (index 0 unused), for error messages. */
export const SWF_FIELD_NAMES: readonly string[] = [
  '',
  'job number',
  'submit time',
  'wait time',
  'run time',
  'allocated processors',
  'average CPU time',
  'used memory',
  'requested processors',
  'requested time',
  'requested memory',
  'status',
  'user id',
  'group id',
  'executable',
  'queue',
  'partition',
  'preceding job',
  'think time',
];

/** Options of the SWF reader (validated with zod; every field optional). */
export const SwfOptionsSchema = z
  .object({
    /** `allocated`: field 5, or field 8 when 5 is -1 (default); `requested`: field 8, or field 5 when 8 is -1. */
    processors: z.enum(['allocated', 'requested']).default('allocated'),
    /** Ignore field 9 and use the run time as the requested time (perfect estimates). */
    reqTimeFromRuntime: z.boolean().default(false),
    /**
     * When a job ran longer than it requested (field 4 > field 9, common in real traces):
     * `keep` both as recorded (default), `raise` the requested time to the run time, or
     * `cap-runtime`: cut the run time to the requested time (as a walltime limit would).
     */
    overrun: z.enum(['keep', 'raise', 'cap-runtime']).default('keep'),
    /** Upper bound on the requested time, seconds (larger values are capped). */
    maxReqTime: z.number().positive().optional(),
    /** Job type given to every job (default `mpi`). */
    jobType: z.enum(['mpi', 'seq']).default('mpi'),
    /** When set, jobs use the `ops` work model: `ops = ceil(runtime * mops * 1e6)` per task. */
    mops: z.number().positive().optional(),
    /** Keep only jobs whose status (field 11) is in this list; the others are skipped as `status=N`. */
    statuses: z.array(z.number().int()).optional(),
    /** Stop after this many jobs have been produced. */
    maxJobs: z.number().int().positive().optional(),
    /** Bytes read per `readSync` call. */
    chunkSize: z
      .number()
      .int()
      .min(64)
      .default(1 << 20),
  })
  .strict();

/** Options of the SWF reader, as given by the caller. */
export type SwfOptions = z.input<typeof SwfOptionsSchema>;
/** Options of the SWF reader, validated (defaults filled). */
export type SwfConfig = z.output<typeof SwfOptionsSchema>;

/** The header of an SWF file: its `; Key: value` comment lines before the first job. */
export interface SwfHeader {
  /** `MaxProcs`: processors of the machine. */
  maxProcs?: number | undefined;
  /** `MaxNodes`: nodes of the machine. */
  maxNodes?: number | undefined;
  maxJobs?: number | undefined;
  maxRecords?: number | undefined;
  maxRuntime?: number | undefined;
  maxMemory?: number | undefined;
  /** `UnixStartTime`: epoch seconds of submit time 0. */
  unixStartTime?: number | undefined;
  /** `TimeZone`: offset of the site from UTC, seconds. */
  timeZone?: number | undefined;
  timeZoneString?: string | undefined;
  startTime?: string | undefined;
  endTime?: string | undefined;
  version?: string | undefined;
  computer?: string | undefined;
  installation?: string | undefined;
  /** Every `; Key: value` line, values in file order (keys such as `Note` or `Queue` repeat). */
  fields: Record<string, string[]>;
}

/** Header keys with a numeric value (its first word), and the `SwfHeader` field each sets. */
const NUMERIC_HEADER: Record<string, keyof SwfHeader> = {
  MaxProcs: 'maxProcs',
  MaxNodes: 'maxNodes',
  MaxJobs: 'maxJobs',
  MaxRecords: 'maxRecords',
  MaxRuntime: 'maxRuntime',
  MaxMemory: 'maxMemory',
  UnixStartTime: 'unixStartTime',
  TimeZone: 'timeZone',
};
/** Header keys with a text value, and the `SwfHeader` field each sets. */
const TEXT_HEADER: Record<string, keyof SwfHeader> = {
  TimeZoneString: 'timeZoneString',
  StartTime: 'startTime',
  EndTime: 'endTime',
  Version: 'version',
  Computer: 'computer',
  Installation: 'installation',
};

/** A `; Key: value` header line, from after its `;`. */
export const HEADER_LINE = /^\s*([A-Za-z][A-Za-z0-9_ ]*?)\s*:\s*(.*?)\s*$/;

/** Sets the typed field of `header` that header key `key` names, if any (a numeric value that is not a number is left out). */
export function setHeaderField(header: SwfHeader, key: string, value: string): void {
  // own keys only: a header key such as `toString` or `constructor` is not a field of these tables
  const nk = Object.hasOwn(NUMERIC_HEADER, key) ? NUMERIC_HEADER[key] : undefined;
  if (nk) {
    const v = Number(value.split(/\s+/)[0]);
    if (Number.isFinite(v)) (header as unknown as Record<string, unknown>)[nk] = v;
    return;
  }
  const tk = Object.hasOwn(TEXT_HEADER, key) ? TEXT_HEADER[key] : undefined;
  if (tk) (header as unknown as Record<string, unknown>)[tk] = value;
}

// Bytes.
export const NL = 10;
export const CR = 13;
const SPACE = 32;
const TAB = 9;
export const SEMI = 59;
const MINUS = 45;
const PLUS = 43;
const DOT = 46;
const ZERO = 48;
const NINE = 57;

/** Whether byte `c` is whitespace (space, tab, CR, vertical tab, form feed). */
export function isSpace(c: number): boolean {
  return c === SPACE || c === TAB || c === CR || c === 11 || c === 12;
}

/**
 * Parses the number in `b[s, e)`: optional sign, digits, optional fraction, optional exponent.
 * Returns NaN when the bytes are not a number.
 */
function parseNumber(b: Buffer, s: number, e: number): number {
  let i = s;
  let neg = false;
  const c0 = b[i]!;
  if (c0 === MINUS) {
    neg = true;
    i++;
  } else if (c0 === PLUS) i++;
  let v = 0;
  let digits = 0;
  for (; i < e; i++) {
    const c = b[i]!;
    if (c < ZERO || c > NINE) break;
    v = v * 10 + (c - ZERO);
    digits++;
  }
  if (i < e && b[i] === DOT) {
    i++;
    let scale = 1;
    for (; i < e; i++) {
      const c = b[i]!;
      if (c < ZERO || c > NINE) break;
      v = v * 10 + (c - ZERO);
      scale *= 10;
      digits++;
    }
    v /= scale;
  }
  if (digits === 0) return NaN;
  if (i < e || digits > 15) {
    // Exponent, or too many digits for exact integer accumulation: let the engine parse it.
    const text = b.toString('latin1', s, e);
    return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : NaN;
  }
  return neg ? -v : v;
}

/** Reports a malformed line (throws: the caller names the line). */
export type Fail = (message: string) => never;

/** The fields of a job line, parsed on its bytes; the arrays are reused from line to line. */
export class SwfLineFields {
  /** The values of the last line parsed, 1-based (index 0 unused). */
  readonly f = new Float64Array(SWF_FIELDS + 1);
  private readonly fs = new Int32Array(SWF_FIELDS + 1); // field start offsets
  private readonly fe = new Int32Array(SWF_FIELDS + 1); // field end offsets

  /**
   * Splits the line `b[s, e)` at whitespace and parses its 18 numbers into `f`; calls `fail` when
   * it has another number of fields or a field is not a number.
   */
  parse(b: Buffer, s: number, e: number, fail: Fail): Float64Array {
    const { f, fs, fe } = this;
    let i = s;
    let n = 0;
    while (i < e) {
      const c = b[i]!;
      if (c === SPACE || c === TAB || c === CR) {
        i++;
        continue;
      }
      const start = i;
      while (i < e && !isSpace(b[i]!)) i++;
      n++;
      if (n <= SWF_FIELDS) {
        fs[n] = start;
        fe[n] = i;
      }
    }
    if (n !== SWF_FIELDS) fail(`expected ${SWF_FIELDS} whitespace-separated SWF fields, found ${n}`);
    for (let k = 1; k <= SWF_FIELDS; k++) {
      const v = parseNumber(b, fs[k]!, fe[k]!);
      if (v !== v) {
        const found = b.toString('utf8', fs[k]!, fe[k]!);
        fail(`field ${k} (${SWF_FIELD_NAMES[k]}): expected a number, found ${JSON.stringify(found)}`);
      }
      f[k] = v;
    }
    return f;
  }
}

/**
 * The job of the parsed fields `f` of line `lineNo` (see the module comment), or the reason it is
 * skipped (`status=N`, `runtime<=0`, `processors<=0`); calls `fail` when the processor count is not
 * an integer. `statusSet` holds `cfg.statuses`, when given.
 */
export function swfJob(f: Float64Array, cfg: SwfConfig, statusSet: ReadonlySet<number> | null, lineNo: number, fail: Fail): Job | string {
  const submit = f[2]!;
  let runtime = f[4]!;
  const alloc = f[5]!;
  const req = f[8]!;
  const pf = cfg.processors === 'allocated' ? (alloc === -1 ? 8 : 5) : req === -1 ? 5 : 8;
  const procs = pf === 5 ? alloc : req;
  const status = f[11]!;
  if (statusSet && !statusSet.has(status)) return `status=${status}`;
  if (runtime <= 0) return 'runtime<=0';
  if (procs <= 0) return 'processors<=0';
  if (!Number.isInteger(procs)) fail(`field ${pf} (${SWF_FIELD_NAMES[pf]}): expected an integer, found ${procs}`);
  let reqTime = cfg.reqTimeFromRuntime || f[9]! === -1 ? runtime : f[9]!;
  if (reqTime <= 0) reqTime = runtime;
  if (runtime > reqTime) {
    if (cfg.overrun === 'raise') reqTime = runtime;
    else if (cfg.overrun === 'cap-runtime') runtime = reqTime;
  }
  if (cfg.maxReqTime !== undefined && reqTime > cfg.maxReqTime) reqTime = cfg.maxReqTime;
  const type: JobType = cfg.jobType;
  const ops = cfg.mops !== undefined;
  return {
    id: String(f[1]!),
    subtime: submit,
    ntasks: procs,
    reqTime,
    reqEnergy: 0,
    type,
    work: ops ? 'ops' : 'delay',
    ops: ops ? Math.ceil(runtime * cfg.mops! * 1e6) : 0,
    runtime: ops ? 0 : runtime,
    mem: 0,
    memVol: 0,
    commVol: 0,
    tCompute: 1,
    nodes: type === 'seq' ? 1 : 0,
    ntasksPerNode: 0,
    tasks: null,
    profile: undefined,
    source: `line ${lineNo}`,
    user: facet(f[12]!),
    account: facet(f[13]!),
    partition: facet(f[16]!),
    qos: facet(f[15]!),
  };
}

/** A facet from an SWF id field: its decimal string, or undefined for `-1` (unknown). */
function facet(v: number): string | undefined {
  return v === -1 ? undefined : String(v);
}
