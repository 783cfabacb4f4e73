/**
 * `clustergym simulate`: platform + workload + policy -> summary table and output files.
 *
 *     clustergym simulate [--platform FILE] [--workload FILE] [--out DIR] [--memory-model irmasim-v1|none]
 *                         [--comm-model step|shared] [--seed N] [--timeline] [--walltime-kill] [--no-memory-limit]
 *                         [--policy JOB[:RESOURCE][+BACKFILL]] [--backfill none|easy|conservative] [--commit-head]
 *                         [--node-fit first_fit|best_fit] [--bf-max-job-test N]
 *                         [--semantics clustergym|irmasim] [--idle-power always|after-first-task]
 *     clustergym simulate --irmasim OPTIONS.json [--out DIR] [--idle-power ...] [--timeline] [--json]
 *
 * `--irmasim` runs an IRMaSim options file unchanged (platform, workload, trajectory, seed and workload
 * manager from the file; see `scheduling/irmasim/options.ts`) with IRMaSim's execution semantics.
 *
 * `--policy` names the scheduling policy (default `fcfs:first`; see `scheduling/policyName.ts`);
 * `--backfill` applies to a policy name without `+BACKFILL`; `--commit-head` commits the job ranked
 * first until it starts (RLScheduler) instead of re-ordering at every decision point (Slurm).
 *
 * GPU workloads (DESIGN §16, docs/gpus.md): a Gavel trace (`*.trace`), Philly jobs (`*.csv`, Pollux's
 * `philly.csv`; `--philly-cluster`, `--skip`, `--limit` take a sample) or a native workload of DL jobs
 * run under a round-based GPU policy (`--policy fifo|las|srtf|max_min_fairness_perf|...`,
 * src/scheduling/gpu/rounds.ts) with the DL throughput table (`--throughputs`, Gavel's by default) on
 * `data/platforms/gpu-3types.json` (4 servers of 4 GPUs of each of V100, P100, K80) unless `--platform`;
 * `--round S` sets the round length; the outputs add `gpu_jobs.csv`.
 *
 * With no arguments it runs the embedded default (`data/platforms/hetero-20.json` with
 * `data/workloads/mixed-300.json`). Without `--platform`, a trace runs on a homogeneous cluster of
 * its `MaxProcs` (see `resolvePlatform`). JSON inputs are validated whole before anything is
 * written; an SWF trace is streamed, and a bad line found on the way removes the partial outputs.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ClusterSimulator } from '../src/execution/simulator.js';
import { InputError } from '../src/core/errors.js';
import type { Summary } from '../src/metrics/summary.js';
import { loadPlatform } from '../src/platform/loader.js';
import type { Platform } from '../src/platform/platform.js';
import { runSimulation } from '../src/scheduling/run.js';
import { GPU_POLICIES } from '../src/scheduling/gpu/rounds.js';
import { runGpuSimulation } from '../src/scheduling/gpu/run.js';
import { PACKAGE_ROOT } from '../src/core/paths.js';
import { GAVEL_THROUGHPUTS, loadThroughputTable } from '../src/workload/dlThroughput.js';
import { loadGavelTrace } from '../src/workload/gavel.js';
import { loadPhillyJobs } from '../src/workload/philly.js';
import { BACKFILL_NAMES, DEFAULT_MAX_JOB_TEST } from '../src/scheduling/backfilling.js';
import { makeScheduler, parsePolicyName } from '../src/scheduling/policyName.js';
import { prepareIrmasimRun } from '../src/scheduling/irmasim/options.js';
import type { Job, Workload } from '../src/workload/job.js';
import { detectFileKind, SwfReader } from '../src/workload/index.js';
import { multifactorOptionsOf } from '../src/scheduling/engineConfig.js';
import { engineConfigArg, loadWorkloadFile, resolvePlatform } from './workloadInput.js';
import { DEFAULT_WORKLOAD, defineCommand, defineFlags, formatTable, int, num, oneOf, text, type Values } from './common.js';

/** The flags of `simulate`. */
export const flags = defineFlags({
  platform: { value: 'FILE', schema: text(), help: "native or IRMaSim platform (default: a trace's homogeneous machine, else data/platforms/hetero-20.json)" },
  'platform-name': { value: 'NAME', schema: text(), help: 'the platform to use in an IRMaSim file that defines several' },
  workload: { value: 'FILE', schema: text(), default: DEFAULT_WORKLOAD, help: 'native/IRMaSim JSON, Batsim JSON or SWF (detected)' },
  out: { value: 'DIR', schema: text(), help: 'write summary.json, jobs.csv (and timeline.csv with --timeline) there' },
  timeline: { help: 'also write timeline.csv (utilisation, queue length and power over time) to --out' },
  json: { help: 'print summary.json on stdout instead of the table' },
  policy: { value: 'JOB[:RESOURCE][+BACKFILL]', schema: text(), default: 'fcfs:first', help: 'scheduling policy (docs/scheduling.md)' },
  backfill: { schema: oneOf(BACKFILL_NAMES), default: 'none', help: 'backfilling for a --policy without +BACKFILL' },
  'commit-head': { help: 'the job ranked first is committed until it starts (RLScheduler) instead of re-ordering (Slurm)' },
  'node-fit': { schema: oneOf(['first_fit', 'best_fit']), default: 'first_fit', help: 'node choice of seq jobs' },
  'bf-max-job-test': { value: 'N', schema: int({ gte: 1 }), default: DEFAULT_MAX_JOB_TEST, help: 'jobs examined after the head per backfilling pass' },
  'memory-model': { schema: oneOf(['irmasim-v1', 'none']), help: "override the platform's memory-bandwidth model" },
  'comm-model': { schema: oneOf(['step', 'shared', 'flow']), help: "override the platform's communication model (flow: on the platform's network)" },
  'comm-penalty': { value: 'X', schema: num({ gt: 0, lte: 1 }), help: "override the platform's communication penalty" },
  'walltime-kill': { help: 'kill jobs still running at start + requested time' },
  engine: {
    value: 'FILE|JSON',
    schema: text(),
    help: 'the engine\'s dimensions by name: malleable progress, resize policy, multifactor priority (docs/model.md, "One engine")',
  },
  'no-memory-limit': { help: 'do not treat node memory as a placement constraint' },
  'cores-per-node': { value: 'N', schema: int({ gte: 1 }), default: 1, help: 'node size of the homogeneous machine built for a trace' },
  seed: { value: 'N', schema: int(), default: 0, help: 'seed of the random policies' },
  semantics: { schema: oneOf(['clustergym', 'irmasim']), default: 'clustergym', help: "the documented model or IRMaSim's simulator loop (docs/model.md)" },
  'idle-power': {
    schema: oneOf(['always', 'after-first-task']),
    default: 'always',
    help: "idle processors draw power from t = 0 or from their first task (IRMaSim's accounting)",
  },
  throughputs: {
    value: 'FILE',
    schema: text(true),
    default: GAVEL_THROUGHPUTS,
    help: "DL throughput table of a GPU run (Gavel's simulation_throughputs.json format)",
  },
  round: { value: 'S', schema: num({ gt: 0 }), default: 360, help: 'round length of a GPU run, s (Gavel: 360)' },
  'spread-rates': {
    schema: oneOf(['table', 'one-server']),
    default: 'table',
    help: "GPUs over several servers run at the table's spread rates, or at its one-server rates (Gavel's simulator)",
  },
  'philly-cluster': { value: 'ID', schema: text(true), help: 'Philly jobs: keep this virtual cluster only (e.g. 6214e9)' },
  skip: { value: 'N', schema: int({ gte: 0 }), default: 0, help: 'Philly jobs: skip the first N (in submission order)' },
  limit: { value: 'N', schema: int({ gte: 1 }), help: 'Philly jobs: keep at most N' },
  irmasim: {
    value: 'OPTIONS.json',
    schema: text(),
    help: 'run an IRMaSim options file as IRMaSim does; only --out, --idle-power, --timeline and --json go with it',
  },
});

