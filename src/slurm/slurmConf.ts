/**
 * A reader of real `slurm.conf` files (Slurm 22.05's syntax, `man slurm.conf`) onto the engine's
 * platform (`SlurmPlatformSpec`) and scheduler settings (`SlurmConfig`).
 *
 * A line is `Key=Value` pairs separated by blanks (`#` starts a comment; keys are case-insensitive;
 * `Include FILE` reads another file). What is read:
 *
 * - `NodeName=n[1-64] CPUs=16 RealMemory=64000 Features=a,b` (host lists with ranges and lists,
 *   `n[01-16,20]`, `r[1-2]n[1-3]`; `NodeName=DEFAULT` sets the defaults of the following lines;
 *   `CPUs` else `Boards x SocketsPerBoard x CoresPerSocket x ThreadsPerCore`, else `Sockets x ...`, else 1;
 *   `Gres=gpu:TYPE:N` with `GresTypes=gpu`: the nodes' GPUs, `gres.ts`);
 * - `PartitionName=p Nodes=... MaxTime=... PriorityTier= PreemptMode= PriorityJobFactor= Default=YES
 *   MaxNodes= OverSubscribe=EXCLUSIVE` (`Nodes=ALL`; `PartitionName=DEFAULT`);
 * - `SchedulerType` (`sched/backfill`, `sched/builtin`), `SchedulerParameters` (`bf_interval`,
 *   `bf_max_job_test`, `bf_window` (min), `bf_resolution`, `bf_continue`, `default_queue_depth`,
 *   `sched_min_interval` (µs), `sched_interval`, `batch_sched_delay`), `PriorityType` (`priority/basic`: every weight 0, so FIFO by submission;
 *   `priority/multifactor`) and `PriorityWeightAge|Fairshare|JobSize|Partition|QOS`, `PriorityMaxAge`,
 *   `PriorityDecayHalfLife`, `PriorityCalcPeriod`, `PriorityFavorSmall`; `SelectType` (`select/linear`:
 *   whole nodes) and `SelectTypeParameters` (`CR_Core`, `CR_CPU`, `CR_Core_Memory`, `CR_CPU_Memory`);
 *   `PreemptType` (`preempt/partition_prio`, `preempt/none`) and the global `PreemptMode`.
 *
 * Defaults are Slurm 22.05's (`bf_max_job_test` 500, `PriorityType=priority/basic`, `sched/backfill`),
 * not the engine's `DEFAULT_SLURM` (Slurm 16.05 with typical multifactor weights, seed 004's setting).
 *
 * **Nodes.** Nodes of the same `NodeName` line that belong to the same partitions form one group of the
 * engine's platform (cores are counted per group, not per node). When nodes are allocated whole
 * (`select/linear`, or every partition `OverSubscribe=EXCLUSIVE`), each group counts *nodes*: a group of
 * `count` nodes of 1 "core", and a job asks for nodes; otherwise a group counts cores (`CPUs`) and a job
 * asks for cores.
 *
 * A setting that is not modelled is listed once in `ignored` (`Key=value`, with the line); a malformed
 * line (a word without `=`, a number that is not one, an unknown node in a partition) is an
 * `InputError` naming the file and line.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../core/errors.js';
import type { GpuDescription } from '../platform/gpus.js';
import type { SlurmConfig } from './config.js';
import { nodeLineGpus, undeclaredGpus } from './gres.js';
import { PREEMPT_MODES, type PreemptMode, SlurmPlatform, type SlurmPlatformSpec } from './platform.js';
import { DEFAULT_PRIORITY, NO_PRIORITY_WEIGHTS, type PriorityConfig } from './priority.js';
import { compressHostList, expandHostList, parseSlurmTime } from './hostList.js';

/**
 * Mean delay (s) between a job's end and the main scheduler's pass that starts the next job, measured
 * on Slurm 22.05 with emulated nodes (docs/slurm.md: 0.34 s and 0.47 s over two replays). Used by
 * `clustergym slurm-replay --sched-delay S` (a main pass that much after each job end, instead of Slurm's
 * background thread, `batchSchedDelay`: the engine before it was modelled).
 */
export const SLURM_SCHED_DELAY = 0.4;

/** Slurm's default `batch_sched_delay` (s): the background thread's minimum spacing of queued main passes. */
export const SLURM_BATCH_SCHED_DELAY = 3;

