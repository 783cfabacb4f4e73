/**
 * `clustergym compare`: scheduling policies side by side on the same trajectories.
 *
 *     clustergym compare [--platform FILE] [--workload FILE] [--policies fcfs,sjf,f1,wfp3,unicep]
 *                        [--backfill none|easy|conservative] [--commit-head] [--node-fit first_fit|best_fit]
 *                        [--trajectories K --length L [--seed S] | --origins a,b,c --length L | --origin N|random --length L]
 *                        [--bf-max-job-test N] [--walltime-kill] [--no-memory-limit] [--memory-model M] [--comm-model M]
 *                        [--cores-per-node N] [--out DIR] [--json]
 *
 * Prints one row per policy: mean bounded slowdown, mean wait, utilisation, makespan and energy, each
 * averaged over the trajectories (see `scheduling/compare.ts`). The report
 * `{ "platform", "workload", "trajectories", "commit_head", "node_fit", "policies": [ { "name",
 * "mean_bsld", "mean_wait", "utilisation", "makespan", "energy", "per_trajectory": [...] } ] }` goes
 * to `DIR/compare.json` with `--out DIR`, and to stdout instead of the table with `--json`. Without
 * trajectory flags the whole workload is one trajectory.
 *
 * A trace without `--platform` (SWF `MaxProcs`/`MaxNodes`, Batsim `nb_res`) runs on a homogeneous
 * cluster of that many cores, in nodes of `--cores-per-node` cores (default 1: one processor per node,
 * as RLScheduler models its traces; trace jobs are `delay` jobs that may span any cores, so the node
 * size changes nothing for them).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { InputError } from '../src/core/errors.js';
import { BACKFILL_NAMES, DEFAULT_MAX_JOB_TEST } from '../src/scheduling/backfilling.js';
import { comparePolicies, cutTrajectories, type PolicyResult } from '../src/scheduling/compare.js';
import { parsePolicyName } from '../src/scheduling/policyName.js';
import { DEFAULT_WORKLOAD, defineCommand, defineFlags, formatTable, int, intList, oneOf, text, type Values } from './common.js';
import { ProgressBar } from './progress.js';
import { checkWorkloadFits } from './simulate.js';
import { engineConfigArg, loadWorkloadFile, resolvePlatform } from './workloadInput.js';

/** `N` (an integer >= 0) or `random`. */
const originValue = z.string().transform((s, ctx): number | 'random' => {
  if (s === 'random') return s;
  if (/^\d+$/.test(s.trim())) return Number(s);
  ctx.addIssue({ code: 'custom', message: `expected an integer >= 0 or random, got ${JSON.stringify(s)}` });
  return z.NEVER;
});

