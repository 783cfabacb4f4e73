/**
 * The Slurm client of `clustergym slurm-agent`: Slurm's own commands (`squeue`, `sinfo`, `scontrol`
 * on PATH, honouring `SLURM_CONF` in the environment), nothing compiled against Slurm.
 *
 * - Reading: `squeue --json` (every job slurmctld still knows, finished ones while `MinJobAge` keeps
 *   them) and `sinfo --json` (the nodes), each checked with zod; a field missing or of another type
 *   is a `SlurmOutputError` naming the command, the JSON path and what was expected versus found.
 * - Acting: `scontrol update jobid=J ReqNodeList=...` (the only change the agent makes to a request)
 *   and `scontrol release J`. Nothing is ever cancelled.
 * - Failures: a command that fails (slurmctld down, a timeout; for the `--json` commands, which exit
 *   0 when slurmctld cannot be reached, an answer whose `errors` is not empty) is retried with exponential backoff
 *   (`backoffMs`, doubling, at most `maxBackoffMs`) up to `attempts` times, then a
 *   `SlurmCommandError` names the command, its exit status and its message. "Permission denied" is
 *   not retried: it says which rights the agent needs (operator).
 */
import { execFile } from 'node:child_process';
import { z } from 'zod';

/** A job as the agent sees it (times in Unix seconds; 0 when not yet known). */
export interface SlurmJob {
  id: string;
  name: string;
  user: string;
  /** `PENDING`, `RUNNING`, `COMPLETED`, `CANCELLED`, `FAILED`, `TIMEOUT`, ... */
  state: string;
  /** Why it pends (`JobHeldUser`, `JobHeldAdmin`, `Resources`, `None`, ...). */
  reason: string;
  partition: string;
  submit: number;
  start: number;
  end: number;
  /** CPUs requested (allocated once running). */
  cpus: number;
  /** Time limit in seconds (Infinity: none). */
  timeLimit: number;
  /** Held (priority 0): it waits for a release. */
  held: boolean;
  /** Allocated nodes (expanded), running or finished jobs. */
  nodes: string[];
  /** ReqNodeList (expanded). */
  requiredNodes: string[];
  /** CPUs allocated on each node (running jobs, from `job_resources`), or null when Slurm does not say. */
  allocation: Map<string, number> | null;
  /** Part of a job array or a heterogeneous job (the agent leaves those to Slurm). */
  composite: boolean;
}

/** A node as `sinfo` reports it. */
export interface SlurmNode {
  name: string;
  cpus: number;
  memoryMb: number;
  state: string;
  partitions: string[];
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

/** A Slurm command answered something the agent cannot read. */
export class SlurmOutputError extends Error {
  constructor(command: string, message: string) {
    super(`${command}: unexpected output: ${message}`);
    this.name = 'SlurmOutputError';
  }
}

const int = z.number().int();
/** `squeue --json` as far as the agent reads it (Slurm 22.05's data_parser; unknown fields ignored). */
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
      time_limit: int.nullable(),
      priority: int,
      nodes: z.string(),
      required_nodes: z.string(),
      job_resources: z
        .object({
          allocated_nodes: z.array(z.object({ nodename: z.string(), sockets: z.record(z.object({ cores: z.record(z.string()) })) })).optional(),
        })
        .optional(),
      array_job_id: int.nullable().optional(),
      het_job_id: int.nullable().optional(),
    }),
  ),
});
const SinfoSchema = z.object({
  nodes: z.array(
    z.object({
      name: z.string(),
      cpus: int,
      real_memory: int,
      state: z.string(),
      partitions: z.array(z.string()),
    }),
  ),
});

/** The `errors` every `--json` answer carries (non-empty when the command failed, e.g. slurmctld down). */
const ErrorsSchema = z.object({
  errors: z.array(z.object({ description: z.string().optional(), error: z.string().optional(), source: z.string().optional() })).optional(),
});

