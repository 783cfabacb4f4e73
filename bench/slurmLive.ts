/**
 * `npm run bench -- slurm-live`: the engine against a live Slurm on every cell of issue 43's matrix
 * (`src/slurm/liveMatrix.ts`, docs/slurm.md "The engine on any sane configuration"). For each cell: a
 * cluster of 8 emulated nodes (`deploy/slurm/local-cluster.sh`, the cell's slurm.conf lines), a workload
 * drawn fresh (a seed from the system's random source, unless given), two live runs of it
 * (`liveReplay`, each starting on the whole minute), the engine configured by the cluster's own slurm.conf,
 * and the verdict (`compareWithLive`). Each cell's files go to `OUT/CELL/` in `slurm-replay --out`'s layout
 * (`workload.json`, `live-1.json`, `live-2.json`, `engine.json`, `comparison.json`, `slurm.conf`), so that
 * `clustergym slurm-replay OUT/CELL/workload.json --slurm-conf OUT/CELL/slurm.conf --live-from OUT/CELL`
 * compares any later engine with the same runs.
 *
 * Environment: `SLURM_LIVE_CELLS` (comma-separated cell names or job kinds, default all 24),
 * `SLURM_LIVE_OUT` (default a new directory under the system's temp dir), `SLURM_LIVE_PORTS` (PORT_BASEs,
 * one cluster at a time on each: default `6917,6967`), `SLURM_LIVE_JOBS` (30), `SLURM_LIVE_SEED` (a fixed
 * seed for every cell instead of fresh ones). Needs root and Debian's slurm-wlm and munge; about 10
 * minutes per cell (two runs of 3-4 minutes, each waiting up to a minute for the whole minute), cells run
 * in parallel on the ports given. Reports each cell's verdict and the load average before and after.
 */
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PACKAGE_ROOT } from '../src/core/paths.js';
import { compareWithLive, engineForRun } from '../src/slurm/agreement.js';
import { liveReplay, savedRun } from '../src/slurm/live.js';
import { MATRIX_CPUS, MATRIX_MEMORY, MATRIX_NODES, type MatrixCell, cellConfLines, cellWorkload, matrixCells } from '../src/slurm/liveMatrix.js';
import { readSlurmConf } from '../src/slurm/slurmConf.js';
import { type TraceJob, readTrace, traceToSacctJson } from '../src/slurm/records.js';
import { replayJobs, summarise } from '../src/slurm/trace.js';

const SCRIPT = resolve(PACKAGE_ROOT, 'deploy/slurm/local-cluster.sh');

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * One cell: cluster up, workload, two live runs, engine, verdict, cluster down. `gpu` (issue 45, `bench/slurmGpu.ts`):
 * the cluster's emulated GPUs (local-cluster.sh's `GPUS`) and the workload to run instead of the cell's.
 */
