/**
 * `clustergym slurm-agent`: a clustergym policy schedules a live Slurm through Slurm's own commands
 * (`squeue`, `sinfo`, `scontrol` on PATH, honouring `SLURM_CONF`). See docs/slurm-agent.md.
 *
 *     clustergym slurm-agent (--policy NAME | --model DIR | --bridge ENDPOINT) [--env job|jobnode]
 *                            [--env-config FILE] [--platform FILE] [--partition P,...]
 *                            [--decisions FILE] [--record DIR] [--dry-run] [--exit-when-idle]
 *                            [--poll-ms MS] [--keep-held]
 *
 * The policy: `--policy NAME` a heuristic (a batch policy `JOB[:RESOURCE][+BACKFILL]`, followed
 * decision by decision as `simulate --policy NAME` runs it; a plain priority name on Job-v0 with
 * `unfit: "reserve"` is the priority agent), `--model DIR` a trained tfjs model (its env config
 * and normalisation limits), `--bridge ENDPOINT` a Python policy (cli/slurmAgent/bridgePolicy.ts).
 * The platform: `--platform FILE` (a node whose `type` is a Slurm node name is that node; else the
 * nodes in Slurm's name order), otherwise one node per Slurm node from `sinfo` (its CPUs as cores,
 * its memory). At the end (`--exit-when-idle`, SIGTERM, SIGINT) with `--record` and `--policy`, the
 * closing note compares the live run with `simulate` on the record.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../src/core/errors.js';
import { loadPlatform, parsePlatform } from '../src/platform/loader.js';
import type { Platform } from '../src/platform/platform.js';
import { canonicalJobSelection } from '../src/scheduling/jobSelection.js';
import type { ResourcePolicy } from '../src/scheduling/placement.js';
import { parsePolicyName } from '../src/scheduling/policyName.js';
import { EnvContext } from '../envs/context.js';
import type { ClusterEnv } from '../envs/env.js';
import { JobEnv } from '../envs/jobEnv.js';
import { JobNodeEnv } from '../envs/jobNodeEnv.js';
import type { DictObservation } from '../envs/observation.js';
import { PriorityAgent, SchedulerAgent } from '../agents/heuristics/index.js';
import { PolicyError, SlurmAgent, type LivePolicy } from './slurmAgent/agent.js';
import { compareWithSimulation, formatComparison } from './slurmAgent/simToReal.js';
import { SlurmClient, SlurmCommandError, SlurmOutputError, type SlurmNode, type SlurmPartition } from '../src/slurm/client.js';
import { type SlurmClusterView, SlurmPlacement } from '../src/slurm/mirror.js';
import { defineCommand, defineFlags, int, oneOf, text, type Values } from './common.js';

/** The flags of `slurm-agent`. */
export const flags = defineFlags({
  policy: { value: 'NAME', schema: text(true), help: 'a heuristic: JOB[:RESOURCE][+BACKFILL] as simulate --policy (sjf, fcfs+easy, f1:first...)' },
  bridge: { value: 'ENDPOINT', schema: text(true), help: 'a Python policy served by clustergym.policy_server.serve_policy at ENDPOINT (python-client/)' },
  model: { value: 'DIR', schema: text(true), help: 'a trained model directory (e.g. data/models/lublin256): its env config and limits' },
  env: {
    schema: oneOf(['job', 'jobnode']),
    help: "Job-v0 (the policy picks jobs, the resource policy nodes) or JobNode-v0 (job and node); default job, or the model's",
  },
  'env-config': {
    value: 'FILE',
    schema: text(true),
    help: 'env config JSON (k, queue_order, unfit, resource_policy, limits, ...); platform and workload come from Slurm',
  },
  platform: {
    value: 'FILE',
    schema: text(true),
    help: 'platform file mapping Slurm nodes (node type = Slurm node name, else name order); default: from sinfo',
  },
  partition: { value: 'P,...', schema: text(true), help: 'the partitions whose held jobs the agent schedules (default: all)' },
  decisions: { value: 'FILE', schema: text(true), help: 'append one JSON line per start ordered: {"t", "job_id", "nodes"}' },
  record: { value: 'DIR', schema: text(true), help: 'write workload.swf (Slurm job ids, measured run times), platform.json, live.csv there' },
  'dry-run': { help: 'decide and print, act on nothing (with --exit-when-idle: one decision round)' },
  'exit-when-idle': { help: 'exit once no job of the managed partitions is pending or running' },
  'poll-ms': { value: 'MS', schema: int({ gte: 50 }), default: 1000, help: 'poll interval (also the first retry backoff on a failing command)' },
  'keep-held': { help: 'on SIGTERM/SIGINT leave the held jobs held (default: release them to Slurm)' },
});

