/**
 * Streaming reader of the Standard Workload Format (SWF) of the Parallel Workloads Archive
 * (Feitelson et al., https://www.cs.huji.ac.il/labs/parallel/workload/swf.html), DESIGN §3.
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
 * whose status is filtered out) are skipped and counted by reason in `skipped`.
 *
 * The file is never held in memory: it is read synchronously (the simulator pulls jobs synchronously)
 * in chunks of `chunkSize` bytes (1 MiB) with `fs.readSync`, lines are split and numbers parsed
 * directly on the bytes. Malformed lines (not 18 fields, a field that is not a number) throw an
 * `InputError` naming `file:LINE`, the field and what was expected versus found.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../core/errors.js';
import { sortBySubmission, type Job, type JobType, type Workload } from './job.js';

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
    chunkSize: z.number().int().min(64).default(1 << 20),
  })
  .strict();

/** Options of the SWF reader, as given by the caller. */
export type SwfOptions = z.input<typeof SwfOptionsSchema>;
type SwfConfig = z.output<typeof SwfOptionsSchema>;

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

/** What a finished read saw. */
export interface SwfSummary {
  header: SwfHeader;
  /** Jobs produced. */
  jobs: number;
  /** Jobs skipped, by reason: `runtime<=0`, `processors<=0`, `status=N`. */
  skipped: Record<string, number>;
  /** Lines read (comments and blank lines included). */
  lines: number;
  /** Jobs whose submit time is smaller than the previous job's (the trace is not sorted). */
  outOfOrder: number;
}

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
const TEXT_HEADER: Record<string, keyof SwfHeader> = {
  TimeZoneString: 'timeZoneString',
  StartTime: 'startTime',
  EndTime: 'endTime',
  Version: 'version',
  Computer: 'computer',
  Installation: 'installation',
};

const NL = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const SEMI = 59;
const MINUS = 45;
const PLUS = 43;
const DOT = 46;
const ZERO = 48;
const NINE = 57;

