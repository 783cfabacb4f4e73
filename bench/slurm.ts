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
import { replay } from '../src/slurm/replay.js';
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

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const n = process.argv[2] ? Number(process.argv[2]) : undefined;
  console.log(JSON.stringify(benchSlurm(n), null, 2));
}
