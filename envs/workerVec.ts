/**
 * The `worker_threads` vector env: the same `VecEnv` interface as `SyncVecEnv` (synchronous
 * `reset`/`step`), with the environments spread over worker threads for CPU parallelism.
 *
 * ```ts
 * const venv = await makeVecWorkers(8, 'clustergym/Job-v0', { k: 64 }, { workers: 2 })
 * venv.reset({ seed: 1 }); venv.step(actions); venv.close()
 * ```
 *
 * How. With T threads (`threads`, default the available parallelism), this thread steps the
 * first share of the envs itself and T - 1 workers step the others, each in a `SyncVecEnv` whose
 * batch arrays are views of `SharedArrayBuffer`s, so observations, masks, rewards and flags are
 * written in place, never copied or serialised. A call writes the actions (or seeds) to shared
 * memory, bumps each worker's command counter (`Atomics.notify`), steps its own share, then waits
 * until every worker has bumped its done counter (spinning briefly before sleeping in
 * `Atomics.wait`, since a futex wake costs tens of microseconds on a VM); the rows are then ready. Only the end of an episode crosses as JSON (its metrics,
 * in a shared byte area) with the last observation in a shared array. Actions are checked against
 * the masks before any worker moves, so an invalid action leaves every env unchanged.
 *
 * When it pays. Every call synchronises the threads: a sleeping thread takes tens to hundreds of
 * microseconds to wake (about 100 µs on a small VM), so the batch must carry much more work than
 * that: dozens of envs, or heavy ones. On a 2-vCPU VM, 8 `JobNode-v0` envs (about 40 µs a step)
 * gain nothing, 64 gain about 1.4x. `spinMicros` makes waiting threads spin before they sleep,
 * which saves the wake-up on dedicated cores but steals from the other thread on SMT siblings or a
 * shared machine (hence the default 0).
 *
 * Workers run compiled JavaScript: `dist/envs/vecWorker.js` (build with `npx tsc -p .`; `npm test`
 * does). The configuration must be JSON-serialisable (file paths or inline objects). Workers are
 * `unref`ed: a forgotten `close()` does not keep the process alive.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PACKAGE_ROOT } from '../src/core/paths.js';
import type { EnvId } from './config.js';
import type { EnvContext } from './context.js';
import type { EnvInfo } from './env.js';
import { InvalidActionError } from './errors.js';
import { observationSizes, type Observation } from './observation.js';
import { makeContext, makeFromContext } from './registry.js';
import type { DiscreteSpace, Space } from './spaces.js';
import {
  actionCount,
  allocVecBuffers,
  batchObservation,
  checkActions,
  envSpec,
  sliceVecBuffers,
  SyncVecEnv,
  type EnvSpec,
  type VecBuffers,
  type VecEnv,
  type VecInfo,
  type VecResetArgs,
  type VecResetResult,
  type VecStepResult,
} from './vector.js';

/** Control words of a worker (Int32 indices). */
export const CTRL = { CMD: 0, SEQ: 1, DONE: 2, STATUS: 3 } as const;
/** Commands. */
export const CMD = { RESET: 1, STEP: 2, CLOSE: 3 } as const;
/** Bytes of the per-env final-info area (the JSON of an episode's last info). */
export const INFO_BYTES = 8192;
/** Bytes of the per-worker message area (reset options in, errors out). */
export const MESSAGE_BYTES = 16384;

/** The shared memory of a worker vector env (what a worker receives). */
export interface SharedLayout {
  n: number;
  nActions: number;
  obsSizes: Record<string, number>;
  /** Batch arrays' buffers. */
  obs: Record<string, SharedArrayBuffer>;
  masks: SharedArrayBuffer;
  rewards: SharedArrayBuffer;
  terminated: SharedArrayBuffer;
  truncated: SharedArrayBuffer;
  times: SharedArrayBuffer;
  steps: SharedArrayBuffer;
  /** Last observation of an episode that ended in the step (per key, n x size). */
  finalObs: Record<string, SharedArrayBuffer>;
  /** Per env: final info JSON (INFO_BYTES each) and its length. */
  finalInfo: SharedArrayBuffer;
  finalInfoLen: SharedArrayBuffer;
  /** Actions (Int32, n) and reset seeds (Float64, n; NaN: none). */
  actions: SharedArrayBuffer;
  seeds: SharedArrayBuffer;
}

/** What a worker is started with. */
export interface WorkerInit {
  id: string;
  config: unknown;
  from: number;
  to: number;
  layout: SharedLayout;
  /** Int32 control words (CTRL). */
  control: SharedArrayBuffer;
  /** Message area: reset options in, errors out (JSON; first Int32 = length). */
  message: SharedArrayBuffer;
  /** Spin before sleeping while waiting for a command (µs). */
  spinMicros: number;
}

