/**
 * `clustergym serve [--bind tcp://127.0.0.1:5555] [--transport zmtp|libzmq] [--idle-timeout S] [--parent-pid PID] [limits]`:
 * the ZeroMQ bridge (DESIGN §6, docs/protocol.md), its socket speaking ZMTP itself (default) or libzmq's. Port 0 picks a free port; a port above 65535 is refused
 * (exit 2), and so is an address other than loopback unless `--allow-remote` is given (the server runs
 * whatever a client asks: see the threat model in docs/protocol.md). Clients may name files only under
 * `--data-root` (default the working directory) and the embedded data; the limits (`--max-*`) make
 * `limit_exceeded` errors that name the flag. The bound endpoint is printed as
 * the first line of stdout (clients started by the Python `make()` read it). SIGINT/SIGTERM close
 * every env and the socket and exit 0; with `--parent-pid`, the server also exits when that process
 * is gone (so a killed Python interpreter never leaves a server behind).
 */
import { readFileSync } from 'node:fs';
import { delimiter, resolve } from 'node:path';
import { z } from 'zod';
import { defaultTransport, isTransport, libzmqOnly, TRANSPORTS } from '../bridge/transport.js';
import { defineCommand, defineFlags, int, num, oneOf, type Values } from './common.js';

/** The flags of `serve`. */
export const flags = defineFlags({
  bind: {
    value: 'ENDPOINT',
    schema: z.string().superRefine((s, ctx) => {
      const why = endpointProblem(s);
      if (why) ctx.addIssue({ code: 'custom', message: why });
    }),
    default: 'tcp://127.0.0.1:5555',
    help: 'the ZeroMQ endpoint to bind (port 0 picks a free one, printed as the first line of stdout)',
  },
  transport: {
    schema: oneOf(TRANSPORTS),
    help: "the socket: zmtp (ZeroMQ's wire protocol spoken by the server itself; default) or libzmq (zeromq.js; also for inproc://); default $CLUSTERGYM_TRANSPORT, else zmtp",
  },
  'idle-timeout': { value: 'S', schema: num({ gt: 0 }), default: 600, help: 'close environments unused for S seconds' },
  'heartbeat-ivl': { value: 'S', schema: num({ gte: 0 }), default: 5, help: 'PING a client silent for S seconds (ZMTP heartbeats; 0: none)' },
  'heartbeat-timeout': {
    value: 'S',
    schema: num({ gte: 0 }),
    default: 60,
    help: 'disconnect a client silent for S seconds (its host died or the network broke; 0: never)',
  },
  'parent-pid': { value: 'PID', schema: int({ gte: 1 }), help: 'exit when the process PID is gone' },
  quiet: { help: 'no log on stderr' },
  'allow-remote': { help: 'allow binding an address other than loopback (anyone who reaches it can run simulations and read files under --data-root)' },
  'token-file': {
    value: 'FILE',
    schema: z.string().min(1),
    help: 'require the secret in FILE (first line) as the token field of every request (clients: CLUSTERGYM_TOKEN); for --allow-remote',
  },
  'data-root': {
    value: 'DIRS',
    schema: z.string().min(1),
    help: `folders whose files clients may name, separated by "${delimiter}" (default: the working directory; the embedded data is always allowed)`,
  },
  'max-envs': { value: 'N', schema: int({ gte: 1 }), default: 4096, help: 'open environments on the server at most' },
  'max-envs-per-client': { value: 'N', schema: int({ gte: 1 }), default: 1024, help: 'open environments of one client at most' },
  'max-jobs': { value: 'N', schema: int({ gte: 1 }), default: 1_000_000, help: 'jobs of a generated or inline workload at most' },
  'max-file-bytes': { value: 'N', schema: int({ gte: 1 }), default: 256 * 1024 * 1024, help: 'size of a file a client names at most (bytes)' },
  'max-request-bytes': { value: 'N', schema: int({ gte: 1 }), default: 64 * 1024 * 1024, help: 'size of one request at most (bytes)' },
});

/** Why `s` is not an endpoint `serve` binds (null when it is one). */
export function endpointProblem(s: string): string | null {
  const tcp = /^tcp:\/\/(\[[^\]\s]+\]|[^\s:/\]]+):(\d+|\*)$/.exec(s);
  if (tcp) {
    if (tcp[2] !== '*' && Number(tcp[2]) > 65535) return `port ${tcp[2]} is out of range (0..65535; 0 picks a free one) in ${JSON.stringify(s)}`;
    return null;
  }
  if (/^(ipc:\/\/\S+|inproc:\/\/\S+)$/.test(s)) return null;
  return `expected tcp://HOST:PORT (port 0 picks a free one), ipc://PATH or inproc://NAME, got ${JSON.stringify(s)}`;
}

