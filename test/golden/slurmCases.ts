/**
 * The Slurm golden cases (`cases.ts`): each case's inputs (a platform, a Slurm configuration, a generated
 * workload) run on the Slurm engine, which wrote the files, and on the one engine through the Slurm preset
 * (`src/slurm/preset.ts`), which must give the same file: every job's submission, start, end, state, node
 * group, requeues, whether its last start was a backfill start and its suspensions, and the run's counts
 * to the last bit, but two counts of the Slurm engine's own:
 * - `events`, its event loop's (the one engine has another);
 * - `backfillPasses`: its backfill timer also runs passes over an empty queue, which the preset's does not
 *   schedule and which start nothing (73 on `slurm-raijin-3000`, 3-5 on the preemption cases and
 *   `slurm-conf-whole-nodes`, none on the others). A script run when these cases were added (not a test)
 *   found every pass that saw a job waiting at the same instant on both engines; the passes that start jobs
 *   are compared here, job by job (`backfilled`).
 */
import { derive } from '../../src/core/rng.js';
import { JobPhase } from '../../src/core/engine.js';
import type { JobRecord, RunningJob } from '../../src/execution/simulator.js';
import { DEFAULT_SLURM } from '../../src/slurm/config.js';
import { SlurmEngine, type SlurmConfig, type SlurmJobInput } from '../../src/slurm/engine.js';
import { STATE_NAMES } from '../../src/slurm/jobs.js';
import { SlurmPlatform, type SlurmPlatformSpec } from '../../src/slurm/platform.js';
import { presetEndPhase, runSlurmPreset } from '../../src/slurm/preset.js';
import { parseSlurmConf } from '../../src/slurm/slurmConf.js';
import { raijinWorkload } from '../../src/slurm/workload.js';
import type { GoldenCase } from './cases.js';

const n = (x: number): string => (Object.is(x, -0) ? '0' : String(x));

/** What a Slurm golden case runs: the same on both engines. */
export interface SlurmGoldenInput {
  platform: SlurmPlatformSpec;
  config: Partial<SlurmConfig>;
  jobs(): Iterable<SlurmJobInput>;
}

const HEADER = 'id,submit,start,end,state,group,requeues,backfilled,suspensions';

/** The rows sorted by job id, the header first and the counts last. */
function file(rows: string[], stats: object): string {
  rows.sort((a, b) => Number(a.split(',')[0]) - Number(b.split(',')[0]));
  return `${HEADER}\n${rows.join('\n')}\n# stats ${JSON.stringify(stats)}\n`;
}

