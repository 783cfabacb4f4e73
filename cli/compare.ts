/**
 * `clustergym compare`: scheduling policies side by side on the same trajectories.
 *
 *     clustergym compare [--platform FILE] [--workload FILE] [--policies fcfs,sjf,f1,wfp3,unicep]
 *                        [--backfill none|easy|conservative] [--commit-head] [--node-fit first_fit|best_fit]
 *                        [--trajectories K --length L [--seed S] | --origins a,b,c --length L | --origin N|random --length L]
 *                        [--bf-max-job-test N] [--walltime-kill] [--no-memory-limit] [--memory-model M] [--comm-model M]
 *                        [--cores-per-node N] [--json FILE]
 *
 * Prints one row per policy: mean bounded slowdown, mean wait, utilisation, makespan and energy, each
 * averaged over the trajectories (see `scheduling/compare.ts`). `--json FILE` writes
 * `{ "policies": [ { "name", "mean_bsld", "mean_wait", "utilisation", "makespan", "energy",
 * "per_trajectory": [...] } ], ... }`. Without trajectory flags the whole workload is one trajectory.
 *
 * A trace without `--platform` (SWF `MaxProcs`/`MaxNodes`, Batsim `nb_res`) runs on a homogeneous
 * cluster of that many cores, in nodes of `--cores-per-node` cores (default 1: one processor per node,
 * as RLScheduler models its traces; trace jobs are `delay` jobs that may span any cores, so the node
 * size changes nothing for them).
 */
import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { z } from 'zod';
import { InputError } from '../src/core/errors.js';
import { BACKFILL_NAMES } from '../src/scheduling/backfilling.js';
import { comparePolicies, cutTrajectories, type PolicyResult } from '../src/scheduling/compare.js';
import { parsePolicyName } from '../src/scheduling/policyName.js';
import { DEFAULT_WORKLOAD, formatTable, parseFlags } from './common.js';
import { ProgressBar } from './progress.js';
import { checkWorkloadFits } from './simulate.js';
import { loadWorkloadFile, resolvePlatform } from './workloadInput.js';

const FLAGS = {
  platform: { type: 'string' },
  workload: { type: 'string' },
  policies: { type: 'string' },
  backfill: { type: 'string' },
  'commit-head': { type: 'boolean' },
  'node-fit': { type: 'string' },
  trajectories: { type: 'string' },
  length: { type: 'string' },
  origin: { type: 'string' },
  origins: { type: 'string' },
  seed: { type: 'string' },
  'bf-max-job-test': { type: 'string' },
  'walltime-kill': { type: 'boolean' },
  'no-memory-limit': { type: 'boolean' },
  'memory-model': { type: 'string' },
  'comm-model': { type: 'string' },
  'cores-per-node': { type: 'string' },
  json: { type: 'string' },
} as const;

const intList = z
  .string()
  .transform((s, ctx) => {
    const parts = s.split(',').map((x) => x.trim());
    const out: number[] = [];
    for (const p of parts) {
      if (!/^\d+$/.test(p)) {
        ctx.addIssue({ code: 'custom', message: `expected comma-separated integers >= 0, found ${JSON.stringify(p)}` });
        return z.NEVER;
      }
      out.push(Number(p));
    }
    return out;
  });

