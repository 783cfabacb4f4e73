/**
 * Benchmark of the gym environments (issue "The gym environment"), random masked actions:
 * - `Job-v0`, K = 128, on the 256-core Lublin trace (`../shared/data/traces/lublin_256.swf`, whole
 *   trace per episode; skipped when the third-party data is absent), `unfit: mask` and `reserve`;
 * - `JobNode-v0`, K = 32, on the embedded 20-node 496-core platform `hetero-20` with `mixed-300`;
 * - `PolicyPair-v0` on the same;
 * - vector envs of 8 `JobNode-v0` and of 8 `Job-v0`: in this thread (`makeVec`) and on 2 threads
 *   (`makeVecWorkers`), with the speed-up.
 * - a control for the speed-up: the same envs stepped by 2 threads that never synchronise (each its
 *   own `makeVec` of 4), against one thread stepping 8: the parallel capacity the machine offers
 *   right now (on a shared or hyperthreaded machine it is well below 2).
 * Each figure is the best of `repeats` runs (the machine may be shared).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { make } from '../envs/index.js';
import { makeVec } from '../envs/vector.js';
import { makeVecWorkers } from '../envs/workerVec.js';
import { PACKAGE_ROOT } from '../src/core/paths.js';
import { measureEnv, measureVec, type EnvBenchResult } from '../envs/benchmark.js';

const LUBLIN = resolve(PACKAGE_ROOT, '../shared/data/traces/lublin_256.swf');

function best(runs: EnvBenchResult[]): number {
  return Math.round(Math.max(...runs.map((r) => r.steps_per_s)));
}

/** Steps per second of one env, best of `repeats`. */
function single(id: string, config: Record<string, unknown>, steps: number, repeats: number): number {
  const env = make(id, config);
  const runs = Array.from({ length: repeats }, (_, i) => measureEnv(env, steps, i));
  env.close();
  return best(runs);
}

/** Env steps per second of a vector env of `n`, in this thread and on `threads` threads. */
async function vector(
  id: string,
  config: Record<string, unknown>,
  n: number,
  threads: number,
  steps: number,
  repeats: number,
): Promise<Record<string, number>> {
  const sync = makeVec(n, id, config);
  const s = best(Array.from({ length: repeats }, (_, i) => measureVec(sync, steps, i)));
  sync.close();
  const w = await makeVecWorkers(n, id, config, { threads });
  const t = best(Array.from({ length: repeats }, (_, i) => measureVec(w, steps, i)));
  w.close();
  return { envs: n, threads, sync_steps_per_s: s, worker_steps_per_s: t, speedup: Math.round((t / s) * 100) / 100 };
}

/**
 * Env steps per second of `threads` independent threads, each stepping its own vector env of
 * `perThread` envs for `steps` env steps, with no synchronisation between them (a control).
 */
async function independentThreads(id: string, config: Record<string, unknown>, threads: number, perThread: number, steps: number): Promise<number> {
  const vectorModule = new URL('../envs/vector.js', import.meta.url).href;
  const benchModule = new URL('../envs/benchmark.js', import.meta.url).href;
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    (async () => {
      const { makeVec } = await import(${JSON.stringify(vectorModule)});
      const { measureVec } = await import(${JSON.stringify(benchModule)});
      const v = makeVec(workerData.n, workerData.id, workerData.config);
      measureVec(v, Math.min(2000, workerData.steps), 99); // warm-up
      parentPort.postMessage('ready');
      parentPort.once('message', () => parentPort.postMessage(measureVec(v, workerData.steps, 0).seconds));
    })();`;
  const workers = Array.from({ length: threads }, () => new Worker(code, { eval: true, workerData: { id, config, n: perThread, steps } }));
  await Promise.all(workers.map((w) => new Promise((r) => w.once('message', r))));
  const t0 = performance.now();
  await Promise.all(
    workers.map(
      (w) =>
        new Promise((r) => {
          w.once('message', r);
          w.postMessage('go');
        }),
    ),
  );
  const seconds = (performance.now() - t0) / 1000;
  await Promise.all(workers.map((w) => w.terminate()));
  return Math.round((threads * steps) / seconds);
}

/** Runs the environment benchmarks; returns the figures. */
export async function benchEnvs(): Promise<Record<string, unknown>> {
  const repeats = 3;
  const out: Record<string, unknown> = {};
  if (existsSync(LUBLIN)) {
    out['job_v0_k128_lublin256_steps_per_s'] = single('clustergym/Job-v0', { workload: LUBLIN, k: 128 }, 200_000, repeats);
    out['job_v0_k128_lublin256_reserve_steps_per_s'] = single('clustergym/Job-v0', { workload: LUBLIN, k: 128, unfit: 'reserve' }, 200_000, repeats);
    out['job_v0_k128_lublin256_reserve_easy_steps_per_s'] = single(
      'clustergym/Job-v0',
      { workload: LUBLIN, k: 128, unfit: 'reserve', backfilling: 'easy' },
      200_000,
      repeats,
    );
  } else out['job_v0_k128_lublin256_steps_per_s'] = `skipped: ${LUBLIN} is absent`;
  out['jobnode_v0_k32_hetero20_steps_per_s'] = single('clustergym/JobNode-v0', { k: 32 }, 100_000, repeats);
  out['job_v0_k32_hetero20_steps_per_s'] = single('clustergym/Job-v0', { k: 32 }, 100_000, repeats);
  out['policypair_v0_hetero20_steps_per_s'] = single('clustergym/PolicyPair-v0', {}, 30_000, repeats);
  out['vec_jobnode_v0_k32_8envs'] = await vector('clustergym/JobNode-v0', { k: 32 }, 8, 2, 80_000, repeats);
  out['vec_jobnode_v0_k32_64envs'] = await vector('clustergym/JobNode-v0', { k: 32 }, 64, 2, 128_000, repeats);
  const one = await independentThreads('clustergym/JobNode-v0', { k: 32 }, 1, 8, 40_000);
  const two = await independentThreads('clustergym/JobNode-v0', { k: 32 }, 2, 4, 40_000);
  out['control_independent_threads_jobnode_v0'] = { one_thread_steps_per_s: one, two_threads_steps_per_s: two, capacity: Math.round((two / one) * 100) / 100 };
  if (existsSync(LUBLIN)) out['vec_job_v0_k128_lublin256'] = await vector('clustergym/Job-v0', { workload: LUBLIN, k: 128 }, 8, 2, 200_000, repeats);
  return out;
}
