/**
 * Bench section `malleable` (seed 002, DMR): simulation time of the paper's 400-job workload,
 * rigid and malleable (median of 5 runs each; the issue asks for well under a second), the full
 * `reproduce dmr` experiment (50/100/200/400 jobs, rigid and malleable) with its findings on three
 * seeds, and Malleable-v0 steps/s with the dmr agent.
 */
import { dmrAgent } from '../agents/malleable/index.js';
import { loadMalleableContext, MalleableEnv } from '../envs/malleable/index.js';
import { simulate } from '../src/malleable/engine.js';
import { runDmrExperiment } from '../src/malleable/experiment.js';
import { dmrPolicy, neverPolicy } from '../src/malleable/policy.js';
import { paperWorkload, rigidVersion } from '../src/malleable/workload.js';

function median(v: number[]): number {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function timeIt(f: () => unknown, runs = 5): number {
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    f();
    t.push(performance.now() - t0);
  }
  return median(t) / 1000;
}

/** The section's figures. */
export function benchMalleable(): Record<string, unknown> {
  const w = paperWorkload({ jobs: 400, seed: 1 });
  const rigid = rigidVersion(w);
  const m = simulate(w, dmrPolicy);
  const experiments = [1, 2, 3].map((seed) => {
    const r = runDmrExperiment({ seed });
    return {
      seed,
      seconds: r.seconds,
      findings_hold: r.findings.every((f) => f.holds),
      changes: r.tables.changes,
    };
  });
  const env = new MalleableEnv(loadMalleableContext({ jobs: 200 }));
  let steps = 0;
  const t0 = performance.now();
  for (let seed = 0; seed < 3; seed++) {
    let o = env.reset({ seed }).observation;
    for (;;) {
      steps++;
      const r = env.step(dmrAgent.act(env, o));
      if (r.terminated) break;
      o = r.observation;
    }
  }
  const envSeconds = (performance.now() - t0) / 1000;
  return {
    simulate_400_malleable_s: timeIt(() => simulate(w, dmrPolicy)),
    simulate_400_rigid_s: timeIt(() => simulate(rigid, neverPolicy)),
    events_400_malleable: m.events,
    reconfiguration_points_400: m.expands + m.shrinks + m.noActions,
    reproduce_dmr: experiments,
    env_steps_per_s: Math.round(steps / envSeconds),
  };
}
