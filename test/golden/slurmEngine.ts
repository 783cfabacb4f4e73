/**
 * The Slurm engine's evidence (issue 42): what `SlurmEngine` (src/slurm/engine.ts) gives on every case of the
 * differential tests, recorded so that once it retires those tests go on comparing the Slurm preset of the one
 * engine with it, case for case, to the bit. While it exists, each case also runs it beside the preset.
 *
 * A differential test calls `expectSlurmEngine(kind, input, got)` with the preset's result `got` (a job's rows, the
 * state after each step of a stepped run, an episode's steps) on `input` (the layout, configuration and jobs, or an
 * env's configuration, seed and actions: whatever decides the run). `kind` names what `got` holds (a test that
 * records more of a run names another kind). The case's key is a hash of `kind` and `input`; its golden, in
 * `schedules/slurm-engine.txt`, the SHA-256 (128 bits) of the Slurm engine's result on the same input, written
 * exactly (`canonical`: numbers in JavaScript's shortest exact form, -0 and NaN by name, maps by key). A case
 * whose key the file lacks fails (its workload was not one the Slurm engine ran: a test's generator changed).
 *
 * The goldens were recorded by `test/golden/recordSlurmEngine.ts` at the commit its file names (d188ed7, the
 * last but one with the Slurm engine; the script went with the engine): it ran the differential tests with
 * `CLUSTERGYM_SLURM_ENGINE_RECORD` set, each of which then ran the Slurm engine beside the preset, expected the
 * same result and wrote the engine's digest. Those tests called `expectSlurmEngine` with a fourth argument, the
 * Slurm engine's run, as `git show d188ed7` shows.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

/** The goldens' file. */
export const SLURM_ENGINE_GOLDENS = join(import.meta.dirname, 'schedules', 'slurm-engine.txt');

/** A value written exactly and in one way: numbers in their shortest exact form, object keys and map entries sorted, `undefined` fields left out. */
export function canonical(x: unknown): string {
  if (x === undefined) return 'undefined';
  if (x === null) return 'null';
  switch (typeof x) {
    case 'number':
      return Object.is(x, -0) ? '-0' : String(x);
    case 'string':
      return JSON.stringify(x);
    case 'boolean':
      return String(x);
    case 'bigint':
      return `${x}n`;
    case 'object':
      break;
    default:
      throw new Error(`canonical: a ${typeof x} has no canonical form`);
  }
  if (x instanceof Map) {
    const entries = [...x.entries()].map(([k, v]) => [canonical(k), canonical(v)] as const);
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return `Map{${entries.map(([k, v]) => `${k}:${v}`).join(',')}}`;
  }
  if (x instanceof Set) return `Set{${[...x].map(canonical).sort().join(',')}}`;
  if (Array.isArray(x) || ArrayBuffer.isView(x)) return `[${Array.from(x as ArrayLike<unknown>, canonical).join(',')}]`;
  const keys = Object.keys(x)
    .filter((k) => (x as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((x as Record<string, unknown>)[k])}`).join(',')}}`;
}

const sha = (text: string, hex: number): string => createHash('sha256').update(text).digest('hex').slice(0, hex);

/** A case's key: `kind` and its input (64 bits: no two of the few thousand cases share one). */
export const caseKey = (kind: string, input: unknown): string => sha(`${kind}\n${canonical(input)}`, 16);

/** A result's digest (128 bits). */
export const resultDigest = (result: unknown): string => sha(canonical(result), 32);

let goldens: Map<string, string> | null = null;

/** The recorded digests by key (the file's lines `KEY DIGEST KIND`; `#` starts a comment). */
export function slurmEngineGoldens(): Map<string, string> {
  if (goldens !== null) return goldens;
  goldens = new Map();
  if (!existsSync(SLURM_ENGINE_GOLDENS)) return goldens;
  for (const line of readFileSync(SLURM_ENGINE_GOLDENS, 'utf8').split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const [key, digest] = line.split(' ');
    goldens.set(key!, digest!);
  }
  return goldens;
}

/** Expects `got`, the preset's result of kind `kind` on `input`, to be the Slurm engine's: its digest the recorded one. */
export function expectSlurmEngine(kind: string, input: unknown, got: unknown): void {
  const key = caseKey(kind, input);
  const want = slurmEngineGoldens().get(key);
  expect(
    want,
    `${kind} ${key}: no golden of the Slurm engine for this case (${SLURM_ENGINE_GOLDENS}): its input is not one the Slurm engine ran`,
  ).toBeDefined();
  expect(resultDigest(got), `${kind} ${key}: the Slurm engine's result (${SLURM_ENGINE_GOLDENS})`).toBe(want);
}
