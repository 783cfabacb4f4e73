/**
 * The heuristics of a leaderboard setting, at full strength.
 *
 * - Cluster envs (Job-v0, JobNode-v0, PolicyPair-v0): each heuristic is a batch scheduler of
 *   src/scheduling run by `runSimulation` on the episode's exact jobs and platform, as
 *   `clustergym simulate` runs it: it sees the whole queue and places jobs with its own resource
 *   selection (never an in-env agent limited to the env's K-job window). `JOB:RESOURCE[+BACKFILL]`
 *   names are `PolicyScheduler`s; IRMaSim `workload_manager` objects (EnergyHeuristic, Backfill with
 *   its energy/EDP orders) are IRMaSim's managers on clustergym's engine, their jobs shaped as their
 *   layout says (one node per job).
 * - Other systems' envs: heuristic agents of the env (`systemAgent`), each of which makes its
 *   system's batch policy's decisions (dmr and never on Malleable-v0, and the rules that use what
 *   its policy observes: dmr+shrink, min, srpt; unlimited, DYN(L) and CSC on CoSched-v0; DRF,
 *   Tetris(f), first-fit, best-fit and the duration orders sjf-drf(f), lpt-drf(f) on Fair-v0; each
 *   fixed profile x backfill setting and the queue-adaptive operator on Slurm-v0; the round
 *   schedulers of src/scheduling/gpu on Gpu-v0).
 */
import { InputError } from '../../src/core/errors.js';
import { PythonRandom } from '../../src/core/rng.js';
import { ClusterSimulator } from '../../src/execution/simulator.js';
import type { Summary } from '../../src/metrics/summary.js';
import type { Platform } from '../../src/platform/platform.js';
import { GPU_POLICIES } from '../../src/scheduling/gpu/rounds.js';
import { makeIrmasimManager } from '../../src/scheduling/irmasim/index.js';
import type { NodeFit } from '../../src/scheduling/placement.js';
import { makeScheduler, parsePolicyName, type PolicySpec } from '../../src/scheduling/policyName.js';
import { runSimulation } from '../../src/scheduling/run.js';
import { type EngineConfig, multifactorOptionsOf } from '../../src/scheduling/engineConfig.js';
import type { Job } from '../../src/workload/job.js';
import type { GymEnv } from '../../envs/gym.js';
import type { Observes } from '../../envs/observes.js';
import type { EnvAgent } from '../episode.js';
import { bestFitAgent, drfAgent, durationAgent, firstFitAgent, tetrisAgent } from '../fairness/index.js';
import { gpuSchedulerAgent } from '../gpu/index.js';
import { malleableAgent } from '../malleable/index.js';
import { FixedSettingAgent, QueueAdaptiveAgent } from '../slurm/index.js';
import { CscAgent, FixedShareAgent, UnlimitedAgent } from '../timesharing/index.js';
import type { Setting } from './settings.js';

/** A heuristic of a cluster setting: a policy name (batch `PolicyScheduler`) or an IRMaSim manager. */
export type ClusterHeuristic =
  | { readonly name: string; readonly kind: 'policy'; readonly spec: PolicySpec }
  | { readonly name: string; readonly kind: 'irmasim'; readonly manager: Record<string, unknown> };

/** The name of an IRMaSim manager heuristic: `irmasim:TYPE(field=value,...)`. */
export function irmasimName(wm: Record<string, unknown>): string {
  const { type, ...rest } = wm;
  const args = Object.entries(rest).map(([k, v]) => `${k}=${String(v)}`);
  return `irmasim:${String(type ?? 'Minimal')}(${args.join(',')})`;
}

/**
 * The IRMaSim manager heuristic a name of `irmasimName` stands for (`irmasim:TYPE(field=value,...)`;
 * numbers and booleans come back as such), validated as a manager; `where` names the source for errors.
 */
export function parseIrmasimName(name: string, where: string): ClusterHeuristic & { kind: 'irmasim' } {
  const m = /^irmasim:([A-Za-z]+)\(([^()]*)\)$/.exec(name);
  if (!m) throw new InputError(`${JSON.stringify(name)} is not an IRMaSim manager name; expected irmasim:TYPE(field=value,...)`, where);
  const manager: Record<string, unknown> = { type: m[1] };
  for (const arg of m[2]!.split(',').filter((a) => a !== '')) {
    const eq = arg.indexOf('=');
    if (eq <= 0) throw new InputError(`${JSON.stringify(name)}: ${JSON.stringify(arg)} is not field=value`, where);
    const v = arg.slice(eq + 1);
    manager[arg.slice(0, eq)] = v === 'true' ? true : v === 'false' ? false : v !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
  }
  makeIrmasimManager(manager, new PythonRandom(0), where); // validates
  return { name: irmasimName(manager), kind: 'irmasim', manager };
}