type Flags = Values<typeof flags>;

/** Flags that `--irmasim` replaces with the options file's content. */
const NOT_WITH_IRMASIM: (keyof typeof flags.specs)[] = [
  'platform',
  'platform-name',
  'workload',
  'policy',
  'backfill',
  'commit-head',
  'node-fit',
  'bf-max-job-test',
  'cores-per-node',
  'seed',
  'semantics',
  'no-memory-limit',
  'walltime-kill',
  'memory-model',
  'comm-model',
  'comm-penalty',
  'throughputs',
  'round',
  'spread-rates',
  'philly-cluster',
  'skip',
  'limit',
];

/** The default platform of a GPU run. */
export const DEFAULT_GPU_PLATFORM = resolve(PACKAGE_ROOT, 'data/platforms/gpu-3types.json');

/** Whether a workload file is a GPU workload by its name: a Gavel trace (`.trace`) or Philly jobs (`.csv`). */
function gpuWorkloadKind(file: string): 'gavel' | 'philly' | null {
  if (/\.trace$/i.test(file)) return 'gavel';
  if (/\.csv$/i.test(file)) return 'philly';
  return null;
}

/** A GPU run (see the module comment). */
function simulateGpu(f: Flags, given: (flag: keyof typeof flags.specs) => boolean): number {
  const kind = gpuWorkloadKind(f.workload);
  checkPathKinds([
    { flag: '--workload', path: f.workload, kind: 'file' },
    { flag: '--platform', path: f.platform, kind: 'file' },
    { flag: '--throughputs', path: f.throughputs, kind: 'file' },
    { flag: '--out', path: f.out, kind: 'dir' },
  ]);
  if (kind !== 'philly') {
    const philly = (['philly-cluster', 'skip', 'limit'] as const).filter(given);
    if (philly.length > 0) throw new InputError(`${philly.map((k) => `--${k}`).join(', ')}: only for Philly jobs (a .csv workload)`);
  }
  const table = loadThroughputTable(f.throughputs);
  const platform = loadPlatform(f.platform ?? DEFAULT_GPU_PLATFORM, f['platform-name'] ? { platformName: f['platform-name'] } : {});
  if (platform.gpuCount === 0) throw new InputError(`--platform ${platform.name}: a GPU policy needs a platform with GPUs (docs/model.md, "GPUs")`);
  const workload =
    kind === 'gavel'
      ? loadGavelTrace(f.workload, { table })
      : kind === 'philly'
        ? loadPhillyJobs(f.workload, {
            table,
            seed: f.seed,
            skip: f.skip,
            ...(f['philly-cluster'] !== undefined ? { cluster: f['philly-cluster'] } : {}),
            ...(f.limit !== undefined ? { limit: f.limit } : {}),
          })
        : loadWorkloadFile(f.workload);
  if (workload.jobs.length === 0) throw new InputError(`--workload ${f.workload}: the workload holds no jobs; nothing to simulate`);
  const notDl = workload.jobs.find((j) => j.gpus?.dl === undefined);
  if (notDl !== undefined)
    throw new InputError(
      `${notDl.source}: job ${notDl.id} is not a deep-learning job (a gpus facet with job_type and steps): a GPU policy runs DL jobs`,
      f.workload,
    );
  checkWorkloadFits(platform, workload, f.workload, true);
  const t0 = performance.now();
  const run = withStagedOutputs(f.out, (outDir) =>
    runGpuSimulation(platform, workload.jobs, {
      policy: f.policy,
      table,
      round: f.round,
      seed: f.seed,
      spreadRates: f['spread-rates'] === 'table',
      outDir,
      workloadName: f.workload,
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  if (f.json) {
    process.stdout.write(`${JSON.stringify({ ...run.summary, ...run.gpu })}\n`);
    return 0;
  }
  console.log(
    `platform ${platform.name} (${platform.nodeCount} nodes, ${platform.gpuTypeSpecs.map((t) => `${t.count} ${t.name}`).join(', ')}), ` +
      `workload ${basename(f.workload)} (${workload.jobs.length} DL jobs${skippedText(workload.skipped)}), policy ${f.policy}, rounds of ${f.round} s`,
  );
  console.log(summaryTable(run.summary));
  const rows: [string, string | number][] = [
    ['mean JCT (h)', run.gpu.mean_jct / 3600],
    ['preemptions', run.gpu.preemptions],
    ...Object.entries(run.gpu.gpu_utilisation).map(([t, u]): [string, number] => [`${t} utilisation`, u]),
  ];
  console.log(formatTable(['GPU metric', 'value'], rows));
  console.log(`simulated in ${seconds.toFixed(3)} s${f.out ? `; outputs in ${f.out}/ (summary.json, jobs.csv, gpu_jobs.csv)` : ''}`);
  return 0;
}

/** Checks every job can fit the platform before anything runs or is written. */
export function checkWorkloadFits(platform: Platform, workload: Workload, file: string, enforceMemory: boolean): void {
  const probe = new ClusterSimulator(platform, [], { enforceMemory });
  for (const job of workload.jobs) {
    const reason = probe.unfitReason(job);
    if (reason !== null) throw new InputError(`${job.source}: job ${job.id} can never fit platform ${platform.name}: it ${reason}`, file);
  }
}

/** Summary lines as a two-column table. */
export function summaryTable(s: Summary): string {
  const rows: [string, number][] = [
    ['jobs finished', s.jobs_finished],
    ['jobs killed', s.jobs_killed],
    ['jobs rejected', s.jobs_rejected],
    ['makespan (s)', s.makespan],
    ['energy (J)', s.energy],
    ['EDP (J s)', s.edp],
    ['network volume (B)', s.network_volume],
    ['utilisation', s.utilisation],
    ['mean wait (s)', s.mean_wait],
    ['mean turnaround (s)', s.mean_turnaround],
    ['mean slowdown', s.mean_slowdown],
    ['mean bsld', s.mean_bsld],
    ['max bsld', s.max_bsld],
  ];
  return formatTable(['metric', 'value'], rows);
}

/** `; skipped: 173 runtime<=0` (empty when the reader skipped nothing). */
function skippedText(skipped: Record<string, number>): string {
  const parts = Object.entries(skipped).map(([why, n]) => `${n} ${why}`);
  return parts.length ? `; skipped: ${parts.join(', ')}` : '';
}

/**
 * Checks the kinds of the paths a run names, with the flag in the message: `--workload` must be a
 * file, `--out` a folder (or nothing yet; its parent then must be a folder).
 */
export function checkPathKinds(paths: { flag: string; path: string | undefined; kind: 'file' | 'dir' }[]): void {
  for (const { flag, path, kind } of paths) {
    if (path === undefined) continue;
    let st: ReturnType<typeof statSync> | undefined;
    try {
      st = statSync(path);
    } catch {
      if (kind === 'file') throw new InputError(`${flag} ${path}: no such file`);
      const parent = dirname(resolve(path));
      if (existsSync(parent) && !statSync(parent).isDirectory()) throw new InputError(`${flag} ${path}: ${parent} is a file, not a folder`);
      continue;
    }
    if (kind === 'file' && st.isDirectory()) throw new InputError(`${flag} ${path}: is a folder, expected a file`);
    if (kind === 'dir' && !st.isDirectory()) throw new InputError(`${flag} ${path}: is a file, expected a folder (where the outputs go)`);
  }
}

/**
 * Outputs of a run are written to a fresh temporary folder beside `--out` and moved into it only when
 * the run succeeds: a failed run leaves the previous outputs as they were.
 */
export function stageOutputs(out: string): { dir: string; commit: () => void; abort: () => void } {
  const target = resolve(out);
  mkdirSync(dirname(target), { recursive: true });
  const dir = mkdtempSync(join(dirname(target), `.${basename(target)}.tmp-`));
  return {
    dir,
    commit: () => {
      mkdirSync(target, { recursive: true });
      for (const f of readdirSync(dir)) renameSync(join(dir, f), join(target, f));
      rmSync(dir, { recursive: true, force: true });
    },
    abort: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Runs `run` with the staged folder of `out` (undefined without `--out`; `stageOutputs`): its outputs
 * reach `out` when it returns, and nothing does when it throws.
 */
function withStagedOutputs<T>(out: string | undefined, run: (dir: string | undefined) => T): T {
  const stage = out !== undefined ? stageOutputs(out) : undefined;
  let value: T;
  try {
    value = run(stage?.dir);
  } catch (e) {
    stage?.abort();
    throw e;
  }
  stage?.commit();
  return value;
}

/** Removes what a failed run wrote to `dir` (the directory too when the run created it). */
function removeOutputs(dir: string, created: boolean): void {
  if (created) rmSync(dir, { recursive: true, force: true });
  else for (const f of ['jobs.csv', 'timeline.csv', 'summary.json']) rmSync(join(dir, f), { force: true });
}

/** `--irmasim OPTIONS.json`: an IRMaSim options file, run with IRMaSim's semantics. */
function simulateIrmasim(f: Flags, file: string): number {
  const run = prepareIrmasimRun(file, f.out);
  for (const w of run.warnings) console.error(`clustergym simulate: warning: ${file}: ${w}`);
  const created = run.outputDir !== undefined && !existsSync(run.outputDir);
  if (run.outputDir) mkdirSync(run.outputDir, { recursive: true });
  const t0 = performance.now();
  let summary: Summary;
  try {
    summary = runSimulation(run.platform, run.jobs, run.manager.scheduler, {
      ...run.simulator,
      idlePower: f['idle-power'],
      outDir: run.outputDir,
      timeline: f.timeline,
    }).summary;
  } catch (e) {
    if (e instanceof InputError && run.outputDir) removeOutputs(run.outputDir, created);
    throw e;
  }
  const seconds = (performance.now() - t0) / 1000;
  if (f.json) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return 0;
  }
  const p = run.platform;
  const tr = run.trajectory;
  console.log(
    `IRMaSim options ${basename(file)}: platform ${p.name} (${p.nodeCount} nodes, ${p.coreCount} cores), workload ${basename(run.workloadFile)} ` +
      `(jobs ${tr.origin}..${tr.origin + tr.length - 1} of ${tr.total}), manager ${run.manager.scheduler.name}, seed ${run.seed}, idle power ${f['idle-power']}`,
  );
  console.log(summaryTable(summary));
  console.log(
    `simulated in ${seconds.toFixed(3)} s${run.outputDir ? `; outputs in ${run.outputDir}/ (summary.json, jobs.csv${f.timeline ? ', timeline.csv' : ''})` : ''}`,
  );
  return 0;
}

/** Runs the command; returns the process exit code. */
export function simulate(f: Flags, given: (flag: keyof typeof flags.specs) => boolean): number {
  if (f.irmasim !== undefined) {
    const clash = NOT_WITH_IRMASIM.filter(given);
    if (clash.length > 0)
      throw new InputError(
        `--irmasim takes the platform, workload, seed and workload manager from the options file; drop ${clash.map((k) => `--${k}`).join(', ')}`,
      );
    return simulateIrmasim(f, f.irmasim);
  }
  if ((GPU_POLICIES as readonly string[]).includes(f.policy)) return simulateGpu(f, given);
  if (gpuWorkloadKind(f.workload) !== null)
    throw new InputError(`--workload ${basename(f.workload)} holds DL jobs: give a GPU policy, --policy ${GPU_POLICIES.join('|')} (docs/gpus.md)`);
  const gpuOnly = (['throughputs', 'round', 'spread-rates', 'philly-cluster', 'skip', 'limit'] as const).filter(given);
  if (gpuOnly.length > 0) throw new InputError(`${gpuOnly.map((k) => `--${k}`).join(', ')}: only with a GPU policy (--policy ${GPU_POLICIES.join('|')})`);
  checkPathKinds([
    { flag: '--workload', path: f.workload, kind: 'file' },
    { flag: '--platform', path: f.platform, kind: 'file' },
    { flag: '--out', path: f.out, kind: 'dir' },
  ]);
  const policy = parsePolicyName(f.policy, f.backfill, '--policy');
  const models = {
    ...(f['memory-model'] ? { memory: f['memory-model'] } : {}),
    ...(f['comm-model'] ? { comm: f['comm-model'] } : {}),
    ...(f['comm-penalty'] !== undefined ? { comm_penalty: f['comm-penalty'] } : {}),
  };
  const enforceMemory = !f['no-memory-limit'];
  const choice = { platform: f.platform, platformName: f['platform-name'], coresPerNode: f['cores-per-node'], models };
  // A trace is streamed (never held in memory); the engine checks each job as it arrives. Other
  // workloads are loaded and checked whole before anything runs.
  let jobs: Iterable<Job>;
  let jobCount: () => number;
  let skipped: () => Record<string, number>;
  let platform: Platform;
  if (detectFileKind(f.workload) === 'swf') {
    const reader = new SwfReader(f.workload);
    const size = reader.header.maxProcs ?? reader.header.maxNodes;
    if (size === undefined && !f.platform)
      console.error(
        `clustergym simulate: warning: ${f.workload} has no MaxProcs (or MaxNodes) header: running on the embedded default platform; give --platform FILE for the trace's machine`,
      );
    platform = resolvePlatform(choice, size);
    jobs = reader;
    jobCount = () => reader.produced;
    skipped = () => reader.skipped;
  } else {
    const workload = loadWorkloadFile(f.workload);
    if (workload.jobs.length === 0) throw new InputError(`--workload ${f.workload}: the workload holds no jobs; nothing to simulate`);
    platform = resolvePlatform(choice, workload.maxProcs);
    checkWorkloadFits(platform, workload, f.workload, enforceMemory);
    jobs = workload.jobs;
    jobCount = () => workload.jobs.length;
    skipped = () => workload.skipped;
  }
  const engine = engineConfigArg(f.engine);
  const scheduler = makeScheduler(policy, {
    seed: f.seed,
    fit: f['node-fit'],
    commitHead: f['commit-head'],
    maxJobTest: f['bf-max-job-test'],
    multifactor: multifactorOptionsOf(engine),
  });
  const resizes = { expand: 0, shrink: 0 };
  const countResizes = { onResize: (_s: unknown, _rj: unknown, from: number, to: number) => void (to > from ? resizes.expand++ : resizes.shrink++) };
  const t0 = performance.now();
  // bad input found while streaming (an SWF line, a job that can never fit): the previous outputs stay
  const summary: Summary = withStagedOutputs(f.out, (outDir) => {
    const s = runSimulation(platform, jobs, scheduler, {
      outDir,
      timeline: f.timeline,
      walltimeKill: f['walltime-kill'],
      enforceMemory,
      workloadName: f.workload,
      semantics: f.semantics,
      idlePower: f['idle-power'],
      engine,
      listeners: engine.malleable === 'steps' ? [countResizes] : [],
    }).summary;
    if (jobCount() === 0) throw new InputError(`--workload ${f.workload}: the workload holds no jobs; nothing to simulate`);
    return s;
  });
  const seconds = (performance.now() - t0) / 1000;
  if (f.json) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return 0;
  }
  const m = platform.models;
  console.log(
    `platform ${platform.name} (${platform.nodeCount} nodes, ${platform.coreCount} cores; memory ${m.memory}, comm ${m.comm}), ` +
      `workload ${basename(f.workload)} (${jobCount()} jobs${skippedText(skipped())}), policy ${scheduler.name}`,
  );
  console.log(summaryTable(summary));
  if (engine.malleable === 'steps')
    console.log(
      `malleable jobs resized ${resizes.expand + resizes.shrink} times (${resizes.expand} expansions, ${resizes.shrink} shrinks; resize policy ${engine.resize})`,
    );
  console.log(`simulated in ${seconds.toFixed(3)} s${f.out ? `; outputs in ${f.out}/ (summary.json, jobs.csv${f.timeline ? ', timeline.csv' : ''})` : ''}`);
  return 0;
}

/** `clustergym simulate`. */
export const command = defineCommand(flags, simulate);
