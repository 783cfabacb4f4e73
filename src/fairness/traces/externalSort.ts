/**
 * External-memory sort of a large CSV file by a numeric column (§5.1: "перед запуском необходимо
 * решить задачу сортировки большого CSV файла во внешней памяти"), with bounded RAM:
 *
 * 1. **Runs**: the file is read line by line; every `chunkLines` rows are sorted in memory by
 *    (key, original line number) — a stable sort — and written to a temporary run file.
 * 2. **Merge**: the runs are merged with a binary heap holding the current line of each run, so
 *    memory is `chunkLines` rows during step 1 and one line per run during step 2.
 *
 * With `header`, the first line is copied to the output first. Lines whose key is not a number are
 * refused with their line number; blank lines are dropped. The temporary files live in a fresh
 * directory under `tmpDir` (default: the output's directory) and are removed at the end.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { InputError } from '../../core/errors.js';
import { type NumberedLine, readLines } from './lines.js';

/** Options of `externalSortCsv`. */
export interface ExternalSortOptions {
  /** The key column: a 0-based index, or a header name when `header` is set. */
  key: number | string;
  /** The first line is a header (copied first, not sorted). */
  header?: boolean;
  /** Rows sorted in memory at a time (default 1,000,000). */
  chunkLines?: number;
  /** Where the run files go (default: the output's directory). */
  tmpDir?: string;
}

/** What the sort did. */
export interface ExternalSortResult {
  rows: number;
  runs: number;
}

function keyOf(line: string, col: number): number {
  let start = 0;
  for (let i = 0; i < col; i++) {
    const c = line.indexOf(',', start);
    if (c < 0) return Number.NaN;
    start = c + 1;
  }
  const end = line.indexOf(',', start);
  const field = (end < 0 ? line.slice(start) : line.slice(start, end)).trim();
  return field === '' ? Number.NaN : Number(field);
}

class LineWriter {
  private buf: string[] = [];
  private size = 0;
  private readonly fd: number;
  constructor(file: string, flags: 'w' | 'a' = 'w') {
    this.fd = openSync(file, flags);
  }
  write(line: string): void {
    this.buf.push(line);
    this.size += line.length + 1;
    if (this.size > 1 << 20) this.flush();
  }
  flush(): void {
    if (this.buf.length > 0) writeSync(this.fd, `${this.buf.join('\n')}\n`);
    this.buf = [];
    this.size = 0;
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** Sorts `input` into `output` by the numeric column `key` (see the module comment). */
export function externalSortCsv(input: string, output: string, opts: ExternalSortOptions): ExternalSortResult {
  const chunk = opts.chunkLines ?? 1_000_000;
  if (!(Number.isInteger(chunk) && chunk >= 1)) throw new InputError(`chunk lines must be a positive integer, found ${chunk}`);
  const tmp = mkdtempSync(join(opts.tmpDir ?? dirname(output), '.sort-'));
  const runs: string[] = [];
  let header: string | null = null;
  let col = typeof opts.key === 'number' ? opts.key : -1;
  let rows = 0;
  try {
    let buf: { key: number; n: number; line: string }[] = [];
    const spill = () => {
      if (buf.length === 0) return;
      buf.sort((a, b) => a.key - b.key || a.n - b.n);
      const file = join(tmp, `run${runs.length}.csv`);
      const w = new LineWriter(file);
      for (const r of buf) w.write(r.line);
      w.close();
      runs.push(file);
      buf = [];
    };
    for (const { text, lineNo } of readLines(input)) {
      if (opts.header && header === null) {
        header = text;
        if (col < 0) {
          col = text
            .split(',')
            .map((s) => s.trim().replace(/^"|"$/g, ''))
            .indexOf(String(opts.key));
          if (col < 0) throw new InputError(`${input}:1: no column ${JSON.stringify(opts.key)} in the header ${JSON.stringify(text)}`);
        }
        continue;
      }
      if (col < 0) throw new InputError(`sort key ${JSON.stringify(opts.key)} is a column name: the file needs a header (--header)`);
      if (text.trim() === '') continue;
      const key = keyOf(text, col);
      if (Number.isNaN(key))
        throw new InputError(`${input}:${lineNo}: column ${col}: expected a number to sort by, found ${JSON.stringify(text.split(',')[col] ?? '')}`);
      buf.push({ key, n: lineNo, line: text });
      rows++;
      if (buf.length >= chunk) spill();
    }
    spill();
    writeFileSync(output, header !== null ? `${header}\n` : '');
    mergeRuns(runs, output, col);
    return { rows, runs: runs.length };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** k-way merge of sorted run files into `output` (appended), stable across runs by run index. */
function mergeRuns(runs: readonly string[], output: string, col: number): void {
  const its = runs.map((r) => readLines(r));
  const heads: (NumberedLine & { key: number; run: number })[] = [];
  const less = (a: (typeof heads)[number], b: (typeof heads)[number]) => a.key < b.key || (a.key === b.key && a.run < b.run);
  const push = (h: (typeof heads)[number]) => {
    heads.push(h);
    let i = heads.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(heads[i]!, heads[p]!)) break;
      [heads[i], heads[p]] = [heads[p]!, heads[i]!];
      i = p;
    }
  };
  const pop = () => {
    const top = heads[0]!;
    const last = heads.pop()!;
    if (heads.length > 0) {
      heads[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heads.length && less(heads[l]!, heads[m]!)) m = l;
        if (r < heads.length && less(heads[r]!, heads[m]!)) m = r;
        if (m === i) break;
        [heads[i], heads[m]] = [heads[m]!, heads[i]!];
        i = m;
      }
    }
    return top;
  };
  const advance = (run: number) => {
    const n = its[run]!.next();
    if (!n.done) push({ ...n.value, key: keyOf(n.value.text, col), run });
  };
  for (let r = 0; r < its.length; r++) advance(r);
  const out = new LineWriter(output, 'a');
  try {
    while (heads.length > 0) {
      const h = pop();
      out.write(h.text);
      advance(h.run);
    }
  } finally {
    out.close();
  }
}
