/**
 * The one client of a live Slurm (`clustergym slurm-agent`, `clustergym slurm-replay --live`): Slurm's
 * own commands (`squeue`, `sinfo`, `scontrol`, `sbatch`, `scancel` on PATH, honouring `SLURM_CONF` in the
 * environment), nothing compiled against Slurm.
 *
 * - Reading: `squeue --json` (every job slurmctld still knows, finished ones while `MinJobAge` keeps
 *   them), `sinfo --json` (the nodes, with what is allocated on each), `scontrol show partition -o` and
 *   `scontrol show config`; the JSON answers are checked with zod: a field missing or of another type is a
 *   `SlurmOutputError` naming the command, the JSON path and what was expected versus found.
 * - Acting: `scontrol update jobid=J ReqNodeList=...`, `scontrol release J`, `sbatch --parsable`,
 *   `scancel`.
 * - Failures: a command that fails (slurmctld down, a timeout; for the `--json` commands, which exit 0
 *   when slurmctld cannot be reached, an answer whose `errors` is not empty) is retried with exponential
 *   backoff (`backoffMs`, doubling, at most `maxBackoffMs`) up to `attempts` times, then a
 *   `SlurmCommandError` names the command, its exit status and its message. "Permission denied" is not
 *   retried: it says which rights are needed (operator). `sbatch` is tried once (a retry could submit twice).
 */
import { execFile } from 'node:child_process';
import { z } from 'zod';
import { type SlurmRequest, requestOf } from './request.js';
import { expandHostList, parseSlurmTime } from './hostList.js';

/** A job as `squeue --json` reports it (times in Unix seconds; 0 when not yet known). */
export interface SlurmJob {
  id: string;
  name: string;
  user: string;
  /** `PENDING`, `RUNNING`, `COMPLETED`, `CANCELLED`, `FAILED`, `TIMEOUT`, ... */
  state: string;
  /** Why it pends (`JobHeldUser`, `JobHeldAdmin`, `Resources`, `Dependency`, `None`, ...). */
  reason: string;
  /** The partition(s) as given (`a,b` while pending; the one it runs in once started). */
  partition: string;
  submit: number;
  start: number;
  end: number;
  /** CPUs requested (allocated once running). */
  cpus: number;
  /** Nodes (Slurm's count: an estimate while pending, the allocation once started). */
  nodeCount: number;
  /** Time limit in seconds (Infinity: none). */
  timeLimit: number;
  /** Held (priority 0): it waits for a release. */
  held: boolean;
  /** Allocated nodes (expanded), running or finished jobs; `nodeList` as Slurm writes it. */
  nodes: string[];
  nodeList: string;
  /** ReqNodeList (expanded). */
  requiredNodes: string[];
  /** CPUs (and memory, MB) allocated on each node (running jobs, from `job_resources`), or null when Slurm does not say. */
  allocation: Map<string, number> | null;
  memoryAllocation: Map<string, number> | null;
  /** The request (meaningful while pending: Slurm rewrites CPUs and nodes once a job runs). */
  request: SlurmRequest;
  /** Part of a job array or a heterogeneous job. */
  composite: boolean;
}

/** A node as `sinfo --json` reports it. */
export interface SlurmNode {
  name: string;
  cpus: number;
  memoryMb: number;
  /** `idle`, `mixed`, `allocated`, `down`, `drained`, `draining`, `completing`... (with `stateFlags`). */
  state: string;
  stateFlags: string[];
  partitions: string[];
  features: string[];
  /** CPUs and memory (MB) allocated now. */
  allocCpus: number;
  allocMemoryMb: number;
}

/** A partition as `scontrol show partition -o` reports it (the fields the agent reads). */
export interface SlurmPartition {
  name: string;
  nodes: string[];
  /** `OverSubscribe=EXCLUSIVE`: every job gets whole nodes. */
  exclusive: boolean;
  /** Seconds (Infinity: unlimited). */
  maxTime: number;
  /** `DefMemPerNode` / `DefMemPerCPU` (MB), null when unlimited or not set. */
  defMemPerNode: number | null;
  defMemPerCpu: number | null;
  priorityTier: number;
}

/** A Slurm command failed (after its retries). */
export class SlurmCommandError extends Error {
  constructor(
    readonly command: string,
    message: string,
    /** Whether retrying later may help (false for permission errors). */
    readonly transient: boolean,
  ) {
    super(`${command}: ${message}`);
    this.name = 'SlurmCommandError';
  }
}