/** Whether a tcp endpoint's host is a loopback address (127.0.0.0/8, ::1, localhost); other transports are local. */
export function isLoopback(endpoint: string): boolean {
  const m = /^tcp:\/\/(\[([^\]]+)\]|[^:]+):/.exec(endpoint);
  if (!m) return true;
  const host = (m[2] ?? m[1]!).toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs the server until a signal (or the parent's exit); resolves with the exit code. */
export async function serve(f: Values<typeof flags>): Promise<number> {
  // loaded here, so that `serve --help` needs neither ZeroMQ nor the envs
  const { registryFactory } = await import('../bridge/envFactory.js');
  const { BridgeServer } = await import('../bridge/server.js');
  if (!isLoopback(f.bind) && !f['allow-remote']) {
    console.error(
      `clustergym serve: --bind ${f.bind} is not a loopback address: anyone who reaches it can make environments and read files under --data-root; give --allow-remote to do it anyway (see docs/protocol.md, threat model)`,
    );
    return 2;
  }
  const transport = f.transport ?? defaultTransport(f.bind);
  if (!isTransport(transport)) {
    console.error(`clustergym serve: error: ${transport}`);
    return 2;
  }
  const onlyLibzmq = libzmqOnly(f.bind);
  if (transport === 'zmtp' && onlyLibzmq !== null) {
    console.error(`clustergym serve: error: --bind ${f.bind}: ${onlyLibzmq}: give --transport libzmq`);
    return 2;
  }
  let token: string | undefined;
  if (f['token-file'] !== undefined) {
    try {
      token = readFileSync(f['token-file'], 'utf8').split('\n')[0]!.trim();
    } catch (e) {
      console.error(`clustergym serve: --token-file ${f['token-file']}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      return 2;
    }
    if (token.length < 16) {
      console.error(`clustergym serve: --token-file ${f['token-file']}: the token (its first line) must have at least 16 characters`);
      return 2;
    }
  }
  const roots = f['data-root']
    ? f['data-root']
        .split(delimiter)
        .filter((r) => r !== '')
        .map((r) => resolve(r))
    : [process.cwd()];
  const factory = registryFactory({ roots, maxJobs: f['max-jobs'], maxFileBytes: f['max-file-bytes'] });
  const server = new BridgeServer(factory, {
    bind: f.bind,
    transport,
    maxEnvs: f['max-envs'],
    maxEnvsPerClient: f['max-envs-per-client'],
    maxRequestBytes: f['max-request-bytes'],
    token,
    idleTimeoutMs: f['idle-timeout'] * 1000,
    heartbeatIntervalMs: f['heartbeat-ivl'] * 1000,
    heartbeatTimeoutMs: f['heartbeat-timeout'] * 1000,
    onReclaim: (env) => {
      if (!f.quiet) console.error(`clustergym serve: closed ${env} after ${f['idle-timeout']} s idle`);
    },
  });
  let endpoint: string;
  try {
    endpoint = await server.start();
  } catch (e) {
    console.error(`clustergym serve: cannot bind ${f.bind}: ${(e as Error).message}`);
    return 1;
  }
  process.stdout.write(`${endpoint}\n`);
  if (!isLoopback(endpoint) && !f.quiet)
    console.error(
      `clustergym serve: WARNING: listening on ${endpoint}, beyond this machine; ${token ? 'requests need the token, which travels unencrypted' : 'there is no authentication (give --token-file)'} (see docs/protocol.md)`,
    );
  if (!f.quiet) console.error(`clustergym serve: listening on ${endpoint} (${transport}, pid ${process.pid})`);
  return await new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (why: string) => {
      if (stopping) return;
      stopping = true;
      if (!f.quiet) console.error(`clustergym serve: ${why}, closing`);
      void server.close().then(() => resolve(0));
    };
    // SIGTERM stays handled while the server closes: a second one (a supervisor that signals both the
    // process group and the server, as Slurm's slurmstepd and fleet-server.sh's trap do) must not take
    // Node's default action and kill the server before it has closed. A second Ctrl-C does (`once`).
    process.once('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
    const parent = f['parent-pid'];
    if (parent !== undefined) {
      const t = setInterval(() => {
        if (!alive(parent)) {
          clearInterval(t);
          stop(`parent process ${parent} is gone`);
        }
      }, 500);
      t.unref();
    }
  });
}

/** `clustergym serve`. */
export const command = defineCommand(flags, serve);
