/**
 * Streaming reader of the Standard Workload Format (SWF) of the Parallel Workloads Archive, DESIGN §3:
 * `SwfReader` and the functions over it (`readSwf`, `readSwfHeader`, `loadSwf`). The format itself
 * (fields, header keys, options, the mapping of a job line to a `Job`) is `swfFormat.ts`.
 *
 * The file is never held in memory: it is read synchronously (the simulator pulls jobs synchronously)
 * in chunks of `chunkSize` bytes (1 MiB) with `fs.readSync`, lines are split and numbers parsed
 * directly on the bytes. Malformed lines (not 18 fields, a field that is not a number) throw an
 * `InputError` naming `file:LINE`, the field and what was expected versus found.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import { InputError, inputErrorFromIssues } from '../core/errors.js';
import { sortBySubmission, type Job, type Workload } from './job.js';
import {
  CR,
  type Fail,
  HEADER_LINE,
  isSpace,
  NL,
  SEMI,
  setHeaderField,
  type SwfConfig,
  type SwfHeader,
  SwfLineFields,
  swfJob,
  type SwfOptions,
  SwfOptionsSchema,
} from './swfFormat.js';

export { SWF_FIELD_NAMES, SWF_FIELDS, type SwfHeader, type SwfOptions, SwfOptionsSchema } from './swfFormat.js';

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
  readonly header: SwfHeader = { fields: Object.create(null) as Record<string, string[]> };
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
  private readonly idLines = new Map<string, number>(); // job id -> its line (duplicates are refused)
  private lastSubmit = -Infinity;
  private readonly fields = new SwfLineFields();
  private readonly fail: Fail = (message) => {
    throw new InputError(message, this.where());
  };

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

  /** Parses the current comment line as `; Key: value` into the header (other comments are ignored). */
  private parseHeaderLine(): void {
    const m = HEADER_LINE.exec(this.buf.toString('utf8', this.ls + 1, this.le));
    if (!m) return;
    const key = m[1]!;
    const value = m[2]!;
    this.header.fields[key] ??= [];
    this.header.fields[key].push(value);
    setHeaderField(this.header, key, value);
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

  /** Parses the current line into a job, or null when it is skipped (counted by reason). */
  private parseJobLine(): Job | null {
    const f = this.fields.parse(this.buf, this.ls, this.le, this.fail);
    const job = swfJob(f, this.cfg, this.statusSet, this.lineNo, this.fail);
    if (typeof job === 'string') {
      this.skipped[job] = (this.skipped[job] ?? 0) + 1;
      return null;
    }
    const firstLine = this.idLines.get(job.id);
    if (firstLine !== undefined) this.fail(`job id ${job.id} appears twice (first on line ${firstLine}); SWF job ids are unique`);
    this.idLines.set(job.id, this.lineNo);
    if (job.subtime < this.lastSubmit) this.outOfOrder++;
    this.lastSubmit = job.subtime;
    return job;
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