type Flags = Values<typeof flags>;

const EnvConfigFileSchema = z.record(z.unknown());

/** Natural order of node names (`n2` before `n10`). */
export function naturalCompare(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}

/** The platform of the Slurm nodes: `file` mapped onto them, or one node per Slurm node. */
export function livePlatform(nodes: readonly SlurmNode[], file: string | undefined): { platform: Platform; nodeNames: string[] } {
  const names = nodes.map((n) => n.name).sort(naturalCompare);
  if (names.length === 0) throw new InputError('sinfo reports no node in the managed partitions', 'sinfo --json');
  if (file === undefined) {
    const byName = new Map(nodes.map((n) => [n.name, n]));
    const description = {
      name: 'slurm',
      models: { memory: 'none', comm: 'shared' },
      clusters: [
        {
          id: 'slurm',
          nodes: names.map((name) => {
            const n = byName.get(name)!;
            return {
              count: 1,
              type: name,
              memory_gb: Math.max(1, n.memoryMb) / 1024,
              processors: [{ cores: n.cpus, clock_rate: 1, dpflops_per_cycle: 1, static_power: 0, dynamic_power: 0, min_power: 0 }],
            };
          }),
        },
      ],
    };
    return { platform: parsePlatform(description, 'the platform built from sinfo'), nodeNames: names };
  }
  const platform = loadPlatform(file);
  const types = platform.nodeType;
  if (types.every((t) => t !== undefined && names.includes(t)) && new Set(types).size === types.length) {
    return { platform, nodeNames: types as string[] };
  }
  if (platform.nodeCount !== names.length)
    throw new InputError(
      `the platform has ${platform.nodeCount} nodes and Slurm ${names.length} (${names.join(',')}); name each node by its Slurm name in its "type", or give as many nodes`,
      file,
    );
  return { platform, nodeNames: names };
}

/** What the agent reads of the cluster besides the nodes' sizes: partitions, and memory as slurmctld's configuration says. */
export function clusterView(nodes: readonly SlurmNode[], partitions: readonly SlurmPartition[], config: ReadonlyMap<string, string>): SlurmClusterView {
  const mb = (k: string): number | null => {
    const v = config.get(k);
    return v !== undefined && /^\d+$/.test(v) ? Number(v) : null;
  };
  return {
    nodes,
    partitions,
    memory: /MEMORY/i.test(config.get('SelectTypeParameters') ?? ''),
    defMemPerCpu: mb('DefMemPerCPU'),
    defMemPerNode: mb('DefMemPerNode'),
  };
}

/** The env config of the live env: the user's (or the model's), with Slurm's platform, limits filled in. */
function liveEnv(
  id: 'clustergym/Job-v0' | 'clustergym/JobNode-v0',
  base: Record<string, unknown>,
  platform: Platform,
  limits: Record<string, number>,
): ClusterEnv {
  const { platform: _p, workload: _w, generator: _g, trajectory: _t, swf: _s, workload_format: _f, ...rest } = base;
  const config = {
    ...rest,
    platform: platformDescriptionJson(platform),
    // the context needs a workload; the live env never plays it (its jobs come from Slurm), and
    // every normalisation limit is given, so this one job sets nothing
    workload: { jobs: [{ id: 'live', subtime: 0, ntasks: 1, type: 'mpi', runtime: 1, req_time: 1 }] },
    limits: { req_time: 3600, ntasks: platform.coreCount, mem: 1, mem_vol: 1, ...((rest.limits as object | undefined) ?? {}), ...limits },
    enforce_memory: false,
  };
  const context = new EnvContext(id, config);
  return id === 'clustergym/Job-v0' ? new JobEnv(context) : new JobNodeEnv(context);
}