function isSpace(c: number): boolean {
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
  let c = 0;
  while (i < e && (c = b[i]!) >= ZERO && c <= NINE) {
    v = v * 10 + (c - ZERO);
    i++;
    digits++;
  }
  if (i < e && b[i] === DOT) {
    i++;
    let scale = 1;
    while (i < e && (c = b[i]!) >= ZERO && c <= NINE) {
      v = v * 10 + (c - ZERO);
      scale *= 10;
      i++;
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

/**
 * A synchronous, streaming SWF reader. The constructor opens the file and reads its header (the
 * comment lines before the first job); `next()` returns the next job or `null` at the end. The reader
 * is also an iterable of jobs. The file is closed at the end, on an error, or by `close()`.
 *
 * ```ts
 * const r = new SwfReader('trace.swf');
 * console.log(r.header.maxProcs);
 * for (const job of r) { ... }
 * console.log(r.summary().skipped);
 * ```
 */
export class SwfReader implements Iterable<Job> {
  /** The file's header, complete once the constructor returns. */
  readonly header: SwfHeader = { fields: {} };
  /** Jobs skipped so far, by reason. */
  readonly skipped: Record<string, number> = {};
  /** Current line number (1-based; the last line read). */
  lineNo = 0;
  /** Jobs produced so far. */
  produced = 0;
  /** Jobs whose submit time went backwards, so far. */
  outOfOrder = 0;

  private readonly file: string;
  private readonly cfg: SwfConfig;
  private readonly statusSet: Set<number> | null;
  private fd: number | null;
  private buf: Buffer;
  private start = 0; // first unread byte of buf
  private end = 0; // one past the last valid byte of buf
  private eof = false;
  private ls = 0; // current line [ls, le)
  private le = 0;
  private pending = false; // the current line is a job line not yet consumed
  private lastSubmit = -Infinity;
  private readonly f = new Float64Array(SWF_FIELDS + 1);
  private readonly fs = new Int32Array(SWF_FIELDS + 1); // field start offsets
  private readonly fe = new Int32Array(SWF_FIELDS + 1); // field end offsets

  constructor(file: string, options: SwfOptions = {}) {
    const r = SwfOptionsSchema.safeParse(options);
    if (!r.success) throw inputErrorFromIssues('SWF reader options', r.error.issues);
    this.cfg = r.data;
    this.statusSet = this.cfg.statuses ? new Set(this.cfg.statuses) : null;
    this.file = file;
    try {
      this.fd = openSync(file, 'r');
    } catch (e) {
      throw new InputError(`cannot read file (${(e as NodeJS.ErrnoException).code ?? String(e)})`, file);
    }
    this.buf = Buffer.allocUnsafe(this.cfg.chunkSize);
    try {
      this.readHeader();
    } catch (e) {
      this.close();
      throw e;
    }
  }

  /** Closes the file (idempotent). */
  close(): void {
    if (this.fd !== null) {
      closeSync(this.fd);
      this.fd = null;
    }
    this.eof = true;
  }

  /** Where the reader is, for messages: `file:LINE`. */
  where(): string {
    return `${this.file}:${this.lineNo}`;
  }

  /** Counts of the read so far (complete after the last job). */
  summary(): SwfSummary {
    return { header: this.header, jobs: this.produced, skipped: { ...this.skipped }, lines: this.lineNo, outOfOrder: this.outOfOrder };
  }

  [Symbol.iterator](): Iterator<Job> {
    return {
      next: (): IteratorResult<Job> => {
        const job = this.next();
        return job ? { value: job, done: false } : { value: undefined, done: true };
      },
      return: (): IteratorResult<Job> => {
        this.close();
        return { value: undefined, done: true };
      },
    };
  }

  /** The next job, or `null` when the file (or `maxJobs`) is exhausted. */
  next(): Job | null {
    try {
      return this.nextJob();
    } catch (e) {
      this.close();
      throw e;
    }
  }

  private nextJob(): Job | null {
    if (this.cfg.maxJobs !== undefined && this.produced >= this.cfg.maxJobs) {
      this.close();
      return null;
    }
    for (;;) {
      if (this.pending) this.pending = false;
      else {
        if (!this.nextLine()) {
          this.close();
          return null;
        }
        const k = this.lineKind();
        if (k !== 2) continue; // comment or blank
      }
      const job = this.parseJobLine();
      if (job) {
        this.produced++;
        return job;
      }
    }
  }

  /** Reads lines until the first job line (left pending), parsing `; Key: value` comments. */
  private readHeader(): void {
    while (this.nextLine()) {
      const k = this.lineKind();
      if (k === 1) this.parseHeaderLine();
      else if (k === 2) {
        this.pending = true;
        return;
      }
    }
  }

  /** 0: blank, 1: comment, 2: job line. Trims leading blanks of the current line. */
  private lineKind(): 0 | 1 | 2 {
    const b = this.buf;
    let i = this.ls;
    const e = this.le;
    while (i < e && isSpace(b[i]!)) i++;
    this.ls = i;
    if (i === e) return 0;
    return b[i] === SEMI ? 1 : 2;
  }

  private parseHeaderLine(): void {
    const text = this.buf.toString('utf8', this.ls + 1, this.le);
    const m = /^\s*([A-Za-z][A-Za-z0-9_ ]*?)\s*:\s*(.*?)\s*$/.exec(text);
    if (!m) return;
    const key = m[1]!;
    const value = m[2]!;
    (this.header.fields[key] ??= []).push(value);
    const nk = NUMERIC_HEADER[key];
    if (nk) {
      const v = Number(value.split(/\s+/)[0]);
      if (Number.isFinite(v)) (this.header as unknown as Record<string, unknown>)[nk] = v;
      return;
    }
    const tk = TEXT_HEADER[key];
    if (tk) (this.header as unknown as Record<string, unknown>)[tk] = value;
  }

  /** Advances to the next line; false at the end of the file. */
  private nextLine(): boolean {
    for (;;) {
      const b = this.buf;
      const nl = this.start < this.end ? b.indexOf(NL, this.start) : -1;
      if (nl !== -1 && nl < this.end) {
        this.ls = this.start;
        this.le = nl > this.start && b[nl - 1] === CR ? nl - 1 : nl;
        this.start = nl + 1;
        this.lineNo++;
        return true;
      }
      if (this.eof) {
        if (this.start < this.end) {
          // last line without a newline
          this.ls = this.start;
          this.le = this.end;
          this.start = this.end;
          this.lineNo++;
          return true;
        }
        return false;
      }
      this.fill();
    }
  }

  /** Moves the unread bytes to the front of the buffer (growing it if full) and reads more. */
  private fill(): void {
    const rest = this.end - this.start;
    if (rest > 0 && this.start === 0 && this.end === this.buf.length) {
      const bigger = Buffer.allocUnsafe(this.buf.length * 2);
      this.buf.copy(bigger, 0, 0, this.end);
      this.buf = bigger;
    } else if (this.start > 0) {
      this.buf.copyWithin(0, this.start, this.end);
      this.start = 0;
      this.end = rest;
    }
    if (this.fd === null) {
      this.eof = true;
      return;
    }
    const n = readSync(this.fd, this.buf, this.end, this.buf.length - this.end, null);
    if (n === 0) this.eof = true;
    this.end += n;
  }

  private fail(message: string): never {
    throw new InputError(message, this.where());
  }

  /** Parses the current line into a job, or null when it is skipped. */
  private parseJobLine(): Job | null {
    const b = this.buf;
    const e = this.le;
    const f = this.f;
    const fs = this.fs;
    const fe = this.fe;
    let i = this.ls;
    let n = 0;
    while (i < e) {
      const c = b[i]!;
      if (c === SPACE || c === TAB || c === CR) {
        i++;
        continue;
      }
      const s = i;
      while (i < e && !isSpace(b[i]!)) i++;
      n++;
      if (n <= SWF_FIELDS) {
        fs[n] = s;
        fe[n] = i;
      }
    }
    if (n !== SWF_FIELDS) this.fail(`expected ${SWF_FIELDS} whitespace-separated SWF fields, found ${n}`);
    for (let k = 1; k <= SWF_FIELDS; k++) {
      const v = parseNumber(b, fs[k]!, fe[k]!);
      if (v !== v) {
        const found = b.toString('utf8', fs[k]!, fe[k]!);
        this.fail(`field ${k} (${SWF_FIELD_NAMES[k]}): expected a number, found ${JSON.stringify(found)}`);
      }
      f[k] = v;
    }
    const cfg = this.cfg;
    const submit = f[2]!;
    let runtime = f[4]!;
    const alloc = f[5]!;
    const req = f[8]!;
    const pf = cfg.processors === 'allocated' ? (alloc === -1 ? 8 : 5) : req === -1 ? 5 : 8;
    const procs = pf === 5 ? alloc : req;
    const status = f[11]!;
    if (this.statusSet && !this.statusSet.has(status)) return this.skip(`status=${status}`);
    if (runtime <= 0) return this.skip('runtime<=0');
    if (procs <= 0) return this.skip('processors<=0');
    if (!Number.isInteger(procs)) this.fail(`field ${pf} (${SWF_FIELD_NAMES[pf]}): expected an integer, found ${procs}`);
    let reqTime = cfg.reqTimeFromRuntime || f[9]! === -1 ? runtime : f[9]!;
    if (reqTime <= 0) reqTime = runtime;
    if (runtime > reqTime) {
      if (cfg.overrun === 'raise') reqTime = runtime;
      else if (cfg.overrun === 'cap-runtime') runtime = reqTime;
    }
    if (cfg.maxReqTime !== undefined && reqTime > cfg.maxReqTime) reqTime = cfg.maxReqTime;
    if (submit < this.lastSubmit) this.outOfOrder++;
    this.lastSubmit = submit;
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
      source: `line ${this.lineNo}`,
    };
  }

  private skip(reason: string): null {
    this.skipped[reason] = (this.skipped[reason] ?? 0) + 1;
    return null;
  }
}

/**
 * Streams the jobs of an SWF file in file order; the generator's return value is the summary
 * (header, counts of skipped jobs).
 */
export function* readSwf(file: string, options: SwfOptions = {}): Generator<Job, SwfSummary, undefined> {
  const r = new SwfReader(file, options);
  try {
    for (let job = r.next(); job; job = r.next()) yield job;
  } finally {
    r.close();
  }
  return r.summary();
}

/** Reads the header of an SWF file only. */
export function readSwfHeader(file: string): SwfHeader {
  const r = new SwfReader(file, { chunkSize: 64 * 1024 });
  r.close();
  return r.header;
}

/**
 * Loads a whole SWF file as a `Workload`: jobs sorted by submission (stable), `maxProcs` from the
 * header (`MaxProcs`, else `MaxNodes`), skipped jobs counted by reason.
 */
export function loadSwf(file: string, options: SwfOptions = {}, name = basename(file)): Workload {
  const r = new SwfReader(file, options);
  const jobs: Job[] = [];
  for (let job = r.next(); job; job = r.next()) jobs.push(job);
  return {
    name,
    jobs: r.outOfOrder > 0 ? sortBySubmission(jobs) : jobs,
    maxProcs: r.header.maxProcs ?? r.header.maxNodes,
    skipped: { ...r.skipped },
  };
}
