/**
 * Benchmark of the Slurm engine at Raijin's scale (issue 17, seed 004): `reproduce raijin` with
 * 1,000,000 jobs (the shrink sweep 100:50:10, six replays of the million jobs on 57,600 cores with
 * multifactor priority, backfill and operator suspensions), then the trace's own size, 4,417,018 jobs,
 * replayed once at shrink 100. Targets: >= 30,000 jobs/s and a peak RSS under 2 GB. The same sweep then runs on
 * the one engine's Slurm preset (`--engine one`): its jobs/s, its ratio to the Slurm engine's, and whether its
 * sweep table is the same (issue 42).
 *
 * `jobs_per_s` counts every job replayed (jobs x shrink factors) over the wall time. The peak RSS is
 * the process's (`maxRSS`): run the section alone for a figure of its own
 * (`npm run bench -- slurm`, or `npm run build && node dist/bench/slurm.js [jobs]`).
 */
import { pathToFileURL } from 'node:url';
import { quantileOf } from '../src/core/statistics.js';
import { buildModule, cpuSeconds } from './builds.js';
import { runRaijinExperiment } from '../src/slurm/experiment.js';
import { RAIJIN_PLATFORM, SlurmPlatform } from '../src/slurm/platform.js';
import { runSlurmPreset } from '../src/slurm/preset.js';
import { replay, runworkload } from '../src/slurm/replay.js';
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
  // the same sweep on the one engine's Slurm preset (issue 42: its jobs/s beside the Slurm engine's)
  const t2 = performance.now();
  const one = runRaijinExperiment({ jobs, seed: 1, shrink: '100:50:10', group: 10, load: 0.85, engine: 'one' });
  const oneSweep = {
    wall_s: Math.round(((performance.now() - t2) / 1000) * 10) / 10,
    jobs_per_s: one.raijin.jobs_per_s,
    over_slurm_engine: Math.round((one.raijin.jobs_per_s / r.raijin.jobs_per_s) * 1000) / 1000,
    findings_hold: one.findings.every((f) => f.holds),
    same_sweep: JSON.stringify(one.raijin.shrink_sweep) === JSON.stringify(r.raijin.shrink_sweep),
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
    raijin_1m_sweep_one_engine: oneSweep,
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

/** What the `slurm-preset` section runs of one build (this one, or the baseline's `dist/`): its Slurm engine. */
interface SlurmSubject {
  platform: typeof import('../src/slurm/platform.js');
  engine: typeof import('../src/slurm/engine.js');
}

/** A build's Slurm engine (a baseline's may predate the preset: e739207, the commit that filed issue 42, has none). */
async function loadSlurm(dist: string | null): Promise<SlurmSubject> {
  const at = (p: string) => buildModule(dist, p);
  return {
    platform: await import(at('src/slurm/platform.js')),
    engine: await import(at('src/slurm/engine.js')),
  };
}

const cpu = cpuSeconds;

const median = (v: number[]): number => quantileOf(v, 0.5);

/**
 * The `slurm-preset` section (issue 42): the Slurm engine and the one engine running its preset
 * (`src/slurm/preset.ts`) side by side on the same Raijin replay (shrink 100, 57,600 cores, multifactor
 * priority, backfill, operator suspensions; `jobs` jobs; the one engine's run converts the jobs as it takes
 * them, `runSlurmPreset`), `rounds` interleaved rounds after a warm-up round: the median CPU time of each
 * engine's run, jobs per CPU second, the median of the rounds' ratios, and how many jobs get the same start
 * and end in both, to 1e-9 relative (`bit_identical`: to the bit; the end of a suspended job is a sum the two
 * engines take in another order, and a job started at such an end inherits the last bits).
 *
 * **Beside another build** (`CLUSTERGYM_BENCH_BASELINE=DIR`, the `dist/` of that build, e.g. of the commit
 * that filed issue 42: `git worktree add /tmp/base e739207 && cd /tmp/base && npm ci && npx tsc`, then
 * `DIR=/tmp/base/dist`): that build's Slurm engine runs in the same rounds, and `baseline` holds its jobs per
 * CPU second and the preset's ratio to it (the issue's "today's jobs/s").
 */
export async function benchSlurmPreset(jobs = 200_000, rounds = 5): Promise<Record<string, unknown>> {
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
  const here = await loadSlurm(null);
  const dir = process.env.CLUSTERGYM_BENCH_BASELINE;
  const base = dir ? await loadSlurm(dir) : null;
  const slurmRun = (m: SlurmSubject, onEnd?: (id: number, start: number, end: number) => void): number => {
    const t = cpu();
    const e = new m.engine.SlurmEngine(new m.platform.SlurmPlatform(m.platform.RAIJIN_PLATFORM), config);
    if (onEnd) e.onFinish((J, s) => onEnd(J.id[s]!, J.start[s]!, J.end[s]!));
    e.stream(input);
    e.run();
    return cpu() - t;
  };
  const presetRun = (onEnd?: (id: number, start: number, end: number) => void): number => {
    const t = cpu();
    runSlurmPreset(RAIJIN_PLATFORM, input, config, onEnd ? [{ onEnd: (_s, r) => onEnd(Number(r.job.id), r.start, r.finish) }] : []);
    return cpu() - t;
  };
  // the warm-up round compares the schedules
  const slurm = new Map<number, [number, number]>();
  const one = new Map<number, [number, number]>();
  slurmRun(here, (id, a, b) => void slurm.set(id, [a, b]));
  presetRun((id, a, b) => void one.set(id, [a, b]));
  if (base) slurmRun(base);
  const t = { slurm: [] as number[], one: [] as number[], base: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    t.slurm.push(slurmRun(here));
    t.one.push(presetRun());
    if (base) t.base.push(slurmRun(base));
  }
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
  const rate = (v: number[]) => Math.round(input.length / median(v));
  const ratio = (num: number[], den: number[]) => Math.round(median(num.map((x, i) => x / den[i]!)) * 1000) / 1000;
  return {
    jobs: input.length,
    rounds,
    slurm_engine_jobs_per_cpu_s: rate(t.slurm),
    one_engine_jobs_per_cpu_s: rate(t.one),
    one_over_slurm: ratio(t.slurm, t.one),
    same_start_and_end: same,
    bit_identical: exact,
    jobs_compared: slurm.size,
    ...(base ? { baseline: { dist: dir, slurm_engine_jobs_per_cpu_s: rate(t.base), one_over_baseline_slurm: ratio(t.base, t.one) } } : {}),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const n = process.argv[2] ? Number(process.argv[2]) : undefined;
  console.log(JSON.stringify(process.argv[3] === 'preset' ? await benchSlurmPreset(n) : benchSlurm(n), null, 2));
}
