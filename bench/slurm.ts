/**
 * Benchmark of the Slurm engine at Raijin's scale (issue 17, seed 004): `reproduce raijin` with
 * 1,000,000 jobs (the shrink sweep 100:50:10, six replays of the million jobs on 57,600 cores with
 * multifactor priority, backfill and operator suspensions), then the trace's own size, 4,417,018 jobs,
 * replayed once at shrink 100. Targets: >= 30,000 jobs/s and a peak RSS under 2 GB.
 *
 * `jobs_per_s` counts every job replayed (jobs x shrink factors) over the wall time. The peak RSS is
 * the process's (`maxRSS`): run the section alone for a figure of its own
 * (`npm run bench -- slurm`, or `npm run build && node dist/bench/slurm.js [jobs]`).
 */
import { pathToFileURL } from 'node:url';
import { runRaijinExperiment } from '../src/slurm/experiment.js';
import { RAIJIN_PLATFORM, SlurmPlatform } from '../src/slurm/platform.js';
import { replay, runworkload } from '../src/slurm/replay.js';
import { SlurmEngine } from '../src/slurm/engine.js';
import { runSlurmPreset } from '../src/slurm/preset.js';
import { DEFAULT_RAIJIN_WORKLOAD, raijinWorkload } from '../src/slurm/workload.js';

const rss = () => Math.round(process.resourceUsage().maxRSS / 1024);

/** The `slurm` bench section. */
export function benchSlurm(jobs = 1_000_000, traceJobs = 4_417_018): Record<string, unknown> {
  const t0 = performance.now();
  const r = runRaijinExperiment({ jobs, seed: 1, shrink: '100:50:10', group: 10, load: 0.85 });
  const sweepSeconds = (performance.now() - t0) / 1000;
  const sweep = {
    jobs,
    shrink_factors: r.raijin.shrink_sweep.length,
    wall_s: Math.round(sweepSeconds * 10) / 10,
    jobs_per_s: r.raijin.jobs_per_s,
    findings_hold: r.findings.every((f) => f.holds),
    suspended_jobs: r.raijin.suspended_jobs,
    suspend_accounting_violations: r.raijin.suspend_accounting_violations,
    mean_wait_100: r.raijin.shrink_sweep[0]?.mean_wait,
    utilisation_100: r.raijin.shrink_sweep[0]?.utilisation,
    peak_rss_mb: rss(),
  };
  const t1 = performance.now();
  const m = replay(
    new SlurmPlatform(RAIJIN_PLATFORM),
    raijinWorkload({ jobs: traceJobs, seed: 1, load: 0.85 }),
    { shrink: 100, warmup: 10_000, group: 10, drift: 0, meanGap: DEFAULT_RAIJIN_WORKLOAD.meanGap },
    { users: DEFAULT_RAIJIN_WORKLOAD.users },
  );
  const s = (performance.now() - t1) / 1000;
  return {
    raijin_1m_sweep: sweep,
    trace_scale: {
      jobs: traceJobs,
      wall_s: Math.round(s * 10) / 10,
      jobs_per_s: Math.round(traceJobs / s),
      simulated_days: Math.round(m.makespan / 864) / 100,
      mean_wait: Math.round(m.mean_wait * 10) / 10,
      utilisation: Math.round(m.utilisation * 1e4) / 1e4,
      suspend_accounting_violations: m.suspend_accounting_violations,
      peak_rss_mb: rss(),
    },
  };
}

/**
 * The `slurm-preset` section (issue 42): the Slurm engine and the one engine running its preset
 * (`src/slurm/preset.ts`) side by side on the same Raijin replay (shrink 100, 57,600 cores, multifactor
 * priority, backfill, operator suspensions; `jobs` jobs; the one engine's run converts the jobs as it takes
 * them, `runSlurmPreset`): CPU time of each run, jobs per CPU second, their
 * ratio, and how many jobs get the same start and end in both, to 1e-9 relative (`bit_identical`: to the
 * bit; the end of a suspended job is a sum the two engines take in another order, and a job started at such
 * an end inherits the last bits).
 */
export function benchSlurmPreset(jobs = 200_000): Record<string, unknown> {
  const input = [
    ...runworkload(raijinWorkload({ jobs, seed: 1, load: 0.85 }), {
      shrink: 100,
      warmup: 1000,
      group: 10,
      drift: 0,
      meanGap: DEFAULT_RAIJIN_WORKLOAD.meanGap,
    }),
  ];
  const config = { users: DEFAULT_RAIJIN_WORKLOAD.users };
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  };
  let t = cpu();
  const slurm = new Map<number, [number, number]>();
  const e = new SlurmEngine(new SlurmPlatform(RAIJIN_PLATFORM), config);
  e.onFinish((J, s) => void slurm.set(J.id[s]!, [J.start[s]!, J.end[s]!]));
  e.stream(input);
  e.run();
  const slurmCpu = cpu() - t;
  t = cpu();
  const one = new Map<number, [number, number]>();
  runSlurmPreset(RAIJIN_PLATFORM, input, config, [{ onEnd: (_s, r) => void one.set(Number(r.job.id), [r.start, r.finish]) }]);
  const oneCpu = cpu() - t;
  let same = 0;
  let exact = 0;
  const close = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y));
  for (const [id, [a, b]] of slurm) {
    const o = one.get(id);
    if (o === undefined) continue;
    // the end of a suspended job is a sum the engines take in another order (equal to the last bits), and a
    // job started at such an end inherits it
    if (close(o[0], a) && close(o[1], b)) same++;
    if (o[0] === a && o[1] === b) exact++;
  }
  return {
    jobs: input.length,
    slurm_engine_jobs_per_cpu_s: Math.round(input.length / slurmCpu),
    one_engine_jobs_per_cpu_s: Math.round(input.length / oneCpu),
    one_over_slurm: Math.round((slurmCpu / oneCpu) * 1000) / 1000,
    same_start_and_end: same,
    bit_identical: exact,
    jobs_compared: slurm.size,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const n = process.argv[2] ? Number(process.argv[2]) : undefined;
  console.log(JSON.stringify(process.argv[3] === 'preset' ? benchSlurmPreset(n) : benchSlurm(n), null, 2));
}
