/**
 * `clustergym simulate` end to end through the built CLI: the embedded default, outputs, and bad
 * input (exit code 2, one message naming the file and the JSON path, nothing written).
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'cg-cli-'));

const PLATFORM = {
  name: 'tiny',
  models: { memory: 'none' },
  clusters: [{ nodes: [{ count: 2, memory_gb: 1, processors: [{ cores: 2, clock_rate: 1, dpflops_per_cycle: 1, static_power: 10, dynamic_power: 5 }] }] }],
};
const WORKLOAD = {
  jobs: [
    { id: 'a', subtime: 5, res: 2, profile: 'p' },
    { id: 'b', subtime: 6, type: 'mpi', ntasks: 3, profile: 'p' },
  ],
  profiles: { p: { req_ops: 1e9, ipc: 1, req_time: 2, mem: 100 } },
};

function files(platform: unknown, workload: unknown) {
  const d = tmp();
  const p = join(d, 'platform.json');
  const w = join(d, 'workload.json');
  writeFileSync(p, typeof platform === 'string' ? platform : JSON.stringify(platform));
  writeFileSync(w, typeof workload === 'string' ? workload : JSON.stringify(workload));
  return { d, p, w, out: join(d, 'out') };
}

describe('clustergym simulate', () => {
  it('runs the embedded default with no arguments', () => {
    const r = cli(['simulate']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/platform hetero-20 \(20 nodes, 496 cores/);
    expect(r.stdout).toMatch(/jobs finished\s+300/);
  });

  it('writes summary.json, jobs.csv and timeline.csv with exact numbers', () => {
    const f = files(PLATFORM, WORKLOAD);
    const r = cli(['simulate', '--platform', f.p, '--workload', f.w, '--out', f.out, '--timeline']);
    expect(r.code).toBe(0);
    const s = JSON.parse(readFileSync(join(f.out, 'summary.json'), 'utf8'));
    // a: 2 tasks on node0 from 0 to 1; b (mpi, 3 tasks) submitted at 1 (rebased), starts at 1 on cores 0,1,2 (nodes 0 and 1)
    expect(s.jobs_finished).toBe(2);
    expect(s.makespan).toBe(2);
    expect(s.mean_wait).toBe(0);
    // power: [0,1): node0 proc 2 busy (10 + 10), node1 idle (0) = 20 W; [1,2): 2 busy (20) + 1 busy on node1 (15) = 35 W
    expect(s.energy).toBe(55);
    const rows = readFileSync(join(f.out, 'jobs.csv'), 'utf8').trim().split('\n');
    expect(rows[0]).toBe('job_id,type,ntasks,submit,start,finish,wait,turnaround,bsld,req_time,state,nodes,cores,comm_time');
    expect(rows[1]).toBe('a,seq,2,0,0,1,0,1,1,2,finished,0,0 1,0');
    expect(rows[2]).toBe('b,mpi,3,1,1,2,0,1,1,2,finished,0 1,0 1 2,0');
    const tl = readFileSync(join(f.out, 'timeline.csv'), 'utf8').trim().split('\n');
    expect(tl).toEqual(['time,utilisation,queue_length,power', '0,0.5,0,20', '1,0.75,0,35', '2,0,0,0']);
  });

  const bad: [string, unknown, unknown, RegExp][] = [
    ['malformed JSON', '{"name": ', WORKLOAD, /platform\.json: malformed JSON/],
    [
      'a missing field',
      { clusters: [{ nodes: [{ memory_gb: 1, processors: [{ cores: 2, dpflops_per_cycle: 1 }] }] }] },
      WORKLOAD,
      /platform\.json: \$\.clusters\[0\]\.nodes\[0\]\.processors\[0\]\.clock_rate: Required/,
    ],
    [
      'a mistyped field',
      PLATFORM,
      { jobs: [{ id: 'a', subtime: 'soon', res: 1, req_ops: 1, req_time: 1 }] },
      /workload\.json: \$\.jobs\[0\]\.subtime: Expected number, received string/,
    ],
    [
      'a job that can never fit',
      PLATFORM,
      {
        jobs: [
          { id: 'a', subtime: 0, res: 1, req_ops: 1, req_time: 1 },
          { id: 'big', subtime: 0, res: 3, req_ops: 1, req_time: 1 },
        ],
      },
      /workload\.json: \$\.jobs\[1\]: job big can never fit platform tiny: it needs one node with 3 cores/,
    ],
    [
      'an unknown profile',
      PLATFORM,
      { jobs: [{ id: 'a', subtime: 0, res: 1, profile: 'nope' }], profiles: {} },
      /workload\.json: \$\.jobs\[0\]\.profile \(job "a"\): unknown profile "nope"/,
    ],
  ];
  for (const [what, platform, workload, message] of bad) {
    it(`bad input: ${what} -> exit 2, one message with file and JSON path, nothing written`, () => {
      const f = files(platform, workload);
      const r = cli(['simulate', '--platform', f.p, '--workload', f.w, '--out', f.out]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\s+at .*\.js:\d+/); // no stack trace
      expect(existsSync(f.out)).toBe(false);
    });
  }

  it('bad input: an unknown node type and an unknown processor type in an IRMaSim platform', () => {
    const irma = (nodeType: string, procType: string) => ({
      platform: { p: { id: 'p', clusters: [{ id: 'c0', nodes: [{ type: nodeType, number: 1 }] }] } },
      node: { n1: { id: 'n1', processors: [{ type: procType, number: 1 }], memory: { capacity: 1 } } },
      processor: { pr: { cores: 2, clock_rate: 1, dpflops_per_cycle: 1, static_power: 1, dynamic_power: 1, min_power: 0 } },
    });
    let f = files(irma('n2', 'pr'), WORKLOAD);
    let r = cli(['simulate', '--platform', f.p, '--workload', f.w]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/platform\.json: \$\.platform\.p\.clusters\[0\]\.nodes\[0\]\.type: unknown node type "n2"; expected one of n1/);
    f = files(irma('n1', 'px'), WORKLOAD);
    r = cli(['simulate', '--platform', f.p, '--workload', f.w]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/platform\.json: \$\.node\.n1\.processors\[0\]\.type: unknown processor type "px"; expected one of pr/);
    expect(readdirSync(f.d).sort()).toEqual(['platform.json', 'workload.json']);
  });

  it('bad flags: unknown flag and bad model name exit 2', () => {
    let r = cli(['simulate', '--bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^clustergym simulate: error: --bogus: unknown flag/);
    r = cli(['simulate', '--memory-model', 'v2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('clustergym simulate: error: --memory-model: expected one of irmasim-v1, none, got "v2"\n');
  });

  it('streams an SWF trace on a homogeneous cluster of its MaxProcs when no --platform is given', () => {
    const d = mkdtempSync(join(tmpdir(), 'cg-swf-'));
    const f = join(d, 't.swf');
    // two jobs of 2 and 3 processors on a 4-processor machine: the second waits for the first
    writeFileSync(f, '; MaxProcs: 4\n1 0 0 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n2 5 0 10 3 -1 -1 3 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n');
    const table = cli(['simulate', '--workload', f]);
    expect(table.stdout).toMatch(/platform homogeneous-4 \(4 nodes, 4 cores.*workload t\.swf \(2 jobs\), policy fcfs:first/);
    const r = cli(['simulate', '--workload', f, '--json']);
    expect(r.stderr).toBe('');
    const s = JSON.parse(r.stdout);
    expect(s.jobs_finished).toBe(2);
    expect(s.makespan).toBe(20);
    expect(s.mean_wait).toBe(2.5);
    expect(s.utilisation).toBe((10 * 2 + 10 * 3) / (20 * 4));
  });

  it('a bad SWF line found while streaming exits 2 naming the line and leaves no partial outputs', () => {
    const d = mkdtempSync(join(tmpdir(), 'cg-swf-'));
    const f = join(d, 't.swf');
    const good = Array.from({ length: 50 }, (_, i) => `${i + 1} 0 0 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n`).join('');
    writeFileSync(f, `; MaxProcs: 4\n${good}51 5 0 ten 3 -1 -1 3 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n`);
    const out = join(d, 'out');
    const r = cli(['simulate', '--workload', f, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/t\.swf:52/);
    expect(existsSync(out)).toBe(false);
  });

  it('reports the jobs an SWF reader skipped', () => {
    const d = mkdtempSync(join(tmpdir(), 'cg-swf-'));
    const f = join(d, 't.swf');
    writeFileSync(f, '; MaxProcs: 4\n1 0 0 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n2 5 0 0 3 -1 -1 3 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n');
    const r = cli(['simulate', '--workload', f]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/workload t\.swf \(1 jobs; skipped: 1 runtime<=0\)/);
  });
});

describe('clustergym simulate --irmasim OPTIONS.json', () => {
  const IRMA_PLATFORM = {
    platform: { p: { id: 'p', model_name: 'modelV1', clusters: [{ nodes: [{ type: 'n', number: 2 }] }] } },
    node: { n: { processors: [{ type: 'c' }], memory: { capacity: 8 } } },
    processor: {
      c: {
        cores: 2,
        clock_rate: 1,
        dpflops_per_cycle: 1,
        static_power: 10,
        dynamic_power: 5,
        min_power: 0.1,
        b: -1.85e-5,
        c: 32000,
        da: 1.75,
        db: 2000,
        dc: 50000,
        dd: 6000,
      },
    },
  };
  const IRMA_WORKLOAD = {
    jobs: [
      { id: 'a', subtime: 0, nodes: 2, ntasks: 3, req_ops: 1e9, req_time: 2 },
      { subtime: 0.5, res: 1, req_ops: 2e9, req_time: 3 },
    ],
  };
  function irmaFiles(options: Record<string, unknown>) {
    const f = files(IRMA_PLATFORM, IRMA_WORKLOAD);
    const o = join(f.d, 'options.json');
    writeFileSync(o, JSON.stringify({ platform_file: 'platform.json', platform_name: 'p', workload_file: 'workload.json', ...options }));
    return { ...f, o };
  }

  it('runs the options file (paths from its folder), writes the outputs to --out, and names the manager', () => {
    const f = irmaFiles({ seed: 3, workload_manager: { type: 'Heuristic', job_selection: 'shortest', resource_selection: 'low_cores' } });
    const r = cli(['simulate', '--irmasim', f.o, '--out', f.out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/manager Heuristic\(shortest, low_cores\), seed 3, idle power always/);
    // a: 3 tasks over 2 nodes (2 per node needed), 2 + 1, 1 s; job1 (2e9 ops) at 0.5 on node1's free core
    const rows = readFileSync(join(f.out, 'jobs.csv'), 'utf8').trim().split('\n');
    expect(rows.slice(1)).toEqual(['a,mpi,3,0,0,1,0,1,1,2,finished,0 1,0 2 1,0', 'job1,seq,1,0.5,0.5,2.5,0,2,1,3,finished,1,3,0']);
  });

  it('output_dir of the file is used when --out is absent', () => {
    const f = irmaFiles({ output_dir: 'results' });
    expect(cli(['simulate', '--irmasim', f.o, '--json']).code).toBe(0);
    expect(readdirSync(join(f.d, 'results')).sort()).toEqual(['jobs.csv', 'summary.json']);
  });

  it('bad options are exit-2 errors naming the file and the field; ignored fields are warnings', () => {
    const policy = irmaFiles({ workload_manager: { type: 'Policy' } });
    const r1 = cli(['simulate', '--irmasim', policy.o]);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toMatch(/options\.json: \$\.workload_manager\.type: "Policy" is IRMaSim's learning manager.*clustergym\/PolicyPair-v0/);
    const missing = irmaFiles({ platform_name: 'nope' });
    const r2 = cli(['simulate', '--irmasim', missing.o]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/no platform named "nope"/);
    const warn = irmaFiles({ workload_manager: { type: 'Heuristic', job_selecton: 'shortest' } });
    const r3 = cli(['simulate', '--irmasim', warn.o, '--json']);
    expect(r3.code).toBe(0);
    expect(r3.stderr).toMatch(/warning: .*\$\.workload_manager\.job_selecton: IRMaSim's Heuristic ignores this field.*did you mean "job_selection"/);
    const clash = cli(['simulate', '--irmasim', warn.o, '--policy', 'sjf']);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/--irmasim takes the platform, workload, seed and workload manager from the options file; drop --policy/);
    expect(existsSync(join(warn.d, 'out'))).toBe(false);
  });

  it('an unknown job field of the workload is an exit-2 error with a suggestion', () => {
    const f = files(PLATFORM, { jobs: [{ id: 'a', subtime: 0, res: 1, req_ops: 1e9, req_time: 2, memvol: 10 }] });
    const r = cli(['simulate', '--platform', f.p, '--workload', f.w]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/workload\.json: \$\.jobs\[0\]\.memvol: unknown field "memvol" \(did you mean "mem_vol"\?\)/);
  });

  it('--semantics irmasim and --idle-power on the ordinary path', () => {
    const f = files(PLATFORM, WORKLOAD);
    const r = cli(['simulate', '--platform', f.p, '--workload', f.w, '--semantics', 'irmasim', '--idle-power', 'after-first-task', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).jobs_finished).toBe(2);
    const bad = cli(['simulate', '--platform', f.p, '--workload', f.w, '--semantics', 'irmasim', '--walltime-kill']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/walltime kill is not part of the irmasim semantics/);
  });
});
