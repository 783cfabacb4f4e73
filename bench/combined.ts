/**
 * Bench section `combined` (issue 42): the combined scenario of the one engine (malleable MPI jobs of two
 * users with fair shares 2:1 in two partitions of hetero-20, with energy, under multifactor priority and
 * EASY; `data/workloads/combined-200.json` and `data/engines/combined.json`), and what each dimension
 * changes when it alone is turned off (docs/model.md, "The combined scenario"):
 *
 * - progress: malleable jobs rigid (`malleable: rigid`: their nominal run time at their submitted size);
 * - resize policy: `never` (the same malleable progress, no resize);
 * - priority: FCFS instead of multifactor with fair share;
 * - scheduling passes: no EASY backfilling;
 * - capacity: no partitions (every job may use any node);
 * - power: the model is always on; each row gives its energy;
 * - and one dimension turned ON: lifecycle, operator suspensions (every tenth job suspended for 600 s,
 *   60 s into its run, holding its cores: `operatorEvents`), on top of the combined scenario.
 *
 * Each row: mean bounded slowdown, mean wait of each user, utilisation, makespan, energy, resizes, and the
 * CPU seconds the run took.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPlatform } from '../src/platform/loader.js';
import { multifactorOptionsOf, parseEngineConfig, type EngineConfigInput } from '../src/scheduling/engineConfig.js';
import { makeScheduler } from '../src/scheduling/policyName.js';
import { runSimulation } from '../src/scheduling/run.js';
import { loadWorkload } from '../src/workload/index.js';
import type { Job } from '../src/workload/job.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** One row of the ablation. */
export interface CombinedRow {
  variant: string;
  policy: string;
  mean_bsld: number;
  wait_alice: number;
  wait_bob: number;
  utilisation: number;
  makespan: number;
  energy_mj: number;
  resizes: number;
  suspensions: number;
  cpu_s: number;
}

/** Runs the scenario and its ablations (module comment). */
export function combinedAblation(): CombinedRow[] {
  const platform = loadPlatform(join(ROOT, 'data/platforms/hetero-20.json'));
  const jobs = loadWorkload(join(ROOT, 'data/workloads/combined-200.json')).jobs;
  const full = JSON.parse(readFileSync(join(ROOT, 'data/engines/combined.json'), 'utf8')) as EngineConfigInput;
  const noPartitions = jobs.map((j): Job => ({ ...j, partition: undefined }));
  const suspended = jobs.map((j, i): Job => (i % 10 === 0 ? { ...j, operatorEvents: [{ after: 60, duration: 600 }] } : j));
  const variants: { variant: string; engine: EngineConfigInput; policy: string; jobs: readonly Job[] }[] = [
    { variant: 'combined (every dimension on)', engine: full, policy: 'multifactor:first+easy', jobs },
    { variant: 'progress: malleable jobs rigid', engine: { ...full, malleable: 'rigid' }, policy: 'multifactor:first+easy', jobs },
    { variant: 'resize policy: never', engine: { ...full, resize: 'never' }, policy: 'multifactor:first+easy', jobs },
    { variant: 'priority: FCFS, no fair share', engine: full, policy: 'fcfs:first+easy', jobs },
    { variant: 'passes: no EASY backfilling', engine: full, policy: 'multifactor:first', jobs },
    { variant: 'capacity: no partitions', engine: full, policy: 'multifactor:first+easy', jobs: noPartitions },
    { variant: 'lifecycle: + operator suspensions', engine: full, policy: 'multifactor:first+easy', jobs: suspended },
    {
      variant: "passes: Slurm's, on Slurm's clock",
      engine: { ...full, pass_clock: { slurm: { sched_on_submit: true, sched_interval: 60, main: 'slurm', backfill: { interval: 30, resolution: 60 } } } },
      policy: 'multifactor:first',
      jobs,
    },
  ];
  return variants.map((v) => {
    const engine = parseEngineConfig(v.engine);
    const waits: Record<string, number[]> = { alice: [], bob: [] };
    let resizes = 0;
    let suspensions = 0;
    const c0 = process.cpuUsage();
    const { summary } = runSimulation(platform, v.jobs, makeScheduler(v.policy, { multifactor: multifactorOptionsOf(engine) }), {
      engine,
      listeners: [
        {
          onResize: () => {
            resizes++;
          },
          onSuspend: () => {
            suspensions++;
          },
          onEnd: (_s, r) => {
            waits[r.job.user ?? 'alice']!.push(r.start - r.submit);
          },
        },
      ],
    });
    const cu = process.cpuUsage(c0);
    const mean = (x: number[]) => x.reduce((a, b) => a + b, 0) / Math.max(1, x.length);
    return {
      variant: v.variant,
      policy: v.policy,
      mean_bsld: summary.mean_bsld,
      wait_alice: mean(waits.alice!),
      wait_bob: mean(waits.bob!),
      utilisation: summary.utilisation,
      makespan: summary.makespan,
      energy_mj: summary.energy / 1e6,
      resizes,
      suspensions,
      cpu_s: (cu.user + cu.system) / 1e6,
    };
  });
}

/** The section's figures. */
export function benchCombined(): Record<string, unknown> {
  const rows = combinedAblation();
  for (const r of rows)
    console.error(
      `${r.variant.padEnd(34)} bsld ${r.mean_bsld.toFixed(3)}  wait alice ${r.wait_alice.toFixed(0)} s, bob ${r.wait_bob.toFixed(0)} s  util ${r.utilisation.toFixed(3)}  makespan ${r.makespan.toFixed(0)} s  energy ${r.energy_mj.toFixed(2)} MJ  resizes ${r.resizes}  suspensions ${r.suspensions}  cpu ${r.cpu_s.toFixed(2)} s`,
    );
  return { rows };
}
