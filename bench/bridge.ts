/**
 * Benchmark of the ZeroMQ bridge from Python (issue "ZeroMQ bridge and the Python client"): runs
 * `python-client/examples/bench.py` (random masked actions through a local `clustergym serve`) for a
 * single `Job-v0` env with K = 128 and for `make_vec(16)`, on Lublin-256 when `../shared/data` is
 * there (else the embedded default), and `python-client/examples/bench_wire.py` (the bridge against a raw
 * ZeroMQ ping-pong carrying the same bytes, served by the same Node process, interleaved; 1, 8 and
 * 64 envs; plus the raw ping-pong whose server computes as long as the envs do, `raw_busy`, and the one
 * whose server steps its own in-process copies of the envs, `raw_sim`, the ceiling of any bridge; with the
 * binary step frames, the client's default, and again with msgpack maps), and
 * returns their JSON lines (and `bench_transport.py`'s: the bridge's ZMTP socket against libzmq), led by issue 31's yardstick (`wireYardstick`: the Python step at 1 and 8
 * envs against the raw round trip plus the in-process step, with both sides' split, and the load
 * average) and MaskablePPO against RLScheduler's SchedGym (`bench_schedgym.py`, when its sources and
 * SB3 are there). Skipped, with the reason, when no Python with pyzmq, msgpack and numpy is found.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { PACKAGE_ROOT } from '../src/core/paths.js';

const PYTHON = process.env.CLUSTERGYM_PYTHON ?? '/usr/bin/python3';
const LUBLIN = resolve(PACKAGE_ROOT, '../shared/data/traces/lublin_256.swf');

function run(args: string[]): Record<string, unknown> {
  const r = spawnSync(PYTHON, [resolve(PACKAGE_ROOT, 'python-client/examples/bench.py'), ...args], { encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) return { error: (r.stderr || String(r.error)).trim().split('\n').slice(-3).join(' | ') };
  const line = r.stdout.trim().split('\n').pop()!;
  return JSON.parse(line) as Record<string, unknown>;
}

function runWire(args: string[]): Record<string, unknown> {
  const r = spawnSync(PYTHON, [resolve(PACKAGE_ROOT, 'python-client/examples/bench_wire.py'), ...args], { encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) return { error: (r.stderr || String(r.error)).trim().split('\n').slice(-3).join(' | ') };
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

/**
 * Issue 31's yardstick from a `bench_wire.py` run: per env count, the Python step time against the raw
 * ZeroMQ round trip with the same payload whose server steps the same envs in process (`raw_sim`),
 * target at most 1.25, and where a step goes on both sides (Python CPU and decoding; the server's
 * env steps, reply encoding, and the rest of its handling).
 */
export function wireYardstick(run: Record<string, unknown>): Record<string, unknown>[] | undefined {
  const results = run.results as Record<string, unknown>[] | undefined;
  return results?.map((r) => {
    const u = r.us_per_trip as Record<string, number>;
    return {
      envs: r.envs,
      python_step_us: u.total,
      raw_plus_in_process_step_us: u.raw_sim_total,
      ratio: r.python_step_over_raw_sim,
      within_1_25: r.within_1_25,
      raw_us: u.raw_total,
      python_cpu_us: u.python_cpu,
      raw_python_cpu_us: u.raw_python_cpu,
      python_decode_us: u.python_decode,
      server_env_us: u.server_env,
      server_encode_us: u.server_encode,
      server_dispatch_us: u.server_dispatch,
      load_average: run.load_average,
    };
  });
}

/**
 * The bridge's two transports side by side (`bench_transport.py`): raw echo round trips from a pyzmq
 * DEALER to zeromq.js's ROUTER (libzmq) and to the bridge's own ZMTP ROUTER (bridge/zmtp.ts), same
 * payloads, and Job-v0 steps from the Python client on a bridge with each transport, interleaved.
 */