/** A node line as read. */
export interface ConfNodeLine {
  /** The host list as written (`n[1-64]`). */
  expr: string;
  names: string[];
  cpus: number;
  realMemory: number;
  features: string[];
  /** Its GPUs (`Gres=gpu:TYPE:N`, `gres.ts`). */
  gpus?: GpuDescription | undefined;
  line: number;
}

/** A partition as read. */
export interface ConfPartition {
  name: string;
  nodes: string[];
  maxTime: number;
  maxNodes: number | undefined;
  priorityTier: number;
  priorityJobFactor: number;
  preemptMode: PreemptMode;
  isDefault: boolean;
  exclusive: boolean;
  /** `DefMemPerCPU`, `DefMemPerNode` (MB; undefined: not set here). */
  defMemPerCpu: number | undefined;
  defMemPerNode: number | undefined;
  line: number;
}

/** What a slurm.conf says, validated (`SlurmConfSchema`), and mapped onto the engine. */
export interface SlurmConf {
  file: string;
  nodeLines: ConfNodeLine[];
  partitions: ConfPartition[];
  /** The engine's platform: groups of nodes (see the module comment). */
  platform: SlurmPlatformSpec;
  /** Per group of `platform`: the node names (in host-list order). */
  groupNodes: string[][];
  /** Per group: CPUs per node (the group's `cores` is 1 when nodes are whole). */
  groupCpus: number[];
  /** The engine's settings. */
  config: Partial<SlurmConfig>;
  /** Whole nodes are allocated (select/linear or OverSubscribe=EXCLUSIVE everywhere). */
  wholeNodes: boolean;
  /** Memory is a consumable resource (`SelectTypeParameters=CR_*_Memory`): the platform's groups carry it. */
  memory: boolean;
  /** `DefMemPerCPU`, `DefMemPerNode` (MB; undefined: not set). */
  defMemPerCpu: number | undefined;
  defMemPerNode: number | undefined;
  /** Index of the default partition (`Default=YES`, else the first). */
  defaultPartition: number;
  /** `sched_min_interval` (s; Slurm gives it in µs). */
  schedMinInterval: number;
  /** `bf_continue` was given. */
  bfContinue: boolean;
  /** `SlurmctldLogFile`, when given (the live comparison reads which jobs backfill started). */
  slurmctldLogFile: string | undefined;
  /** Settings not modelled, one entry per key: `Key=value (line N)`. */
  ignored: string[];
}

/** Splits a line into `Key=Value` words (values may be double-quoted). */
function words(line: string): string[] {
  const out: string[] = [];
  const re = /\S*?"[^"]*"\S*|\S+/g;
  for (let m = re.exec(line); m; m = re.exec(line)) out.push(m[0].replace(/"/g, ''));
  return out;
}

// ------------------------------------------------------------------------------------ zod schemas

const int = (min = 0) => z.coerce.number().int().min(min);
const yesNo = z.string().transform((s, ctx) => {
  if (/^(yes|true|1)$/i.test(s)) return true;
  if (/^(no|false|0)$/i.test(s)) return false;
  ctx.addIssue({ code: 'custom', message: `expected YES or NO, found ${JSON.stringify(s)}` });
  return z.NEVER;
});
const slurmTime = z.string().transform((s, ctx) => {
  try {
    return parseSlurmTime(s);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message });
    return z.NEVER;
  }
});
const NodeLineSchema = z
  .object({
    cpus: int(1).optional(),
    boards: int(1).optional(),
    socketsperboard: int(1).optional(),
    sockets: int(1).optional(),
    corespersocket: int(1).optional(),
    threadspercore: int(1).optional(),
    realmemory: int(0).optional(),
    features: z.string().optional(),
  })
  .passthrough();
const PartitionLineSchema = z
  .object({
    nodes: z.string().min(1).optional(),
    maxtime: slurmTime.optional(),
    maxnodes: z.string().optional(),
    prioritytier: int(0).optional(),
    priorityjobfactor: int(0).optional(),
    preemptmode: z.string().optional(),
    default: yesNo.optional(),
    oversubscribe: z.string().optional(),
    shared: z.string().optional(),
    state: z.string().optional(),
    defmempercpu: int(0).optional(),
    defmempernode: z.string().optional(),
  })
  .passthrough();
