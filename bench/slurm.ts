/**
 * Benchmark of Slurm at Raijin's scale (issue 17, seed 004) on the one engine's Slurm preset (the Slurm engine it
 * replaced was retired in issue 42): `reproduce raijin` with 1,000,000 jobs (the shrink sweep 100:50:10, six
 * replays of the million jobs on 57,600 cores with multifactor priority, backfill and operator suspensions), then
 * the trace's own size, 4,417,018 jobs, replayed once at shrink 100. Targets: >= 30,000 jobs/s and a peak RSS under
 * 2 GB.
 *
 * **Beside another build** (`CLUSTERGYM_BENCH_BASELINE=DIR`, the `dist/` of that build; bench/builds.ts): the
 * `slurm` section runs that build's `reproduce raijin` sweep too (a build from before the retirement runs its
 * default, the Slurm engine: issue 42's "the Slurm 1M-job, 57,600-core benchmark at least 90 % of today's jobs/s
 * in the same run"), its jobs/s, this build's ratio to it and whether the sweep tables are the same; the
 * `slurm-preset` section interleaves shorter runs of both builds in CPU time (`benchSlurmPreset`).
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
import type { SlurmJobInput } from '../src/slurm/config.js';
import { runSlurmPreset } from '../src/slurm/preset.js';
import { replay, runworkload } from '../src/slurm/replay.js';
import { DEFAULT_RAIJIN_WORKLOAD, raijinWorkload } from '../src/slurm/workload.js';

const rss = () => Math.round(process.resourceUsage().maxRSS / 1024);

/** The `slurm` bench section. */
export async function benchSlurm(jobs = 1_000_000, traceJobs = 4_417_018): Promise<Record<string, unknown>> {
  const options = { jobs, seed: 1, shrink: '100:50:10', group: 10, load: 0.85 };
  const t0 = performance.now();
  const r = runRaijinExperiment(options);
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
  // the same sweep on the baseline build (before issue 42's retirement: its Slurm engine)
  const dir = process.env.CLUSTERGYM_BENCH_BASELINE;
  let baseline: Record<string, unknown> | undefined;
  if (dir) {
    const m = (await import(buildModule(dir, 'src/slurm/experiment.js'))) as typeof import('../src/slurm/experiment.js');
    const t2 = performance.now();
    const b = m.runRaijinExperiment(options);
    baseline = {
      dist: dir,
      wall_s: Math.round(((performance.now() - t2) / 1000) * 10) / 10,
      jobs_per_s: b.raijin.jobs_per_s,
      over_baseline: Math.round((r.raijin.jobs_per_s / b.raijin.jobs_per_s) * 1000) / 1000,
      findings_hold: b.findings.every((f) => f.holds),
      same_sweep: JSON.stringify(b.raijin.shrink_sweep) === JSON.stringify(r.raijin.shrink_sweep),
    };
  }
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
    ...(baseline ? { raijin_1m_sweep_baseline: baseline } : {}),
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

/** A Raijin replay of a build: the CPU seconds it took, each job's start and end to `onEnd`. */
type SlurmRun = (input: readonly SlurmJobInput[], config: { users: number }, onEnd?: (id: number, start: number, end: number) => void) => number;

/**
 * The baseline build's run of the replay: its Slurm engine when it has one (a build from before issue 42 retired
 * it, e.g. e739207, the commit that filed the issue, which has no preset), else its Slurm preset.
 */
async function baselineRun(dir: string): Promise<{ engine: 'slurm engine' | 'slurm preset'; run: SlurmRun }> {
  const platform = (await import(buildModule(dir, 'src/slurm/platform.js'))) as typeof import('../src/slurm/platform.js');
  let engine: { SlurmEngine: new (...args: unknown[]) => SlurmEngineLike } | null = null;
  try {
    engine = await import(buildModule(dir, 'src/slurm/engine.js'));
  } catch {
    engine = null;
  }
  if (engine !== null) {
    const E = engine.SlurmEngine;
    return {
      engine: 'slurm engine',
      run: (input, config, onEnd) => {
        const t = cpuSeconds();
        const e = new E(new platform.SlurmPlatform(platform.RAIJIN_PLATFORM), config);
        if (onEnd) e.onFinish((J, s) => onEnd(J.id[s]!, J.start[s]!, J.end[s]!));
        e.stream(input);
        e.run();
        return cpuSeconds() - t;
      },
    };
  }
  const preset = (await import(buildModule(dir, 'src/slurm/preset.js'))) as typeof import('../src/slurm/preset.js');
  return { engine: 'slurm preset', run: presetRunOf(preset.runSlurmPreset) };
}

/** What the bench reads of a baseline build's Slurm engine (src/slurm/engine.ts before issue 42 retired it). */
interface SlurmEngineLike {
  onFinish(f: (J: { id: ArrayLike<number>; start: ArrayLike<number>; end: ArrayLike<number> }, s: number) => void): void;
  stream(jobs: Iterable<SlurmJobInput>): void;
  run(): void;
}

/** The replay on a build's Slurm preset. */
function presetRunOf(run: typeof runSlurmPreset): SlurmRun {
  return (input, config, onEnd) => {
    const t = cpuSeconds();
    run(RAIJIN_PLATFORM, input, config, onEnd ? [{ onEnd: (_s, r) => onEnd(Number(r.job.id), r.start, r.finish) }] : []);
    return cpuSeconds() - t;
  };
}

const median = (v: number[]): number => quantileOf(v, 0.5);

/**
 * Slurm-v0's env steps per second (issue 42's "env steps/s no slower"), measured as the `envs` section measures
 * every env (`measureEnv`: random masked actions, wall time, resets included), by this build and beside it by the
 * baseline build (its default engine: the Slurm engine in a build from before the retirement), each with its own
 * `measureEnv` on its own env: `cold`, a fresh env's first `coldSteps` in this process (the JIT's warm-up in
 * them); `warm`, the median of `rounds` interleaved runs of `steps`.
 */
async function benchSlurmEnv(dir: string | undefined, coldSteps = 2000, steps = 5000, rounds = 5): Promise<Record<string, unknown>> {
  const stepsPerS = async (d: string | null) => {
    const { make } = (await import(buildModule(d, 'envs/registry.js'))) as typeof import('../envs/registry.js');
    const { measureEnv } = (await import(buildModule(d, 'envs/benchmark.js'))) as typeof import('../envs/benchmark.js');
    const env = make('clustergym/Slurm-v0');
    return (n: number, seed: number) => measureEnv(env, n, seed).steps_per_s;
  };
  const here = await stepsPerS(null);
  const base = dir ? await stepsPerS(dir) : null;
  const cold = { here: here(coldSteps, 0), base: base?.(coldSteps, 0) ?? Number.NaN };
  const warm = { here: [] as number[], base: [] as number[] };
  for (let r = 1; r <= rounds; r++) {
    warm.here.push(here(steps, r));
    if (base) warm.base.push(base(steps, r));
  }
  const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;
  return {
    steps_per_round: steps,
    rounds,
    cold_steps_per_s: Math.round(cold.here),
    warm_steps_per_s: Math.round(median(warm.here)),
    ...(base
      ? {
          baseline: {
            dist: dir,
            cold_steps_per_s: Math.round(cold.base),
            warm_steps_per_s: Math.round(median(warm.base)),
            cold_ratio: ratio(cold.here, cold.base),
            warm_ratio: ratio(median(warm.here), median(warm.base)),
          },
        }
      : {}),
  };
}

/**
 * The `slurm-preset` section (issue 42): the one engine running the Slurm preset (`src/slurm/preset.ts`) on a
 * Raijin replay (shrink 100, 57,600 cores, multifactor priority, backfill, operator suspensions; `jobs` jobs),
 * `rounds` rounds after a warm-up round: the median CPU time of a run and jobs per CPU second.
 *
 * **Beside another build** (`CLUSTERGYM_BENCH_BASELINE=DIR`, the `dist/` of that build, e.g. of the last commit
 * with the Slurm engine or of the commit that filed issue 42: `git worktree add /tmp/base e739207 && cd /tmp/base
 * && npm ci && npx tsc`, then `DIR=/tmp/base/dist`): that build's Slurm engine (or, in a build after its
 * retirement, its Slurm preset) runs in the same rounds, interleaved, and `baseline` holds its jobs per CPU second,
 * this build's ratio to it (the issue's "today's jobs/s"), and how many jobs get the same start and end in both
 * (`bit_identical`: to the bit; `same_start_and_end`: to 1e-9 relative). `slurm_v0`: Slurm-v0's env steps per
 * second in both builds (`benchSlurmEnv`).
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
  const here = presetRunOf(runSlurmPreset);
  const dir = process.env.CLUSTERGYM_BENCH_BASELINE;
  const base = dir ? await baselineRun(dir) : null;
  // the warm-up round compares the schedules
  const one = new Map<number, [number, number]>();
  const other = new Map<number, [number, number]>();
  here(input, config, (id, a, b) => void one.set(id, [a, b]));
  if (base) base.run(input, config, (id, a, b) => void other.set(id, [a, b]));
  const t = { one: [] as number[], base: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    t.one.push(here(input, config));
    if (base) t.base.push(base.run(input, config));
  }
  let same = 0;
  let exact = 0;
  const close = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y));
  for (const [id, [a, b]] of other) {
    const o = one.get(id);
    if (o === undefined) continue;
    if (close(o[0], a) && close(o[1], b)) same++;
    if (o[0] === a && o[1] === b) exact++;
  }
  const env = await benchSlurmEnv(dir);
  const rate = (v: number[]) => Math.round(input.length / median(v));
  const ratio = (num: number[], den: number[]) => Math.round(median(num.map((x, i) => x / den[i]!)) * 1000) / 1000;
  return {
    jobs: input.length,
    rounds,
    one_engine_jobs_per_cpu_s: rate(t.one),
    ...(base
      ? {
          baseline: {
            dist: dir,
            engine: base.engine,
            jobs_per_cpu_s: rate(t.base),
            one_over_baseline: ratio(t.base, t.one),
            same_start_and_end: same,
            bit_identical: exact,
            jobs_compared: other.size,
          },
        }
      : {}),
    slurm_v0: env,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const n = process.argv[2] ? Number(process.argv[2]) : undefined;
  console.log(JSON.stringify(process.argv[3] === 'preset' ? await benchSlurmPreset(n) : await benchSlurm(n), null, 2));
}
