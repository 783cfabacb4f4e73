/**
 * Line-by-line reading of large text files with bounded memory: the file is read in chunks of
 * `chunkBytes` with `readSync` and split on `\n` (a trailing `\r` is dropped), so a reader holds one
 * chunk and one partial line whatever the file's size. Synchronous on purpose: an engine pulls one
 * record at a time from a plain iterator, with no promise per record. (Moved down from
 * src/fairness/traces/lines.ts, which re-exports it, so that the workload readers use it too.)
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { InputError } from './errors.js';

/** A line and its 1-based number. */
export interface NumberedLine {
  text: string;
  lineNo: number;
}

/** The lines of `file`, in order, with their numbers (the file is closed when the loop ends or breaks). */
export function* readLines(file: string, chunkBytes = 1 << 20): Generator<NumberedLine> {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw new InputError(`${file}: cannot open (${(e as Error).message})`);
  }
  const buf = Buffer.allocUnsafe(chunkBytes);
  const dec = new StringDecoder('utf8');
  let rest = '';
  let lineNo = 0;
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, chunkBytes, null);
      const text = n > 0 ? rest + dec.write(buf.subarray(0, n)) : rest + dec.end();
      let start = 0;
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', start)) {
        const end = i > start && text.charCodeAt(i - 1) === 13 ? i - 1 : i;
        yield { text: text.slice(start, end), lineNo: ++lineNo };
        start = i + 1;
      }
      rest = text.slice(start);
      if (n === 0) {
        if (rest.length > 0) yield { text: rest.endsWith('\r') ? rest.slice(0, -1) : rest, lineNo: ++lineNo };
        return;
      }
    }
  } finally {
    closeSync(fd);
  }
}