const SchedParamsSchema = z.object({
  bf_interval: int(-1).optional(),
  bf_max_job_test: int(1).optional(),
  bf_window: int(1).optional(),
  bf_resolution: int(1).optional(),
  default_queue_depth: int(1).optional(),
  sched_min_interval: int(0).optional(),
  sched_interval: int(-1).optional(),
  batch_sched_delay: int(0).optional(),
});

/** Node, partition and scheduling keys this reader models (lower case). */
const NODE_KEYS = new Set(['nodename', 'cpus', 'boards', 'socketsperboard', 'sockets', 'corespersocket', 'threadspercore', 'realmemory', 'features', 'gres']);
const PART_KEYS = new Set([
  'partitionname',
  'nodes',
  'maxtime',
  'maxnodes',
  'prioritytier',
  'priorityjobfactor',
  'preemptmode',
  'default',
  'oversubscribe',
  'shared',
  'state',
  'defmempercpu',
  'defmempernode',
]);
const MODELLED_SCHED = new Set([
  'bf_interval',
  'bf_max_job_test',
  'bf_window',
  'bf_resolution',
  'bf_continue',
  'default_queue_depth',
  'sched_min_interval',
  'sched_interval',
  'batch_sched_delay',
]);

/** The validated reader's result (internal consistency of what it builds). */
export const SlurmConfSchema = z.object({
  nodeLines: z.array(z.object({ names: z.array(z.string()).min(1), cpus: z.number().int().positive() }).passthrough()).min(1, 'no NodeName line'),
  partitions: z.array(z.object({ name: z.string().min(1), nodes: z.array(z.string()).min(1) }).passthrough()).min(1, 'no PartitionName line'),
});

// ------------------------------------------------------------------------------------ reader

