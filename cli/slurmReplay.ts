/**
 * `clustergym slurm-replay WORKLOAD --slurm-conf FILE [--shrink F] [--live] [--runs N] [--json] [--out DIR]`:
 * a site's job records (SWF, `sacct --json`, `sacct -P`) replayed on the one engine running its Slurm preset
 * configured by a real slurm.conf (src/slurm/slurmConf.ts, src/slurm/trace.ts, src/slurm/preset.ts; a
 * configuration or job it does not model yet exits 2, naming it; `--engine one` is accepted, as before the
 * Slurm engine's retirement); with `--live`, also on the live Slurm of `SLURM_CONF` as seed 004's runworkload does
 * (src/slurm/live.ts), and the two compared job by job.
 *
 * The comparison and its verdict are `src/slurm/agreement.ts` (`compareWithLive`); exit code 0 either way
 * (it is a measurement), 2 on bad input.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../src/core/errors.js';
import { DEFAULT_SLURM } from '../src/slurm/config.js';
import { liveReplay, savedRun } from '../src/slurm/live.js';
import { readSlurmConf } from '../src/slurm/slurmConf.js';
import { type Agreement, compareWithLive, engineForRun } from '../src/slurm/agreement.js';
import { readTrace } from '../src/slurm/records.js';
import { type ScheduleComparison, type ScheduleSummary, type ScheduledJob, engineSchedule, replayJobs, summarise } from '../src/slurm/trace.js';
import { type CliCommandModule, REPLAY_ENGINE_FLAG, addFlags, defineFlags, formatTable, int, num, readFlags, text } from './common.js';

/** The flags of `slurm-replay`. */
export const flags = defineFlags({
  'slurm-conf': { value: 'FILE', schema: text(true), required: 'Required (the slurm.conf whose scheduler the engine plays)', help: 'the slurm.conf to read' },
  shrink: { value: 'F', schema: num({ gte: 1 }), default: 1, help: 'divide submission, run and requested times by F (runworkload)' },
  'sched-delay': {
    value: 'S',
    schema: num({ gte: 0 }),
    help: "a main-scheduler pass S s after each job end instead of Slurm's background thread (batch_sched_delay; 0.4 was the measured mean)",
  },
  'end-sched-share': {
    value: 'P',
    schema: num({ gte: 0, lte: 1 }),
    help: "the share of job ends whose main pass runs at once (Slurm's epilog-message path, a race; measured 0.139), drawn per job id",
  },
  'bg-tick-phase': {
    value: 'S',
    schema: num({ gte: 0, lt: 1 }),
    help: "the fraction of a second at which slurmctld's background thread ticks (default 0.5; in Slurm it drifts)",
  },
  'clock-phase': {
    value: 'S',
    schema: num({ gte: 0 }),
    default: 0,
    help: "the engine's time 0 S s past a multiple of bf_resolution on the wall clock (a live run's: its first submission's epoch mod 60)",
  },
  'ctld-start': {
    value: 'S',
    schema: num(),
    help: "when slurmctld started, s in the replay's time (negative: before it): multifactor priorities are recomputed every PriorityCalcPeriod from there (default: the first live run's, from slurmctld's log)",
  },
  live: { help: 'also replay on the live Slurm of SLURM_CONF and compare (sleep jobs, wall-clock submissions)' },
  'no-clock-align': {
    help: "with --live: submit the first job at once instead of at the next whole minute of the wall clock (a multiple of bf_resolution and 30 s, where the engine's time 0 is)",
  },
  runs: { value: 'N', schema: int({ gte: 1, lte: 10 }), default: 1, help: 'live runs (2: the live-vs-live spread too)' },
  'live-from': {
    value: 'DIR',
    schema: text(true),
    help: 'compare with the live runs an earlier --live --out DIR saved (live-1.json, live-2.json, ...) instead of running them',
  },
  engine: REPLAY_ENGINE_FLAG,
  json: { help: 'print the result as JSON on stdout instead of tables' },
  out: { value: 'DIR', schema: text(true), help: 'write engine.json, live-K.json, comparison.json and schedule CSVs there' },
});

/**
 * A schedule; a live run's also says where its time 0 fell on the wall clock (`clock_phase`, s; unknown for
 * runs saved before it was recorded) and when slurmctld started (`ctld_start`, s in the run's time).
 */
type Schedule = {
  jobs: ScheduledJob[];
  summary: ScheduleSummary;
  clock_phase?: number;
  ctld_start?: number;
  /** slurmctld's timer ticks (its log at debug2): the background thread's, the backfill passes. */
  bg_ticks?: number[];
  bf_ticks?: number[];
};

/** A live run as `--out` writes it (`live-K.json`). */
const SavedRunSchema = z.object({
  jobs: z.array(
    z.object({
      id: z.string(),
      submit: z.number(),
      start: z.number(),
      end: z.number(),
      nodes: z.number(),
      state: z.string(),
      backfilled: z.boolean().nullable(),
      nodelist: z.string().optional(),
      released: z.number().optional(),
      epilog: z.boolean().optional(),
    }),
  ),
  clock_phase: z.number().optional(),
  ctld_start: z.number().optional(),
  bg_ticks: z.array(z.number()).optional(),
  bf_ticks: z.array(z.number()).optional(),
});

