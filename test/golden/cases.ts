/**
 * Golden per-job schedules of every engine on fixed seeds (issue 42): the safety net of the one-model
 * refactor. Each case runs one engine on a generated workload and writes one CSV line per job (its
 * start, end, where or at what size it ran, its end state), numbers in JavaScript's shortest exact
 * form, so that a refactor that changes any time by one ulp shows. `golden.test.ts` compares each
 * case with its file in `schedules/`; `CLUSTERGYM_GOLDEN_WRITE=1 npx vitest run test/golden` writes
 * them (only when a change of schedule is intended, and said so in the commit).
 *
 * The cases use no file of ../shared: every workload is generated here or embedded in the repository.
 */
import { fairnessCluster, TABLE_5_1, table51Workload } from '../../src/fairness/experiment.js';
import { fairPreset, runFairPreset } from '../../src/fairness/preset.js';
import type { MRunResult } from '../../src/malleable/model.js';
import { dmrPreset, simulate } from '../../src/malleable/preset.js';
import { schedulerByName } from '../../src/scheduling/multiResource.js';
import { dmrPolicy, neverPolicy } from '../../src/malleable/policy.js';
import { paperWorkload } from '../../src/malleable/workload.js';
import { loadPlatform } from '../../src/platform/loader.js';
import type { Platform } from '../../src/platform/platform.js';
import type { Job } from '../../src/workload/job.js';
import { defaultPlatformFor } from '../../src/platform/homogeneous.js';
import type { JobRecord } from '../../src/execution/simulator.js';
import { makeScheduler } from '../../src/scheduling/policyName.js';
import { runSimulation } from '../../src/scheduling/run.js';
import { TimeSharingSimulator } from '../../src/timesharing/simulator.js';
import { timeSharingConfig } from '../../src/timesharing/config.js';
import { loadWorkload } from '../../src/workload/index.js';
import { generateLublin } from '../../src/workload/lublin.js';
import { trajectory } from '../../src/workload/trajectory.js';
import { join } from 'node:path';
import { SLURM_PRESET_CASES } from './slurmCases.js';

/** A golden case: its name (the file `schedules/NAME.csv`) and the CSV it produces. */
export interface GoldenCase {
  name: string;
  engine: 'main' | 'timesharing' | 'one engine';
  /** The golden file (default `name`): a preset of the one engine is checked against its old engine's schedule. */
  file?: string;
  /** What of the file the case gives (default: all of it): the file's text as the case must give it. */
  expected?: (file: string) => string;
  run(): string;
}

const ROOT = join(import.meta.dirname, '..', '..');
const n = (x: number): string => (Object.is(x, -0) ? '0' : String(x));

function mainRows(records: JobRecord[]): string {
  const rows = records
    .slice()
    .sort((a, b) => (a.job.id < b.job.id ? -1 : a.job.id > b.job.id ? 1 : 0))
    .map((r) => [r.job.id, n(r.submit), n(r.start), n(r.finish), r.state, Array.from(r.nodes).join(' ')].join(','));
  return `id,submit,start,finish,state,nodes\n${rows.join('\n')}\n`;
}

function mainCase(
  name: string,
  policy: string,
  opts: { workload: 'mixed' | 'lublin' | 'lublin-tasks'; semantics?: 'irmasim'; walltimeKill?: boolean; commitHead?: boolean },
): GoldenCase {
  return {
    name,
    engine: 'main',
    run() {
      const records: JobRecord[] = [];
      let platform: Platform;
      let jobs: Job[];
      if (opts.workload === 'mixed') {
        platform = loadPlatform(join(ROOT, 'data/platforms/hetero-20.json'));
        jobs = loadWorkload(join(ROOT, 'data/workloads/mixed-300.json')).jobs;
      } else {
        const w = generateLublin({ model: 'lublin', maxProcs: 128, jobs: 400, reqTimeFactor: { min: 1, max: 3 } }, 7);
        platform = defaultPlatformFor(128);
        jobs = trajectory(w, 0, 400).jobs;
      }
      const scheduler = makeScheduler(policy, { commitHead: opts.commitHead ?? false });
      const r = runSimulation(platform, jobs, scheduler, {
        semantics: opts.semantics,
        walltimeKill: opts.walltimeKill,
        listeners: [{ onEnd: (_s, rec) => void records.push(rec) }],
      });
      return `${mainRows(records)}# energy ${n(r.sim.energy)} makespan ${n(r.summary.makespan)}\n`;
    },
  };
}

/**
 * A malleable case: the paper's workload under `dmr` or `never` on the one engine's DMR preset (the
 * files were written by the retired malleable engine, src/malleable/engine.ts until issue 42, and the
 * preset gives them exactly). With queue points, a shrink to the smallest allowed size answers every
 * third offer and the rest are declined, decision by decision; without, the preset runs its policy
 * inside the run (`simulate`).
 */
