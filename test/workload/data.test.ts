/**
 * The readers against the third-party data in ../shared/data (not committed; see its README.md).
 * Each suite is skipped, with the reason in its title, when its file is absent.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHARED_DATA } from '../helpers.js';
import {
  generateLublin,
  loadSwf,
  loadWorkload,
  parseNativeWorkload,
  readSwfHeader,
  SwfReader,
  trajectory,
  writeNativeWorkload,
  type Job,
} from '../../src/workload/index.js';

const LUBLIN = resolve(SHARED_DATA, 'traces/lublin_256.swf');
const NASA = resolve(SHARED_DATA, 'traces/NASA-iPSC-1993-3.1-cln.swf');
const BATSIM_250 = resolve(SHARED_DATA, 'batsim/example_workload_hpc_seed1_jobs250.json');
const BATSIM_TYPES = resolve(SHARED_DATA, 'batsim/test_various_profile_types.json');
const IRMASIM = resolve(SHARED_DATA, 'irmasim/dual_core/jobs.json');

const absent = (f: string) => `(skipped: ${f} is absent; third-party data lives in ../shared/data beside the repository)`;
const title = (name: string, f: string) => (existsSync(f) ? name : `${name} ${absent(f)}`);
const strip = (jobs: Job[]) => jobs.map(({ source: _source, ...rest }) => rest);
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;

describe.skipIf(!existsSync(LUBLIN))(title('lublin_256.swf', LUBLIN), () => {
  it('loads 10,000 jobs on 256 processors with the run time as requested time', () => {
    const w = loadSwf(LUBLIN);
    expect(w.jobs).toHaveLength(10000);
    expect(w.skipped).toEqual({});
    // no MaxProcs line: MaxNodes (256) stands in
    const header = readSwfHeader(LUBLIN);
    expect(header).toMatchObject({ maxNodes: 256, maxJobs: 10000, maxRuntime: 162754 });
    expect(header.maxProcs).toBeUndefined();
    expect(w.maxProcs).toBe(256);
    expect(w.jobs[0]).toMatchObject({ id: '1', subtime: 5094, runtime: 12072, reqTime: 12072, ntasks: 16, source: 'line 8' });
    expect(w.jobs.every((j) => j.reqTime === j.runtime)).toBe(true);
    expect(Math.max(...w.jobs.map((j) => j.ntasks))).toBe(256);
  });

  it('the Lublin–Feitelson generator reproduces its statistics', () => {
    const trace = loadSwf(LUBLIN).jobs;
    const gen = generateLublin({ model: 'lublin', jobs: 10000, maxProcs: 256 }, 1).jobs;
    const serial = (js: Job[]) => js.filter((j) => j.ntasks === 1).length / js.length;
    const meanSize = (js: Job[]) => js.reduce((a, j) => a + j.ntasks, 0) / js.length;
    const medRun = (js: Job[]) => median(js.map((j) => j.runtime));
    const medGap = (js: Job[]) => median(js.slice(1).map((j, i) => j.subtime - js[i]!.subtime));
    expect(Math.abs(serial(gen) - serial(trace))).toBeLessThan(0.02);
    expect(Math.abs(meanSize(gen) / meanSize(trace) - 1)).toBeLessThan(0.1);
    expect(Math.abs(medRun(gen) / medRun(trace) - 1)).toBeLessThan(0.25);
    expect(Math.abs(medGap(gen) / medGap(trace) - 1)).toBeLessThan(0.15);
  });

  it('cuts rebased trajectories', () => {
    const t = trajectory(loadSwf(LUBLIN), 9000, 1000);
    expect(t.jobs[0]).toMatchObject({ id: '9001', subtime: 0 });
    expect(t.jobs[999]!.id).toBe('10000');
  });
});

describe.skipIf(!existsSync(NASA))(title('NASA-iPSC-1993-3.1-cln.swf', NASA), () => {
  it('loads 18,239 job lines, skipping and counting the 173 with run time 0', () => {
    const w = loadSwf(NASA);
    expect(w.jobs.length + 173).toBe(18239);
    expect(w.skipped).toEqual({ 'runtime<=0': 173 });
    expect(w.maxProcs).toBe(128);
    expect(readSwfHeader(NASA)).toMatchObject({ maxProcs: 128, maxNodes: 128, unixStartTime: 749458803, timeZone: -28800, timeZoneString: 'US/Pacific' });
    expect(w.jobs[0]).toMatchObject({ id: '1', subtime: 0, runtime: 1451, ntasks: 128, reqTime: 1451, type: 'mpi', work: 'delay' });
  });

  it('streams the same jobs with small reads, never holding the file', () => {
    const r = new SwfReader(NASA, { chunkSize: 4096 });
    const streamed = [...r];
    expect(streamed).toEqual(loadSwf(NASA).jobs);
    expect(r.summary()).toMatchObject({ jobs: 18066, lines: 18239 + 32, /* header comment lines */ outOfOrder: 0 });
  });

  it('converts to native JSON and back to identical jobs', () => {
    const w = loadSwf(NASA);
    const back = parseNativeWorkload(JSON.parse(JSON.stringify(writeNativeWorkload(w))) as unknown, 'nasa.json');
    expect(strip(back.jobs)).toEqual(strip(w.jobs));
  });
});

