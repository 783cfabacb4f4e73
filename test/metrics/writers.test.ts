/**
 * The output files of a run (DESIGN §2.5), by hand: jobs.csv (header, quoting, rejected rows),
 * timeline.csv (one row per interval of constant state) and summary.json.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/execution/simulator.js';
import type { Summary } from '../../src/metrics/summary.js';
import {
  JOBS_CSV_HEADER,
  JobsCsvWriter,
  jobsCsvRow,
  LineWriter,
  TIMELINE_CSV_HEADER,
  type TimelineRow,
  timelineCsvRow,
  writeSummary,
} from '../../src/metrics/writers.js';
import { runSimulation } from '../../src/scheduling/run.js';
import { ListScheduler } from '../../src/scheduling/scheduler.js';
import { makeJob } from '../../src/workload/job.js';
import { opsJob, tfg2x2x4 } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'cg-writers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ran: JobRecord = {
  job: makeJob({ id: 'a,"b"', subtime: 0, ntasks: 2, runtime: 2, reqTime: 10, type: 'seq', nodes: 1 }),
  submit: 0,
  start: 1,
  finish: 3,
  state: 'finished',
  cores: Int32Array.from([4, 5]),
  nodes: Int32Array.from([0]),
  releases: Float64Array.from([3, 3]),
  commTime: 0.5,
};
const rejected: JobRecord = {
  job: makeJob({ id: 'r', subtime: 5, ntasks: 64, runtime: 1, reqTime: 10, type: 'mpi', nodes: 0 }),
  submit: 5,
  start: 0,
  finish: 0,
  state: 'rejected',
  cores: new Int32Array(0),
  nodes: new Int32Array(0),
  releases: new Float64Array(0),
  commTime: 0,
};

describe('jobs.csv', () => {
  it('a header, then one row per job: quoted ids, times and bsld, space-separated nodes and cores; rejected jobs without times', () => {
    const f = join(dir, 'jobs.csv');
    const w = new JobsCsvWriter(f);
    w.write(ran);
    w.write(rejected);
    w.close();
    expect(readFileSync(f, 'utf8')).toBe(
      'job_id,type,ntasks,submit,start,finish,wait,turnaround,bsld,req_time,state,nodes,cores,comm_time\n' +
        '"a,""b""",seq,2,0,1,3,1,3,1,10,finished,0,4 5,0.5\n' +
        'r,mpi,64,5,,,,,,10,rejected,,,\n',
    );
    expect(jobsCsvRow(rejected).split(',')).toHaveLength(JOBS_CSV_HEADER.split(',').length);
  });

  it('LineWriter keeps every line in order across its 64 KiB flushes', () => {
    const f = join(dir, 'lines.txt');
    const w = new LineWriter(f, 'head');
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i} ${'x'.repeat(40)}`);
    for (const l of lines) w.line(l);
    w.close();
    expect(readFileSync(f, 'utf8')).toBe(`${['head', ...lines].join('\n')}\n`);
  });
});

describe('timeline.csv', () => {
  it('one row per interval of constant state, then the closing row: seq jobs of 6, 6 and 4 tasks on tfg-2x2x4', () => {
    const rows: TimelineRow[] = [];
    runSimulation(tfg2x2x4(), [opsJob('a', 6), opsJob('b', 6), opsJob('c', 4)], new ListScheduler(), { onTimeline: (r) => rows.push(r) });
    // [0, 1): a and b on 12 cores, c waiting, 200 W; [1, 2): c on 4 cores, 63 W; at 2: idle, 4 x 1 W
    expect(rows).toEqual([
      { time: 0, utilisation: 12 / 16, queue: 1, power: 200 },
      { time: 1, utilisation: 4 / 16, queue: 0, power: 63 },
      { time: 2, utilisation: 0, queue: 0, power: 4 },
    ]);
    expect(TIMELINE_CSV_HEADER).toBe('time,utilisation,queue_length,power');
    expect(rows.map(timelineCsvRow)).toEqual(['0,0.75,1,200', '1,0.25,0,63', '2,0,0,4']);
  });
});

describe('summary.json', () => {
  it('is the summary object, indented by 2, with a final newline', () => {
    const s = { jobs_finished: 3, makespan: 2, energy: 263 } as unknown as Summary;
    const f = join(dir, 'summary.json');
    writeSummary(f, s);
    expect(readFileSync(f, 'utf8')).toBe('{\n  "jobs_finished": 3,\n  "makespan": 2,\n  "energy": 263\n}\n');
  });
});