/** A Slurm command answered something that cannot be read. */
export class SlurmOutputError extends Error {
  constructor(command: string, message: string) {
    super(`${command}: unexpected output: ${message}`);
    this.name = 'SlurmOutputError';
  }
}

const int = z.number().int();
const optInt = int.nullable().optional();
/** `squeue --json` as far as it is read (Slurm 22.05's data_parser; unknown fields ignored). */
const SqueueSchema = z.object({
  jobs: z.array(
    z.object({
      job_id: int,
      name: z.string(),
      user_name: z.string(),
      job_state: z.string(),
      state_reason: z.string(),
      partition: z.string(),
      submit_time: int,
      start_time: int,
      end_time: int,
      cpus: int,
      tasks: int,
      node_count: int,
      max_nodes: optInt,
      cpus_per_task: optInt,
      tasks_per_node: optInt,
      tres_req_str: z.string().optional(),
      memory_per_node: optInt,
      memory_per_cpu: optInt,
      shared: z.string().nullable().optional(),
      features: z.string().optional(),
      time_limit: int.nullable(),
      dependency: z.string().optional(),
      nice: optInt,
      qos: z.string().optional(),
      contiguous: z.boolean().optional(),
      excluded_nodes: z.string().optional(),
      priority: int,
      nodes: z.string(),
      required_nodes: z.string(),
      job_resources: z
        .object({
          allocated_nodes: z
            .array(
              z.object({
                nodename: z.string(),
                sockets: z.record(z.object({ cores: z.record(z.string()) })),
                memory_allocated: int.optional(),
              }),
            )
            .optional(),
        })
        .optional(),
      array_job_id: optInt,
      het_job_id: optInt,
    }),
  ),
});
type RawJob = z.infer<typeof SqueueSchema>['jobs'][number];

const SinfoSchema = z.object({
  nodes: z.array(
    z.object({
      name: z.string(),
      cpus: int,
      real_memory: int,
      state: z.string(),
      state_flags: z.array(z.string()).optional(),
      partitions: z.array(z.string()),
      active_features: z.string().optional(),
      features: z.string().optional(),
      alloc_cpus: int.optional(),
      alloc_memory: int.optional(),
    }),
  ),
});

/** The `errors` every `--json` answer carries (non-empty when the command failed, e.g. slurmctld down). */
const ErrorsSchema = z.object({
  errors: z.array(z.object({ description: z.string().optional(), error: z.string().optional(), source: z.string().optional() })).optional(),
});

/** A host list (`n[1-3,7],m2`) expanded; empty for `""` and `(null)`. */
export function hostNames(list: string): string[] {
  const s = list.trim();
  return s === '' || s === '(null)' ? [] : expandHostList(s);
}

/** Options of the client. */
export interface SlurmClientOptions {
  /** Environment of the commands (default `process.env`: `SLURM_CONF` and PATH from there). */
  env?: NodeJS.ProcessEnv;
  /** Tries per command (default 5). */
  attempts?: number;
  /** First retry delay (ms, default 250), doubled each time up to `maxBackoffMs` (default 8000). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Timeout of one command (ms, default 15000). */
  timeoutMs?: number;
  /** Where retries are reported (default stderr). */
  log?: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs Slurm's commands. */
export class SlurmClient {
  private readonly env: NodeJS.ProcessEnv;
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly timeoutMs: number;
  private readonly log: (line: string) => void;

  constructor(o: SlurmClientOptions = {}) {
    this.env = o.env ?? process.env;
    this.attempts = o.attempts ?? 5;
    this.backoffMs = o.backoffMs ?? 250;
    this.maxBackoffMs = o.maxBackoffMs ?? 8000;
    this.timeoutMs = o.timeoutMs ?? 15000;
    this.log = o.log ?? ((l) => console.error(l));
  }