const Schema = z
  .object({
    platform: z.string().optional(),
    workload: z.string().default(DEFAULT_WORKLOAD),
    policies: z.string().default('fcfs,sjf,f1,wfp3,unicep'),
    backfill: z.enum(BACKFILL_NAMES).default('none'),
    'commit-head': z.boolean().default(false),
    'node-fit': z.enum(['first_fit', 'best_fit']).default('first_fit'),
    trajectories: z.coerce.number().int().positive().optional(),
    length: z.coerce.number().int().positive().optional(),
    origin: z.union([z.literal('random'), z.coerce.number().int().nonnegative()]).optional(),
    origins: intList.optional(),
    seed: z.coerce.number().int().default(1),
    'bf-max-job-test': z.coerce.number().int().positive().optional(),
    'walltime-kill': z.boolean().default(false),
    'no-memory-limit': z.boolean().default(false),
    'memory-model': z.enum(['irmasim-v1', 'none']).optional(),
    'comm-model': z.enum(['step', 'shared']).optional(),
    'cores-per-node': z.coerce.number().int().positive().default(1),
    json: z.string().optional(),
  })
  .superRefine((f, ctx) => {
    const picks = [f.trajectories !== undefined, f.origins !== undefined, f.origin !== undefined].filter(Boolean).length;
    if (picks > 1) ctx.addIssue({ code: 'custom', path: ['trajectories'], message: 'give one of --trajectories, --origins, --origin' });
    if (picks === 1 && f.length === undefined) ctx.addIssue({ code: 'custom', path: ['length'], message: 'Required with --trajectories/--origins/--origin (jobs per trajectory)' });
    if (picks === 0 && f.length !== undefined) ctx.addIssue({ code: 'custom', path: ['length'], message: 'needs --trajectories K, --origins a,b,c or --origin N|random' });
  });

/** The comparison table. */
export function compareTable(results: PolicyResult[]): string {
  return formatTable(
    ['policy', 'mean bsld', 'mean wait (s)', 'utilisation', 'makespan (s)', 'energy (J)'],
    results.map((r) => [r.name, r.mean_bsld, r.mean_wait, r.utilisation, r.makespan, r.energy]),
  );
}

/** Runs the command; returns the exit code. */
export function compareCommand(argv: string[]): number {
  const f = parseFlags('compare', argv, FLAGS, Schema);
  const specs = f.policies
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => parsePolicyName(s, f.backfill, '--policies'));
  if (specs.length === 0) throw new InputError('--policies: give at least one policy name');
  const models = {
    ...(f['memory-model'] ? { memory: f['memory-model'] } : {}),
    ...(f['comm-model'] ? { comm: f['comm-model'] } : {}),
  };
  const workload = loadWorkloadFile(f.workload);
  const platform = resolvePlatform({ platform: f.platform, coresPerNode: f['cores-per-node'], models }, workload.maxProcs);
  const enforceMemory = !f['no-memory-limit'];
  checkWorkloadFits(platform, workload, f.workload, enforceMemory);
  const trajectoryOptions =
    f.length === undefined
      ? undefined
      : {
          length: f.length,
          seed: f.seed,
          ...(f.trajectories !== undefined ? { trajectories: f.trajectories } : {}),
          ...(f.origins !== undefined ? { origins: f.origins } : {}),
          ...(f.origin !== undefined ? { origin: f.origin } : {}),
        };
  const trajectories = cutTrajectories(workload, trajectoryOptions);
  const bar = new ProgressBar();
  const t0 = performance.now();
  const results = comparePolicies(platform, trajectories, specs, {
    seed: f.seed,
    fit: f['node-fit'],
    commitHead: f['commit-head'],
    maxJobTest: f['bf-max-job-test'],
    enforceMemory,
    walltimeKill: f['walltime-kill'],
    onProgress: (done, total) => bar.update(done, total, [['simulations', `${done}/${total}`]]),
  });
  bar.done();
  const seconds = (performance.now() - t0) / 1000;
  if (f.json) {
    const out = {
      platform: platform.name,
      workload: basename(f.workload),
      trajectories: trajectories.map((t) => ({ label: t.label, jobs: t.jobs.length })),
      commit_head: f['commit-head'],
      node_fit: f['node-fit'],
      policies: results,
    };
    writeFileSync(f.json, JSON.stringify(out, null, 1) + '\n');
  }
  console.log(
    `platform ${platform.name} (${platform.nodeCount} nodes, ${platform.coreCount} cores), workload ${basename(f.workload)} ` +
      `(${workload.jobs.length} jobs), ${trajectories.length} trajector${trajectories.length === 1 ? 'y' : 'ies'} of ` +
      `${trajectories[0]?.jobs.length ?? 0} jobs${f['commit-head'] ? ', commit-head' : ''}`,
  );
  console.log(compareTable(results));
  console.log(`${specs.length * trajectories.length} simulations in ${seconds.toFixed(2)} s${f.json ? `; results in ${f.json}` : ''}`);
  return 0;
}
