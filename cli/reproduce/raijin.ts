/**
 * `clustergym reproduce raijin`: seed 004's Slurm emulation of NCI's Raijin (57,600 cores; runworkload's
 * shrink sweep, calcmets' metrics; src/slurm/experiment.ts). `--json` prints the report on stdout (its
 * `raijin` key holds `{jobs, cores, size_shares, suspended_jobs, suspend_accounting_violations,
 * shrink_sweep, jobs_per_s, peak_rss_mb}`); `--out DIR` writes raijin.json, raijin-shrink-F.json per
 * shrink factor and raijin-sweep.csv.
 */
import { z } from 'zod';
import { runRaijinExperiment } from '../../src/slurm/experiment.js';
import { shrinkFactors } from '../../src/slurm/replay.js';
import { REPLAY_ENGINE_FLAG, defineFlags, formatTable, int, num, text } from '../common.js';
import { defineExperiment, REPRODUCE_FLAGS } from './define.js';

const shrink = z.string().superRefine((s, ctx) => {
  try {
    shrinkFactors(s);
  } catch (e) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: (e as Error).message });
  }
});

/** The `raijin` experiment. */
export const reproduceCommand = defineExperiment(
  defineFlags({
    ...REPRODUCE_FLAGS,
    jobs: { value: 'N', schema: int({ gte: 1000, lte: 20_000_000 }), default: 1_000_000, help: 'jobs of the generated Raijin-like workload' },
    shrink: { value: 'FROM:TO:STEP', schema: shrink, default: '100:50:10', help: 'shrink factors in percent (runworkload work_file 100 50 10)' },
    group: { value: 'N', schema: int({ gte: 1 }), default: 10, help: 'jobs per submission group after the warm-up' },
    platform: {
      value: 'FILE',
      schema: text(true),
      help: 'a Slurm platform file (node groups and partitions; docs/slurm.md); default: Raijin, 3,600 x 16 cores',
    },
    load: { value: 'X', schema: num({ gt: 0, lte: 1.5 }), default: 0.85, help: 'offered load of the workload (work / capacity)' },
    engine: REPLAY_ENGINE_FLAG,
  }),
  {
    summary: 'seed 004 (Slurm on Raijin): 57,600 cores, runworkload shrink sweep, calcmets, Tables 4.1/4.2',
    run: (v, out, log) => runRaijinExperiment({ jobs: v.jobs, seed: v.seed, shrink: v.shrink, group: v.group, load: v.load, platform: v.platform, out }, log),
    tables: (report) => {
      const sweep = (report.tables.shrink_sweep ?? []).map((r) => [
        `${r.shrink}%`,
        r.measured_jobs!,
        Number(r.mean_wait).toFixed(1),
        Number(r.mean_response).toFixed(1),
        Number(r.mean_slowdown).toFixed(3),
        Number(r.weighted_slowdown).toFixed(3),
        `${(Number(r.utilisation) * 100).toFixed(1)}%`,
        r.backfilled!,
        r.suspended_jobs!,
        r.violations!,
      ]);
      const shares = (report.tables.size_shares ?? []).map((r) => [
        r.size!,
        `${(Number(r.paper) * 100).toFixed(0)}%`,
        `${(Number(r.this_run) * 100).toFixed(2)}%`,
      ]);
      return `Shrink sweep (calcmets)\n${formatTable(['shrink', 'jobs', 'wait s', 'response s', 'slowdown', 'w. slowdown', 'utilisation', 'backfilled', 'suspended', 'violations'], sweep)}\n\nJob sizes (Table 4.1)\n${formatTable(['cores', 'paper', 'this run'], shares)}\n`;
    },
  },
);