/** Typed views of a layout. */
export function layoutViews(
  l: SharedLayout,
): VecBuffers & { finalObs: Record<string, Float32Array>; finalInfo: Uint8Array; finalInfoLen: Int32Array; actions: Int32Array; seeds: Float64Array } {
  const obs: Record<string, Float32Array> = {};
  const finalObs: Record<string, Float32Array> = {};
  for (const k of Object.keys(l.obs)) {
    obs[k] = new Float32Array(l.obs[k]!);
    finalObs[k] = new Float32Array(l.finalObs[k]!);
  }
  return {
    obs,
    masks: new Uint8Array(l.masks),
    rewards: new Float64Array(l.rewards),
    terminated: new Uint8Array(l.terminated),
    truncated: new Uint8Array(l.truncated),
    times: new Float64Array(l.times),
    steps: new Int32Array(l.steps),
    finalObs,
    finalInfo: new Uint8Array(l.finalInfo),
    finalInfoLen: new Int32Array(l.finalInfoLen),
    actions: new Int32Array(l.actions),
    seeds: new Float64Array(l.seeds),
  };
}

/** Writes `text` (UTF-8) into a message area (Int32 length, then bytes); truncates when too long. */
export function writeMessage(area: SharedArrayBuffer, text: string): void {
  const bytes = new TextEncoder().encode(text);
  const room = area.byteLength - 4;
  const n = Math.min(bytes.length, room);
  new Uint8Array(area, 4, room).set(bytes.subarray(0, n));
  new Int32Array(area, 0, 1)[0] = n;
}

/** Reads a message area. */
export function readMessage(area: SharedArrayBuffer): string {
  const n = new Int32Array(area, 0, 1)[0]!;
  return new TextDecoder().decode(new Uint8Array(area, 4, n).slice());
}

/** Path of the compiled worker script. */
export function workerScript(): string {
  const here = fileURLToPath(import.meta.url);
  const sibling = join(dirname(here), 'vecWorker.js');
  if (here.endsWith('.js') && existsSync(sibling)) return sibling;
  const dist = resolve(PACKAGE_ROOT, 'dist/envs/vecWorker.js');
  if (existsSync(dist)) return dist;
  throw new Error(`worker threads run compiled JavaScript, and ${dist} is missing: build the project first (npx tsc -p . or npm run build)`);
}

/** Options of `makeVecWorkers`. */
export interface WorkerVecOptions {
  /**
   * Threads that step environments, this one included (default: min(n, available parallelism)).
   * This thread steps the first share of the envs while `threads - 1` workers step the others:
   * it would otherwise sit idle waiting for them.
   */
  threads?: number;
  /** Whether this thread steps a share of the envs (default true); false: `threads` workers do. */
  useThisThread?: boolean;
  /** Microseconds a waiting thread spins before it sleeps (default 0: sleep at once). */
  spinMicros?: number;
}

/** Waits until `control[index] !== value`: spins up to `spinMicros`, then sleeps on the futex. */
export function awaitChange(control: Int32Array, index: number, value: number, spinMicros: number): void {
  if (spinMicros > 0) {
    const end = performance.now() + spinMicros / 1000;
    for (let i = 0; ; i++) {
      if (Atomics.load(control, index) !== value) return;
      if ((i & 63) === 63 && performance.now() > end) break;
    }
  }
  while (Atomics.load(control, index) === value) Atomics.wait(control, index, value, 60_000);
}

interface WorkerHandle {
  worker: Worker;
  control: Int32Array;
  message: SharedArrayBuffer;
  from: number;
  to: number;
  seq: number;
}

/** A vector env whose environments run in worker threads. */
export class WorkerVecEnv implements VecEnv {
  readonly id: EnvId;
  readonly numEnvs: number;
  readonly singleObservationSpace: Space;
  readonly singleActionSpace: DiscreteSpace;
  /** Number of worker threads (besides this one). */
  readonly workerCount: number;
  /** Envs stepped by this thread (rows `[0, localCount)`). */
  readonly localCount: number;
  private readonly views: ReturnType<typeof layoutViews>;
  private readonly nActions: number;
  private readonly local: SyncVecEnv | null;
  /** The envs' `invalid_action` is `raise`: forbidden actions are refused before any env moves. */
  private readonly strict: boolean;
  private closed = false;

