/**
 * The engine checker: the engines' counterpart of `envs/checker.ts`. It runs an engine (built fresh by
 * a factory, with its own scheduler attached and a recorder on its listener) several ways and checks
 * the contract of `engine.ts`:
 *
 * 1. **Life of a job**: every job is submitted once; it then starts (again only after a requeue) and
 *    ends once, or is rejected once and never starts; start >= submission, end >= start; resizes and
 *    suspensions happen only while it runs, resumptions only while it is suspended, and a suspended
 *    job neither ends nor resizes; the run ends with every submitted job gone (ended or rejected).
 * 2. **Clock**: `now` never goes back; `nextEventTime() >= now`; after `runUntil(t)` with a finite `t`
 *    the clock is at `t` (or, for an engine with a stepped clock, at most `t`), and every event the
 *    engine reports happened at a time <= `t`; `runUntil(t)` with `t` before the next event reports
 *    nothing; once `done`, `nextEventTime()` is Infinity and further calls change nothing.
 * 3. **Determinism and slicing**: two runs give the same transcript, and so does a run sliced into
 *    many `runUntil` calls (at each next event time, and at seeded random times in between).
 *
 * The transcript is what the factory's recorder writes: one entry per listener call, with the time of
 * the engine's clock then. A failed check throws an `EngineCheckError` that says which check, where
 * in the run, and what was expected and found.
 */
import type { DiscreteEventEngine } from './engine.js';
import { derive } from './rng.js';

/** One listener call of a run. */
export interface TranscriptEntry {
  type: 'submit' | 'start' | 'resize' | 'suspend' | 'resume' | 'requeue' | 'end' | 'reject';
  /** The job's id (unique within the run). */
  job: string;
  /** The engine's clock when the call was made. */
  time: number;
  /** More that must be equal between runs (a size, an end state, nodes...), as text. */
  detail?: string;
}

/** A fresh engine with its scheduler attached, and the transcript its recorder fills. */
export interface CheckedRun {
  engine: DiscreteEventEngine;
  transcript: TranscriptEntry[];
}

/** Options of `checkEngine`. */
export interface EngineCheckOptions {
  /** Name for messages. */
  name: string;
  /** Seed of the random slicing. */
  seed?: number;
  /** The engine's clock only moves by its own steps (IRMaSim's semantics): after `runUntil(t)` it is at most `t`. */
  steppedClock?: boolean;
  /** Random slices of the third run (default 200). */
  slices?: number;
}

/** A broken contract. */
export class EngineCheckError extends Error {}

/** What `checkEngine` saw. */
export interface EngineCheckReport {
  jobs: number;
  entries: number;
  ended: number;
  rejected: number;
  resizes: number;
  /** `runUntil` calls of the sliced run. */
  slices: number;
}

function fail(name: string, what: string): never {
  throw new EngineCheckError(`${name}: ${what}`);
}

function key(e: TranscriptEntry): string {
  return `${e.type} ${e.job} @${e.time}${e.detail === undefined ? '' : ` ${e.detail}`}`;
}

/** Checks the life of every job in `t` (item 1 of the module comment). */
function checkLives(name: string, t: readonly TranscriptEntry[]): Omit<EngineCheckReport, 'slices'> {
  const state = new Map<string, { phase: 'waiting' | 'running' | 'suspended' | 'gone'; submit: number; start: number }>();
  let ended = 0;
  let rejected = 0;
  let resizes = 0;
  t.forEach((e, i) => {
    const s = state.get(e.job);
    const at = `entry ${i} (${key(e)})`;
    if (i > 0 && e.time < t[i - 1]!.time) fail(name, `${at}: time went back from ${t[i - 1]!.time}`);
    switch (e.type) {
      case 'submit':
        if (s) fail(name, `${at}: job submitted twice`);
        state.set(e.job, { phase: 'waiting', submit: e.time, start: Number.NaN });
        break;
      case 'start':
        if (!s || s.phase !== 'waiting') fail(name, `${at}: a job starts that is not waiting (${s ? s.phase : 'never submitted'})`);
        if (e.time < s.submit) fail(name, `${at}: starts before its submission at ${s.submit}`);
        s.phase = 'running';
        s.start = e.time;
        break;
      case 'resize':
        if (!s || s.phase !== 'running') fail(name, `${at}: a job that does not run changes size`);
        resizes++;
        break;
      case 'suspend':
        if (!s || s.phase !== 'running') fail(name, `${at}: a job that does not run is suspended`);
        s.phase = 'suspended';
        break;
      case 'resume':
        if (!s || s.phase !== 'suspended') fail(name, `${at}: a job that is not suspended resumes`);
        s.phase = 'running';
        break;
      case 'requeue':
        if (!s || s.phase !== 'running') fail(name, `${at}: a job that does not run is requeued`);
        s.phase = 'waiting';
        break;
      case 'end':
        if (!s || s.phase !== 'running') fail(name, `${at}: a job ends that does not run (${s ? s.phase : 'never submitted'})`);
        if (e.time < s.start) fail(name, `${at}: ends before its start at ${s.start}`);
        s.phase = 'gone';
        ended++;
        break;
      case 'reject':
        if (s && s.phase !== 'waiting') fail(name, `${at}: a job is rejected that is ${s.phase}`);
        state.set(e.job, { phase: 'gone', submit: s?.submit ?? e.time, start: Number.NaN });
        rejected++;
        break;
      default:
        fail(name, `${at}: unknown entry type`);
    }
  });
  for (const [job, s] of state) if (s.phase !== 'gone') fail(name, `job ${job} is still ${s.phase} at the end of the run`);
  return { jobs: state.size, entries: t.length, ended, rejected, resizes };
}