export async function runCell(
  cell: MatrixCell,
  dir: string,
  portBase: number,
  seed: number,
  jobs: number,
  gpu?: { gpus: string; workload: TraceJob[] },
): Promise<Record<string, unknown>> {
  mkdirSync(dir, { recursive: true });
  const cluster = join(dir, 'cluster');
  writeFileSync(join(dir, 'extra.conf'), cellConfLines(cell));
  const env = {
    ...process.env,
    NODES: String(MATRIX_NODES),
    CPUS: String(MATRIX_CPUS),
    MEMORY: String(MATRIX_MEMORY),
    PORT_BASE: String(portBase),
    SLURM_CONF_EXTRA: join(dir, 'extra.conf'),
    ...(gpu ? { GPUS: gpu.gpus } : {}),
  };
  const up = spawnSync('bash', [SCRIPT, 'start', cluster], { env, encoding: 'utf8', timeout: 120_000 });
  if (up.status !== 0) return { cell: cell.name, error: `local-cluster.sh start: ${up.stderr.trim().split('\n').slice(-2).join(' | ')}` };
  const load0 = loadavg()[0]!;
  try {
    const confFile = join(cluster, 'slurm.conf');
    copyFileSync(confFile, join(dir, 'slurm.conf'));
    const conf = readSlurmConf(confFile);
    const workload = join(dir, 'workload.json');
    writeFileSync(workload, traceToSacctJson(gpu?.workload ?? cellWorkload(cell.jobs, seed, jobs)));
    const replay = replayJobs(readTrace(workload), conf);
    const units = new Map(replay.map((j) => [j.id, j.units]));
    const capacity = conf.platform.groups.reduce((a, g) => a + g.count * g.cores, 0);
    const res = cell.bfResolution;
    const live = [];
    for (let r = 1; r <= 2; r++) {
      const run = await liveReplay(replay, {
        slurmConf: confFile,
        wholeNodes: conf.wholeNodes,
        partitions: conf.partitions.map((p) => p.name),
        alignTo: (res * 30) / gcd(res, 30),
        log: (l) => console.error(`slurm-live ${cell.name} run ${r}: ${l}`),
      });
      const saved = savedRun(
        run,
        summarise(run.jobs, capacity, (id) => units.get(id) ?? 0),
      );
      writeFileSync(join(dir, `live-${r}.json`), `${JSON.stringify(saved, null, 1)}\n`);
      live.push(saved);
    }
    // the engine on each live run's own timers (slurmctld's log), its jobs as that run submitted and ran them
    const engines = live.map((l) => engineForRun(replay, conf, l));
    for (const [k, e] of engines.entries()) writeFileSync(join(dir, `engine-${k + 1}.json`), `${JSON.stringify(e, null, 1)}\n`);
    const cmp = compareWithLive(engines, live);
    writeFileSync(join(dir, 'comparison.json'), `${JSON.stringify(cmp, null, 1)}\n`);
    const a = cmp.agreement;
    return {
      cell: cell.name,
      seed,
      jobs,
      holds: a.holds,
      metrics: Object.fromEntries(
        a.metrics.map((m) => [m.metric, { engine: m.engine, live: m.live_mean, rel: m.relative_error, tol: m.tolerance, holds: m.holds }]),
      ),
      start_diff: a.start_diff,
      clock_phases: live.map((l) => l.clock_phase),
      load: [load0, loadavg()[0]],
      dir,
    };
  } catch (e) {
    return { cell: cell.name, seed, error: (e as Error).message };
  } finally {
    spawnSync('bash', [SCRIPT, 'stop', cluster], { env, stdio: 'ignore', timeout: 60_000 });
  }
}

/** The `slurm-live` bench section. */
export async function benchSlurmLive(): Promise<Record<string, unknown>> {
  if (process.getuid?.() !== 0 || !existsSync('/usr/sbin/slurmctld')) return { skipped: 'needs root and slurm-wlm + munge (apt-get install slurm-wlm munge)' };
  const want = (process.env.SLURM_LIVE_CELLS ?? '').split(',').filter((x) => x !== '');
  const cells = matrixCells().filter((c) => want.length === 0 || want.includes(c.name) || want.includes(c.jobs));
  const out = process.env.SLURM_LIVE_OUT ?? mkdtempSync(join(tmpdir(), 'cg-slurm-live-'));
  const ports = (process.env.SLURM_LIVE_PORTS ?? '6917,6967').split(',').map(Number);
  const jobs = Number(process.env.SLURM_LIVE_JOBS ?? 30);
  const fixed = process.env.SLURM_LIVE_SEED;
  const load = loadavg()[0];
  const queue = [...cells];
  const rows: Record<string, unknown>[] = [];
  await Promise.all(
    ports.map(async (port) => {
      for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
        const seed = fixed !== undefined ? Number(fixed) : randomInt(1, 2 ** 31 - 1);
        console.error(`slurm-live: ${c.name} (seed ${seed}) on PORT_BASE ${port}`);
        const row = await runCell(c, join(out, c.name), port, seed, jobs);
        console.error(`slurm-live: ${JSON.stringify(row)}`);
        rows.push(row);
      }
    }),
  );
  rows.sort((a, b) => cells.findIndex((c) => c.name === a.cell) - cells.findIndex((c) => c.name === b.cell));
  return { out, cells: rows, holds: rows.filter((r) => r.holds === true).length, of: rows.length, load_before: load, load_after: loadavg()[0] };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await benchSlurmLive(), null, 2));
}