  /** @internal use `makeVecWorkers`. */
  constructor(
    context: EnvContext,
    private readonly layout: SharedLayout,
    private readonly handles: WorkerHandle[],
    localCount: number,
    private readonly spinMicros: number,
  ) {
    this.id = context.id;
    this.numEnvs = layout.n;
    this.workerCount = handles.length;
    this.localCount = localCount;
    this.views = layoutViews(layout);
    this.nActions = layout.nActions;
    this.strict = context.config.invalid_action === 'raise';
    this.local =
      localCount > 0
        ? new SyncVecEnv(
            Array.from({ length: localCount }, () => makeFromContext(context)),
            sliceVecBuffers(this.views, 0, localCount),
          )
        : null;
    const probe = this.local?.envs[0] ?? makeFromContext(context);
    this.singleObservationSpace = probe.observationSpace;
    this.singleActionSpace = probe.actionSpace;
  }

  reset(args: VecResetArgs = {}): VecResetResult {
    this.checkOpen();
    const seeds = this.views.seeds;
    const s = args.seed;
    if (Array.isArray(s) && s.length !== this.numEnvs) throw new RangeError(`reset: ${s.length} seeds for ${this.numEnvs} envs`);
    for (let i = 0; i < this.numEnvs; i++) {
      const v = s === undefined ? undefined : typeof s === 'number' ? s + i : (s as readonly (number | undefined)[])[i];
      seeds[i] = v === undefined ? NaN : v;
    }
    const opts = JSON.stringify(args.options ?? null);
    for (const h of this.handles) writeMessage(h.message, opts);
    this.run(CMD.RESET, () =>
      this.local?.reset({ seed: Array.from(seeds.subarray(0, this.localCount), (x) => (Number.isNaN(x) ? undefined : x)), options: args.options }),
    );
    const infos: VecInfo[] = [];
    for (let i = 0; i < this.numEnvs; i++) infos.push({ time: this.views.times[i]!, steps: this.views.steps[i]! });
    return { observations: batchObservation(this.views), infos };
  }

  step(actions: ArrayLike<number>): VecStepResult {
    this.checkOpen();
    const v = this.views;
    checkActions(actions, v.masks, this.numEnvs, this.nActions, this.id, this.strict);
    v.actions.set(actions as ArrayLike<number>);
    let localInfos: VecInfo[] = [];
    this.run(CMD.STEP, () => {
      if (this.local) localInfos = this.local.step(v.actions.subarray(0, this.localCount)).infos;
    });
    const infos: VecInfo[] = new Array(this.numEnvs);
    for (let i = 0; i < this.localCount; i++) infos[i] = localInfos[i]!;
    for (let i = this.localCount; i < this.numEnvs; i++) {
      const info: VecInfo = { time: v.times[i]!, steps: v.steps[i]! };
      if (v.terminated[i] || v.truncated[i]) {
        const len = v.finalInfoLen[i]!;
        const parsed = JSON.parse(new TextDecoder().decode(v.finalInfo.slice(i * INFO_BYTES, i * INFO_BYTES + len))) as Omit<EnvInfo, 'action_mask'>;
        info.final_info = { ...parsed, action_mask: new Uint8Array(this.nActions) } as EnvInfo;
        info.final_observation = this.finalObservation(i);
      }
      infos[i] = info;
    }
    return { observations: batchObservation(v), rewards: v.rewards, terminated: v.terminated, truncated: v.truncated, infos };
  }

  actionMasks(): Uint8Array {
    this.checkOpen();
    return this.views.masks;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.local?.close();
    for (const h of this.handles) {
      h.control[CTRL.CMD] = CMD.CLOSE;
      Atomics.add(h.control, CTRL.SEQ, 1);
      Atomics.notify(h.control, CTRL.SEQ);
      void h.worker.terminate();
    }
  }

  private checkOpen(): void {
    if (this.closed) throw new Error(`${this.id} worker vector env: closed`);
  }

  private finalObservation(i: number): Observation {
    const f = this.views.finalObs;
    const sizes = this.layout.obsSizes;
    const row = (k: string) => f[k]!.slice(i * sizes[k]!, (i + 1) * sizes[k]!);
    if ('obs' in f) return row('obs');
    return { jobs: row('jobs'), nodes: row('nodes'), global: row('global') };
  }

  /**
   * Sends `cmd` to every worker, runs `local` (this thread's share) meanwhile, and waits until all
   * are done; rethrows the first error.
   */
  private run(cmd: number, local: () => void): void {
    for (const h of this.handles) {
      h.control[CTRL.CMD] = cmd;
      h.seq = Atomics.add(h.control, CTRL.SEQ, 1) + 1;
      Atomics.notify(h.control, CTRL.SEQ);
    }
    let error: Error | null = null;
    try {
      local();
    } catch (e) {
      error = e as Error;
    }
    for (const h of this.handles) {
      for (;;) {
        const done = Atomics.load(h.control, CTRL.DONE);
        if (done === h.seq) break;
        awaitChange(h.control, CTRL.DONE, done, this.spinMicros);
      }
      if (h.control[CTRL.STATUS] !== 0 && !error) error = rebuildError(readMessage(h.message), this.views.masks, this.nActions);
    }
    if (error) throw error;
  }
}

