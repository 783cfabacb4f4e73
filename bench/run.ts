/**
 * `npm run bench`: runs the benchmarks and prints one JSON object of figures (and the time of each
 * section on stderr). `npm run bench -- core envs` runs some sections only. Each section is a
 * function of its own module returning its figures.
 *
 * - `core`: the simulation core (hetero-20, contention and energy, FCFS; 10k and 100k jobs).
 * - `scheduling`: 1,000,000 generated delay jobs on 10,000 nodes x 16 cores with `fcfs:first+easy`.
 * - `swf`: SWF parsing, lines/s over a synthetic 2,000,000-line trace.
 * - `envs`: in-process env steps/s (Job-v0, JobNode-v0, PolicyPair-v0, vector envs).
 * - `bridge`: env steps/s through the ZeroMQ bridge from Python (single env and `make_vec(16)`).
 * - `ppo`: PPO training throughput (Job-v0, K = 64, 8 envs, updates included), the demo's wall time, and
 *   RLScheduler's setting (lublin256 configs: filter, warm start, PPO steps/s and updates/s; the shipped models vs the heuristics).
 * - `irmasim`: `simulate --irmasim` on a 1,500-job, 20-node IRMaSim options file, whole-process time
 *   (and IRMaSim's own on the same file when `IRMASIM` points at a checkout).
 * - `slurm`: seed 004's Raijin at scale on the Slurm preset: `reproduce raijin` with 1,000,000 jobs (six shrink
 *   factors on 57,600 cores), then 4,417,018 jobs (the trace's size) at shrink 100; jobs/s, wall time, peak RSS;
 *   with `CLUSTERGYM_BENCH_BASELINE=DIR` (another build's `dist/`) that build's sweep too (before issue 42's
 *   retirement: its Slurm engine): its jobs/s, the ratio, the same sweep table.
 * - `slurm-preset`: the Slurm preset on a 200,000-job Raijin replay, jobs per CPU second; with
 *   `CLUSTERGYM_BENCH_BASELINE=DIR` that build's Slurm engine (or preset) in interleaved rounds: its jobs per CPU
 *   second, the ratio, and the jobs with the same start and end in both (issue 42).
 * - `slurm-gpu`: GPU jobs (`Gres=gpu:TYPE:N`) on the Slurm preset against two live runs (`bench/slurmGpu.ts`; issue 45).
 * - `slurm-live`: issue 43's live matrix (`bench/slurmLive.ts`): the Slurm preset against two live runs of a
 *   fresh workload on each of 24 slurm.conf cells (root and slurm-wlm; about 10 minutes a cell, two at once);
 *   run only when named.
 * - `timesharing`: seed 003: the 10,000-job run of each local policy (wall time, events/s), CoSched-v0 steps/s.
 * - `fairness`: seed 001: 200,000 independent tasks (tasks/s vs DSLab's 80,000), the f sweep, a
 *   10,000,000-task CSV streamed through the engine (tasks/s, heap per million tasks, peak RSS).
 * - `malleable`: seed 002 (DMR): 400-job rigid/malleable simulation time, `reproduce dmr` on 3 seeds, Malleable-v0 steps/s.
 * - `leaderboard`: `clustergym leaderboard` at its defaults (every setting, seed 0, the shipped models): seconds per setting and in total.
 * - `load`: each leaderboard setting's offered load and its heuristics' measured utilisation (the best's and the range).
 * - `flat-es`: flat ES training throughput (steps/s, episodes/s) on the fair, cosched and slurm training configs.
 * - `lookahead`: `leaderboard --lookahead`'s reference rows (the oracle and the parity lookahead) on the cluster settings at their default episodes: seconds, and the means against the base and the best heuristic.
 * - `lookahead-information`: the lookahead with each of the four rollout futures (oracle, parity, and the two halves) on the three rlsched settings, 40 episodes: where the oracle's gain comes from.
 * - `fleet`: beyond one machine: env-steps/s of one learner against 1, 2, 4 servers (`make_vec(addresses=...)`),
 *   and the leaderboard's wall time as one process against 2 and 4 `--shard` processes and their `--merge`.
 * - `combined`: the one engine's combined scenario (issue 42) and what each dimension changes when it alone is off.
 * - `gavel`: `reproduce gavel` at full size (Gavel's Figure 9, issue 45: hours of CPU; needs ../shared/data/gavel).
 * - `platform`: loading seed 004's Raijin platform (3,600 nodes x 16 cores) written as one node group, as
 *   a node-group file (the Slurm model's `{groups, partitions}`) and node by node: median/min/max ms and the heap it keeps.
 * - `netsim`: the flow model: 10,000 transfers on a 128-host fat-tree, `clustergym netsim` and SimGrid's
 *   Python bindings (one actor per flow, and one driver actor) each as a whole process, interleaved over
 *   3 rounds (median wall and CPU times, ratios, largest difference).
 */