function platformDescriptionJson(p: Platform): object {
  return {
    name: p.name,
    models: p.models,
    clusters: p.description.clusters.map((c) => ({
      id: c.name,
      nodes: c.groups.map((n) => ({
        count: n.count,
        ...(n.type !== undefined ? { type: n.type } : {}),
        memory_gb: n.memory_gb,
        comm_bw: n.comm_bw,
        processors: n.processors.map((q) => ({
          cores: q.cores,
          clock_rate: q.clock_rate,
          dpflops_per_cycle: q.dpflops_per_cycle,
          static_power: q.static_power,
          dynamic_power: q.dynamic_power,
          min_power: q.min_power,
          ...(q.contention ? q.contention : {}),
        })),
      })),
    })),
  };
}

/** The heuristic of `--policy NAME` on `env`. */
function heuristicPolicy(name: string, env: ClusterEnv): LivePolicy {
  const plain = canonicalJobSelection(name);
  if (env instanceof JobEnv && env.reserve && plain !== null && plain !== 'random') {
    const agent = new PriorityAgent(name);
    return { name: agent.name, act: (e) => agent.act(e) };
  }
  const spec = name.includes(':') ? name : `${name.split('+')[0]}:${env.config.resource_policy}${name.includes('+') ? `+${name.split('+')[1]}` : ''}`;
  parsePolicyName(spec, 'none', '--policy');
  const agent = new SchedulerAgent(spec);
  return { name: agent.name, act: (e) => agent.act(e) };
}

function readJson(file: string, flag: string): Record<string, unknown> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new InputError(`cannot read ${flag} ${file}: ${(e as Error).message}`, file);
  }
  const r = EnvConfigFileSchema.safeParse(raw);
  if (!r.success) throw inputErrorFromIssues(file, r.error.issues);
  return r.data;
}

