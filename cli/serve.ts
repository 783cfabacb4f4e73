/**
 * `clustergym serve [--bind tcp://127.0.0.1:5555] [--idle-timeout S] [--parent-pid PID]`: the ZeroMQ
 * bridge (DESIGN §6, docs/protocol.md). Port 0 picks a free port. The bound endpoint is printed as
 * the first line of stdout (clients started by the Python `make()` read it). SIGINT/SIGTERM close
 * every env and the socket and exit 0; with `--parent-pid`, the server also exits when that process
 * is gone (so a killed Python interpreter never leaves a server behind).
 */
import { z } from 'zod';
import { defineCommand, defineFlags, int, num, type Values } from './common.js';

/** The flags of `serve`. */
export const flags = defineFlags({
  bind: {
    value: 'ENDPOINT',
    schema: z.string().refine(
      (s) => /^(tcp:\/\/[^\s:]+:(\d+|\*)|ipc:\/\/\S+|inproc:\/\/\S+)$/.test(s),
      (s) => ({ message: `expected tcp://HOST:PORT (port 0 picks a free one), ipc://PATH or inproc://NAME, got ${JSON.stringify(s)}` }),
    ),
    default: 'tcp://127.0.0.1:5555',
    help: 'the ZeroMQ endpoint to bind (port 0 picks a free one, printed as the first line of stdout)',
  },
  'idle-timeout': { value: 'S', schema: num({ gt: 0 }), default: 600, help: 'close environments unused for S seconds' },
  'parent-pid': { value: 'PID', schema: int({ gte: 1 }), help: 'exit when the process PID is gone' },
  quiet: { help: 'no log on stderr' },
});

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
  const server = new BridgeServer(registryFactory(), {
    bind: f.bind,
    idleTimeoutMs: f['idle-timeout'] * 1000,
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
  if (!f.quiet) console.error(`clustergym serve: listening on ${endpoint} (pid ${process.pid})`);
  return await new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (why: string) => {
      if (stopping) return;
      stopping = true;
      if (!f.quiet) console.error(`clustergym serve: ${why}, closing`);
      void server.close().then(() => resolve(0));
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
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
