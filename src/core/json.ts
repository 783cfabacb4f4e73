/** Reading JSON input files: a missing file or a syntax error is an `InputError` naming the file. */
import { readFileSync } from 'node:fs';
import { InputError } from './errors.js';

/** Reads JSON from a file, turning a syntax error into an `InputError` naming the file. */
export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read file (${(e as NodeJS.ErrnoException).code ?? String(e)})`, file);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new InputError(`malformed JSON: ${(e as Error).message}`, file);
  }
}
