/**
 * The engine against a live slurmctld (Debian's slurm-wlm, emulated nodes started by
 * deploy/slurm/local-cluster.sh): 30 sleep jobs of 4-12 s on 1-3 of 6 exclusive nodes (sched/backfill,
 * bf_interval=1, priority/basic), replayed once live through `clustergym slurm-replay --live --json` (which first
 * waits for the next whole minute of the wall clock, so that the run's clock phase is the engine's: up to 60 s),
 * and the engine's schedule held to the tolerances measured for it (docs/slurm.md, "Engine vs a live
 * slurmctld"). The cluster is always stopped. Skipped, with a message, where slurmctld is not installed
 * or the test does not run as root (.ci/run installs slurm-wlm and munge and runs as root).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleepTrace, traceToSwf } from '../../src/slurm/records.js';
import { CLI, ROOT } from '../helpers.js';

const SCRIPT = join(ROOT, 'deploy/slurm/local-cluster.sh');
const HAVE_SLURM = existsSync('/usr/sbin/slurmctld') && existsSync('/usr/sbin/slurmd') && process.getuid?.() === 0;
const WHY = HAVE_SLURM ? '' : '(skipped: needs root and Debian slurm-wlm + munge: apt-get install slurm-wlm munge)';
const NODES = 6;
const PORT_BASE = '7917';

describe.skipIf(!HAVE_SLURM)(`engine vs a live slurmctld ${WHY}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'cg-live-'));
  const cluster = join(dir, 'cluster');
  const env = { ...process.env, NODES: String(NODES), CPUS: '2', PORT_BASE, SLURM_CONF_EXTRA: join(dir, 'extra.conf') };

  beforeAll(() => {
    writeFileSync(
      env.SLURM_CONF_EXTRA,
      `SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
PriorityType=priority/basic
MinJobAge=3600
PartitionName=debug Nodes=n[1-${NODES}] Default=YES MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE
`,
    );
    execFileSync('bash', [SCRIPT, 'start', cluster], { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 90_000 });
  }, 100_000);

  afterAll(() => {
    execFileSync('bash', [SCRIPT, 'stop', cluster], { env, stdio: 'ignore', timeout: 60_000 });
  }, 70_000);

  it('30 jobs on 6 nodes: mean wait, p90 wait, makespan and per-job starts within the measured tolerance', async () => {
    const swf = join(dir, 'w.swf');
    writeFileSync(swf, traceToSwf(sleepTrace({ jobs: 30, seed: 11, minRun: 4, maxRun: 12, maxNodes: 3, platformNodes: NODES, load: 1.2, limitFactor: 3 }), 2));
    const conf = join(cluster, 'slurm.conf');
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const p = spawn(process.execPath, [CLI, 'slurm-replay', swf, '--slurm-conf', conf, '--live', '--json'], { env: { ...process.env, SLURM_CONF: conf } });
      let out = '';
      let err = '';
      p.stdout.on('data', (d) => (out += d));
      p.stderr.on('data', (d) => (err += d));
      p.on('close', (c) => resolve({ code: c, stdout: out, stderr: err }));
    });
    expect(code, stderr).toBe(0);
    const r = JSON.parse(stdout);
    const live = r.live[0];
    // the run started on the minute (its first submission's epoch time mod 60 s, from slurmctld's log): the
    // sbatch latency, 0.02-0.05 s on the idle machine; unaligned it would be anywhere in 0-60 s
    expect(live.clock_phase).toBeGreaterThanOrEqual(0);
    expect(live.clock_phase, stderr).toBeLessThan(2);
    expect(live.jobs).toHaveLength(30);
    for (const j of live.jobs) expect(j.state).toBe('completed');
    const cmp = r.comparison.engine_vs_live[0];
    const e = r.summary;
    const l = live.summary;
    const rel = (a: number, b: number) => Math.abs(a - b) / b;
    const report = JSON.stringify({ engine: e, live: l, start_diff: cmp.start_diff, ks: cmp.ks_wait });
    // Tolerances measured on this workload (docs/slurm.md, "CI"): three live runs (load average 14) gave engine
    // errors of -7 to -10 % (mean wait 5.4 vs 5.8-6.0 s), 0 to +4.5 % (p90 wait), -1.9 to -2.2 % (makespan),
    // per-job start differences of 0.44-0.56 s (median; live vs live 0.11 s) and a KS distance of 0.13. The bounds
    // leave about 2.5 times that room for a busier or quieter machine (CI runs other tests beside this one).
    // A later CI run on the idle machine measured a median start difference of 1.56 s (mean wait -12 %, p90
    // +0.4 %, makespan -1.9 %, KS 0.2): Slurm's own run differed from the three above (no overtaking where
    // they had some), so the start-difference bound is 3 s, about twice that.
    expect(e.mean_wait, report).toBeLessThanOrEqual(l.mean_wait + 1);
    expect(rel(e.mean_wait, l.mean_wait), report).toBeLessThanOrEqual(0.25);
    expect(rel(e.p90_wait, l.p90_wait), report).toBeLessThanOrEqual(0.25);
    expect(rel(e.makespan, l.makespan), report).toBeLessThanOrEqual(0.06);
    expect(cmp.start_diff.median, report).toBeLessThanOrEqual(3);
    expect(cmp.ks_wait, report).toBeLessThanOrEqual(0.35);
  }, 200_000);
});