/** Reads and maps a slurm.conf file (see the module comment). */
export function readSlurmConf(file: string): SlurmConf {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read: ${(e as Error).message}`, file);
  }
  return parseSlurmConf(text, file);
}

interface RawLine {
  file: string;
  line: number;
  pairs: [string, string][];
  /** The keys as written (for messages). */
  keys: string[];
}

function rawLines(text: string, file: string, depth = 0): RawLine[] {
  const out: RawLine[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const where = `${file}:${i + 1}`;
    const body = lines[i]!.replace(/#.*$/, '').trim();
    if (body === '') continue;
    const inc = /^include\s+(\S+)$/i.exec(body);
    if (inc) {
      if (depth > 8) throw new InputError('Include nested too deep', where);
      const path = resolve(dirname(file), inc[1]!);
      let sub: string;
      try {
        sub = readFileSync(path, 'utf8');
      } catch (e) {
        throw new InputError(`Include ${inc[1]}: ${(e as Error).message}`, where);
      }
      out.push(...rawLines(sub, path, depth + 1));
      continue;
    }
    const pairs: [string, string][] = [];
    const keys: string[] = [];
    for (const w of words(body)) {
      const eq = w.indexOf('=');
      if (eq <= 0) throw new InputError(`expected Key=Value, found ${JSON.stringify(w)}`, where);
      pairs.push([w.slice(0, eq).toLowerCase(), w.slice(eq + 1)]);
      keys.push(w.slice(0, eq));
    }
    out.push({ file, line: i + 1, pairs, keys });
  }
  return out;
}

/** Parses slurm.conf text (`file` names it in errors and resolves `Include`). */
export function parseSlurmConf(text: string, file = 'slurm.conf'): SlurmConf {
  const ignored = new Map<string, string>();
  const ignore = (key: string, value: string, r: { line: number }, why = '') => {
    if (!ignored.has(key.toLowerCase())) ignored.set(key.toLowerCase(), `${key}=${value} (line ${r.line}${why ? `: ${why}` : ''})`);
  };
  const orig = (r: RawLine, k: string) => r.keys[r.pairs.findIndex((p) => p[0] === k)] ?? k;
  const at = (r: RawLine) => `${r.file}:${r.line}`;
  const parse = <T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, obj: Record<string, string>, r: RawLine): T => {
    const p = schema.safeParse(obj);
    if (!p.success) throw inputErrorFromIssues(at(r), p.error.issues);
    return p.data;
  };
  const global = new Map<string, { value: string; r: RawLine }>();
  const nodeLines: ConfNodeLine[] = [];
  const partRaw: { r: RawLine; obj: Record<string, string> }[] = [];
  let nodeDefault: Record<string, string> = {};
  let partDefault: Record<string, string> = {};
  for (const r of rawLines(text, file)) {
    const [k0, v0] = r.pairs[0]!;
    const obj = Object.fromEntries(r.pairs);
    if (k0 === 'nodename') {
      const o = { ...nodeDefault, ...obj };
      for (const [k, v] of r.pairs) if (!NODE_KEYS.has(k)) ignore(orig(r, k), v, r, 'node attribute not modelled');
      if (v0.toUpperCase() === 'DEFAULT') {
        nodeDefault = { ...nodeDefault, ...obj };
        delete nodeDefault.nodename;
        continue;
      }
      const n = parse(NodeLineSchema, o, r);
      let names: string[];
      try {
        names = expandHostList(v0);
      } catch (e) {
        throw new InputError(`NodeName: ${(e as Error).message}`, at(r));
      }
      const cores = n.corespersocket ?? 1;
      const threads = n.threadspercore ?? 1;
      const sockets = n.sockets ?? (n.boards ?? 1) * (n.socketsperboard ?? 1);
      const cpus = n.cpus ?? sockets * cores * threads;
      nodeLines.push({
        expr: v0,
        names,
        cpus,
        realMemory: n.realmemory ?? 1,
        features: n.features ? n.features.split(',').filter((x) => x !== '') : [],
        gpus: nodeLineGpus(o.gres, at(r), (g) => ignore(`Gres:${g.name}`, o.gres!, r, 'generic resource not modelled (GPUs are)')),
        line: r.line,
      });
    } else if (k0 === 'partitionname') {
      for (const [k, v] of r.pairs) if (!PART_KEYS.has(k)) ignore(orig(r, k), v, r, 'partition attribute not modelled');
      if (v0.toUpperCase() === 'DEFAULT') {
        partDefault = { ...partDefault, ...obj };
        delete partDefault.partitionname;
        continue;
      }
      partRaw.push({ r, obj: { ...partDefault, ...obj } });
    } else if (k0 === 'nodeset' || k0 === 'frontendname' || k0 === 'downnodes' || k0 === 'switchname') {
      ignore(r.keys[0]!, v0, r);
    } else {
      for (const [k, v] of r.pairs) global.set(k, { value: v, r });
    }
  }
  // ---- scheduling
  const get = (k: string) => global.get(k);
  const used = new Set<string>();
  const val = (k: string) => {
    used.add(k);
    return get(k)?.value;
  };
  const undeclared = undeclaredGpus(val('grestypes'), nodeLines);
  for (const u of undeclared) ignore('Gres', u.value, u, u.why);
  const config: Partial<SlurmConfig> = {
    backfill: true,
    bfInterval: 30,
    bfWindow: 1440 * 60,
    bfResolution: 60,
    bfMaxJobTest: 500,
    queueDepth: 100,
    // Slurm 22.05's timing (measured: docs/slurm.md): submissions and job ends queue a main pass that
    // the background thread runs (batch_sched_delay), a main pass every sched_interval (60 s), backfill
    // on its own timer
    schedOnSubmit: false,
    schedDelay: 0,
    batchSchedDelay: SLURM_BATCH_SCHED_DELAY,
    schedInterval: 60,
    bfGrid: true,
    // bf_resolution rounding as sched/backfill does it
    bfSlurmRounding: true,
  };
  const st = val('schedulertype');
  if (st !== undefined) {
    if (/^sched\/backfill$/i.test(st)) config.backfill = true;
    else if (/^sched\/builtin$/i.test(st)) config.backfill = false;
    else throw new InputError(`SchedulerType: expected sched/backfill or sched/builtin, found ${JSON.stringify(st)}`, at(get('schedulertype')!.r));
  }
  let schedMinInterval = 2e-6;
  let bfContinue = false;
  const sp = val('schedulerparameters');
  if (sp !== undefined) {
    const r = get('schedulerparameters')!.r;
    const params: Record<string, string> = {};
    for (const item of sp.split(',')) {
      if (item === '') continue;
      const eq = item.indexOf('=');
      const k = (eq < 0 ? item : item.slice(0, eq)).toLowerCase();
      const v = eq < 0 ? '' : item.slice(eq + 1);
      if (k === 'bf_continue') bfContinue = true;
      else if (MODELLED_SCHED.has(k)) params[k] = v;
      else ignore(`SchedulerParameters:${k}`, v, r, 'scheduler parameter not modelled');
    }
    const p = parse(SchedParamsSchema, params, r);
    if (p.bf_interval !== undefined) {
      if (p.bf_interval === -1) config.backfill = false;
      else if (p.bf_interval === 0) throw new InputError('SchedulerParameters: bf_interval must be >= 1 (or -1)', at(r));
      else config.bfInterval = p.bf_interval;
    }
    if (p.bf_max_job_test !== undefined) config.bfMaxJobTest = p.bf_max_job_test;
    if (p.bf_window !== undefined) config.bfWindow = p.bf_window * 60;
    if (p.bf_resolution !== undefined) config.bfResolution = p.bf_resolution;
    if (p.default_queue_depth !== undefined) config.queueDepth = p.default_queue_depth;
    if (p.sched_min_interval !== undefined) schedMinInterval = p.sched_min_interval / 1e6;
    if (p.sched_interval !== undefined) config.schedInterval = Math.max(0, p.sched_interval);
    // 0 in Slurm means every tick of the background thread (1 s)
    if (p.batch_sched_delay !== undefined) config.batchSchedDelay = Math.max(1, p.batch_sched_delay);
  }
  config.schedMinInterval = schedMinInterval;
  // ---- priority
  const priority: PriorityConfig = {
    ...DEFAULT_PRIORITY,
    ...NO_PRIORITY_WEIGHTS,
    jobSize: 'slurm22',
  };
  const pt = val('prioritytype') ?? 'priority/basic';
  const multifactor = /^priority\/multifactor$/i.test(pt);
  if (!multifactor && !/^priority\/basic$/i.test(pt))
    throw new InputError(`PriorityType: expected priority/basic or priority/multifactor, found ${JSON.stringify(pt)}`, at(get('prioritytype')!.r));
  const num = (k: string, f: (v: string) => number, set: (x: number) => void) => {
    const v = val(k);
    if (v === undefined) return;
    const x = f(v);
    if (!Number.isFinite(x) || x < 0) throw new InputError(`${k}: expected a number >= 0, found ${JSON.stringify(v)}`, at(get(k)!.r));
    if (multifactor) set(x);
    else ignore(k, v, get(k)!.r, 'PriorityType=priority/basic orders jobs by submission');
  };
  const time = (v: string) => {
    try {
      return parseSlurmTime(v);
    } catch {
      return Number.NaN;
    }
  };
  num('priorityweightage', Number, (x) => (priority.weightAge = x));
  num('priorityweightfairshare', Number, (x) => (priority.weightFairshare = x));
  num('priorityweightjobsize', Number, (x) => (priority.weightJobSize = x));
  num('priorityweightpartition', Number, (x) => (priority.weightPartition = x));
  num('priorityweightqos', Number, (x) => (priority.weightQos = x));
  num('prioritymaxage', time, (x) => (priority.maxAge = x));
  num('prioritydecayhalflife', time, (x) => (priority.decayHalfLife = x));
  num('prioritycalcperiod', time, (x) => (priority.calcPeriod = x));
  const fs = val('priorityfavorsmall');
  if (fs !== undefined) priority.favorSmall = /^(yes|true|1)$/i.test(fs);
  config.priority = priority;
  // ---- select
  const sel = val('selecttype') ?? 'select/cons_tres';
  let wholeNodes = false;
  if (/^select\/linear$/i.test(sel)) wholeNodes = true;
  else if (!/^select\/cons_(res|tres)$/i.test(sel))
    throw new InputError(`SelectType: expected select/linear, select/cons_res or select/cons_tres, found ${JSON.stringify(sel)}`, at(get('selecttype')!.r));
  const stp = val('selecttypeparameters');
  let memory = false;
  if (stp !== undefined) {
    for (const p of stp.split(',')) {
      if (/^CR_(Core|CPU)$/i.test(p)) continue;
      if (/^CR_(Core|CPU)_Memory$/i.test(p)) memory = true;
      else if (/^CR_Memory$/i.test(p))
        ignore('SelectTypeParameters:CR_Memory', p, get('selecttypeparameters')!.r, 'memory is not modelled without CPUs; cores are');
      else ignore(`SelectTypeParameters:${p}`, p, get('selecttypeparameters')!.r);
    }
  }
  const memOpt = (k: string): number | undefined => {
    const v = val(k);
    if (v === undefined || /^(unlimited|infinite)$/i.test(v)) return undefined;
    if (!/^\d+$/.test(v)) throw new InputError(`${k}: expected MB or UNLIMITED, found ${JSON.stringify(v)}`, at(get(k)!.r));
    return Number(v);
  };
  const defMemPerCpu = memOpt('defmempercpu');
  const defMemPerNode = memOpt('defmempernode');
  // ---- preemption
  const pre = val('preempttype') ?? 'preempt/none';
  let preemptOn: boolean;
  if (/^preempt\/partition_prio$/i.test(pre)) preemptOn = true;
  else if (/^preempt\/none$/i.test(pre)) preemptOn = false;
  else {
    ignore('PreemptType', pre, get('preempttype')!.r, 'only preempt/partition_prio and preempt/none are modelled');
    preemptOn = false;
  }
  const preemptModeOf = (v: string | undefined, where: string): PreemptMode => {
    if (v === undefined) return 'off';
    const modes = v.toLowerCase().split(',');
    const m = modes.find((x) => (PREEMPT_MODES as readonly string[]).includes(x));
    if (!m && !modes.every((x) => x === 'gang' || x === 'within'))
      throw new InputError(`PreemptMode: expected one of ${PREEMPT_MODES.join(', ')} (GANG is not modelled), found ${JSON.stringify(v)}`, where);
    return (m as PreemptMode | undefined) ?? 'off';
  };
  const globalMode = preemptModeOf(val('preemptmode'), get('preemptmode') ? at(get('preemptmode')!.r) : file);
  // ---- partitions
  const allNodes = nodeLines.flatMap((n) => n.names);
  const nodeIndex = new Map<string, number>();
  for (const [i, n] of allNodes.entries()) {
    if (nodeIndex.has(n)) throw new InputError(`node ${n} defined twice`, file);
    nodeIndex.set(n, i);
  }
  const partitions: ConfPartition[] = partRaw.map(({ r, obj }) => {
    const p = parse(PartitionLineSchema, obj, r);
    let nodes: string[];
    try {
      nodes = !p.nodes || /^all$/i.test(p.nodes) ? allNodes : expandHostList(p.nodes);
    } catch (e) {
      throw new InputError(`Nodes: ${(e as Error).message}`, at(r));
    }
    for (const n of nodes) if (!nodeIndex.has(n)) throw new InputError(`Nodes: node ${n} has no NodeName line`, at(r));
    let maxNodes: number | undefined;
    if (p.maxnodes !== undefined && !/^(unlimited|infinite)$/i.test(p.maxnodes)) {
      maxNodes = Number(p.maxnodes);
      if (!Number.isInteger(maxNodes) || maxNodes < 1)
        throw new InputError(`MaxNodes: expected an integer >= 1 or UNLIMITED, found ${JSON.stringify(p.maxnodes)}`, at(r));
    }
    const os = (p.oversubscribe ?? p.shared ?? 'NO').toUpperCase();
    if (!['NO', 'EXCLUSIVE'].includes(os.split(':')[0]!)) ignore('OverSubscribe', os, r, 'oversubscription is not modelled');
    if (p.state !== undefined && !/^up$/i.test(p.state)) ignore('State', p.state, r, 'partitions are always up in the engine');
    const mode = p.preemptmode !== undefined ? preemptModeOf(p.preemptmode, at(r)) : globalMode;
    return {
      name: obj.partitionname!,
      nodes,
      maxTime: p.maxtime ?? Number.POSITIVE_INFINITY,
      maxNodes,
      priorityTier: p.prioritytier ?? 1,
      priorityJobFactor: p.priorityjobfactor ?? 1,
      preemptMode: preemptOn ? mode : 'off',
      isDefault: p.default ?? false,
      exclusive: os.startsWith('EXCLUSIVE'),
      defMemPerCpu: p.defmempercpu,
      defMemPerNode: p.defmempernode !== undefined && /^\d+$/.test(p.defmempernode) ? Number(p.defmempernode) : undefined,
      line: r.line,
    };
  });
  const check = SlurmConfSchema.safeParse({ nodeLines, partitions });
  if (!check.success) throw inputErrorFromIssues(file, check.error.issues);
  if (!wholeNodes && partitions.every((p) => p.exclusive)) wholeNodes = true;
  // jobs and backfill reservations on specific nodes (whole nodes, or CPUs and memory on each), chosen as the
  // select plugin does, and the backfill pass as sched/backfill's will-run test does it (running jobs outside
  // the map); jobs of an OverSubscribe=EXCLUSIVE partition of a CPU cluster get whole nodes (replayJobs)
  config.nodeSelect = true;
  config.bfWillRun = true;
  // ---- groups: nodes alike (CPUs, memory, features) in the same set of partitions
  const lineOf = new Int32Array(allNodes.length);
  let k = 0;
  for (const [li, n] of nodeLines.entries()) for (let j = 0; j < n.names.length; j++) lineOf[k++] = li;
  const sig = allNodes.map(() => [] as number[]);
  for (const [pi, p] of partitions.entries()) for (const n of new Set(p.nodes)) sig[nodeIndex.get(n)!]!.push(pi);
  const groupKey = new Map<string, number>();
  const groupNodes: string[][] = [];
  const groupCpus: number[] = [];
  const groupMem: number[] = [];
  const groupGpus: (GpuDescription | undefined)[] = []; // its nodes' GPUs, when GresTypes declares them
  for (const [i, n] of allNodes.entries()) {
    const nl = nodeLines[lineOf[i]!]!;
    const key = `${nl.cpus}|${nl.realMemory}|${[...nl.features].sort().join(',')}|${sig[i]!.join(',')}|${nl.gpus?.type}:${nl.gpus?.count}`;
    let g = groupKey.get(key);
    if (g === undefined) {
      g = groupNodes.length;
      groupKey.set(key, g);
      groupNodes.push([]);
      groupCpus.push(nodeLines[lineOf[i]!]!.cpus);
      groupMem.push(nl.realMemory);
      groupGpus.push(undeclared.length === 0 ? nl.gpus : undefined);
    }
    groupNodes[g]!.push(n);
  }
  const groupNames = groupNodes.map((names) => compressHostList(names));
  const groupOf = new Int32Array(allNodes.length);
  for (const [g, names] of groupNodes.entries()) for (const n of names) groupOf[nodeIndex.get(n)!] = g;
  const platform: SlurmPlatformSpec = {
    groups: groupNodes.map((names, g) => ({
      name: groupNames[g]!,
      count: names.length,
      cores: wholeNodes ? 1 : groupCpus[g]!,
      ...(memory && !wholeNodes ? { memory_mb: groupMem[g]! } : {}),
      ...(wholeNodes ? { cpus: groupCpus[g]! } : {}),
      ...(groupGpus[g] ? { gpus: { count: groupGpus[g].count, type: groupGpus[g].type } } : {}),
    })),
    partitions: partitions.map((p) => ({
      name: p.name,
      groups: [...new Set(p.nodes.map((n) => groupOf[nodeIndex.get(n)!]!))].map((g) => groupNames[g]!),
      max_time: p.maxTime,
      ...(p.maxNodes !== undefined ? { max_nodes: p.maxNodes } : {}),
      priority_tier: p.priorityTier,
      priority_job_factor: p.priorityJobFactor,
      preempt_mode: p.preemptMode,
    })),
  };
  new SlurmPlatform(platform, file); // validates
  used.add('slurmctldlogfile');
  for (const [key, { value, r }] of global) if (!used.has(key)) ignore(orig(r, key), value, r);
  const def = partitions.findIndex((p) => p.isDefault);
  return {
    file,
    nodeLines,
    partitions,
    platform,
    groupNodes,
    groupCpus,
    config,
    wholeNodes,
    memory: memory && !wholeNodes,
    defMemPerCpu,
    defMemPerNode,
    defaultPartition: def < 0 ? 0 : def,
    schedMinInterval,
    bfContinue,
    slurmctldLogFile: get('slurmctldlogfile')?.value,
    ignored: [...ignored.values()],
  };
}
