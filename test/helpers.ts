import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TranscriptEntry } from '../src/core/engineChecker.js';
import type { ClusterSimulator, JobRecord } from '../src/execution/simulator.js';
import { parsePlatform } from '../src/platform/loader.js';
import type { ModelsConfig, Platform } from '../src/platform/platform.js';
import { runSimulation } from '../src/scheduling/run.js';
import { ListScheduler } from '../src/scheduling/scheduler.js';
import type { Job } from '../src/workload/job.js';

/** Repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Third-party data beside the repository (`../shared/data`). */
export const SHARED_DATA = resolve(ROOT, '../shared/data');
export const HAVE_SHARED = existsSync(SHARED_DATA);
export const SHARED_MISSING = `skipped: ${SHARED_DATA} is absent (third-party data lives in ../shared/data beside the repository)`;

/** The DESIGN's `tfg-2x2x4` platform (2 nodes x 2 processors x 4 cores, 2 GHz, 1 op/cycle). */
export function tfg2x2x4(models: Partial<ModelsConfig> = {}): Platform {
  return parsePlatform(
    {
      name: 'tfg-2x2x4',
      models: { memory: 'none', comm: 'shared', comm_penalty: 0.8, ...models },
      clusters: [
        {
          nodes: [
            {
              count: 2,
              memory_gb: 64,
              comm_bw: 125e6,
              processors: [
                {
                  count: 2,
                  cores: 4,
                  clock_rate: 2.0,
                  dpflops_per_cycle: 1,
                  static_power: 20,
                  dynamic_power: 10,
                  min_power: 0.05,
                  b: -1.85e-5,
                  c: 32000,
                  da: 1.75,
                  db: 2000,
                  dc: 50000,
                  dd: 6000,
                },
              ],
            },
          ],
        },
      ],
    },
    'tfg-2x2x4',
  );
}

/** An `ops` job whose tasks each do 2e9 operations (1 s alone on a 2 GHz core). */
export function opsJob(id: string, ntasks: number, fields: Partial<Job> = {}): Job {
  return {
    id,
    subtime: 0,
    ntasks,
    reqTime: 10,
    reqEnergy: 0,
    type: 'seq',
    work: 'ops',
    ops: 2e9,
    runtime: 0,
    mem: 0,
    memVol: 0,
    commVol: 0,
    tCompute: 1,
    nodes: fields.type === 'mpi' ? 0 : 1,
    ntasksPerNode: 0,
    tasks: null,
    source: id,
    ...fields,
  };
}

/** Runs `jobs` on `platform` with the list scheduler (FCFS + first); adds each job's record, also by id. */
export function runListScheduler(platform: Platform, jobs: Parameters<typeof runSimulation>[1]) {
  const records: JobRecord[] = [];
  const res = runSimulation(platform, jobs, new ListScheduler(), { listeners: [{ onEnd: (_s, r) => records.push(r) }] });
  const byId = new Map(records.map((r) => [r.job.id, r]));
  return { ...res, records, byId };
}

/** Relative closeness with the issues' tolerance (1e-6 relative). */
export function close(a: number, b: number, rel = 1e-6): boolean {
  return Math.abs(a - b) <= rel * Math.max(1, Math.abs(b));
}

/** The built CLI (`dist/`, compiled by the global setup). */
export const CLI = resolve(ROOT, 'dist/cli/main.js');

/** Runs the built CLI synchronously; returns its exit code and output. */
export function cli(args: string[], cwd = ROOT): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The engine checker's transcript of a one-engine run (src/core/engineChecker.ts): submit, start, suspend, resume, requeue and end, as they happen. */
export function lifecycleTranscript(sim: ClusterSimulator): TranscriptEntry[] {
  const transcript: TranscriptEntry[] = [];
  sim.addListener({
    onSubmit: (s, job) => void transcript.push({ type: 'submit', job: job.id, time: s.now }),
    onStart: (s, rj) => void transcript.push({ type: 'start', job: rj.job.id, time: s.now }),
    onSuspend: (s, rj) => void transcript.push({ type: 'suspend', job: rj.job.id, time: s.now }),
    onResume: (s, rj) => void transcript.push({ type: 'resume', job: rj.job.id, time: s.now }),
    onRequeue: (s, rj) => void transcript.push({ type: 'requeue', job: rj.job.id, time: s.now }),
    onEnd: (s, rec) => void transcript.push({ type: 'end', job: rec.job.id, time: s.now }),
  });
  return transcript;
}
