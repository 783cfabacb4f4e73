/**
 * `clustergym slurm-replay` through the built CLI without --live: the engine's schedule of an SWF under a
 * slurm.conf (JSON and table), the ignored settings reported once, the one engine's Slurm preset
 * (`--engine one`), and bad input (exit code 2).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSlurmConf } from '../../src/slurm/slurmConf.js';
import { readTrace, sleepTrace, traceToSacctJson, traceToSwf } from '../../src/slurm/records.js';
import { MATRIX_CPUS, MATRIX_NODES, cellConfLines, cellWorkload, matrixCell } from '../../src/slurm/liveMatrix.js';
import { engineSchedule, replayJobs } from '../../src/slurm/trace.js';
import { CLI, cli } from '../helpers.js';
import { expectSlurmEngine } from '../golden/slurmEngine.js';

const dir = mkdtempSync(join(tmpdir(), 'cg-sreplay-'));
const CONF = `ClusterName=t
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
PriorityType=priority/basic
NodeName=n[1-8] CPUs=2 NodeAddr=127.0.0.1
PartitionName=debug Nodes=n[1-8] Default=YES MaxTime=INFINITE OverSubscribe=EXCLUSIVE State=UP
`;
const conf = join(dir, 'slurm.conf');
writeFileSync(conf, CONF);
const swf = join(dir, 'w.swf');
writeFileSync(swf, traceToSwf(sleepTrace({ jobs: 36, seed: 5, minRun: 5, maxRun: 30, maxNodes: 4, platformNodes: 8, load: 1.2, limitFactor: 3 }), 2));

describe('clustergym slurm-replay (engine only)', () => {
  it('--json: {jobs: [{id, submit, start, end, nodes, state}], summary}, the same as the module', () => {
    const r = cli(['slurm-replay', swf, '--slurm-conf', conf, '--json', '--out', join(dir, 'out')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^slurm-replay: ignored \(not modelled\): NodeAddr \(line 5\), ClusterName \(line 1\)\n$/);
    const out = JSON.parse(r.stdout);
    const c = parseSlurmConf(CONF, conf);
    const expected = engineSchedule(replayJobs(readTrace(swf), c), c);
    expect(out.jobs).toEqual(expected.jobs);
    expect(out.summary).toEqual(expected.summary);
    expect(out.jobs).toHaveLength(36);
    for (const j of out.jobs) {
      expect(Object.keys(j)).toEqual(expect.arrayContaining(['id', 'submit', 'start', 'end', 'nodes', 'state']));
      expect(j.start).toBeGreaterThanOrEqual(j.submit);
      expect(j.nodes).toBeGreaterThanOrEqual(1);
      expect(j.nodes).toBeLessThanOrEqual(4);
    }
    expect(readFileSync(join(dir, 'out', 'engine.csv'), 'utf8').split('\n')[0]).toBe('id,submit,start,end,nodes,state,backfilled');
    const shifted = JSON.parse(cli(['slurm-replay', swf, '--slurm-conf', conf, '--clock-phase', '50', '--json']).stdout);
    expect(shifted.clock_phase).toBe(50);
    expect(shifted.jobs).toEqual(engineSchedule(replayJobs(readTrace(swf), c), c, undefined, 50).jobs);
    const table = cli(['slurm-replay', swf, '--slurm-conf', conf, '--shrink', '2']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/mean_wait/);
  });

  it('--live-from DIR: the comparison with saved live runs (here the engine itself, and shifted by 1 s)', () => {
    const c = parseSlurmConf(CONF, conf);
    const e = engineSchedule(replayJobs(readTrace(swf), c), c);
    const saved = join(dir, 'saved');
    mkdirSync(saved, { recursive: true });
    const late = e.jobs.map((j) => ({ ...j, start: j.start + 1, end: j.end + 1 }));
    // run 1 as --live writes it since runs record their clock phase; run 2 as runs saved before that
    writeFileSync(join(saved, 'live-1.json'), JSON.stringify({ jobs: late, clock_phase: 0.25 }));
    writeFileSync(join(saved, 'live-2.json'), JSON.stringify({ jobs: e.jobs }));
    const r = cli(['slurm-replay', swf, '--slurm-conf', conf, '--live-from', saved, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.live).toHaveLength(2);
    expect(out.live[0].clock_phase).toBe(0.25);
    expect(out.live[1].clock_phase).toBeUndefined();
    const text = cli(['slurm-replay', swf, '--slurm-conf', conf, '--live-from', saved]);
    expect(text.stdout).toMatch(/clock phase \(time 0 past a whole minute\): engine 0 s, live runs 0\.25 s, \?/);
    // every wait 1 s longer in run 1: live mean = engine + 0.5 s; start differences 1 s and 0 s (median 0.5), live-live 1 s
    const a = out.comparison.agreement;
    expect(a.metrics[0].live_mean).toBeCloseTo(e.summary.mean_wait + 0.5, 9);
    expect(a.metrics[0].live_spread).toBeCloseTo(1, 9);
    expect(a.metrics[0].tolerance).toBeCloseTo(Math.max(2, 0.05 * (e.summary.mean_wait + 0.5)), 9);
    expect(a.start_diff).toMatchObject({ engine_vs_live_median: 0.5, live_vs_live_median: 1, bound: 2.5, holds: true });
    expect(a.holds).toBe(true);
    // a run of another workload, or no run at all: exit 2
    writeFileSync(join(saved, 'live-2.json'), JSON.stringify({ jobs: e.jobs.slice(1) }));
    const other = cli(['slurm-replay', swf, '--slurm-conf', conf, '--live-from', saved]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/live-2\.json: no job 1 of .*w\.swf: not a run of this workload/);
    const noLive = cli(['slurm-replay', swf, '--slurm-conf', conf, '--no-clock-align']);
    expect(noLive.code).toBe(2);
    expect(noLive.stderr).toMatch(/--no-clock-align: needs --live/);
    const none = cli(['slurm-replay', swf, '--slurm-conf', conf, '--live-from', join(dir, 'nothing')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--live-from .*nothing: no live-1\.json there/);
  });

  it("--engine one: the one engine's Slurm preset gives the Slurm engine's schedule (memory requests on whole-node allocation); what it does not model yet exits 2, naming it", () => {
    // the live matrix's mixed jobs: --exclusive on 1-3 nodes, or 1-6 CPUs with --mem (a fifth with DefMemPerCPU), in two partitions
    const nodes = `NodeName=n[1-${MATRIX_NODES}] CPUs=${MATRIX_CPUS} RealMemory=4000\n`;
    const memConf = join(dir, 'mem.conf');
    writeFileSync(memConf, `SelectType=select/cons_tres\n${nodes}${cellConfLines(matrixCell('bfi1-bfr60-multifactor-mixed-default'))}`);
    const trace = cellWorkload('mixed', 42, 30);
    expect(trace.filter((j) => j.memMb !== undefined).length).toBeGreaterThan(5);
    const w = join(dir, 'mixed.json');
    writeFileSync(w, traceToSacctJson(trace));
    /** The replay's JSON on the Slurm preset (`--engine one`), its schedule expected to be the Slurm engine's (the default before its retirement). */
    const replayed = (conf: string, extra: string[] = []) => {
      const b = cli(['slurm-replay', w, '--slurm-conf', conf, '--json', '--engine', 'one', ...extra]);
      expect(b.code, b.stderr).toBe(0);
      const jb = JSON.parse(b.stdout);
      const live = extra.length > 0 ? readFileSync(join(extra[1]!, 'live-1.json'), 'utf8') : null;
      const of = (j: { jobs: unknown; summary: unknown; comparison?: unknown }) => ({ jobs: j.jobs, summary: j.summary, comparison: j.comparison });
      expectSlurmEngine('slurm-replay', { trace: readFileSync(w, 'utf8'), conf: readFileSync(conf, 'utf8'), live }, of(jb), () => {
        const a = cli(['slurm-replay', w, '--slurm-conf', conf, '--json', ...extra]);
        expect(a.code, a.stderr).toBe(0);
        return of(JSON.parse(a.stdout));
      });
      return jb;
    };
    const jb = replayed(memConf);
    expect(jb.engine).toBe('one');
    expect(jb.summary.backfill_starts).toBeGreaterThan(0);
    // memory consumable and no DefMemPerCPU: a job that names none holds the whole memory of each of its nodes
    // (--mem of the nodes' RealMemory, 4,000 MB), so no other job shares them; both engines alike
    const noDefault = join(dir, 'nodef.conf');
    writeFileSync(noDefault, readFileSync(memConf, 'utf8').replace(/^DefMemPerCPU=.*$/m, ''));
    const nb = replayed(noDefault);
    expect(nb.jobs.filter((j: { start: number | null }) => j.start === null)).toEqual([]);
    // they wait longer than with DefMemPerCPU=500, where they share nodes
    expect(nb.summary.mean_wait).toBeGreaterThan(jb.summary.mean_wait);
    // a partition of nodes of unequal memory cannot say a node's whole memory in one request: exit 2, naming it
    const unequal = join(dir, 'unequal.conf');
    writeFileSync(
      unequal,
      readFileSync(noDefault, 'utf8').replace(
        `NodeName=n[1-${MATRIX_NODES}] CPUs=${MATRIX_CPUS} RealMemory=4000`,
        `NodeName=n1 CPUs=${MATRIX_CPUS} RealMemory=8000\nNodeName=n[2-${MATRIX_NODES}] CPUs=${MATRIX_CPUS} RealMemory=4000`,
      ),
    );
    const ru = cli(['slurm-replay', w, '--slurm-conf', unequal]);
    expect(ru.code, ru.stderr).toBe(2);
    expect(ru.stderr).toMatch(/names no memory, so Slurm gives it the whole memory of each of its nodes .* unequal memory \(8000, 4000 MB\)/);
    expect(ru.stderr).not.toMatch(/at .*\.js/);
    // nodes left COMPLETING after a job (a live run's release times, with Slurm 22.05's backfill): the preset
    // holds them as the Slurm engine does, and the two replays of the saved run agree job for job
    const saved = join(dir, 'saved-mixed');
    mkdirSync(saved, { recursive: true });
    writeFileSync(
      join(saved, 'live-1.json'),
      JSON.stringify({ jobs: jb.jobs.map((j: { end: number }) => ({ ...j, released: j.end + 0.5 })), bf_ticks: [1, 2] }),
    );
    const lb = replayed(memConf, ['--live-from', saved]);
    expect(lb.jobs.length).toBe(trace.length);
    // the nodes' release half a second after each end moved starts (the engine's run on the saved run's timers)
    expect(lb.jobs).not.toEqual(jb.jobs);
    const bad = cli(['slurm-replay', w, '--slurm-conf', memConf, '--engine', 'two']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--engine.*one of slurm, one/);
  });

  it('bad input: exit 2 with the file and line, the flag, or what is missing', () => {
    const bad = join(dir, 'bad.conf');
    writeFileSync(bad, 'NodeName=n1 CPUs=2\nPartitionName=p Nodes=n1 MaxTime=soon\n');
    let r = cli(['slurm-replay', swf, '--slurm-conf', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.conf:2: \$\.maxtime: expected a Slurm time/);
    r = cli(['slurm-replay', swf, '--slurm-conf', conf, '--runs', '2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--runs: needs --live/);
    r = cli(['slurm-replay', swf]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--slurm-conf/);
    const noConf = spawnSync(process.execPath, [CLI, 'slurm-replay', swf, '--slurm-conf', conf, '--live'], {
      encoding: 'utf8',
      env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'SLURM_CONF')),
    });
    expect(noConf.status).toBe(2);
    expect(noConf.stderr).toMatch(/--live: SLURM_CONF is not set/);
    r = cli(['slurm-replay', join(dir, 'none.swf'), '--slurm-conf', conf]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/none\.swf/);
    expect(r.stderr).not.toMatch(/at .*\.js/);
  });
});