/** Runs the agent; resolves with the exit code. */
export async function slurmAgent(f: Flags): Promise<number> {
  const sources = [f.policy, f.model, f.bridge].filter((x) => x !== undefined).length;
  if (sources !== 1) throw new InputError(`give exactly one of --policy, --model, --bridge (${sources} given)`, '--policy');
  const log = (l: string) => console.error(l);
  const client = new SlurmClient({ backoffMs: Math.min(f['poll-ms'], 1000), log });
  const partitions = f.partition
    ? new Set(
        f.partition
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== ''),
      )
    : null;
  const nodes = (await client.nodes()).filter((n) => partitions === null || n.partitions.some((p) => partitions.has(p)));
  const { platform, nodeNames } = livePlatform(nodes, f.platform);
  const view = clusterView(nodes, await client.partitions(), await client.config());
  const placement = new SlurmPlacement(platform, nodeNames, view);

  let base: Record<string, unknown> = f['env-config'] ? readJson(f['env-config'], '--env-config') : {};
  let limits: Record<string, number> = {};
  let envId: 'clustergym/Job-v0' | 'clustergym/JobNode-v0' = f.env === 'jobnode' ? 'clustergym/JobNode-v0' : 'clustergym/Job-v0';
  let policy: LivePolicy;
  let env: ClusterEnv;
  if (f.model !== undefined) {
    const ppo = await import('../agents/learning/index.js');
    await ppo.selectBackend('auto');
    const { meta, config } = ppo.readModelMeta(f.model);
    if (f.env !== undefined && envId !== meta.env_id) throw new InputError(`the model was trained on ${meta.env_id}, not ${envId}`, '--env');
    envId = meta.env_id;
    if (!f['env-config']) base = { ...(config.env.config as Record<string, unknown>) };
    limits = ppo.limitsForConfig(meta.limits);
    env = liveEnv(envId, base, platform, limits);
    const loaded = await ppo.loadModelDir(f.model, ppo.rowLayout(envId, env.k, env.nodeCount));
    policy = {
      name: `model ${f.model}`,
      act: (e, obs) => loaded.network.greedyAction(obs as DictObservation, e.actionMask()),
      close: () => loaded.network.dispose(),
    };
  } else if (f.bridge !== undefined) {
    env = liveEnv(envId, base, platform, limits);
    const { BridgePolicy } = await import('./slurmAgent/bridgePolicy.js');
    policy = await BridgePolicy.start(f.bridge, env);
  } else {
    env = liveEnv(envId, base, platform, limits);
    policy = heuristicPolicy(f.policy!, env);
  }
  if (f.decisions !== undefined) writeFileSync(f.decisions, '');
  const agent = new SlurmAgent({
    client,
    env,
    platform,
    nodeNames,
    placement,
    partitions,
    policy,
    pollMs: f['poll-ms'],
    dryRun: f['dry-run'],
    exitWhenIdle: f['exit-when-idle'],
    keepHeld: f['keep-held'],
    decisionsFile: f.decisions,
    recordDir: f.record,
    log,
  });
  log(
    `clustergym slurm-agent: ${policy.name} on ${env.id} schedules ${partitions ? `partition(s) ${[...partitions].join(',')}` : 'every partition'} ` +
      `of ${nodeNames.length} nodes (${platform.coreCount} CPUs), polling every ${f['poll-ms']} ms${f['dry-run'] ? ', dry run' : ''} (pid ${process.pid})`,
  );
  let signalled = '';
  const onSignal = (s: string) => {
    signalled = s;
    log(`clustergym slurm-agent: ${s}, stopping${f['keep-held'] || f['dry-run'] ? '' : ' (releasing the held jobs)'}`);
    agent.stop();
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));
  try {
    await agent.run();
  } finally {
    await policy.close?.();
  }
  log(`clustergym slurm-agent: ${agent.decisions.length} decisions${signalled ? ` (stopped by ${signalled})` : ''}`);
  if (f.record !== undefined && f.policy !== undefined && !f['dry-run'] && existsSync(join(f.record, 'workload.swf'))) {
    // the record replayed under the same rules: each job's request on the record's platform (its nodes in the same order)
    const constrain = (policy: ResourcePolicy, recorded: Platform) => {
      const replay = new SlurmPlacement(recorded, nodeNames, view);
      for (const t of agent.tracked.values()) if (t.request) replay.register(t.slurm.id, t.request);
      return replay.constrain(policy);
    };
    const cmp = compareWithSimulation(f.record, heuristicSpecOf(f.policy, env), agent, f['poll-ms'] / 1000, env instanceof JobEnv && env.reserve, constrain);
    if (cmp) {
      writeFileSync(join(f.record, 'sim-to-real.json'), `${JSON.stringify(cmp, null, 1)}\n`);
      log(formatComparison(cmp));
    }
  }
  return 0;
}

/** The batch policy `simulate --policy` runs for `--policy NAME` on `env`. */
function heuristicSpecOf(name: string, env: ClusterEnv): string {
  if (name.includes(':')) return name;
  const [job, bf] = name.split('+');
  return `${job}:${env.config.resource_policy}${bf ? `+${bf}` : ''}`;
}

/** `clustergym slurm-agent`: Slurm failures (after their retries) exit 1 with the command's message, no stack trace. */
export const command = defineCommand(flags, async (f) => {
  try {
    return await slurmAgent(f);
  } catch (e) {
    if (e instanceof SlurmCommandError || e instanceof SlurmOutputError || e instanceof PolicyError) {
      console.error(`clustergym slurm-agent: ${e.message}`);
      return 1;
    }
    throw e;
  }
});