const periodsOf = (flat: readonly number[]): string => {
  const out: string[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push(`${n(flat[i]!)}-${n(flat[i + 1]!)}`);
  return out.join(' ');
};

/** The case on the Slurm engine (it wrote the file). */
function slurmEngineCase(name: string, input: SlurmGoldenInput): GoldenCase {
  return {
    name,
    engine: 'slurm',
    run() {
      const e = new SlurmEngine(new SlurmPlatform(input.platform), input.config);
      const rows: string[] = [];
      e.onFinish((J, s) => {
        rows.push(
          [
            n(J.id[s]!),
            n(J.submit[s]!),
            n(J.start[s]!),
            n(J.end[s]!),
            STATE_NAMES[J.state[s]!],
            J.group[s],
            J.requeues[s],
            J.backfilled[s],
            periodsOf(J.periods(s).flat()),
          ].join(','),
        );
      });
      e.stream(input.jobs());
      e.run();
      return file(rows, e.stats);
    },
  };
}

/**
 * The case on the one engine through the Slurm preset, against the Slurm engine's file. A killed job was
 * cancelled when the preset killed it (a preemption), else it timed out (`presetEndPhase`).
 */
function slurmPresetCase(name: string, input: SlurmGoldenInput): GoldenCase {
  return {
    name: `one-engine-${name}`,
    file: name,
    engine: 'one engine',
    expected: (text) => text.replace(/,"events":\d+,"backfillPasses":\d+/, ''),
    run() {
      const spec = new SlurmPlatform(input.platform);
      const requeues = new Map<string, number>();
      const byBackfill = new Set<string>();
      const rows: string[] = [];
      const stats = { submitted: 0, started: 0, backfilled: 0, preempted: 0, suspensions: 0, requeued: 0, cancelled: 0, timeouts: 0, refused: 0 };
      const groupOf = (rj: RunningJob, counted: boolean, nodeGroup: ArrayLike<number>): number => (counted ? rj.nodes[0]! : nodeGroup[rj.nodes[0]!]!);
      const end = (r: JobRecord, group: number, state: string) => {
        const id = r.job.id;
        const periods = r.suspensions ?? [];
        rows.push([id, n(r.submit), n(r.start), n(r.finish), state, group, requeues.get(id) ?? 0, byBackfill.has(id) ? 1 : 0, periodsOf(periods)].join(','));
      };
      runSlurmPreset(
        spec.spec,
        input.jobs(),
        input.config,
        [
          {
            onSubmit: () => void stats.submitted++,
            // (the flag is the last start's: a start by the main pass clears an earlier backfill start's, and
            // the preset's report of a backfill start comes after this listener)
            onStart: (_s, rj) => {
              stats.started++;
              byBackfill.delete(rj.job.id);
            },
            onSuspend: (_s, _rj, phase) => {
              stats.suspensions++;
              if (phase === JobPhase.Preempted) stats.preempted++;
            },
            onRequeue: (_s, rj) => {
              stats.preempted++;
              stats.requeued++;
              requeues.set(rj.job.id, (requeues.get(rj.job.id) ?? 0) + 1);
            },
            // a job refused at its submission: the Slurm engine counts it submitted and refused, its row without a run
            onReject: (_s, r) => {
              stats.submitted++;
              stats.refused++;
              rows.push([r.job.id, n(r.submit), 'NaN', 'NaN', 'refused', -1, 0, 0, ''].join(','));
            },
            onEnd: (s, r, rj) => {
              const phase = presetEndPhase(r);
              if (phase === JobPhase.TimedOut) stats.timeouts++;
              else if (phase === JobPhase.Cancelled) {
                stats.preempted++;
                stats.cancelled++;
              }
              end(r, groupOf(rj!, s.counted !== null, s.platform.nodeGroup), STATE_NAMES[phase]!);
            },
          },
        ],
        undefined,
        (job) => {
          stats.backfilled++;
          byBackfill.add(job.id);
        },
      );
      return file(rows, stats);
    },
  };
}

/** Raijin-like jobs of 20 users on 64 nodes of 16 cores (one group, one partition), 5 % operator suspensions. */
function raijin(config: Partial<SlurmConfig>): SlurmGoldenInput {
  return {
    platform: { groups: [{ name: 'r', count: 64, cores: 16 }], partitions: [{ name: 'normal', groups: ['r'], max_time: 172800 }] },
    config: { users: 20, ...config },
    jobs: () => raijinWorkload({ jobs: 3000, seed: 3, users: 20, totalCores: 1024, maxRestCores: 512, suspendFraction: 0.05 }),
  };
}

/** Two partitions over shared groups with tiers and a preempt mode: preemption, requeue, suspension. */
function preempting(mode: 'suspend' | 'requeue' | 'cancel'): SlurmGoldenInput {
  return {
    platform: {
      groups: [
        { name: 'a', count: 8, cores: 8 },
        { name: 'b', count: 4, cores: 16 },
      ],
      partitions: [
        { name: 'low', groups: ['a', 'b'], priority_tier: 1, preempt_mode: mode },
        { name: 'high', groups: ['a'], priority_tier: 2, priority_job_factor: 4 },
      ],
    },
    config: { users: 6 },
    jobs() {
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
      return jobs;
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

/** A slurm.conf (Slurm 22.05's measured behaviour on) with generated sleep jobs of 3 users. */
function configured(name: string, text: string, unitsMax: number): SlurmGoldenInput {
  const conf = parseSlurmConf(text, `${name}.conf`);
  return {
    platform: conf.platform,
    config: { ...conf.config, users: 3 },
    jobs() {
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
      return jobs;
    },
  };
}

/**
 * Whole-node allocation on nodes with memory and GPUs (the select plugin, Slurm 22.05's will-run backfill, the
 * background thread): `--mem`, `--mem-per-cpu`, `--exclusive`, `-N`, a GPU of any type, nodes left COMPLETING
 * (some released by an epilog message), operator suspensions, submissions off the whole second, 4 users.
 */
function nodesMemoryGpus(): SlurmGoldenInput {
  return {
    platform: {
      groups: [
        { name: 'v', count: 3, cores: 4, memory_mb: 8000, gpus: { count: 2, type: 'v100' } },
        { name: 'c', count: 4, cores: 8, memory_mb: 16000 },
        { name: 'a', count: 2, cores: 8, memory_mb: 32000, gpus: { count: 4, type: 'a100' } },
      ],
      partitions: [
        { name: 'gpu', groups: ['v', 'a'] },
        { name: 'cpu', groups: ['c', 'a'], max_time: 7200 },
      ],
    },
    config: {
      users: 4,
      nodeSelect: true,
      bfWillRun: true,
      bfInterval: 5,
      bfResolution: 1,
      schedOnSubmit: false,
      batchSchedDelay: 2,
      schedInterval: 60,
      priority: { ...DEFAULT_SLURM.priority, jobSize: 'slurm22' },
    },
    jobs() {
      const rng = derive(17, 'golden/slurm-nodes-memory-gpus');
      const jobs: SlurmJobInput[] = [];
      let t = 0;
      for (let i = 0; i < 250; i++) {
        t += rng.exponential(1 / 25);
        const run = Math.floor(rng.uniform(10, 900));
        const gpu = rng.next() < 0.35;
        const job: SlurmJobInput = {
          id: i,
          submit: Math.round(t * 10) / 10,
          cores: 1 + Math.floor(rng.uniform(0, gpu ? 4 : 12)),
          timeLimit: Math.floor(run * rng.uniform(0.8, 2)) + 30,
          runTime: run + 0.25,
          user: Math.floor(rng.uniform(0, 4)),
          partition: gpu ? 0 : 1,
        };
        if (gpu) job.gpus = 1;
        const u = rng.next();
        if (u < 0.25) job.shape = { memPerNode: 500 * (1 + Math.floor(rng.uniform(0, 12))) };
        else if (u < 0.45) job.shape = { memPerCpu: 250 * (1 + Math.floor(rng.uniform(0, 8))) };
        else if (u < 0.55 && !gpu) job.shape = { whole: true, minNodes: 1, maxNodes: 2 };
        else if (u < 0.7 && !gpu) job.shape = { minNodes: 2 };
        const c = rng.next();
        if (c < 0.3) job.completing = [1, 2, 5, 12][Math.floor(rng.uniform(0, 4))]! + (c < 0.1 ? 0.5 : 0);
        if (c < 0.15) job.epilogPass = true;
        if (rng.next() < 0.05) {
          job.opAfter = Math.floor(run / 2);
          job.opFor = 120;
        }
        jobs.push(job);
      }
      return jobs;
    },
  };
}

/**
 * The counted model under everything at once: three groups, partitions of two tiers (one requeues, one suspends),
 * multifactor with QOS and Slurm 22.05's job size factor on a phase of its own, sched_interval,
 * sched_min_interval, a scheduling delay, backfill on its grid with Slurm's rounding and idle units held, time
 * limits that kill, operator suspensions, drawn epilog passes, 5 users.
 */
function everything(): SlurmGoldenInput {
  return {
    platform: {
      groups: [
        { name: 'g0', count: 4, cores: 8 },
        { name: 'g1', count: 2, cores: 16 },
        { name: 'g2', count: 6, cores: 4 },
      ],
      partitions: [
        { name: 'low', groups: ['g0', 'g1'], priority_tier: 1, preempt_mode: 'requeue' },
        { name: 'scav', groups: ['g2'], priority_tier: 1, preempt_mode: 'suspend', max_time: 3000 },
        { name: 'high', groups: ['g1', 'g2'], priority_tier: 2, priority_job_factor: 3 },
      ],
    },
    config: {
      users: 5,
      qosPriorities: [0, 400, 1200],
      schedInterval: 60,
      schedMinInterval: 2,
      schedDelay: 0.5,
      bfInterval: 30,
      bfGrid: true,
      bfSlurmRounding: true,
      bfReserveIdle: 'proportional',
      bfResolution: 60,
      bfMaxJobTest: 50,
      endSchedShare: 0.3,
      priority: { ...DEFAULT_SLURM.priority, jobSize: 'slurm22', calcPhase: 123 },
    },
    jobs() {
      const rng = derive(23, 'golden/slurm-everything');
      const jobs: SlurmJobInput[] = [];
      let t = 0;
      for (let i = 0; i < 300; i++) {
        t += Math.floor(rng.exponential(1 / 30));
        const run = 1 + Math.floor(rng.uniform(20, 2500));
        const partition = Math.floor(rng.uniform(0, 3));
        const job: SlurmJobInput = {
          id: i,
          submit: t,
          cores: 1 + Math.floor(rng.uniform(0, partition === 1 ? 4 : 16)),
          timeLimit: Math.floor(run * rng.uniform(0.7, 2)) + 1,
          runTime: run,
          user: Math.floor(rng.uniform(0, 5)),
          partition,
          qos: Math.floor(rng.uniform(0, 3)),
        };
        if (rng.next() < 0.1) {
          job.opAfter = Math.floor(rng.uniform(0, run));
          job.opFor = 1 + Math.floor(rng.uniform(0, 400));
        }
        jobs.push(job);
      }
      return jobs;
    },
  };
}

export const SLURM_GOLDEN_INPUTS: [string, SlurmGoldenInput][] = [
  ['slurm-raijin-3000', raijin({})],
  ['slurm-raijin-3000-nobackfill-fifo', raijin({ backfill: false, priority: { weightFairshare: 0, weightJobSize: 0 } as SlurmConfig['priority'] })],
  ['slurm-preempt-suspend', preempting('suspend')],
  ['slurm-preempt-requeue', preempting('requeue')],
  ['slurm-preempt-cancel', preempting('cancel')],
  ['slurm-conf-whole-nodes', configured('slurm-conf-whole-nodes', CONF_WHOLE, 4)],
  ['slurm-conf-tasks', configured('slurm-conf-tasks', CONF_TASKS, 12)],
  ['slurm-nodes-memory-gpus', nodesMemoryGpus()],
  ['slurm-everything', everything()],
];

/** The Slurm engine's cases (they wrote the files). */
export const SLURM_ENGINE_CASES: GoldenCase[] = SLURM_GOLDEN_INPUTS.map(([name, input]) => slurmEngineCase(name, input));

/** The same cases on the one engine through the Slurm preset, against the Slurm engine's files. */
export const SLURM_PRESET_CASES: GoldenCase[] = SLURM_GOLDEN_INPUTS.map(([name, input]) => slurmPresetCase(name, input));