/** `n[1-3,7],m2` -> `n1 n2 n3 n7 m2` (Slurm's host-list syntax, one bracket group per name). */
export function expandHostlist(list: string): string[] {
  const out: string[] = [];
  const s = list.trim();
  if (s === '' || s === '(null)') return out;
  let i = 0;
  while (i < s.length) {
    let j = i;
    let depth = 0;
    while (j < s.length && (depth > 0 || s[j] !== ',')) {
      if (s[j] === '[') depth++;
      else if (s[j] === ']') depth--;
      j++;
    }
    const item = s.slice(i, j);
    i = j + 1;
    const m = /^([^[]*)\[([^\]]+)\](.*)$/.exec(item);
    if (!m) {
      out.push(item);
      continue;
    }
    const [, prefix, ranges, suffix] = m as unknown as [string, string, string, string];
    for (const r of ranges.split(',')) {
      const [a, b] = r.split('-');
      if (b === undefined) {
        out.push(`${prefix}${a}${suffix}`);
        continue;
      }
      const width = a!.length;
      for (let k = Number(a); k <= Number(b); k++) out.push(`${prefix}${String(k).padStart(width, '0')}${suffix}`);
    }
  }
  return out;
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

  /** Runs `cmd args` with retries; its stdout. */
  async run(cmd: string, args: string[]): Promise<string> {
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
          `${msg}: the agent needs operator rights to update and release jobs (run it as root or SlurmUser, or give its user AdminLevel=Operator: sacctmgr modify user NAME set adminlevel=operator)`,
          false,
        );
      if (/invalid (node name|job id)|Invalid job id specified/i.test(msg)) throw new SlurmCommandError(shown, msg, false);
      if (attempt >= this.attempts) throw new SlurmCommandError(shown, `${msg}; gave up after ${attempt} tries`, true);
      this.log(`clustergym slurm-agent: ${shown} failed: ${msg}; retry ${attempt}/${this.attempts - 1} in ${delay} ms`);
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
      this.log(`clustergym slurm-agent: ${shown}: Slurm reports: ${msg}; retry ${attempt}/${this.attempts - 1} in ${delay} ms`);
      await sleep(delay);
      delay = Math.min(this.maxBackoffMs, delay * 2);
    }
  }

  /** Every job slurmctld knows (finished ones while MinJobAge keeps them). */
  async jobs(): Promise<SlurmJob[]> {
    const data = await this.runJson('squeue', ['--json'], SqueueSchema);
    return data.jobs.map((j) => ({
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
      timeLimit: j.time_limit === null || j.time_limit >= 0xfffffffe ? Infinity : j.time_limit * 60,
      held: j.priority === 0,
      nodes: expandHostlist(j.nodes),
      requiredNodes: expandHostlist(j.required_nodes),
      allocation: allocationOf(j.job_resources?.allocated_nodes),
      composite: (j.array_job_id ?? 0) > 0 || (j.het_job_id ?? 0) > 0,
    }));
  }

  /** The nodes `sinfo` reports (one entry per node). */
  async nodes(): Promise<SlurmNode[]> {
    const data = await this.runJson('sinfo', ['--json'], SinfoSchema);
    const seen = new Map<string, SlurmNode>();
    for (const n of data.nodes) {
      const prev = seen.get(n.name);
      if (prev) {
        for (const p of n.partitions) if (!prev.partitions.includes(p)) prev.partitions.push(p);
        continue;
      }
      seen.set(n.name, { name: n.name, cpus: n.cpus, memoryMb: n.real_memory, state: n.state, partitions: [...n.partitions] });
    }
    return [...seen.values()];
  }

  /** `scontrol update jobid=J ReqNodeList=...`: the job may start only on `nodes`. */
  async setNodes(jobId: string, nodes: readonly string[]): Promise<void> {
    await this.run('scontrol', ['update', `jobid=${jobId}`, `ReqNodeList=${nodes.join(',')}`]);
  }

  /** `scontrol release J`: the job goes to Slurm's scheduler. */
  async release(jobId: string): Promise<void> {
    await this.run('scontrol', ['release', jobId]);
  }
}

/** CPUs per node of `job_resources.allocated_nodes` (one allocated core entry per CPU, as Slurm lists them with CR_CPU). */
function allocationOf(nodes: { nodename: string; sockets: Record<string, { cores: Record<string, string> }> }[] | undefined): Map<string, number> | null {
  if (!nodes || nodes.length === 0) return null;
  const out = new Map<string, number>();
  for (const n of nodes) {
    let cpus = 0;
    for (const sock of Object.values(n.sockets)) cpus += Object.keys(sock.cores).length;
    out.set(n.nodename, (out.get(n.nodename) ?? 0) + cpus);
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