function runTransports(args: string[]): Record<string, unknown> {
  const r = spawnSync(PYTHON, [resolve(PACKAGE_ROOT, 'python-client/examples/bench_transport.py'), ...args], { encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) return { error: (r.stderr || String(r.error)).trim().split('\n').slice(-3).join(' | ') };
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

const SCHEDGYM = process.env.SCHEDGYM_DIR ?? resolve(PACKAGE_ROOT, '../ext/deep-batch-scheduler');

/**
 * Issue 31's second yardstick: sb3-contrib's MaskablePPO on RLScheduler's SchedGym against clustergym's
 * Job-v0 side by side (`bench_schedgym.py`, 1 and 8 envs, alternating slices). Needs a checkout of
 * DIR-LAB/deep-batch-scheduler (`$SCHEDGYM_DIR`, else `../ext/deep-batch-scheduler`) and gymnasium,
 * stable-baselines3 and sb3-contrib importable (`PYTHONPATH`); skipped with the reason otherwise.
 */
function runSchedgym(): Record<string, unknown> {
  if (!existsSync(resolve(SCHEDGYM, 'HPCSimPickJobs.py'))) return { skipped: `no SchedGym sources at ${SCHEDGYM} (set SCHEDGYM_DIR)` };
  const r = spawnSync(PYTHON, [resolve(PACKAGE_ROOT, 'python-client/examples/bench_schedgym.py'), '--schedgym', SCHEDGYM, '--steps', '8192', '--rounds', '4'], {
    encoding: 'utf8',
    timeout: 1_200_000,
  });
  if (r.status === 3) return { skipped: r.stderr.trim().split('\n').pop() };
  if (r.status !== 0) return { error: (r.stderr || String(r.error)).trim().split('\n').slice(-3).join(' | ') };
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

/** The bridge figures (steps/s through the bridge; the bridge against raw ZeroMQ side by side for 1, 8 and 64 envs). */
export function benchBridge(): Record<string, unknown> {
  const probe = spawnSync(PYTHON, ['-c', 'import zmq, msgpack, numpy'], { encoding: 'utf8' });
  if (probe.status !== 0) return { skipped: `no ${PYTHON} with pyzmq, msgpack and numpy` };
  const extra = existsSync(LUBLIN) ? ['--workload', LUBLIN] : [];
  // issue 31: Job-v0 K 128 on the embedded default, 1 and 8 envs, many short interleaved slices
  const yardstick = runWire(['--env', 'clustergym/Job-v0', '--k', '128', '--envs', '1,8', '--seconds', '6', '--rounds', '30']);
  // the socket: ZMTP spoken by the server (the default) against libzmq, over 127.0.0.1 and over ipc://
  const transport = ['--sizes', '100,20000', '--envs', '1,8', '--k', '128', '--seconds', '3', '--rounds', '10'];
  return {
    python_step_vs_raw_plus_in_process_step: wireYardstick(yardstick) ?? yardstick,
    transport_zmtp_vs_libzmq: { tcp: runTransports(transport), ipc: runTransports([...transport, '--ipc']) },
    maskable_ppo_vs_schedgym: runSchedgym(),
    workload: extra.length ? 'lublin_256.swf' : 'embedded default (mixed-300)',
    single_job_v0_k128: run(['--env', 'clustergym/Job-v0', '--k', '128', '--envs', '1', '--steps', '20000', ...extra]),
    vec16_job_v0_k128: run(['--env', 'clustergym/Job-v0', '--k', '128', '--envs', '16', '--steps', '64000', ...extra]),
    // issue 18: the bridge and a raw ZeroMQ ping-pong with the same payload, interleaved in one run;
    // with the binary step frames (the client's default) and with msgpack maps
    versus_raw_job_v0_k128: runWire(['--env', 'clustergym/Job-v0', '--k', '128', '--envs', '1,8,64', '--seconds', '4', '--rounds', '8', ...extra]),
    versus_raw_job_v0_k128_msgpack: runWire([
      '--env',
      'clustergym/Job-v0',
      '--k',
      '128',
      '--envs',
      '1,8,64',
      '--seconds',
      '4',
      '--rounds',
      '8',
      '--msgpack',
      ...extra,
    ]),
  };
}