function sameTranscript(name: string, what: string, a: readonly TranscriptEntry[], b: readonly TranscriptEntry[]): void {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = key(a[i]!);
    const y = key(b[i]!);
    if (x !== y) fail(name, `${what}: entry ${i} differs: expected ${x}, found ${y}`);
  }
  if (a.length !== b.length) fail(name, `${what}: expected ${a.length} entries, found ${b.length}`);
}

/** Runs `make()` three ways and checks the contract (module comment); returns what it saw. */
export function checkEngine(make: () => CheckedRun, options: EngineCheckOptions): EngineCheckReport {
  const name = options.name;
  // 1: one call
  const first = make();
  first.engine.runUntil(Number.POSITIVE_INFINITY);
  if (!first.engine.done) fail(name, `runUntil(Infinity) returned with the engine not done (now ${first.engine.now})`);
  if (first.engine.nextEventTime() !== Number.POSITIVE_INFINITY) fail(name, `done, but nextEventTime() is ${first.engine.nextEventTime()}`);
  const report = checkLives(name, first.transcript);
  if (report.jobs === 0) fail(name, 'the run submitted no job: it checks nothing');
  const doneNow = first.engine.now;
  const doneEntries = first.transcript.length;
  first.engine.runUntil(Number.POSITIVE_INFINITY);
  if (first.engine.now !== doneNow || first.transcript.length !== doneEntries) fail(name, 'runUntil after the end changed the run');

  // 2: again, the same
  const second = make();
  second.engine.runUntil(Number.POSITIVE_INFINITY);
  sameTranscript(name, 'a second run (determinism)', first.transcript, second.transcript);

  // 3: sliced at each next event time and at random times between
  const rng = derive(options.seed ?? 0, `engine-checker/${name}`);
  const third = make();
  const e = third.engine;
  let calls = 0;
  let last = e.now;
  let random = options.slices ?? 200;
  const horizon = doneNow;
  while (!e.done) {
    const next = e.nextEventTime();
    if (next < e.now) fail(name, `nextEventTime() ${next} is before now ${e.now}`);
    let t = next;
    if (random > 0 && next < Number.POSITIVE_INFINITY && rng.next() < 0.5) {
      random--;
      // a time before the next event: nothing may happen
      if (next > e.now) {
        const before = e.now + (next - e.now) * rng.next() * 0.999;
        const n0 = third.transcript.length;
        const got = e.runUntil(before);
        calls++;
        if (third.transcript.length !== n0) fail(name, `runUntil(${before}) before the next event at ${next} reported ${third.transcript.length - n0} entries`);
        if (!options.steppedClock && got !== before && before > last) fail(name, `runUntil(${before}) left the clock at ${got}`);
      }
      // a time past the next event, within the run
      t = next + rng.next() * Math.max(1, (horizon - next) * 0.01);
    }
    const n0 = third.transcript.length;
    const got = e.runUntil(t);
    calls++;
    if (got < last) fail(name, `the clock went back from ${last} to ${got} (runUntil(${t}))`);
    if (got > t) fail(name, `runUntil(${t}) moved the clock past it, to ${got}`);
    for (let i = n0; i < third.transcript.length; i++)
      if (third.transcript[i]!.time > t) fail(name, `runUntil(${t}) reported ${key(third.transcript[i]!)}, after ${t}`);
    if (!e.done && !options.steppedClock && t < Number.POSITIVE_INFINITY && got !== t) fail(name, `runUntil(${t}) left the clock at ${got}, not ${t}`);
    last = got;
    if (calls > 10 * (report.entries + 1000)) fail(name, `the sliced run does not end (${calls} calls)`);
  }
  sameTranscript(name, 'the run sliced into runUntil calls', first.transcript, third.transcript);
  return { ...report, slices: calls };
}
