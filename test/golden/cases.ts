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
import { schedulerByName } from '../../src/scheduling/multiResource.js';
import { dmrPreset, type MRunResult, simulate } from '../../src/malleable/preset.js';
import { dmrPolicy, neverPolicy } from '../../src/malleable/policy.js';
import { paperWorkload } from '../../src/malleable/workload.js';
import { loadPlatform } from '../../src/platform/loader.js';
import type { Platform } from '../../src/platform/platform.js';
import type { Job } from '../../src/workload/job.js';
import { defaultPlatformFor } from '../../src/platform/homogeneous.js';
import type { JobRecord } from '../../src/execution/simulator.js';
import { makeScheduler } from '../../src/scheduling/policyName.js';
import { runSimulation } from '../../src/scheduling/run.js';
import { SlurmEngine, type SlurmConfig, type SlurmJobInput } from '../../src/slurm/engine.js';
import { STATE_NAMES } from '../../src/slurm/jobs.js';
import { SlurmPlatform } from '../../src/slurm/platform.js';
import { parseSlurmConf } from '../../src/slurm/slurmConf.js';
import { raijinWorkload } from '../../src/slurm/workload.js';
import { TimeSharingSimulator } from '../../src/timesharing/simulator.js';
import { timeSharingConfig } from '../../src/timesharing/config.js';
import { derive } from '../../src/core/rng.js';
import { loadWorkload } from '../../src/workload/index.js';
import { generateLublin } from '../../src/workload/lublin.js';
import { trajectory } from '../../src/workload/trajectory.js';
import { join } from 'node:path';