/** The cluster setting's heuristics, expanded and validated (duplicates removed, first kept). */
export function clusterHeuristics(setting: Setting, where = `setting ${setting.name}`): ClusterHeuristic[] {
  const h = setting.heuristics;
  const out: ClusterHeuristic[] = [];
  const seen = new Set<string>();
  const add = (x: ClusterHeuristic) => {
    if (seen.has(x.name)) return;
    seen.add(x.name);
    out.push(x);
  };
  if (h.policies)
    for (const j of h.policies.jobs)
      for (const r of h.policies.resources)
        for (const b of h.policies.backfill) {
          const spec = parsePolicyName(`${j}:${r}+${b}`, 'none', `${where} $.heuristics.policies`);
          add({ name: spec.name, kind: 'policy', spec });
        }
  for (const n of h.names ?? []) {
    const spec = parsePolicyName(n, 'none', `${where} $.heuristics.names`);
    add({ name: spec.name, kind: 'policy', spec });
  }
  for (const wm of h.irmasim ?? []) {
    makeIrmasimManager(wm, new PythonRandom(0), `${where} $.heuristics.irmasim`); // validates
    add({ name: irmasimName(wm), kind: 'irmasim', manager: wm });
  }
  return out;
}

/** Engine options of a cluster episode's batch runs (from the env config). */
export interface BatchOptions {
  fit: NodeFit;
  /** The scheduler keeps its chosen head job until it starts (RLScheduler's committed head). */
  commitHead: boolean;
  enforceMemory: boolean;
  walltimeKill: boolean;
  /** The env's engine dimensions (its config's `engine`), for the batch runs too. */
  engine?: EngineConfig | undefined;
}

/** Runs heuristic `h` on `jobs` (an episode's exact jobs) on `platform`; the run's summary. */
export function runClusterHeuristic(h: ClusterHeuristic, platform: Platform, jobs: readonly Job[], o: BatchOptions): Summary {
  if (h.kind === 'policy') {
    const scheduler = makeScheduler(h.spec, {
      seed: 0,
      fit: o.fit,
      commitHead: o.commitHead,
      multifactor: o.engine ? multifactorOptionsOf(o.engine) : undefined,
    });
    return runSimulation(platform, jobs, scheduler, { enforceMemory: o.enforceMemory, walltimeKill: o.walltimeKill, engine: o.engine }).summary;
  }
  const manager = makeIrmasimManager(h.manager, new PythonRandom(0), h.name);
  // a shaped job that can never fit (larger than any node, under a one-node layout) is rejected by
  // the run and counted as not finished: the leaderboard then ranks the heuristic as incomplete
  const shaped = jobs.map(manager.shape);
  const probe = new ClusterSimulator(platform, [], { enforceMemory: o.enforceMemory });
  const runnable = shaped.filter((j) => probe.unfitReason(j) === null);
  const summary = runSimulation(platform, runnable, manager.scheduler, { enforceMemory: o.enforceMemory, walltimeKill: o.walltimeKill }).summary;
  return { ...summary, jobs_rejected: summary.jobs_rejected + shaped.length - runnable.length };
}

/** The job selections whose key reads the requested run time (the others: arrival order, size, memory, random). */
const DURATION_ORDERS: readonly string[] = ['sjf', 'ljf', 'wfp3', 'unicep', 'f1'];

/**
 * What heuristic `name` of `setting` observes (envs/observes.ts): every heuristic knows only the jobs
 * submitted so far (`seen`); it reads `requested` durations when its job order does (SJF, LJF, WFP3,
 * UNICEP, F1), when it backfills (EASY's reservations are computed from requested times, as is
 * Slurm's backfill), on IRMaSim's managers (their estimates use req_time), and for the duration
 * rules of Fair-v0 (sjf-drf, lpt-drf) and Malleable-v0 (srpt); `actual` for SRTF and finish-time fairness
 * on Gpu-v0 (remaining steps, as Gavel's); else `none`.
 */