/** The live runs saved in `dir` (`live-1.json`, `live-2.json`, ... while they exist), checked with zod. */
function readSavedRuns(dir: string): Omit<Schedule, 'summary'>[] {
  const runs: Omit<Schedule, 'summary'>[] = [];
  for (let k = 1; existsSync(join(dir, `live-${k}.json`)); k++) {
    const file = join(dir, `live-${k}.json`);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new InputError(`${file}: not JSON (${(e as Error).message})`);
    }
    const r = SavedRunSchema.safeParse(raw);
    if (!r.success) throw inputErrorFromIssues(file, r.error.issues);
    const { jobs, ...rest } = r.data;
    runs.push({ jobs, ...Object.fromEntries(Object.entries(rest).filter(([, x]) => x !== undefined)) });
  }
  if (runs.length === 0) throw new InputError(`--live-from ${dir}: no live-1.json there (write one with --live --out ${dir})`);
  return runs;
}

function csv(jobs: readonly ScheduledJob[]): string {
  const rows = jobs.map((j) => [j.id, j.submit, j.start, j.end, j.nodes, j.state, j.backfilled === null ? '' : j.backfilled ? 1 : 0].join(','));
  return `id,submit,start,end,nodes,state,backfilled\n${rows.join('\n')}\n`;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');

/** `clustergym slurm-replay`. */
export const command: CliCommandModule = {
  configure(cmd: Command, done) {
    cmd.argument('<workload>', 'job records: SWF, `sacct --json` or `sacct -P` output').usage('WORKLOAD --slurm-conf FILE [flags]');
    addFlags(cmd, flags);
    cmd.action(async (workload: string, _options: unknown, self: Command) => {
      const { values: v } = readFlags(self, flags);
      if (v.runs > 1 && !v.live) throw new InputError('--runs: needs --live (the runs are live runs)');
      if (v['no-clock-align'] && !v.live) throw new InputError('--no-clock-align: needs --live (it is about when the live run starts)');
      if (v.live && v['live-from'] !== undefined) throw new InputError('--live-from: replaces --live (give one of them)');
      const conf = readSlurmConf(v['slurm-conf']);
      if (v['sched-delay'] !== undefined) {
        conf.config.schedDelay = v['sched-delay'];
        conf.config.batchSchedDelay = 0;
      }
      if (v['end-sched-share'] !== undefined) conf.config.endSchedShare = v['end-sched-share'];
      if (v['bg-tick-phase'] !== undefined) conf.config.bgTickPhase = v['bg-tick-phase'];
      // one line; the full entries (with values and reasons) are in the JSON's `ignored`
      if (conf.ignored.length > 0)
        console.error(`slurm-replay: ignored (not modelled): ${conf.ignored.map((x) => x.replace(/=\S* \((line \d+).*\)$/, ' ($1)')).join(', ')}`);
      const trace = readTrace(workload);
      const jobs = replayJobs(trace, conf, v.shrink);
      const live: Schedule[] = [];
      const units = new Map(jobs.map((j) => [j.id, j.units]));
      const capacity = conf.platform.groups.reduce((a, g) => a + g.count * g.cores, 0);
      if (v['live-from'] !== undefined) {
        for (const [k, run] of readSavedRuns(v['live-from']).entries()) {
          const missing = jobs.find((j) => !run.jobs.some((x) => x.id === j.id));
          if (missing) throw new InputError(`${join(v['live-from'], `live-${k + 1}.json`)}: no job ${missing.id} of ${workload}: not a run of this workload`);
          live.push({ ...run, summary: summarise(run.jobs, capacity, (id) => units.get(id) ?? 0) });
        }
      }
      if (v.live) {
        const slurmConf = process.env.SLURM_CONF;
        if (!slurmConf) throw new InputError('--live: SLURM_CONF is not set (start a cluster: deploy/slurm/local-cluster.sh start DIR, then eval its output)');
        for (let r = 0; r < v.runs; r++) {
          console.error(
            `slurm-replay: live run ${r + 1}/${v.runs} on SLURM_CONF=${slurmConf} (${jobs.length} jobs, last submitted at ${f1(jobs[jobs.length - 1]!.submit)} s)`,
          );
          const res = conf.config.bfResolution ?? DEFAULT_SLURM.bfResolution;
          const sched = await liveReplay(jobs, {
            slurmConf,
            wholeNodes: conf.wholeNodes,
            partitions: conf.partitions.map((p) => p.name),
            log: (l) => console.error(`slurm-replay: ${l}`),
            // the will-run test's windows are multiples of 30 s, the backfill grid of bf_resolution
            alignTo: v['no-clock-align'] ? 0 : Number.isInteger(res) && res > 0 ? (res * 30) / gcd(res, 30) : 60,
          });
          live.push(
            savedRun(
              sched,
              summarise(sched.jobs, capacity, (id) => units.get(id) ?? 0),
            ),
          );
        }
      }
      // multifactor priorities are recomputed on slurmctld's decay ticks: from its start in the first live run
      const ctldStart = v['ctld-start'] ?? live[0]?.ctld_start;
      // the engine on each live run's own timers when its log showed them (slurmctld's threads drift with the
      // load), its jobs as that run submitted and ran them (engineForRun); the engine's schedule reported is the first run's (or the nominal timers' without live runs)
      const timed = live.length > 0 && live.every((l) => l.bg_ticks !== undefined || l.bf_ticks !== undefined);
      const engines = timed
        ? live.map((l) => engineForRun(jobs, conf, l, v['clock-phase'], v['ctld-start'] ?? l.ctld_start))
        : [engineSchedule(jobs, conf, undefined, v['clock-phase'], ctldStart)];
      const engine = engines[0]!;
      const result: Record<string, unknown> = {
        workload,
        format: trace.format,
        skipped: trace.skipped,
        slurm_conf: v['slurm-conf'],
        ignored: conf.ignored,
        shrink: v.shrink,
        engine: v.engine,
        clock_phase: v['clock-phase'],
        ...(ctldStart !== undefined ? { ctld_start: ctldStart } : {}),
        ...engine,
      };
      if (live.length > 0) {
        result.live = live;
        result.comparison = compareWithLive(timed ? engines : engine, live);
        if (timed) result.engine_runs = engines.map((e) => e.summary);
      }
      if (v.out !== undefined) {
        mkdirSync(v.out, { recursive: true });
        writeFileSync(join(v.out, 'engine.json'), `${JSON.stringify(engine, null, 1)}\n`);
        writeFileSync(join(v.out, 'engine.csv'), csv(engine.jobs));
        for (const [k, l] of live.entries()) {
          writeFileSync(join(v.out, `live-${k + 1}.json`), `${JSON.stringify(l, null, 1)}\n`);
          writeFileSync(join(v.out, `live-${k + 1}.csv`), csv(l.jobs));
        }
        if (result.comparison) writeFileSync(join(v.out, 'comparison.json'), `${JSON.stringify(result.comparison, null, 1)}\n`);
      }
      if (v.json) {
        process.stdout.write(`${JSON.stringify(result)}\n`);
        done(0);
        return;
      }
      const cols: [string, ScheduleSummary][] = [['engine', engine.summary], ...live.map((l, k): [string, ScheduleSummary] => [`slurm ${k + 1}`, l.summary])];
      const keys = Object.keys(engine.summary) as (keyof ScheduleSummary)[];
      console.log(
        formatTable(
          ['', ...cols.map(([n]) => n)],
          keys.map((k) => [k, ...cols.map(([, s]) => (Number.isInteger(s[k]) ? s[k] : Number(s[k].toFixed(4))))]),
        ),
      );
      const phases = live.map((l) => (l.clock_phase === undefined ? '?' : `${l.clock_phase.toFixed(2)} s`));
      if (live.length > 0) console.log(`\nclock phase (time 0 past a whole minute): engine ${v['clock-phase']} s, live runs ${phases.join(', ')}`);
      if (result.comparison) {
        const c = result.comparison as {
          engine_vs_live: ScheduleComparison[];
          live_vs_live: ScheduleComparison | null;
          agreement: Agreement;
        };
        const rows = [
          ...c.engine_vs_live.map((x, k) => [`engine vs slurm ${k + 1}`, x] as const),
          ...(c.live_vs_live ? [['slurm 1 vs slurm 2', c.live_vs_live] as const] : []),
        ];
        console.log(
          `\n${formatTable(
            ['start difference (s)', 'median', 'p90', 'max', 'KS(wait)', 'overtook in one only'],
            rows.map(([n, x]) => [n, f1(x.start_diff.median), f1(x.start_diff.p90), f1(x.start_diff.max), x.ks_wait.toFixed(3), x.backfill_differences.length]),
          )}`,
        );
        for (const [n, x] of rows) for (const d of x.backfill_differences) console.log(`  ${n}: job ${d.id}: ${d.reason}`);
        console.log(
          `\n${formatTable(
            ['agreement', 'engine', 'live mean', 'error', 'tolerance', ''],
            c.agreement.metrics.map((m) => [
              m.metric,
              f1(m.engine),
              f1(m.live_mean),
              `${(100 * m.relative_error).toFixed(1)} %`,
              f1(m.tolerance),
              m.holds ? 'holds' : 'FAILS',
            ]),
          )}`,
        );
        const s = c.agreement.start_diff;
        if (s)
          console.log(
            `start difference median: engine vs live ${f1(s.engine_vs_live_median)} s, bound 1.5 x live-live ${f1(s.live_vs_live_median)} + 1 = ${f1(s.bound)} s: ${s.holds ? 'holds' : 'FAILS'}`,
          );
      }
      done(0);
    });
  },
};
