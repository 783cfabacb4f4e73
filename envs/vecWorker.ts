/**
 * Entry point of a worker thread of `makeVecWorkers` (see workerVec.ts): hosts envs `[from, to)` in
 * a `SyncVecEnv` over shared memory and serves commands until `close`. Loaded as compiled
 * JavaScript from `dist/envs/vecWorker.js`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { InvalidActionError } from './errors.js';
import { makeContext, makeFromContext } from './registry.js';
import { SyncVecEnv, sliceVecBuffers } from './vector.js';
import { awaitChange, CMD, CTRL, INFO_BYTES, layoutViews, readMessage, writeMessage, type WorkerInit } from './workerVec.js';

function serve(init: WorkerInit): void {
  const { from, to, layout } = init;
  const control = new Int32Array(init.control);
  const views = layoutViews(layout);
  const ctx = makeContext(init.id, init.config);
  const vec = new SyncVecEnv(
    Array.from({ length: to - from }, () => makeFromContext(ctx)),
    sliceVecBuffers(views, from, to),
  );
  const sizes = layout.obsSizes;
  const encoder = new TextEncoder();
  parentPort!.postMessage({ ready: true });
  let seen = 0;
  for (;;) {
    awaitChange(control, CTRL.SEQ, seen, init.spinMicros);
    seen = Atomics.load(control, CTRL.SEQ);
    const cmd = control[CTRL.CMD];
    if (cmd === CMD.CLOSE) {
      vec.close();
      Atomics.store(control, CTRL.DONE, seen);
      Atomics.notify(control, CTRL.DONE);
      return;
    }
    try {
      if (cmd === CMD.RESET) {
        const seeds: (number | undefined)[] = [];
        for (let i = from; i < to; i++) seeds.push(Number.isNaN(views.seeds[i]!) ? undefined : views.seeds[i]!);
        const options = JSON.parse(readMessage(init.message)) as Record<string, unknown> | null;
        vec.reset({ seed: seeds, options: options ?? undefined });
      } else if (cmd === CMD.STEP) {
        const r = vec.step(views.actions.subarray(from, to));
        for (let j = 0; j < to - from; j++) {
          const info = r.infos[j]!;
          if (!info.final_info) continue;
          const i = from + j;
          const o = info.final_observation!;
          if (o instanceof Float32Array) views.finalObs['obs']!.set(o, i * sizes['obs']!);
          else for (const k of ['jobs', 'nodes', 'global'] as const) views.finalObs[k]!.set(o[k], i * sizes[k]!);
          const { action_mask: _m, ...rest } = info.final_info;
          const bytes = encoder.encode(JSON.stringify(rest));
          const n = Math.min(bytes.length, INFO_BYTES);
          views.finalInfo.set(bytes.subarray(0, n), i * INFO_BYTES);
          views.finalInfoLen[i] = n;
        }
      }
      control[CTRL.STATUS] = 0;
    } catch (e) {
      const err = e as Error;
      const payload: Record<string, unknown> = { name: err.name, message: err.message };
      if (e instanceof InvalidActionError) {
        payload['action'] = e.action;
        payload['reason'] = e.reason;
        const m = /^env (\d+)/.exec(err.message);
        payload['env'] = from + (m ? Number(m[1]) : 0);
      }
      writeMessage(init.message, JSON.stringify(payload));
      control[CTRL.STATUS] = 1;
    }
    Atomics.store(control, CTRL.DONE, seen);
    Atomics.notify(control, CTRL.DONE);
  }
}

try {
  serve(workerData as WorkerInit);
} catch (e) {
  parentPort!.postMessage({ error: (e as Error).message });
}
