/**
 * Running `clustergym batsim` against a Python scheduler over a real ZeroMQ socket: a free port, the
 * scheduler process (test/bridge/batsim/schedulers/, python3-zmq only), the CLI process, and the
 * scheduler's transcript (one JSON line per message received or sent).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CLI, ROOT } from '../../helpers.js';

export const SCHEDULERS = resolve(ROOT, 'test/bridge/batsim/schedulers');

/** A Python with pyzmq (`$CLUSTERGYM_PYTHON`, else Debian's, else PATH's), or null. */
export const PYTHON: string | null = (() => {
  const candidates = process.env.CLUSTERGYM_PYTHON ? [process.env.CLUSTERGYM_PYTHON] : ['/usr/bin/python3', 'python3'];
  for (const p of candidates) {
    if (p.includes('/') && !existsSync(p)) continue;
    if (spawnSync(p, ['-c', 'import zmq'], { stdio: 'ignore' }).status === 0) return p;
  }
  return null;
})();
export const NO_PYTHON = 'skipped: no python3 with pyzmq (Debian python3-zmq; or set CLUSTERGYM_PYTHON)';

/** A TCP port free on 127.0.0.1 now. */
export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

/** A process's end. */
export interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall-clock seconds it ran. */
  seconds: number;
}

/** Runs a process to its end (killed after `limitS` seconds, or when `stop` resolves). */
export function run(cmd: string, args: string[], cwd: string, limitS = 60, stop?: Promise<unknown>): Promise<Ended> {
  return new Promise((ok) => {
    const t0 = performance.now();
    const p = spawn(cmd, args, { cwd, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => {
      stdout += d;
    });
    p.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => p.kill('SIGKILL'), limitS * 1000);
    // a scheduler left waiting for a request once the simulator is gone ends 0.5 s later
    void stop?.then(() => setTimeout(() => p.kill('SIGKILL'), 500).unref());
    p.on('close', (code) => {
      clearTimeout(timer);
      ok({ code, stdout, stderr, seconds: (performance.now() - t0) / 1000 });
    });
  });
}

/** One line of a scheduler's transcript. */
export interface TranscriptLine {
  dir: 'recv' | 'send';
  msg: { now: number; events: { timestamp: number; type: string; data: Record<string, unknown> }[] };
}

/** The outcome of a run: the CLI, the scheduler, the transcript and the output prefix. */
export interface BatsimRun {
  cli: Ended;
  scheduler: Ended;
  transcript: TranscriptLine[];
  prefix: string;
  dir: string;
}

/**
 * Starts `scheduler` (a file of SCHEDULERS, given the endpoint, a transcript path and `schedArgs`)
 * and `clustergym batsim -s ENDPOINT -e PREFIX` with `cliArgs`, and waits for both.
 */
export async function runBatsim(scheduler: string, schedArgs: string[], cliArgs: string[]): Promise<BatsimRun> {
  const dir = mkdtempSync(join(tmpdir(), 'cg-batsim-'));
  const port = await freePort();
  const transcriptFile = join(dir, 'transcript.jsonl');
  const prefix = join(dir, 'out');
  const cli = run(process.execPath, [CLI, 'batsim', '-s', `tcp://127.0.0.1:${port}`, '-e', prefix, ...cliArgs], ROOT);
  const sched = run(PYTHON!, [join(SCHEDULERS, scheduler), `tcp://127.0.0.1:${port}`, transcriptFile, ...schedArgs], SCHEDULERS, 60, cli);
  const [c, s] = await Promise.all([cli, sched]);
  const transcript = existsSync(transcriptFile)
    ? readFileSync(transcriptFile, 'utf8')
        .split('\n')
        .filter((l) => l)
        .map((l) => JSON.parse(l) as TranscriptLine)
    : [];
  return { cli: c, scheduler: s, transcript, prefix, dir };
}

/** Rows of a CSV file as objects keyed by its header. */
export function readCsv(file: string): Record<string, string>[] {
  const [header, ...lines] = readFileSync(file, 'utf8').trim().split('\n');
  const keys = header!.split(',');
  return lines.map((l) => {
    const cells = l.split(',');
    return Object.fromEntries(keys.map((k, i) => [k, cells[i] ?? '']));
  });
}

/** `[now, [type or type:job_id, ...]]` per message received by the scheduler (SIMULATION_BEGINS alone). */
export function received(t: TranscriptLine[]): [number, string[]][] {
  return t
    .filter((l) => l.dir === 'recv')
    .map((l) => [
      l.msg.now,
      l.msg.events.map((e) => {
        const id = (e.data['job_id'] as string | undefined) ?? (e.data['resources'] as string | undefined) ?? (e.data['type'] as string | undefined);
        return id === undefined ? e.type : `${e.type}:${id}`;
      }),
    ]);
}
