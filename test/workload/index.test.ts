import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  detectFileKind,
  detectFormat,
  generateLublin,
  generatePoisson,
  loadWorkload,
  parseNativeWorkload,
  streamWorkload,
  writeNativeWorkload,
  type Job,
  type Workload,
} from '../../src/workload/index.js';

const dir = mkdtempSync(join(tmpdir(), 'cgw-wl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string | object): string {
  const f = join(dir, name);
  writeFileSync(f, typeof content === 'string' ? content : JSON.stringify(content));
  return f;
}

const SWF =
  '; MaxProcs: 32\n1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n2 5 -1 0 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n3 9 -1 7 -1 -1 -1 2 -1 -1 1 1 1 -1 1 -1 -1 -1\n';
const BATSIM = {
  nb_res: 16,
  jobs: [
    { id: 1, subtime: 3, res: 4, profile: 'hg', walltime: 50 },
    { id: 2, subtime: 1, res: 2, profile: 'd', walltime: -1 },
    { id: 3, subtime: 2, res: 3, profile: 'par' },
    { id: 4, subtime: 4, res: 2, profile: 'tot', walltime: 9 },
    { id: 5, subtime: 5, res: 4, profile: 'tot', walltime: 9 },
  ],
  profiles: {
    hg: { type: 'parallel_homogeneous', cpu: 2e9, com: 1e6 },
    d: { type: 'delay', delay: 12.5 },
    par: { type: 'parallel', cpu: [1e9, 3e9, 0], com: [0, 1, 1, 1, 0, 1, 1, 1, 0] },
    tot: { type: 'parallel_homogeneous_total', cpu: 8e9, com: 0 },
  },
};
const NATIVE = {
  jobs: [
    { id: 'a', subtime: 0, res: 2, profile: 'p' },
    { id: 'b', subtime: 1, type: 'mpi', ntasks: 8, comm_vol: 2e8, t_compute: 0.9, req_ops: 2e9, ipc: 1, req_time: 10, mem: 64 },
    { id: 'c', subtime: 2, ntasks: 6, ntasks_per_node: 3, req_ops: 5e8, req_time: 4 },
    { id: 'd', subtime: 3, res: 2, tasks: [{ req_ops: 1e9, mem: 10 }, { req_ops: 2e9 }], req_time: 5, mem: 20, mem_vol: 3 },
    { id: 'e', subtime: 4, res: 1, runtime: 7 },
    { id: 'f', subtime: 5, res: 3, profile: 'p', mem: 1, req_time: 9 },
    { id: 'g', subtime: 6, nodes: 1, ntasks_per_node: 4, profile: 'q' },
  ],
  profiles: {
    p: { req_ops: 1e9, ipc: 2, req_time: 5, mem: 100, mem_vol: 20 },
    q: { type: 'mpi', runtime: 3, comm_vol: 5 },
  },
};

/** Jobs without `source` (which names where each job was read). */
const strip = (jobs: Job[]) => jobs.map(({ source: _source, ...rest }) => rest);

function roundTrip(w: Workload): Workload {
  const text = JSON.stringify(writeNativeWorkload(w));
  return parseNativeWorkload(JSON.parse(text) as unknown, 'converted.json');
}

describe('format detection', () => {
  it('by extension, else by the first character', () => {
    expect(detectFileKind(write('a.swf', SWF))).toBe('swf');
    expect(detectFileKind(write('a.json', BATSIM))).toBe('json');
    expect(detectFileKind(write('trace.txt', SWF))).toBe('swf');
    expect(detectFileKind(write('w.wl', `\n  ${JSON.stringify(NATIVE)}`))).toBe('json');
    expect(detectFormat(write('b.json', BATSIM))).toBe('batsim');
    expect(detectFormat(write('n.json', NATIVE))).toBe('native');
    expect(detectFormat(write('n2.data', NATIVE))).toBe('native');
    expect(detectFormat(write('s.log', SWF))).toBe('swf');
  });

  it('loadWorkload dispatches to the right reader', () => {
    const s = loadWorkload(write('s.swf', SWF));
    expect(s).toMatchObject({ name: 's.swf', maxProcs: 32, skipped: { 'runtime<=0': 1 } });
    expect(s.jobs.map((j) => [j.id, j.ntasks, j.reqTime])).toEqual([
      ['1', 4, 200],
      ['3', 2, 7],
    ]);
    const b = loadWorkload(write('b.json', BATSIM), { name: 'bats' });
    expect(b).toMatchObject({ name: 'bats', maxProcs: 16 });
    expect(b.jobs.map((j) => j.id)).toEqual(['2', '3', '1', '4', '5']);
    const n = loadWorkload(write('n.json', NATIVE));
    expect(n.jobs).toEqual(parseNativeWorkload(NATIVE, join(dir, 'n.json'), 'n.json').jobs);
    // options reach the readers
    expect(loadWorkload(write('s2.swf', SWF), { swf: { reqTimeFromRuntime: true } }).jobs[0]!.reqTime).toBe(100);
    expect(() => loadWorkload(write('bad.json', { jobs: [{ id: 1, subtime: 0, res: 1, profile: 'x' }], profiles: { x: { type: 'smpi' } } }))).toThrow(
      /\$\.profiles\.x\.type: profile type "smpi" cannot be modelled/,
    );
    expect(loadWorkload(join(dir, 'bad.json'), { batsim: { unsupported: 'skip' } }).skipped).toEqual({ 'profile type smpi': 1 });
    // a forced format
    expect(() => loadWorkload(write('n3.json', NATIVE), { format: 'batsim' })).toThrow(/\$\.jobs\[1\]\.res: Required/);
    expect(() => loadWorkload(join(dir, 'missing.json'))).toThrow(/missing\.json: cannot read file/);
  });

  it('streams SWF files job by job and JSON files after loading', () => {
    const f = write('st.swf', SWF);
    expect([...streamWorkload(f)].map((j) => j.id)).toEqual(['1', '3']);
    expect([...streamWorkload(write('st.json', NATIVE))]).toHaveLength(7);
  });
});

describe('conversion to native JSON', () => {
  it('SWF -> native -> identical jobs', () => {
    const w = loadWorkload(write('c.swf', SWF));
    const back = roundTrip(w);
    expect(strip(back.jobs)).toEqual(strip(w.jobs));
    const nat = writeNativeWorkload(w);
    expect(nat.max_procs).toBe(32);
    expect(nat.skipped).toEqual({ 'runtime<=0': 1 });
    // the SWF user (field 12), group (13) and queue (15) are facets, written inline
    expect(nat.jobs[0]).toEqual({ id: '1', subtime: 0, type: 'mpi', ntasks: 4, runtime: 100, req_time: 200, user: '1', account: '1', qos: '1' });
    // loadWorkload restores max_procs from a converted file
    expect(loadWorkload(write('c.native.json', nat)).maxProcs).toBe(32);
  });

  it('Batsim -> native -> identical jobs, profiles shared where they agree', () => {
    const w = loadWorkload(write('c.json', BATSIM));
    const back = roundTrip(w);
    expect(strip(back.jobs)).toEqual(strip(w.jobs));
    expect(back.jobs.map((j) => j.profile)).toEqual(['d', 'par', 'hg', 'tot', 'tot']);
    const nat = writeNativeWorkload(w);
    expect(Object.keys(nat.profiles).sort()).toEqual(['d', 'hg', 'par', 'tot']);
    // the second `tot` job (4 tasks) overrides the per-task work of the first (2 tasks)
    expect(nat.profiles['tot']).toEqual({ type: 'mpi', req_ops: 4e9, req_time: 9, mem_vol: 0 });
    expect(nat.jobs[4]).toEqual({ id: '5', subtime: 5, ntasks: 4, profile: 'tot', req_ops: 2e9 });
  });

  it('native -> native -> identical jobs (every shape and field)', () => {
    const w = parseNativeWorkload(NATIVE, 'n.json');
    expect(strip(roundTrip(w).jobs)).toEqual(strip(w.jobs));
  });

  it('generated -> native -> identical jobs', () => {
    const p = generatePoisson(
      {
        jobs: 300,
        type: 'mpi',
        reqTimeFactor: { min: 1, max: 4 },
        mem: { dist: 'uniform', min: 0, max: 512 },
        memVol: { dist: 'constant', value: 30 },
        commVol: { dist: 'lognormal', mu: 10, sigma: 1 },
        tCompute: 0.7,
      },
      4,
    );
    expect(strip(roundTrip(p).jobs)).toEqual(strip(p.jobs));
    const s = generatePoisson({ jobs: 100, type: 'seq', work: 'ops', mops: 1500 }, 4);
    expect(strip(roundTrip(s).jobs)).toEqual(strip(s.jobs));
    const l = generateLublin({ model: 'lublin', jobs: 500, maxProcs: 256 }, 4);
    expect(strip(roundTrip(l).jobs)).toEqual(strip(l.jobs));
  });

  it('falls back to inline fields when jobs of one profile differ in work model', () => {
    const w: Workload = {
      name: 'mixed',
      skipped: {},
      jobs: [
        { ...parseNativeWorkload(NATIVE, 'n').jobs[0]!, profile: 'x' },
        { ...parseNativeWorkload(NATIVE, 'n').jobs[4]!, profile: 'x' },
      ],
    };
    const back = roundTrip(w);
    expect(strip(back.jobs).map((j) => ({ ...j, profile: undefined }))).toEqual(strip(w.jobs).map((j) => ({ ...j, profile: undefined })));
    expect(back.jobs.map((j) => j.profile)).toEqual(['x', undefined]);
  });
});

describe('native job shapes (DESIGN §2.2)', () => {
  const shape = (job: Record<string, unknown>) => {
    const j = parseNativeWorkload({ jobs: [{ id: 'a', subtime: 0, req_ops: 1e9, req_time: 10, ...job }] }, 'w.json').jobs[0]!;
    return [j.type, j.ntasks, j.nodes, j.ntasksPerNode];
  };
  it('res, type + ntasks, and the IRMaSim nodes/ntasks/ntasks_per_node triple', () => {
    expect(shape({ res: 6 })).toEqual(['seq', 6, 1, 0]);
    expect(shape({ type: 'seq', ntasks: 6 })).toEqual(['seq', 6, 1, 0]);
    expect(shape({ type: 'mpi', ntasks: 6 })).toEqual(['mpi', 6, 0, 0]);
    expect(shape({ ntasks: 6 })).toEqual(['mpi', 6, 6, 1]); // ntasks_per_node defaults to 1
    expect(shape({ ntasks: 8, ntasks_per_node: 4 })).toEqual(['mpi', 8, 2, 4]);
    expect(shape({ nodes: 1, ntasks: 4, ntasks_per_node: 4 })).toEqual(['seq', 4, 1, 0]);
    expect(() => shape({ type: 'seq', ntasks: 8, ntasks_per_node: 4 })).toThrow(/a seq job runs on one node; its nodes\/ntasks\/ntasks_per_node give 2 nodes/);
    expect(() => shape({ ntasks: 8, nodes: 3, ntasks_per_node: 4 })).toThrow(/need ceil\(8\/4\) = 2 nodes, found nodes = 3/);
  });
});
