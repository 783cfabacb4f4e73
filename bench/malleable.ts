/**
 * Bench section `malleable` (seed 002, DMR, on the one engine's DMR preset): simulation time of the
 * paper's 400-job workload, rigid and malleable (median of 7 runs each; the issue asks for well under a
 * second), the full `reproduce dmr` experiment (50/100/200/400 jobs, rigid and malleable) with its
 * findings on three seeds, Malleable-v0 steps/s with the dmr agent, and Malleable-v0 steps/s with
 * random masked actions on its default config (`env_random_steps_per_cpu_s`: 100,000 steps of
 * `measureEnv`, the figure issue 42 compares with e739207's; measured after the section's warm-up run,
 * so compiled code is warm: a fresh process that measures 100,000 steps after 5,000 also pays the
 * JIT compilation of the engine's code, on other threads, in its CPU time). Times are process CPU time
 * (`process.cpuUsage`: steady on a loaded machine, where wall time is not) and wall time.
 *
 * **Side by side with a baseline**: with `CLUSTERGYM_BENCH_BASELINE=DIR` (the `dist/` of another build,
 * e.g. of main: `git archive main | tar -x -C /tmp/base && cd /tmp/base && npm ci && npx tsc`, then
 * `DIR=/tmp/base/dist`), every figure is measured for both builds in the same process, runs interleaved,
 * and `baseline` holds the baseline's figures, `ratio` this build's CPU time over the baseline's (below 1:
 * faster), and `same_results` whether both gave the same simulations, `reproduce dmr` tables and episodes.
 */
import { quantileOf } from '../src/core/statistics.js';
import { buildModule, cpuSeconds } from './builds.js';

const median = (v: number[]): number => quantileOf(v, 0.5);

/** What the section measures, from one build. */
interface Subject {
  malleable: typeof import('../src/malleable/index.js');
  env: typeof import('../envs/malleable/index.js');
  agents: typeof import('../agents/malleable/index.js');
  bench: typeof import('../envs/benchmark.js');
}

async function load(dist: string | null): Promise<Subject> {
  const at = (p: string) => buildModule(dist, p);
  return {
    malleable: await import(at('src/malleable/index.js')),
    env: await import(at('envs/malleable/index.js')),
    agents: await import(at('agents/malleable/index.js')),
    bench: await import(at('envs/benchmark.js')),
  };
}

const cpu = cpuSeconds;

/** Runs `f`; its CPU and wall seconds and its result. */
function timed<T>(f: () => T): { cpu: number; wall: number; value: T } {
  const c0 = cpu();
  const t0 = performance.now();
  const value = f();
  return { cpu: cpu() - c0, wall: (performance.now() - t0) / 1000, value };
}

/** One measurement of every figure for subject `s`. */
function measure(s: Subject) {
  const m = s.malleable;
  const w = m.paperWorkload({ jobs: 400, seed: 1 });
  const rigid = m.rigidVersion(w);
  const mall = timed(() => m.simulate(w, m.dmrPolicy));
  const rig = timed(() => m.simulate(rigid, m.neverPolicy));
  const reproduce = [1, 2, 3].map((seed) => timed(() => m.runDmrExperiment({ seed })));
  const env = new s.env.MalleableEnv(s.env.loadMalleableContext({ jobs: 200 }));
  const episodes: number[][] = [];
  const ep = timed(() => {
    let steps = 0;
    for (let seed = 0; seed < 3; seed++) {
      let o = env.reset({ seed }).observation;
      const rewards: number[] = [];
      for (;;) {
        steps++;
        const r = env.step(s.agents.dmrAgent.act(env, o));
        rewards.push(r.reward);
        if (r.terminated) break;
        o = r.observation;
      }
      episodes.push(rewards);
    }
    return steps;
  });
  const randomEnv = new s.env.MalleableEnv(s.env.loadMalleableContext({}));
  const random = timed(() => s.bench.measureEnv(randomEnv, 100_000, 1).steps);
  return { mall, rig, reproduce, ep, episodes, random };
}

type Measure = ReturnType<typeof measure>;

/** The figures of `runs` (repeated measurements of one subject). */
function figures(runs: Measure[]): Record<string, unknown> {
  const med = (f: (r: Measure) => number) => median(runs.map(f));
  const last = runs[runs.length - 1]!;
  return {
    simulate_400_malleable_cpu_s: med((r) => r.mall.cpu),
    simulate_400_malleable_s: med((r) => r.mall.wall),
    simulate_400_rigid_cpu_s: med((r) => r.rig.cpu),
    simulate_400_rigid_s: med((r) => r.rig.wall),
    events_400_malleable: last.mall.value.events,
    reconfiguration_points_400: last.mall.value.expands + last.mall.value.shrinks + last.mall.value.noActions,
    reproduce_dmr_cpu_s: med((r) => r.reproduce.reduce((a, x) => a + x.cpu, 0)),
    reproduce_dmr: last.reproduce.map((x) => ({
      seed: x.value.seed,
      seconds: x.wall,
      cpu_seconds: x.cpu,
      findings_hold: x.value.findings.every((f) => f.holds),
      changes: x.value.tables.changes,
    })),
    env_steps: last.ep.value,
    env_steps_per_cpu_s: Math.round(median(runs.map((r) => r.ep.value / r.ep.cpu))),
    env_steps_per_s: Math.round(median(runs.map((r) => r.ep.value / r.ep.wall))),
    env_random_steps_per_cpu_s: Math.round(median(runs.map((r) => r.random.value / r.random.cpu))),
  };
}

/** The section's figures (and a baseline's beside them, see the module comment). */
export async function benchMalleable(): Promise<Record<string, unknown>> {
  const current = await load(null);
  const dir = process.env.CLUSTERGYM_BENCH_BASELINE;
  const base = dir ? await load(dir) : null;
  // warm-up, then interleaved measurements
  measure(current);
  if (base) measure(base);
  const mine: Measure[] = [];
  const theirs: Measure[] = [];
  for (let i = 0; i < 7; i++) {
    mine.push(measure(current));
    if (base) theirs.push(measure(base));
  }
  const out = figures(mine);
  if (base) {
    const b = figures(theirs);
    const ratio = (k: string) => (out[k] as number) / (b[k] as number);
    const a = mine[0]!;
    const z = theirs[0]!;
    const strip = (r: { value: { seconds: number } }) => JSON.stringify({ ...r.value, seconds: 0 });
    out.baseline = { dist: dir, ...b };
    out.ratio = {
      simulate_400_malleable_cpu: ratio('simulate_400_malleable_cpu_s'),
      simulate_400_rigid_cpu: ratio('simulate_400_rigid_cpu_s'),
      reproduce_dmr_cpu: ratio('reproduce_dmr_cpu_s'),
      env_cpu_per_step: (b.env_steps_per_cpu_s as number) / (out.env_steps_per_cpu_s as number),
      env_random_cpu_per_step: (b.env_random_steps_per_cpu_s as number) / (out.env_random_steps_per_cpu_s as number),
    };
    out.same_results = {
      simulate_400: JSON.stringify(a.mall.value.jobs) === JSON.stringify(z.mall.value.jobs) && a.mall.value.makespan === z.mall.value.makespan,
      reproduce_dmr: a.reproduce.every((r, i) => strip(r) === strip(z.reproduce[i]!)),
      env_rewards: JSON.stringify(a.episodes) === JSON.stringify(z.episodes),
    };
  }
  return out;
}