function rebuildError(json: string, masks: Uint8Array, nActions: number): Error {
  let e: { name?: string; message?: string; action?: unknown; reason?: string; env?: number } = {};
  try {
    e = JSON.parse(json) as typeof e;
  } catch {
    e = { message: json };
  }
  if (e.name === 'InvalidActionError' && typeof e.env === 'number')
    return new InvalidActionError(e.action, masks.subarray(e.env * nActions, (e.env + 1) * nActions), e.reason ?? 'invalid', `env ${e.env}`);
  const err = new Error(e.message ?? 'worker failed');
  if (e.name) err.name = e.name;
  return err;
}

/**
 * `n` environments spread over worker threads: `makeVecWorkers(n, id, config, options)` or
 * `makeVecWorkers(n, { id, config }, undefined, options)`. Resolves when every worker has loaded
 * its environments; rejects with the worker's error (e.g. a bad config) otherwise.
 */
export async function makeVecWorkers(n: number, idOrSpec: string | EnvSpec, config?: unknown, options: WorkerVecOptions = {}): Promise<WorkerVecEnv> {
  if (!(Number.isInteger(n) && n >= 1)) throw new RangeError(`makeVecWorkers: n must be an integer >= 1, got ${n}`);
  const spec = envSpec(idOrSpec, config);
  const context = makeContext(spec.id, spec.config); // validates in this thread first: errors name the config
  const threads = Math.max(1, Math.min(n, options.threads ?? availableParallelism()));
  const spinMicros = options.spinMicros ?? 0;
  const here = options.useThisThread ?? true;
  const localCount = here ? Math.floor(n / threads) : 0;
  const shares = here ? threads : threads + 1; // share 0 is this thread's (empty when not used)
  const c = context.config;
  const sizes = observationSizes(c.observation, c.k, context.platform.nodeCount);
  const nActions = actionCount(context);
  const sab = (bytes: number) => new SharedArrayBuffer(Math.max(8, bytes));
  const bufs = allocVecBuffers(context, n, sab);
  const layout: SharedLayout = {
    n,
    nActions,
    obsSizes: sizes,
    obs: Object.fromEntries(Object.entries(bufs.obs).map(([k, v]) => [k, v.buffer as SharedArrayBuffer])),
    masks: bufs.masks.buffer as SharedArrayBuffer,
    rewards: bufs.rewards.buffer as SharedArrayBuffer,
    terminated: bufs.terminated.buffer as SharedArrayBuffer,
    truncated: bufs.truncated.buffer as SharedArrayBuffer,
    times: bufs.times.buffer as SharedArrayBuffer,
    steps: bufs.steps.buffer as SharedArrayBuffer,
    finalObs: Object.fromEntries(Object.entries(sizes).map(([k, s]) => [k, sab(4 * n * s)])),
    finalInfo: sab(n * INFO_BYTES),
    finalInfoLen: sab(4 * n),
    actions: sab(4 * n),
    seeds: sab(8 * n),
  };
  const script = workerScript();
  const handles: WorkerHandle[] = [];
  const ready: Promise<void>[] = [];
  for (let k = 1; k < shares; k++) {
    const from = here ? Math.floor((k * n) / threads) : Math.floor(((k - 1) * n) / threads);
    const to = here ? Math.floor(((k + 1) * n) / threads) : Math.floor((k * n) / threads);
    const control = new SharedArrayBuffer(16);
    const message = new SharedArrayBuffer(MESSAGE_BYTES);
    const init: WorkerInit = { id: spec.id, config: spec.config, from, to, layout, control, message, spinMicros };
    const worker = new Worker(script, { workerData: init });
    handles.push({ worker, control: new Int32Array(control), message, from, to, seq: 0 });
    ready.push(
      new Promise<void>((res, rej) => {
        worker.once('message', (m: { ready?: boolean; error?: string }) => (m.ready ? res() : rej(new Error(m.error ?? 'worker failed to start'))));
        worker.once('error', rej);
        worker.once('exit', (code) => rej(new Error(`worker exited with code ${code} before it was ready`)));
      }),
    );
  }
  try {
    await Promise.all(ready);
  } catch (e) {
    for (const h of handles) void h.worker.terminate();
    throw e;
  }
  for (const h of handles) {
    h.worker.removeAllListeners('exit');
    h.worker.removeAllListeners('error');
    h.worker.on('error', () => {});
    h.worker.unref();
  }
  return new WorkerVecEnv(context, layout, handles, localCount, spinMicros);
}