  /** Runs `cmd args` (up to `attempts` tries, default the client's); its stdout. */
  async run(cmd: string, args: string[], attempts = this.attempts): Promise<string> {
    const shown = [cmd, ...args].join(' ');
    let delay = this.backoffMs;
    for (let attempt = 1; ; attempt++) {
      const r = await new Promise<{ code: number | string | null; stdout: string; stderr: string }>((resolve) => {
        execFile(cmd, args, { env: this.env, timeout: this.timeoutMs, maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
          const code = err ? ((err as NodeJS.ErrnoException).code ?? (err as { signal?: string }).signal ?? 1) : 0;
          resolve({ code: code as number | string | null, stdout, stderr });
        });
      });
      if (r.code === 0) return r.stdout;
      const msg = `${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' / ') || 'no message'} (exit status ${r.code})`;
      if (r.code === 'ENOENT') throw new SlurmCommandError(shown, `${cmd} is not on PATH (install slurm-client, or see deploy/slurm/local-cluster.sh)`, false);
      if (/permission denied|access denied|not authorized/i.test(msg))
        throw new SlurmCommandError(
          shown,
          `${msg}: updating and releasing jobs needs operator rights (run as root or SlurmUser, or give the user AdminLevel=Operator: sacctmgr modify user NAME set adminlevel=operator)`,
          false,
        );
      if (/invalid (node name|job id)|Invalid job id specified/i.test(msg)) throw new SlurmCommandError(shown, msg, false);
      if (attempt >= attempts) throw new SlurmCommandError(shown, attempts > 1 ? `${msg}; gave up after ${attempt} tries` : msg, true);
      this.log(`clustergym: ${shown} failed: ${msg}; retry ${attempt}/${attempts - 1} in ${delay} ms`);
      await sleep(delay);
      delay = Math.min(this.maxBackoffMs, delay * 2);
    }
  }

  /**
   * `cmd args` (a `--json` command) parsed with `schema`. Slurm's JSON commands exit 0 even when
   * they could not reach slurmctld, listing the failure in `errors` (with an empty `jobs`): that is a
   * failure, retried as a failing exit status is.
   */
  private async runJson<T>(cmd: string, args: string[], schema: z.ZodType<T>): Promise<T> {
    const shown = [cmd, ...args].join(' ');
    let delay = this.backoffMs;
    for (let attempt = 1; ; attempt++) {
      const data = parseJson(shown, await this.run(cmd, args), schema.and(ErrorsSchema));
      const errors = (data as z.infer<typeof ErrorsSchema>).errors ?? [];
      if (errors.length === 0) return data;
      const msg = errors.map((e) => [e.source, e.description, e.error].filter((x) => x).join(': ')).join(' / ');
      if (attempt >= this.attempts) throw new SlurmCommandError(shown, `Slurm reports: ${msg}; gave up after ${attempt} tries`, true);
      this.log(`clustergym: ${shown}: Slurm reports: ${msg}; retry ${attempt}/${this.attempts - 1} in ${delay} ms`);
      await sleep(delay);
      delay = Math.min(this.maxBackoffMs, delay * 2);
    }
  }

  /** Every job slurmctld knows (`all`: `--states=all`, finished ones included while MinJobAge keeps them). */
  async jobs(all = false): Promise<SlurmJob[]> {
    const data = await this.runJson('squeue', all ? ['--json', '--states=all'] : ['--json'], SqueueSchema);
    return data.jobs.map(jobOf);
  }

  /** The nodes `sinfo` reports (one entry per node, its partitions merged). */
  async nodes(): Promise<SlurmNode[]> {
    const data = await this.runJson('sinfo', ['--json'], SinfoSchema);
    const seen = new Map<string, SlurmNode>();
    for (const n of data.nodes) {
      const prev = seen.get(n.name);
      if (prev) {
        for (const p of n.partitions) if (!prev.partitions.includes(p)) prev.partitions.push(p);
        continue;
      }
      seen.set(n.name, {
        name: n.name,
        cpus: n.cpus,
        memoryMb: n.real_memory,
        state: n.state.toLowerCase(),
        stateFlags: (n.state_flags ?? []).map((f) => f.toLowerCase()),
        partitions: [...n.partitions],
        features: (n.active_features ?? n.features ?? '').split(',').filter((f) => f !== ''),
        allocCpus: n.alloc_cpus ?? 0,
        allocMemoryMb: n.alloc_memory ?? 0,
      });
    }
    return [...seen.values()];
  }

  /** The partitions (`scontrol show partition -o`). */
  async partitions(): Promise<SlurmPartition[]> {
    return parsePartitions(await this.run('scontrol', ['show', 'partition', '-o']));
  }

  /** slurmctld's configuration (`scontrol show config`): key -> value. */
  async config(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const line of (await this.run('scontrol', ['show', 'config'])).split('\n')) {
      const m = /^(\S+)\s+= (.*)$/.exec(line);
      if (m) out.set(m[1]!, m[2]!.trim());
    }
    return out;
  }

  /** `scontrol update jobid=J ReqNodeList=...`: the job may start only on `nodes`. */
  async setNodes(jobId: string, nodes: readonly string[]): Promise<void> {
    await this.run('scontrol', ['update', `jobid=${jobId}`, `ReqNodeList=${nodes.join(',')}`]);
  }