function malleableCase(name: string, policy: 'dmr' | 'never', jobs: number, seed: number, queuePoints: boolean): GoldenCase {
  return {
    name,
    engine: 'one engine',
    run() {
      const w = paperWorkload({ jobs, seed });
      const pol = policy === 'dmr' ? dmrPolicy : neverPolicy;
      let r: MRunResult;
      if (!queuePoints) r = simulate(w, pol);
      else {
        const sim = dmrPreset(w, { queuePoints });
        let offers = 0;
        while (sim.next() !== null) {
          if (sim.atQueuePoint) {
            const ctx = sim.context();
            const smallest = ctx.spec.min;
            sim.decide(offers++ % 3 === 0 && smallest < ctx.size ? Math.max(smallest, ctx.size / ctx.spec.factor) : ctx.size);
          } else sim.decideWith(pol);
        }
        r = sim.result();
      }
      const rows = r.jobs.map((j) => [j.id, n(j.submit), n(j.start), n(j.finish), j.startSize, j.endSize, j.expands, j.shrinks, n(j.nodeSeconds)].join(','));
      const resizes = r.resizes.map((x) => `# resize ${n(x.time)} ${x.job} ${x.from}->${x.to}`);
      const tail = queuePoints ? ` allocation ${n(r.allocation)} queue_points ${r.queuePoints} requests ${r.shrinkRequests}` : '';
      return `${MALLEABLE_HEADER}\n${rows.join('\n')}\n${resizes.join('\n')}\n# makespan ${n(r.makespan)}${tail}\n`;
    },
  };
}

const MALLEABLE_HEADER = 'id,submit,start,finish,start_size,end_size,expands,shrinks,node_seconds';

/**
 * The fairness preset of the one engine (vector capacity, fixed durations, the multi-resource passes) on
 * the fairness golden files, which the retired fairness engine wrote (its own cases `fair-*` were removed
 * with it; the files stay, never rewritten: `file` is set).
 */
function fairPresetCase(name: string, file: string, scheduler: string, f: number): GoldenCase {
  return {
    name,
    file,
    engine: 'one engine',
    run() {
      const rows: string[] = [];
      const passes = fairPreset(fairnessCluster(2), table51Workload(4, 0.05), schedulerByName(scheduler, f), { users: TABLE_5_1.map((u) => u.user) });
      passes.sim.addListener({
        onEnd: (s, _rec, rj) => void rows.push([rj!.job.id, n(rj!.job.subtime), n(rj!.start), n(s.now), rj!.nodes[0], passes.userOf(rj!)].join(',')),
      });
      const stats = runFairPreset(passes);
      rows.sort((a, b) => Number(a.split(',')[0]) - Number(b.split(',')[0]));
      return `id,submit,start,end,host,user\n${rows.join('\n')}\n# stats ${JSON.stringify(stats)}\n`;
    },
  };
}

function timesharingCase(name: string, policy: 'rr' | 'csc' | 'dyn'): GoldenCase {
  return {
    name,
    engine: 'timesharing',
    run() {
      const sim = new TimeSharingSimulator(timeSharingConfig({ n: 8, n_jobs: 300, policy, seed: 2, L: policy === 'csc' ? 0.5 : 1 } as never)).run();
      const rows = sim.records
        .slice()
        .sort((a, b) => a.id - b.id)
        .map((r) => [r.id, r.kind, r.size, n(r.tr), n(r.tc), n(r.trFast)].join(','));
      return `id,kind,size,tr,tc,tr_fast\n${rows.join('\n')}\n# events ${sim.events} now ${n(sim.now)}\n`;
    },
  };
}

/** Every golden case. */
export const GOLDEN_CASES: GoldenCase[] = [
  mainCase('main-mixed300-fcfs-easy', 'fcfs:first+easy', { workload: 'mixed' }),
  mainCase('main-mixed300-sjf-conservative', 'sjf:high_gflops+conservative', { workload: 'mixed' }),
  mainCase('main-mixed300-irmasim', 'fcfs:first', { workload: 'mixed', semantics: 'irmasim' }),
  mainCase('main-lublin-f1-easy-commit', 'f1+easy', { workload: 'lublin', commitHead: true, walltimeKill: true }),
  mainCase('main-lublin-wfp3-conservative', 'wfp3+conservative', { workload: 'lublin' }),
  malleableCase('malleable-dmr-60', 'dmr', 60, 1, false),
  malleableCase('malleable-rigid-60', 'never', 60, 1, false),
  malleableCase('malleable-queuepoints-60', 'dmr', 60, 2, true),
  ...SLURM_PRESET_CASES,
  fairPresetCase('one-engine-fair-drf', 'fair-drf', 'drf', 0),
  fairPresetCase('one-engine-fair-tetris-05', 'fair-tetris-05', 'tetris', 0.5),
  fairPresetCase('one-engine-fair-first-fit', 'fair-first-fit', 'first-fit', 0),
  fairPresetCase('one-engine-fair-best-fit', 'fair-best-fit', 'best-fit', 0),
  timesharingCase('timesharing-rr', 'rr'),
  timesharingCase('timesharing-csc', 'csc'),
  timesharingCase('timesharing-dyn', 'dyn'),
];
