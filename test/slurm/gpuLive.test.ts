/**
 * GPU jobs replayed on a live Slurm 22.05 and on the engine configured by the same slurm.conf (issue 45):
 * `deploy/slurm/local-cluster.sh` with `GPUS` (3 emulated nodes of 2 CPUs: n1 with 2 V100s, n2 with one K80,
 * n3 without GPUs; `GresTypes=gpu`, `Gres=gpu:TYPE:N`, a gres.conf of character devices), six sleep jobs of
 * 2-6 s asking for GPUs per node (`--gres=gpu[:TYPE]:N`, from the records' TRES) or none, replayed once
 * through `clustergym slurm-replay --live --no-clock-align --json` (slurmctld's log at debug2: the engine follows
 * its timers). Checked on both schedules: every job ran
 * on a node with its GPUs, a job waits while its GPUs are taken and starts once they are back. About 40 s.
 * Skipped, with a message, where slurmctld is not installed or the test does not run as root.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type TraceJob, traceToSacctJson } from '../../src/slurm/records.js';
import { HAVE_SLURM, slurmReplayLive, TestCluster, testPort } from '../slurmCluster.js';

const WHY = HAVE_SLURM ? '' : '(skipped: needs root and Debian slurm-wlm + munge: apt-get install slurm-wlm munge)';

const job = (id: number, submit: number, runTime: number, gpus?: TraceJob['gpus']): TraceJob => ({
  id: String(id),
  submit,
  runTime,
  timeLimit: 60,
  cpus: 1,
  nodes: 1,
  user: '1',
  partition: undefined,
  ...(gpus ? { gpus } : {}),
});

describe.skipIf(!HAVE_SLURM)(`GPU jobs on a live slurmctld and on the engine ${WHY}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'cg-gpu-live-'));
  const cluster = join(dir, 'cluster');
  const vars = {
    NODES: '3',
    CPUS: '2',
    PORT_BASE: testPort(7937),
    GPUS: 'n1:v100:2,n2:k80:1',
    SLURM_CONF_EXTRA: join(dir, 'extra.conf'),
  };

  // started before all tests, stopped after all and on the process's exit whatever happens (TestCluster.hooks)
  const live = new TestCluster(cluster);
  live.hooks(
    () => {
      writeFileSync(vars.SLURM_CONF_EXTRA, 'SchedulerParameters=bf_interval=1,batch_sched_delay=1\nMinJobAge=3600\nSlurmctldDebug=debug2\n');
      live.start(vars);
    },
    () => rmSync(dir, { recursive: true, force: true }),
  );

  it('six jobs: each on a node with its GPUs, waiting while they are taken, on both schedules', async () => {
    const workload = join(dir, 'w.json');
    writeFileSync(
      workload,
      traceToSacctJson([
        job(1, 0, 6, { count: 2, type: 'v100' }), // both V100s of n1
        job(2, 1, 3, { count: 1, type: 'v100' }), // waits for job 1
        job(3, 1, 4, { count: 1, type: 'k80' }), // the K80 of n2
        job(4, 2, 2, { count: 1, type: undefined }), // any type: none free until job 3 (K80) or job 1 (V100) ends
        job(5, 2, 2), // no GPU: n1's or n3's CPUs at once
        job(6, 3, 2, { count: 1, type: 'k80' }), // after job 3 (and job 4 if it took the K80)
      ]),
    );
    const conf = join(cluster, 'slurm.conf');
    const { code, stdout, stderr } = await slurmReplayLive(workload, conf, ['--no-clock-align']);
    expect(code, stderr).toBe(0);
    const r = JSON.parse(stdout);
    const live = r.live[0];
    type Row = { id: string; start: number; end: number; state: string; nodelist?: string };
    const byId = (rows: Row[]) => Object.fromEntries(rows.map((j) => [j.id, j]));
    const L = byId(live.jobs);
    const E = byId(r.jobs);
    const report = JSON.stringify({ live: live.jobs, engine: r.jobs });
    for (const j of live.jobs as Row[]) expect(j.state, report).toBe('completed');
    // where Slurm put them: GPUs of the job's type
    expect(L['1']!.nodelist, report).toBe('n1');
    expect(L['2']!.nodelist, report).toBe('n1');
    expect(L['3']!.nodelist, report).toBe('n2');
    expect(L['6']!.nodelist, report).toBe('n2');
    expect(['n1', 'n2'], report).toContain(L['4']!.nodelist);
    for (const S of [L, E]) {
      // a job waits while its GPUs are taken (0.1 s: the log's millisecond times against the engine's overhead)
      expect(S['2']!.start, report).toBeGreaterThanOrEqual(S['1']!.end - 0.1);
      expect(S['6']!.start, report).toBeGreaterThanOrEqual(S['3']!.end - 0.1);
      expect(S['4']!.start, report).toBeGreaterThanOrEqual(Math.min(S['1']!.end, S['3']!.end) - 0.1);
      // the job without GPUs does not wait for them
      expect(S['5']!.start, report).toBeLessThan(S['3']!.end);
    }
    // and the engine starts them when Slurm does. Measured over four runs: median 0.001-0.10 s, p90 0.7-2.0 s
    // (a job end a tenth of a second apart decides which of two waiting jobs gets a freed K80)
    const cmp = r.comparison.engine_vs_live[0];
    console.log(`GPU live: ${JSON.stringify({ start_diff: cmp.start_diff, engine: r.summary, live: live.summary })}`);
    expect(cmp.start_diff.median, report).toBeLessThanOrEqual(1);
    expect(cmp.start_diff.p90, report).toBeLessThanOrEqual(3);
  }, 180_000);
});