import { benchBridge } from './bridge.js';
import { benchCombined } from './combined.js';
import { benchCore } from './core.js';
import { benchEnvs } from './envs.js';
import { benchFairness } from './fairness.js';
import { benchFlatEs } from './flatEs.js';
import { benchGavel } from './gavel.js';
import { benchFleet } from './fleet.js';
import { benchIrmasim } from './irmasim.js';
import { benchLeaderboard, benchLookahead, benchLookaheadInformation } from './leaderboard.js';
import { benchLoad } from './load.js';
import { benchMalleable } from './malleable.js';
import { benchPlatform } from './platform.js';
import { benchPpo } from './ppo.js';
import { benchNetsim } from './netsim.js';
import { benchMillionJobs } from './scheduling.js';
import { benchSlurm, benchSlurmPreset } from './slurm.js';
import { benchSlurmGpu } from './slurmGpu.js';
import { benchSlurmLive } from './slurmLive.js';
import { benchSwf } from './swf.js';
import { benchTimesharing } from './timesharing.js';

const SECTIONS: Record<string, () => Record<string, unknown> | Promise<Record<string, unknown>>> = {
  core: benchCore,
  scheduling: () => benchMillionJobs(),
  swf: () => benchSwf(),
  envs: benchEnvs,
  bridge: benchBridge,
  ppo: benchPpo,
  irmasim: benchIrmasim,
  slurm: () => benchSlurm(),
  'slurm-preset': () => benchSlurmPreset(),
  'slurm-live': benchSlurmLive,
  'slurm-gpu': benchSlurmGpu,
  malleable: benchMalleable,
  timesharing: benchTimesharing,
  fairness: () => benchFairness(),
  leaderboard: benchLeaderboard,
  load: benchLoad,
  'flat-es': benchFlatEs,
  lookahead: () => benchLookahead(),
  'lookahead-information': benchLookaheadInformation,
  netsim: () => benchNetsim(),
  fleet: benchFleet,
  platform: () => benchPlatform(),
  combined: benchCombined,
  gavel: benchGavel,
};

/** Sections run only when named (`npm run bench -- slurm-live`). */
const OPT_IN = new Set(['slurm-live', 'slurm-gpu']);

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !(w in SECTIONS));
  if (unknown.length) {
    console.error(`unknown bench section(s) ${unknown.join(', ')}; expected ${Object.keys(SECTIONS).join(', ')}`);
    process.exitCode = 2;
    return;
  }
  const out: Record<string, unknown> = { node: process.version };
  for (const [name, fn] of Object.entries(SECTIONS)) {
    if (wanted.length && !wanted.includes(name)) continue;
    // hours of live runs: only when named
    if (!wanted.length && OPT_IN.has(name)) continue;
    const t0 = performance.now();
    out[name] = await fn();
    console.error(`bench ${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  out.peak_rss_mb = Math.round(process.resourceUsage().maxRSS / 1024);
  console.log(JSON.stringify(out, null, 2));
}

void main();
