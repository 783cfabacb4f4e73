/**
 * A live Slurm for tests (`deploy/slurm/local-cluster.sh`): start and stop, its commands, its queue, the
 * agent as a real process, the decisions it wrote, and slurmctld's millisecond start times from its log.
 * `CLUSTERGYM_SLURM_PORT_OFFSET` shifts every test cluster's port (several checkouts testing at once on one
 * machine).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { readCtldLog } from '../src/slurm/live.js';
import { CLI, ROOT } from './helpers.js';

export const SLURM_SCRIPT = join(ROOT, 'deploy/slurm/local-cluster.sh');
export const HAVE_SLURM = spawnSync('sh', ['-c', 'command -v slurmctld && command -v slurmd && command -v sbatch'], { encoding: 'utf8' }).status === 0;

/**
 * `clustergym slurm-replay WORKLOAD --slurm-conf CONF --live --json FLAGS` against the live Slurm of `conf`
 * (its `SLURM_CONF`), as a real process: its exit code and output.
 */
export function slurmReplayLive(workload: string, conf: string, flags: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [CLI, 'slurm-replay', workload, '--slurm-conf', conf, '--live', ...flags, '--json'], {
      env: { ...process.env, SLURM_CONF: conf },
    });
    let out = '';
    let err = '';
    p.stdout!.on('data', (d) => (out += d));
    p.stderr!.on('data', (d) => (err += d));
    p.on('close', (c) => resolve({ code: c, stdout: out, stderr: err }));
  });
}

/** A test cluster's PORT_BASE: `base` shifted by `CLUSTERGYM_SLURM_PORT_OFFSET`. */
export function testPort(base: number): string {
  return String(base + Number(process.env.CLUSTERGYM_SLURM_PORT_OFFSET ?? 0));
}

/** A started cluster in `dir` and what tests do with it. */
export class TestCluster {
  readonly env: NodeJS.ProcessEnv;
  constructor(readonly dir: string) {
    this.env = { ...process.env, SLURM_CONF: join(dir, 'slurm.conf') };
  }

  /** `local-cluster.sh start` with `vars` (NODES, CPUS, MEMORY, PORT_BASE, SLURM_CONF_EXTRA); throws with its stderr. */
  start(vars: Record<string, string>): void {
    const r = spawnSync('bash', [SLURM_SCRIPT, 'start', this.dir], { encoding: 'utf8', env: { ...process.env, ...vars } });
    if (r.status !== 0) throw new Error(`local-cluster.sh start failed: ${r.stderr}`);
  }

  stop(): void {
    spawnSync('bash', [SLURM_SCRIPT, 'stop', this.dir], { stdio: 'ignore' });
  }

  /**
   * The suite's hooks: `setup` (which starts the cluster) before all tests; the queue cleared after each (a
   * failed test leaves no job behind for the next); the cluster stopped after all, and on the process's exit
   * whatever happens, then `cleanup`.
   */
  hooks(setup: () => void, cleanup: () => void): void {
    const onExit = () => this.stop();
    beforeAll(() => {
      process.on('exit', onExit);
      setup();
    }, 120_000);
    afterEach(() => this.clear(), 60_000);
    afterAll(() => {
      this.stop();
      process.off('exit', onExit);
      cleanup();
    }, 60_000);
  }

  /** Runs a Slurm command; its stdout (throws on failure). */
  sh(cmd: string, args: string[]): string {
    const r = spawnSync(cmd, args, { encoding: 'utf8', env: this.env });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }

  /** `sbatch --parsable ARGS --wrap "sleep S"`; the job id. */
  sbatch(args: string[], seconds: number): string {
    return this.sh('sbatch', ['--parsable', '-o', '/dev/null', ...args, '--wrap', `sleep ${seconds}`]).trim();
  }

  /** `squeue --json` for `ids`. */
  queue(ids: readonly string[]): Map<string, QueuedJob> {
    const all = (JSON.parse(this.sh('squeue', ['--json'])) as { jobs: QueuedJob[] }).jobs;
    return new Map(all.filter((j) => ids.includes(String(j.job_id))).map((j) => [String(j.job_id), j]));
  }

  /** `scontrol show hostnames`. */
  expand(list: string): string[] {
    return spawnSync('scontrol', ['show', 'hostnames', list], { encoding: 'utf8', env: this.env })
      .stdout.split('\n')
      .filter((x) => x !== '');
  }

  /** Cancels what is left and waits for an empty queue. */
  async clear(): Promise<void> {
    const left = this.sh('squeue', ['-h', '-o', '%i'])
      .split('\n')
      .filter((x) => x.trim() !== '');
    if (left.length > 0) spawnSync('scancel', left, { env: this.env });
    await waitFor('an empty queue', () => this.sh('squeue', ['-h', '-o', '%i']).trim() === '', 30_000);
  }

  /** Whether every job of `ids` completed. */
  allDone(ids: readonly string[]): () => boolean {
    return () => [...this.queue(ids).values()].every((j) => j.job_state === 'COMPLETED');
  }

  /** The agent as a real process (`--poll-ms 300` and `args`), its output collected in `out`. */
  agent(args: string[]): ChildProcess & { out: string[] } {
    const p = spawn(process.execPath, [CLI, 'slurm-agent', '--poll-ms', '300', ...args], {
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    }) as ChildProcess & {
      out: string[];
    };
    p.out = [];
    p.stderr!.on('data', (b: Buffer) => p.out.push(b.toString()));
    p.stdout!.on('data', (b: Buffer) => p.out.push(b.toString()));
    return p;
  }

  /** Start and end times (epoch s, ms precision) of jobs from slurmctld's log. */
  times(): Map<string, { start?: number; end?: number }> {
    const log = join(this.dir, 'log/slurmctld.log');
    const out = new Map<string, { start?: number; end?: number }>();
    if (!existsSync(log)) return out;
    for (const [id, r] of readCtldLog(readFileSync(log, 'utf8'))) out.set(String(id), r);
    return out;
  }
}

/** A job of `squeue --json` as the tests read it. */
export interface QueuedJob {
  job_id: number;
  job_state: string;
  state_reason: string;
  priority: number;
  nodes: string;
  start_time: number;
  required_nodes: string;
  /** CPUs (while pending: as asked; once it ran: as allocated). */
  cpus: number;
}

/** One decision of the agent (`--decisions FILE`). */
export interface Decision {
  t: number;
  job_id: string;
  nodes: string[];
}

/** The decisions the agent wrote to `file` so far. */
export function decisions(file: string): Decision[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Decision)
    : [];
}

export async function waitFor(what: string, ok: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export function exited(p: ChildProcess): Promise<number | null> {
  return p.exitCode !== null || p.signalCode !== null ? Promise.resolve(p.exitCode) : new Promise((r) => p.once('exit', (code) => r(code)));
}
