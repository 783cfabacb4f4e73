/**
 * `npm run bench -- fleet` (issue 46, beyond one machine):
 *
 * - `env_fleet`: env-steps/s of one Python learner against 1, 2 and 4 servers
 *   (`python-client/examples/bench_fleet.py`: `make_vec(JobNode-v0, 16, addresses=...)`, random valid
 *   actions, rotating rounds), with what the learner and the servers compute per vector step and the
 *   ceiling with a core per process. The servers are processes of this machine (2 cores here).
 * - `leaderboard_shards`: `clustergym leaderboard` (every setting, `--episodes` from
 *   `$CLUSTERGYM_BENCH_LB_EPISODES`, default 20, seed 0, the shipped models) as one process, then in
 *   2 and 4 `--shard` processes run at once (an array job on one node) and their `--merge`: wall
 *   times, and whether the merge equals the one-process run (wall times aside).
 *
 * Every leaderboard run reports its CPU seconds too (`times` of its shell): the largest shard's is
 * the wall time of the shards with a core each, whatever the machine's load. Skipped (with the
 * reason) without a Python with the client's modules. Speed figures: read the load averages they
 * carry; on a busy machine repeat them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../src/core/paths.js';

const PYTHON = process.env.CLUSTERGYM_PYTHON ?? '/usr/bin/python3';
const CLI = resolve(PACKAGE_ROOT, 'dist/cli/main.js');

function envFleet(): Record<string, unknown> {
  const r = spawnSync(
    PYTHON,
    [resolve(PACKAGE_ROOT, 'python-client/examples/bench_fleet.py'), '--servers', '1,2,4', '--envs', '16', '--seconds', '4', '--rounds', '5'],
    {
      encoding: 'utf8',
      timeout: 900_000,
    },
  );
  if (r.status !== 0) return { error: (r.stderr || String(r.error)).trim().split('\n').slice(-3).join(' | ') };
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

/**
 * Runs `node dist/cli/main.js ARGS` as a child process (under bash, whose `times` gives the child's
 * CPU seconds); resolves with its exit code, stdout, stderr and CPU seconds (user + system).
 */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; cpu: number }> {
  return new Promise((done) => {
    const script = '"$@"; s=$?; times >&2; exit $s';
    const p = spawn('bash', ['-c', script, 'bash', process.execPath, CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    p.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    p.on('close', (code) => {
      // `times`: the shell's user and system time, then its children's ("0m1.234s 0m0.056s")
      const last = stderr.trim().split('\n').at(-1) ?? '';
      const secs = [...last.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
      done({ code, stdout, stderr, cpu: secs.reduce((a, b) => a + b, 0) });
    });
  });
}

const withoutTimes = (t: string) => t.replace(/"seconds": ?[-0-9.e+]+/g, '"seconds":0');

async function leaderboardShards(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'cg-bench-shards-'));
  try {
    const episodes = process.env.CLUSTERGYM_BENCH_LB_EPISODES ?? '20';
    const base = ['leaderboard', '--episodes', episodes, '--seed', '0'];
    const load = [loadavg().map((x) => Number(x.toFixed(2)))];
    let t0 = performance.now();
    const one = await cli([...base, '--json', '--out', join(dir, 'one')]);
    if (one.code !== 0) return { error: one.stderr.trim().split('\n').slice(-3).join(' | ') };
    const out: Record<string, unknown> = {
      episodes_per_setting: Number(episodes),
      one_process_s: Number(((performance.now() - t0) / 1000).toFixed(1)),
      one_process_cpu_s: Number(one.cpu.toFixed(1)),
    };
    for (const n of [2, 4]) {
      t0 = performance.now();
      const pieces = await Promise.all(Array.from({ length: n }, (_, i) => cli([...base, '--shard', `${i}/${n}`, '--out', join(dir, `p${n}`)])));
      const bad = pieces.find((p) => p.code !== 0);
      if (bad) return { error: bad.stderr.trim().split('\n').slice(-3).join(' | ') };
      const shards = (performance.now() - t0) / 1000;
      const t1 = performance.now();
      const files = Array.from({ length: n }, (_, i) => join(dir, `p${n}`, `shard-${i}-of-${n}.json`));
      const merged = await cli(['leaderboard', '--merge', ...files, '--json', '--out', join(dir, `m${n}`)]);
      const merge = (performance.now() - t1) / 1000;
      out[`shards_${n}`] = {
        shards_s: Number(shards.toFixed(1)),
        // CPU: all the shards' (what sharding costs over one process), and the largest one shard's
        // (the wall time of N shards with a free core each, as on N nodes)
        shards_cpu_s: Number(pieces.reduce((a, p) => a + p.cpu, 0).toFixed(1)),
        largest_shard_cpu_s: Number(Math.max(...pieces.map((p) => p.cpu)).toFixed(1)),
        merge_s: Number(merge.toFixed(1)),
        total_s: Number((shards + merge).toFixed(1)),
        speedup: Number(((out.one_process_s as number) / (shards + merge)).toFixed(2)),
        merged_equals_one_process: merged.code === 0 && withoutTimes(merged.stdout) === withoutTimes(one.stdout),
        leaderboard_md_equal:
          merged.code === 0 &&
          withoutTimes(readFileSync(join(dir, `m${n}`, 'leaderboard.md'), 'utf8')) === withoutTimes(readFileSync(join(dir, 'one', 'leaderboard.md'), 'utf8')),
      };
      load.push(loadavg().map((x) => Number(x.toFixed(2))));
    }
    out.load_averages = load;
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The section's figures. */
export async function benchFleet(): Promise<Record<string, unknown>> {
  const py = spawnSync(PYTHON, ['-c', 'import zmq, msgpack, numpy'], { encoding: 'utf8' });
  const fleet = py.status === 0 ? envFleet() : { skipped: `no Python with zmq, msgpack and numpy at ${PYTHON}` };
  return { env_fleet: fleet, leaderboard_shards: await leaderboardShards() };
}