export function heuristicObserves(setting: Setting, name: string): Observes {
  const seen = (durations: Observes['durations']): Observes => ({ durations, horizon: 'seen' });
  switch (setting.env.id) {
    case 'clustergym/Job-v0':
    case 'clustergym/JobNode-v0':
    case 'clustergym/PolicyPair-v0': {
      if (name.startsWith('irmasim:')) return seen('requested');
      const p = parsePolicyName(name);
      return seen(DURATION_ORDERS.includes(p.job) || p.backfill !== 'none' ? 'requested' : 'none');
    }
    case 'clustergym/Fair-v0':
      return seen(/^(sjf|lpt)-drf\(/.test(name) ? 'requested' : 'none');
    case 'clustergym/Malleable-v0':
      return seen(name.startsWith('srpt(') ? 'requested' : 'none');
    case 'clustergym/Slurm-v0': {
      // fixed-A backfills unless its backfill setting (floor(A / 4)) is sched/builtin; the operator changes settings
      const fixed = /^fixed-(\d+)$/.exec(name);
      return seen(fixed && Math.floor(Number(fixed[1]) / 4) === 2 ? 'none' : 'requested');
    }
    case 'clustergym/Gpu-v0':
      // SRTF and finish-time fairness read the jobs' remaining steps; FIFO, LAS and max-min fairness do not
      return seen(name === 'srtf' || name.startsWith('finish_time_fairness') ? 'actual' : 'none');
    default:
      return seen('none');
  }
}

/** The heuristic agents of an env, by name (see the module comment). */
export function systemAgent(envId: string, name: string, where: string): EnvAgent<GymEnv> {
  const bad = (known: string) => new InputError(`$.heuristics.agents: no agent ${JSON.stringify(name)} for ${envId}; known: ${known}`, where);
  let agent: EnvAgent<never> | undefined;
  const share = /^share-(0\.25|0\.5|0\.75)$/.exec(name);
  const csc = /^csc(?:-(0\.25|0\.5|0\.75|1))?$/.exec(name);
  const tetris = /^tetris\((0(?:\.\d+)?|1)\)$/.exec(name);
  const byDuration = /^(sjf|lpt)-drf\((0(?:\.\d+)?|1)\)$/.exec(name);
  const fixed = /^fixed-(\d+)$/.exec(name);
  switch (envId) {
    case 'clustergym/Malleable-v0':
      agent = malleableAgent(name);
      if (!agent) throw bad('dmr, never, dmr+shrink, min, srpt(T) for T seconds');
      break;
    case 'clustergym/CoSched-v0':
      if (name === 'unlimited') agent = new UnlimitedAgent();
      else if (share) agent = new FixedShareAgent(Number(share[1]));
      else if (csc) agent = named(new CscAgent(csc[1] ? Number(csc[1]) : 0.5), name);
      else throw bad('unlimited, share-L and csc-L for L in 0.25, 0.5, 0.75 (csc = csc-0.5)');
      break;
    case 'clustergym/Fair-v0':
      if (name === 'drf') agent = drfAgent;
      else if (name === 'first-fit') agent = firstFitAgent;
      else if (name === 'best-fit') agent = bestFitAgent;
      else if (tetris) agent = tetrisAgent(Number(tetris[1]));
      else if (byDuration) agent = durationAgent(byDuration[1] as 'sjf' | 'lpt', Number(byDuration[2]));
      else throw bad('drf, tetris(f), sjf-drf(f), lpt-drf(f) for f in [0, 1], first-fit, best-fit');
      break;
    case 'clustergym/Slurm-v0':
      if (name === 'queue-adaptive') agent = new QueueAdaptiveAgent();
      else if (fixed && Number(fixed[1]) < 12) agent = new FixedSettingAgent(Number(fixed[1]));
      else throw bad('fixed-A for A in 0..11 (profile A % 4 x backfill floor(A / 4)), queue-adaptive');
      break;
    case 'clustergym/Gpu-v0':
      if (!(GPU_POLICIES as readonly string[]).includes(name)) throw bad(GPU_POLICIES.join(', '));
      agent = gpuSchedulerAgent(name);
      break;
    default:
      throw new InputError(`$.env.id: no heuristic agents for ${envId}`, where);
  }
  return agent as unknown as EnvAgent<GymEnv>;
}

function named<T extends { act: EnvAgent<never>['act'] }>(agent: T, name: string): EnvAgent<never> {
  return { name, act: agent.act.bind(agent) };
}
