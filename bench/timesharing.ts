/**
 * Bench section `timesharing` (seed 003): the thesis's 10,000-job run (§2.2: n = 8, n_jobs = 10,000)
 * for each local policy at MPL_TOTAL 3 (plt 0.3, low memory; csc with L = 50 %) and for dyn_mod at
 * high memory, with its wall time and events/s, and CoSched-v0 steps/s.
 */
import { UnlimitedAgent } from '../agents/timesharing/index.js';
import { CoSchedEnv, loadCoSchedEnvContext } from '../envs/timesharing/index.js';
import { timeSharingConfig } from '../src/timesharing/config.js';
import { TimeSharingSimulator } from '../src/timesharing/simulator.js';

/** The section's figures. */
export function benchTimesharing(): Record<string, unknown> {
  const runs: Record<string, unknown>[] = [];
  for (const [policy, pms] of [
    ['rr', 0],
    ['dyn', 0],
    ['impli', 0],
    ['csc', 0],
    ['dyn_mod', 1],
  ] as const) {
    const cfg = timeSharingConfig({ policy, pms, MPL_TOTAL: 3, plt: 0.3, n_jobs: 10000, seed: 1, L: policy === 'csc' ? 0.5 : 1 });
    const t0 = performance.now();
    const sim = new TimeSharingSimulator(cfg).run();
    const s = (performance.now() - t0) / 1000;
    runs.push({ policy, pms, jobs: sim.records.length, seconds: Math.round(s * 100) / 100, events: sim.events, events_per_s: Math.round(sim.events / s) });
  }
  const env = new CoSchedEnv(loadCoSchedEnvContext({ sim: { n_jobs: 1000 }, period: 500 }));
  const agent = new UnlimitedAgent();
  env.reset({ seed: 1 });
  let steps = 0;
  const t0 = performance.now();
  for (;;) {
    const r = env.step(agent.act(env));
    steps++;
    if (r.terminated || r.truncated) break;
  }
  const envS = (performance.now() - t0) / 1000;
  return { runs_10000_jobs: runs, cosched_env: { steps, seconds: Math.round(envS * 100) / 100, steps_per_s: Math.round(steps / envS) } };
}
