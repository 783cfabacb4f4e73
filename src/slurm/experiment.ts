/**
 * `clustergym reproduce raijin`: seed 004's emulation of Raijin under Slurm (§3.1, §3.3, §4.1, §4.2).
 *
 * A Raijin-like workload of `jobs` jobs (default 1,000,000; `workload.ts`) is replayed with runworkload
 * on the 57,600-core platform (`RAIJIN_PLATFORM`) under multifactor priority and backfill, once per
 * shrink factor (`--shrink 100:50:10`), with the workload's timed operator suspensions; calcmets'
 * figures come from the job records. The fragment of the seed has no table of the shrink sweep's
 * results, so the findings are what the document states and what its methodology guarantees:
 *
 * - `size-shares`: the job-size shares of Table 4.1 (1 core 49%, 2: 11%, 4: 5%, 8: 7%, 16: 8%, 48: 4%,
 *   64: 6%, the rest 10%), each within 1 point (or, on runs too small for that, 4 binomial standard
 *   errors `sqrt(p (1 - p) / n)`: above 40,000 jobs it is always 1 point), counted from the replay's records;
 * - `su-one-core`: Table 4.2's 1.6% of the service units used by one-core jobs, within 0.4 points or 4
 *   standard errors of the sampled share, whichever is larger (service units are heavy-tailed: at 5,000
 *   jobs the share of a seed varies by about ±0.5 points, at 1,000,000 by a few hundredths);
 * - `accounting`: zero jobs whose end is not start + run time + suspended time (sigsleep's records,
 *   §3.3.1), with suspended jobs present, at every shrink factor;
 * - `scaling`: runworkload shrinks submission, requested and actual times by the same factor, so the
 *   work replayed at factor f is f/100 of the work at 100 (relative error below 1e-9) and the offered
 *   load does not change: the utilisation of every factor is within 2 points of the 100% run's;
 * - `warm-up`: the metrics cover exactly the jobs after the warm-up ones (none cancelled, none refused).
 *
 * `--out DIR` writes `raijin-shrink-F.json` (calcmets' figures) per factor and `raijin-sweep.csv`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../core/errors.js';
import { type Finding, type ReproduceReport, finding } from '../report/findings.js';
import type { SlurmConfig } from './config.js';
import { RAIJIN_PLATFORM, SlurmPlatform, loadSlurmPlatform } from './platform.js';
import { type CalcMets, replay, shrinkFactors } from './replay.js';
import { DEFAULT_RAIJIN_WORKLOAD, TABLE_4_1, raijinWorkload } from './workload.js';

/** Parameters of the experiment. */
export interface RaijinExperimentOptions {
  jobs: number;
  seed: number;
  /** `FROM:TO:STEP` in percent. */
  shrink: string;
  /** Warm-up jobs (default 1% of the jobs, at most 10,000). */
  warmup?: number;
  /** Jobs per submission group. */
  group: number;
  /** Offered load of the workload. */
  load: number;
  /** A Slurm platform file (default: `RAIJIN_PLATFORM`); jobs go to its first partition. */
  platform?: string | undefined;
  /** Scheduler settings (defaults: `DEFAULT_SLURM`). */
  config?: Partial<SlurmConfig>;
  out?: string | undefined;
}

/** The report, with the summary fields. */
export interface RaijinReport extends ReproduceReport {
  raijin: {
    jobs: number;
    cores: number;
    size_shares: Record<string, number>;
    su_share_1core: number;
    suspended_jobs: number;
    suspend_accounting_violations: number;
    shrink_sweep: { shrink: number; mean_wait: number; mean_response: number; mean_slowdown: number; weighted_slowdown: number; utilisation: number }[];
    jobs_per_s: number;
    peak_rss_mb: number;
  };
}

const r4 = (v: number) => Math.round(v * 1e4) / 1e4;