  /** `scontrol release J`: the job goes to Slurm's scheduler. */
  async release(jobId: string): Promise<void> {
    await this.run('scontrol', ['release', jobId]);
  }

  /** `sbatch --parsable ARGS` (tried once); the job id. */
  async submit(args: readonly string[]): Promise<number> {
    const out = await this.run('sbatch', ['--parsable', ...args], 1);
    const id = Number.parseInt(out.trim(), 10);
    if (!Number.isInteger(id)) throw new SlurmOutputError('sbatch --parsable', `expected a job id, found ${JSON.stringify(out.trim().slice(0, 60))}`);
    return id;
  }

  /** `scancel IDS` (tried once; nothing to cancel is not an error). */
  async cancel(ids: readonly (string | number)[]): Promise<void> {
    if (ids.length > 0) await this.run('scancel', ids.map(String), 1);
  }
}

function jobOf(j: RawJob): SlurmJob {
  return {
    id: String(j.job_id),
    name: j.name,
    user: j.user_name,
    state: j.job_state,
    reason: j.state_reason,
    partition: j.partition,
    submit: j.submit_time,
    start: j.start_time,
    end: j.end_time,
    cpus: j.cpus,
    nodeCount: j.node_count,
    timeLimit: j.time_limit === null || j.time_limit >= 0xfffffffe ? Number.POSITIVE_INFINITY : j.time_limit * 60,
    held: j.priority === 0,
    nodes: hostNames(j.nodes),
    nodeList: j.nodes,
    requiredNodes: hostNames(j.required_nodes),
    allocation: allocationOf(j.job_resources?.allocated_nodes, false),
    memoryAllocation: allocationOf(j.job_resources?.allocated_nodes, true),
    request: requestOf(j),
    composite: (j.array_job_id ?? 0) > 0 || (j.het_job_id ?? 0) > 0,
  };
}

type AllocatedNode = { nodename: string; sockets: Record<string, { cores: Record<string, string> }>; memory_allocated?: number | undefined };

/** CPUs (one allocated core entry per CPU, as Slurm lists them with CR_CPU) or memory per node of `job_resources.allocated_nodes`. */
function allocationOf(nodes: AllocatedNode[] | undefined, memory: boolean): Map<string, number> | null {
  if (!nodes || nodes.length === 0) return null;
  const out = new Map<string, number>();
  for (const n of nodes) {
    let x = 0;
    if (memory) x = n.memory_allocated ?? 0;
    else for (const sock of Object.values(n.sockets)) x += Object.keys(sock.cores).length;
    out.set(n.nodename, (out.get(n.nodename) ?? 0) + x);
  }
  return out;
}

/** `scontrol show partition -o` lines (`Key=Value` words) read into partitions. */
export function parsePartitions(text: string): SlurmPartition[] {
  const out: SlurmPartition[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('PartitionName=')) continue;
    const kv = new Map<string, string>();
    for (const w of line.trim().split(/\s+/)) {
      const eq = w.indexOf('=');
      if (eq > 0) kv.set(w.slice(0, eq), w.slice(eq + 1));
    }
    const mem = (k: string) => {
      const v = kv.get(k);
      return v === undefined || !/^\d+$/.test(v) ? null : Number(v);
    };
    out.push({
      name: kv.get('PartitionName')!,
      nodes: hostNames(kv.get('Nodes') ?? ''),
      exclusive: /^EXCLUSIVE/i.test(kv.get('OverSubscribe') ?? ''),
      maxTime: parseSlurmTime(kv.get('MaxTime') ?? 'UNLIMITED'),
      defMemPerNode: mem('DefMemPerNode'),
      defMemPerCpu: mem('DefMemPerCPU'),
      priorityTier: Number(kv.get('PriorityTier') ?? 1),
    });
  }
  return out;
}

/** Parses `text` as JSON checked by `schema`; errors name the command and the field. */
export function parseJson<T>(command: string, text: string, schema: z.ZodType<T>): T {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new SlurmOutputError(command, `not JSON (${(e as Error).message}); first bytes: ${JSON.stringify(text.slice(0, 80))}`);
  }
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  let found: unknown = raw;
  for (const k of issue.path) found = found !== null && typeof found === 'object' ? (found as Record<string | number, unknown>)[k] : undefined;
  const path = `$${issue.path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('')}`;
  throw new SlurmOutputError(command, `${path}: ${issue.message} (found ${found === undefined ? 'nothing' : JSON.stringify(found)?.slice(0, 60)})`);
}