/** The flags of `compare`. */
export const flags = defineFlags(
  {
    platform: {
      value: 'FILE',
      schema: text(),
      help: "native or IRMaSim platform (default: a trace's homogeneous machine, else data/platforms/hetero-20.json)",
    },
    workload: { value: 'FILE', schema: text(), default: DEFAULT_WORKLOAD, help: 'native/IRMaSim JSON, Batsim JSON or SWF (detected)' },
    policies: {
      value: 'LIST',
      schema: text(),
      default: 'fcfs,sjf,f1,wfp3,unicep',
      help: 'comma-separated policy names JOB[:RESOURCE][+BACKFILL] (docs/scheduling.md)',
    },
    out: { value: 'DIR', schema: text(true), help: 'write compare.json (every policy, with its per-trajectory figures) there' },
    json: { help: 'print compare.json on stdout instead of the table' },
    trajectories: { value: 'K', schema: int({ gte: 1 }), help: 'draw K distinct trajectories of --length jobs (seeded by --seed)' },
    origins: { value: 'A,B,...', schema: intList, help: 'trajectories of --length jobs from these job indices' },
    origin: { value: 'N|random', schema: originValue, help: 'one trajectory of --length jobs from job N (or a random one)' },
    length: { value: 'L', schema: int({ gte: 1 }), help: 'jobs per trajectory (with --trajectories, --origins or --origin)' },
    seed: { value: 'N', schema: int(), default: 1, help: 'seed of the trajectory draw and of the random policies' },
    backfill: { schema: oneOf(BACKFILL_NAMES), default: 'none', help: 'backfilling for policy names without +BACKFILL' },
    'commit-head': { help: 'the job ranked first is committed until it starts (RLScheduler) instead of re-ordering (Slurm)' },
    'node-fit': { schema: oneOf(['first_fit', 'best_fit']), default: 'first_fit', help: 'node choice of seq jobs' },
    'bf-max-job-test': { value: 'N', schema: int({ gte: 1 }), default: DEFAULT_MAX_JOB_TEST, help: 'jobs examined after the head per backfilling pass' },
    'walltime-kill': { help: 'kill jobs still running at start + requested time' },
    engine: {
      value: 'FILE|JSON',
      schema: text(),
      help: 'the engine\'s dimensions by name: malleable progress, resize policy, multifactor priority (docs/model.md, "One engine")',
    },
    'no-memory-limit': { help: 'do not treat node memory as a placement constraint' },
    'memory-model': { schema: oneOf(['irmasim-v1', 'none']), help: "override the platform's memory-bandwidth model" },
    'comm-model': { schema: oneOf(['step', 'shared', 'flow']), help: "override the platform's communication model (flow: on the platform's network)" },
    'cores-per-node': { value: 'N', schema: int({ gte: 1 }), default: 1, help: 'node size of the homogeneous machine built for a trace' },
  },
  (f, ctx) => {
    const picks = [f.trajectories !== undefined, f.origins !== undefined, f.origin !== undefined].filter(Boolean).length;
    if (picks > 1) ctx.addIssue({ code: 'custom', path: ['trajectories'], message: 'give one of --trajectories, --origins, --origin' });
    if (picks === 1 && f.length === undefined)
      ctx.addIssue({ code: 'custom', path: ['length'], message: 'Required with --trajectories/--origins/--origin (jobs per trajectory)' });
    if (picks === 0 && f.length !== undefined)
      ctx.addIssue({ code: 'custom', path: ['length'], message: 'needs --trajectories K, --origins a,b,c or --origin N|random' });
  },
);

/** The comparison table. */
export function compareTable(results: PolicyResult[]): string {
  return formatTable(
    ['policy', 'mean bsld', 'mean wait (s)', 'utilisation', 'makespan (s)', 'energy (J)'],
    results.map((r) => [r.name, r.mean_bsld, r.mean_wait, r.utilisation, r.makespan, r.energy]),
  );
}

/** Runs the command; returns the exit code. */
export function compare(f: Values<typeof flags>): number {
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
    engine: engineConfigArg(f.engine),
    onProgress: (done, total) => bar.update(done, total, [['simulations', `${done}/${total}`]]),
  });
  bar.done();
  const seconds = (performance.now() - t0) / 1000;
  const report = {
    platform: platform.name,
    workload: basename(f.workload),
    trajectories: trajectories.map((t) => ({ label: t.label, jobs: t.jobs.length })),
    commit_head: f['commit-head'],
    node_fit: f['node-fit'],
    policies: results,
  };
  const file = f.out === undefined ? undefined : join(f.out, 'compare.json');
  if (f.out !== undefined && file !== undefined) {
    mkdirSync(f.out, { recursive: true });
    writeFileSync(file, `${JSON.stringify(report, null, 1)}\n`);
  }
  if (f.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return 0;
  }
  console.log(
    `platform ${platform.name} (${platform.nodeCount} nodes, ${platform.coreCount} cores), workload ${basename(f.workload)} ` +
      `(${workload.jobs.length} jobs), ${trajectories.length} trajector${trajectories.length === 1 ? 'y' : 'ies'} of ` +
      `${trajectories[0]?.jobs.length ?? 0} jobs${f['commit-head'] ? ', commit-head' : ''}`,
  );
  console.log(compareTable(results));
  console.log(`${specs.length * trajectories.length} simulations in ${seconds.toFixed(2)} s${file ? `; results in ${file}` : ''}`);
  return 0;
}

/** `clustergym compare`. */
export const command = defineCommand(flags, compare);