/** Runs the sweep and checks the findings. */
export function runRaijinExperiment(o: RaijinExperimentOptions, log: (line: string) => void = () => {}): RaijinReport {
  const t0 = performance.now();
  const platform = o.platform ? loadSlurmPlatform(o.platform) : new SlurmPlatform(RAIJIN_PLATFORM);
  // jobs go to the first partition: its largest group must hold Table 4.1's largest named size
  const part0 = platform.partitions[0]!;
  const groupMax = Math.max(...part0.groups.map((g) => platform.groupCores[g]!));
  const needed = Math.max(...TABLE_4_1.map(([n]) => n));
  if (groupMax < needed)
    throw new InputError(
      `partition ${JSON.stringify(part0.name)}'s largest node group has ${groupMax} cores; the Raijin-like workload needs ${needed} (Table 4.1's largest named job size)`,
      o.platform ?? '--platform',
    );
  const maxRestCores = Math.min(DEFAULT_RAIJIN_WORKLOAD.maxRestCores, groupMax);
  const maxTime = Math.min(DEFAULT_RAIJIN_WORKLOAD.maxTime, platform.partitions[0]!.maxTime);
  const factors = shrinkFactors(o.shrink);
  const warmup = o.warmup ?? Math.min(10_000, Math.floor(o.jobs / 100));
  const wl = { ...DEFAULT_RAIJIN_WORKLOAD, jobs: o.jobs, seed: o.seed, load: o.load, totalCores: platform.totalCores, maxRestCores, maxTime };
  const runs: CalcMets[] = [];
  for (const f of factors) {
    const t = performance.now();
    const m = replay(platform, raijinWorkload(wl), { shrink: f, warmup, group: o.group, drift: 0, meanGap: wl.meanGap }, { users: wl.users, ...o.config });
    runs.push(m);
    const s = (performance.now() - t) / 1000;
    log(
      `shrink ${f}%: ${o.jobs} jobs in ${s.toFixed(1)} s (${Math.round(o.jobs / s)} jobs/s), mean wait ${m.mean_wait.toFixed(1)} s, utilisation ${(m.utilisation * 100).toFixed(1)}%`,
    );
    if (o.out) writeFileSync(join(o.out, `raijin-shrink-${f}.json`), `${JSON.stringify(m, null, 1)}\n`);
  }
  const seconds = (performance.now() - t0) / 1000;
  const base = runs[0]!;
  const shares: Record<string, number> = {};
  let named = 0;
  for (const [n] of TABLE_4_1) {
    shares[String(n)] = (base.size_counts[String(n)] ?? 0) / base.jobs;
    named += shares[String(n)]!;
  }
  const rest = 1 - named;
  shares.rest = rest;
  // within 1 point, or 4 binomial standard errors sqrt(p (1 - p) / n) when the run is small
  const tol = (p: number) => Math.max(0.01, 4 * Math.sqrt((p * (1 - p)) / base.jobs));
  const classes: [number, number][] = [...TABLE_4_1.map(([n, p]): [number, number] => [shares[String(n)]!, p]), [rest, 0.1]];
  const shareDiff = Math.max(...classes.map(([got, p]) => Math.abs(got - p)));
  const sharesHold = classes.every(([got, p]) => Math.abs(got - p) <= tol(p));
  // within 0.4 points, or 4 standard errors of the sampled share when the run is small
  const suTol = Math.max(0.4, 4 * base.su_share_1core_se * 100);
  const suspended = runs.reduce((a, r) => a + r.suspended_jobs, 0);
  const violations = runs.reduce((a, r) => a + r.suspend_accounting_violations, 0);
  const scaleErr = Math.max(...runs.map((r) => Math.abs(r.service_units / (base.service_units * (r.shrink / base.shrink)) - 1)));
  const utilSpread = Math.max(...runs.map((r) => Math.abs(r.utilisation - base.utilisation)));
  const warmOk = runs.every((r) => r.measured === r.jobs - warmup && r.cancelled === 0 && r.refused === 0);
  const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
  const findings: Finding[] = [
    finding(
      'size-shares',
      'Job sizes 1, 2, 4, 8, 16, 48, 64 make up 49, 11, 5, 7, 8, 4, 6% of the jobs, the rest 10%',
      'Table 4.1: 49/11/5/7/8/4/6%, rest 10%',
      shareDiff * 100,
      () => sharesHold,
      (v) =>
        `${TABLE_4_1.map(([n]) => pct(shares[String(n)]!)).join('/')}, rest ${pct(rest)} (max diff ${v.toFixed(2)} pt, tolerance ${(tol(0.49) * 100).toFixed(2)} pt for 1 core)`,
    ),
    finding(
      'su-one-core',
      'One-core jobs use only 1.6% of the service units',
      'Table 4.2 / §4.1: 1.6%',
      base.su_share_1core * 100,
      (v) => Math.abs(v - 1.6) <= suTol,
      (v) => `${v.toFixed(2)}% (standard error ${(base.su_share_1core_se * 100).toFixed(2)} pt, tolerance ${suTol.toFixed(2)} pt)`,
    ),
    finding(
      'accounting',
      'A suspended job ends at start + run time + suspended time (sigsleep, §3.3.1)',
      '0 violations, suspended jobs present',
      violations,
      (v) => v === 0 && suspended > 0,
      (v) => `${v} violations, ${suspended} suspended jobs over ${runs.length} replays`,
    ),
    finding(
      'scaling',
      'runworkload shrinks submission, requested and actual times by the same factor (§3.3.2)',
      'work at f = f/100 x work at 100; same offered load',
      utilSpread * 100,
      (v) => scaleErr < 1e-9 && v <= 2,
      (v) => `work error ${scaleErr.toExponential(1)}, utilisation ${runs.map((r) => pct(r.utilisation)).join(' ')} (spread ${v.toFixed(2)} pt)`,
    ),
    finding(
      'warm-up',
      'Warm-up jobs are submitted first and left out of the metrics (Algorithm 3.2)',
      `${warmup} warm-up jobs excluded`,
      warmOk ? 1 : 0,
      (v) => v === 1,
      () => `${runs.map((r) => r.measured).join('/')} jobs measured`,
    ),
  ];
  const sweep = runs.map((r) => ({
    shrink: r.shrink,
    mean_wait: r4(r.mean_wait),
    mean_response: r4(r.mean_response),
    mean_slowdown: r4(r.mean_slowdown),
    weighted_slowdown: r4(r.weighted_slowdown),
    utilisation: r4(r.utilisation),
  }));
  const tableRows = runs.map((r, i) => ({
    ...sweep[i]!,
    measured_jobs: r.measured,
    backfilled: r.backfilled,
    suspended_jobs: r.suspended_jobs,
    timeouts: r.timeouts,
    violations: r.suspend_accounting_violations,
    makespan_s: Math.round(r.makespan),
  }));
  if (o.out) {
    const keys = Object.keys(tableRows[0]!);
    writeFileSync(
      join(o.out, 'raijin-sweep.csv'),
      `${keys.join(',')}\n${tableRows.map((r) => keys.map((k) => (r as Record<string, number>)[k]).join(',')).join('\n')}\n`,
    );
  }
  const totalJobs = o.jobs * runs.length;
  return {
    name: 'raijin',
    source: '../shared/seeds/004_4c6a831986c6dccf.txt §3.1, §3.3 (sigsleep, runworkload, calcmets), §4.1 (Tables 4.1, 4.2)',
    seed: o.seed,
    parameters: {
      platform: o.platform ?? 'raijin (built in)',
      jobs: o.jobs,
      shrink: factors,
      warmup,
      group: o.group,
      load: o.load,
      cores: platform.totalCores,
      users: wl.users,
    },
    tables: {
      shrink_sweep: tableRows,
      size_shares: [
        ...TABLE_4_1.map(([n, p]) => ({ size: String(n), paper: p, this_run: r4(shares[String(n)]!) })),
        { size: 'rest', paper: 0.1, this_run: r4(rest) },
      ],
    },
    findings,
    seconds,
    raijin: {
      jobs: o.jobs,
      cores: platform.totalCores,
      size_shares: Object.fromEntries(Object.entries(shares).map(([k, v]) => [k, r4(v)])),
      su_share_1core: r4(base.su_share_1core),
      suspended_jobs: suspended,
      suspend_accounting_violations: violations,
      shrink_sweep: sweep,
      jobs_per_s: Math.round(totalJobs / seconds),
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    },
  };
}
