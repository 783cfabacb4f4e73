/**
 * Batsim's output files: `PREFIX_jobs.csv` (one line per job that completed or was rejected, Batsim's
 * columns in Batsim's order) and `PREFIX_schedule.csv` (one line of aggregates, columns in
 * lexicographic order as Batsim writes them). Numbers are written as C++'s `std::to_string` writes a
 * double (six decimals), so scripts written for Batsim's files (evalys) read them unchanged.
 */
import { writeFileSync } from 'node:fs';
import { csvQuoted } from '../../src/core/csv.js';

/** Columns of `_jobs.csv`, in Batsim's order. */
export const JOBS_COLUMNS = [
  'job_id',
  'workload_name',
  'profile',
  'submission_time',
  'requested_number_of_resources',
  'requested_time',
  'success',
  'final_state',
  'starting_time',
  'execution_time',
  'finish_time',
  'waiting_time',
  'turnaround_time',
  'stretch',
  'allocated_resources',
  'consumed_energy',
  'metadata',
] as const;

/** A job as `_jobs.csv` lists it. */
export interface BatsimJobRow {
  /** The job's name within its workload (without `workload!`). */
  name: string;
  workload: string;
  profile: string;
  submission: number;
  res: number;
  walltime: number;
  finalState: string;
  /** Start and finish (NaN for a rejected job). */
  start: number;
  finish: number;
  /** Allocated resources as an interval set (empty for a rejected job). */
  alloc: string;
  energy: number;
  metadata: string;
}

/** `std::to_string(double)`: fixed, six decimals. */
export function cNumber(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  return x.toFixed(6);
}

/** The `_jobs.csv` line of a job. */
export function jobsCsvLine(r: BatsimJobRow): string {
  const rejected = r.finalState === 'REJECTED';
  const run = r.finish - r.start;
  const cells = [
    r.name,
    r.workload,
    r.profile,
    cNumber(r.submission),
    String(r.res),
    cNumber(r.walltime),
    r.finalState === 'COMPLETED_SUCCESSFULLY' ? '1' : '0',
    r.finalState,
    rejected ? '' : cNumber(r.start),
    rejected ? '' : cNumber(run),
    rejected ? '' : cNumber(r.finish),
    rejected ? '' : cNumber(r.start - r.submission),
    rejected ? '' : cNumber(r.finish - r.submission),
    rejected ? '' : cNumber((r.finish - r.submission) / run),
    r.alloc,
    rejected ? '' : cNumber(r.energy),
    csvQuoted(r.metadata),
  ];
  return cells.join(',');
}

/** Aggregates of `_schedule.csv`, computed as Batsim's JobsTracer does. */
export interface ScheduleInputs {
  rows: readonly BatsimJobRow[];
  version: string;
  consumedJoules: number;
  machines: number;
  groupedSwitches: number;
  machineSwitches: number;
  schedulingTime: number;
  simulationTime: number;
  timeInStates: Record<string, number>;
}

/** The `_schedule.csv` columns and values (lexicographic order of the columns). */
export function scheduleCsv(s: ScheduleInputs): { header: string; values: string } {
  let finished = 0;
  let success = 0;
  let killed = 0;
  let rejected = 0;
  let sumWait = 0;
  let sumTurn = 0;
  let sumSlow = 0;
  let makespan = 0;
  let maxWait = 0;
  let maxTurn = 0;
  let maxSlow = 0;
  for (const r of s.rows) {
    if (r.finalState === 'REJECTED') {
      rejected++;
      continue;
    }
    finished++;
    if (r.finalState === 'COMPLETED_SUCCESSFULLY') success++;
    else killed++;
    const wait = r.start - r.submission;
    const turn = r.finish - r.submission;
    const slow = turn / (r.finish - r.start);
    sumWait += wait;
    sumTurn += turn;
    sumSlow += slow;
    makespan = Math.max(makespan, r.finish);
    maxWait = Math.max(maxWait, wait);
    maxTurn = Math.max(maxTurn, turn);
    maxSlow = Math.max(maxSlow, slow);
  }
  const n = s.rows.length;
  const map: Record<string, string> = {
    batsim_version: s.version,
    consumed_joules: cNumber(s.consumedJoules),
    makespan: cNumber(makespan),
    max_slowdown: cNumber(maxSlow),
    max_turnaround_time: cNumber(maxTurn),
    max_waiting_time: cNumber(maxWait),
    mean_slowdown: cNumber(sumSlow / n),
    mean_turnaround_time: cNumber(sumTurn / n),
    mean_waiting_time: cNumber(sumWait / n),
    nb_computing_machines: String(s.machines),
    nb_grouped_switches: String(s.groupedSwitches),
    nb_jobs: String(n),
    nb_jobs_finished: String(finished),
    nb_jobs_killed: String(killed),
    nb_jobs_rejected: String(rejected),
    nb_jobs_success: String(success),
    nb_machine_switches: String(s.machineSwitches),
    scheduling_time: cNumber(s.schedulingTime),
    simulation_time: cNumber(s.simulationTime),
    success_rate: cNumber(success / n),
  };
  for (const [state, t] of Object.entries(s.timeInStates)) map[`time_${state}`] = cNumber(t);
  map['time_unavailable'] = cNumber(0);
  const keys = Object.keys(map).sort();
  return { header: keys.join(','), values: keys.map((k) => map[k]).join(',') };
}

/** Writes `PREFIX_jobs.csv` and `PREFIX_schedule.csv`; returns their paths. */
export function writeBatsimOutputs(prefix: string, s: ScheduleInputs): string[] {
  const jobs = `${prefix}_jobs.csv`;
  const schedule = `${prefix}_schedule.csv`;
  writeFileSync(jobs, `${[JOBS_COLUMNS.join(','), ...s.rows.map(jobsCsvLine)].join('\n')}\n`);
  const sc = scheduleCsv(s);
  writeFileSync(schedule, `${sc.header}\n${sc.values}\n`);
  return [jobs, schedule];
}