describe.skipIf(!existsSync(BATSIM_250))(title('Batsim 250-job workload', BATSIM_250), () => {
  it('loads all 250 delay jobs', () => {
    const w = loadWorkload(BATSIM_250);
    expect(w.jobs).toHaveLength(250);
    expect(w.skipped).toEqual({});
    expect(w.maxProcs).toBe(128);
    expect(w.jobs.every((j) => j.work === 'delay' && j.type === 'mpi' && j.runtime > 0)).toBe(true);
    expect(w.jobs[0]).toMatchObject({ id: '0', profile: 'ft.D.8', ntasks: 8, reqTime: 300, runtime: 172.94, subtime: 57.245384205516594 });
    expect(new Set(w.jobs.map((j) => j.reqTime))).toEqual(new Set([200, 300, 600, 2400]));
    const back = parseNativeWorkload(JSON.parse(JSON.stringify(writeNativeWorkload(w))) as unknown, 'b.json');
    expect(strip(back.jobs)).toEqual(strip(w.jobs));
  });
});

describe.skipIf(!existsSync(BATSIM_TYPES))(title('Batsim test_various_profile_types.json', BATSIM_TYPES), () => {
  // Loaded: delay (DelayProfile), simple / simple_no_com / reach_walltime (ParallelTaskProfile),
  // homogeneous / homogeneous_no_com / homogeneous_total x2 (ParallelTaskHomogeneousProfile),
  // sequence (SequentialCompositionProfile). Rejected: simple_no_cpu and homogeneous_no_cpu, which
  // only communicate (no computation to model).
  it('rejects the communication-only profiles by default', () => {
    expect(() => loadWorkload(BATSIM_TYPES)).toThrow(
      /\$\.jobs\[3\] \(id "simple_no_cpu", profile "simple_no_cpu"\): \$\.profiles\.simple_no_cpu: no computation/,
    );
  });

  it('loads the nine others with unsupported: skip', () => {
    const w = loadWorkload(BATSIM_TYPES, { batsim: { unsupported: 'skip' } });
    expect(w.skipped).toEqual({ 'no computation': 2 });
    const by = Object.fromEntries(w.jobs.map((j) => [j.id, j]));
    expect(Object.keys(by).sort()).toEqual(
      ['2_resources', '4_resources', 'delay', 'homo', 'homo_no_com', 'reach_walltime', 'seq', 'simple', 'simple_no_com'].sort(),
    );
    expect(by['delay']).toMatchObject({ work: 'delay', runtime: 20.2, reqTime: 30, ntasks: 1 });
    expect(by['simple']!.tasks!.map((t) => t.ops)).toEqual([5e6, 1, 1, 1]);
    expect(by['simple']!.commVol).toBe(2.5e6); // 30e6 over the 12 off-diagonal entries
    expect(by['reach_walltime']).toMatchObject({ reqTime: 1, profile: 'simple' });
    expect(by['homo']).toMatchObject({ work: 'ops', ops: 10e6, commVol: 1e6 });
    expect(by['homo_no_com']).toMatchObject({ ops: 2e5, commVol: 0 });
    expect(by['2_resources']).toMatchObject({ ops: 5e6, commVol: 5e5, reqTime: 30 });
    // no walltime: the largest task on a 1000-MOPS reference core
    expect(by['4_resources']).toMatchObject({ ops: 2.5e6, reqTime: 2.5e6 / 1e9 });
    // (simple + homogeneous + simple) x 4
    expect(by['seq']!.tasks!.map((t) => t.ops)).toEqual([80e6, 40e6, 40e6, 40e6]);
    expect(by['seq']!.commVol).toBe(4 * (2.5e6 + 1e6 + 2.5e6));
  });
});

describe.skipIf(!existsSync(IRMASIM))(title('IRMaSim dual_core jobs.json', IRMASIM), () => {
  it('is detected as native despite its nb_res', () => {
    const w = loadWorkload(IRMASIM);
    expect(w.jobs.map((j) => [j.id, j.subtime, j.type, j.ops, j.reqTime])).toEqual([
      ['job57218', 2, 'seq', 1e6, 10],
      ['job57219', 2.5, 'seq', 1e6, 10],
    ]);
  });
});