/** A golden case: its name (the file `schedules/NAME.csv`) and the CSV it produces. */
export interface GoldenCase {
  name: string;
  engine: 'main' | 'slurm' | 'timesharing' | 'one engine';
  /** The golden file (default `name`): a preset of the one engine is checked against its old engine's schedule. */
  file?: string;
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

function slurmRows(engine: SlurmEngine, run: () => void): string {
  const rows: string[] = [];
  engine.onFinish((J, s) => {
    const periods = J.periods(s)
      .map(([a, b]) => `${n(a)}-${n(b)}`)
      .join(' ');
    rows.push(
      [n(J.id[s]!), n(J.submit[s]!), n(J.start[s]!), n(J.end[s]!), STATE_NAMES[J.state[s]!], J.group[s], J.requeues[s], J.backfilled[s], periods].join(','),
    );
  });
  run();
  rows.sort((a, b) => Number(a.split(',')[0]) - Number(b.split(',')[0]));
  const st = engine.stats;
  return `id,submit,start,end,state,group,requeues,backfilled,suspensions\n${rows.join('\n')}\n# stats ${JSON.stringify(st)}\n`;
}

function slurmRaijinCase(name: string, config: Partial<SlurmConfig>): GoldenCase {
  return {
    name,
    engine: 'slurm',
    run() {
      const platform = new SlurmPlatform({ groups: [{ name: 'r', count: 64, cores: 16 }], partitions: [{ name: 'normal', groups: ['r'], max_time: 172800 }] });
      const e = new SlurmEngine(platform, { users: 20, ...config });
      return slurmRows(e, () => {
        e.stream(raijinWorkload({ jobs: 3000, seed: 3, users: 20, totalCores: 1024, maxRestCores: 512, suspendFraction: 0.05 }));
        e.run();
      });
    },
  };
}

/** Two partitions over shared groups with tiers and a preempt mode: preemption, requeue, suspension. */
function slurmPreemptCase(name: string, mode: 'suspend' | 'requeue' | 'cancel'): GoldenCase {
  return {
    name,
    engine: 'slurm',
    run() {
      const platform = new SlurmPlatform({
        groups: [
          { name: 'a', count: 8, cores: 8 },
          { name: 'b', count: 4, cores: 16 },
        ],
        partitions: [
          { name: 'low', groups: ['a', 'b'], priority_tier: 1, preempt_mode: mode },
          { name: 'high', groups: ['a'], priority_tier: 2, priority_job_factor: 4 },
        ],
      });
      const e = new SlurmEngine(platform, { users: 6 });
      const rng = derive(11, 'golden/slurm-preempt');
      const jobs: SlurmJobInput[] = [];
      let t = 0;
      for (let i = 0; i < 600; i++) {
        t += rng.exponential(1 / 40);
        const run = Math.floor(rng.uniform(30, 3000));
        const job: SlurmJobInput = {
          id: i,
          submit: Math.floor(t),
          cores: 1 + Math.floor(rng.uniform(0, 40)),
          timeLimit: Math.floor(run * rng.uniform(1, 2.5)) + 60,
          runTime: run,
          user: Math.floor(rng.uniform(0, 6)),
          partition: rng.next() < 0.3 ? 1 : 0,
        };
        if (rng.next() < 0.05) {
          job.opAfter = Math.floor(run / 3);
          job.opFor = 200;
        }
        jobs.push(job);
      }
      return slurmRows(e, () => {
        e.stream(jobs);
        e.run();
      });
    },
  };
}

const CONF_WHOLE = `SchedulerType=sched/backfill
SelectType=select/linear
SchedulerParameters=bf_interval=5,bf_resolution=5
PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightJobSize=500
PriorityWeightFairshare=2000
NodeName=n[1-12] CPUs=8 RealMemory=8000
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE
`;
const CONF_TASKS = `SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerParameters=bf_interval=30
NodeName=n[1-8] CPUs=4 RealMemory=8000
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE
`;

/** A slurm.conf-configured engine (Slurm 22.05's measured behaviour on) on generated sleep jobs. */
function slurmConfCase(name: string, text: string, unitsMax: number): GoldenCase {
  return {
    name,
    engine: 'slurm',
    run() {
      const conf = parseSlurmConf(text, `${name}.conf`);
      const platform = new SlurmPlatform(conf.platform, conf.file);
      const e = new SlurmEngine(platform, { ...conf.config, users: 3 });
      const rng = derive(5, `golden/${name}`);
      const jobs: SlurmJobInput[] = [];
      let t = 0;
      for (let i = 0; i < 120; i++) {
        t += rng.exponential(1 / 6);
        const run = Math.floor(rng.uniform(5, 120));
        jobs.push({
          id: i,
          submit: Math.round(t * 10) / 10,
          cores: 1 + Math.floor(rng.uniform(0, unitsMax)),
          timeLimit: 60 * (1 + Math.floor(run / 60) + Math.floor(rng.uniform(0, 3))),
          runTime: run + 0.3,
          user: Math.floor(rng.uniform(0, 3)),
        });
      }
      return slurmRows(e, () => {
        e.stream(jobs);
        e.run();
      });
    },
  };
}

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
  slurmRaijinCase('slurm-raijin-3000', {}),
  slurmRaijinCase('slurm-raijin-3000-nobackfill-fifo', { backfill: false, priority: { weightFairshare: 0, weightJobSize: 0 } as SlurmConfig['priority'] }),
  slurmPreemptCase('slurm-preempt-suspend', 'suspend'),
  slurmPreemptCase('slurm-preempt-requeue', 'requeue'),
  slurmPreemptCase('slurm-preempt-cancel', 'cancel'),
  slurmConfCase('slurm-conf-whole-nodes', CONF_WHOLE, 4),
  slurmConfCase('slurm-conf-tasks', CONF_TASKS, 12),
  fairPresetCase('one-engine-fair-drf', 'fair-drf', 'drf', 0),
  fairPresetCase('one-engine-fair-tetris-05', 'fair-tetris-05', 'tetris', 0.5),
  fairPresetCase('one-engine-fair-first-fit', 'fair-first-fit', 'first-fit', 0),
  fairPresetCase('one-engine-fair-best-fit', 'fair-best-fit', 'best-fit', 0),
  timesharingCase('timesharing-rr', 'rr'),
  timesharingCase('timesharing-csc', 'csc'),
  timesharingCase('timesharing-dyn', 'dyn'),
];
