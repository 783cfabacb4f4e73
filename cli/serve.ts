/**
 * `clustergym serve [--bind tcp://127.0.0.1:5555] [--idle-timeout S] [--parent-pid PID]`: the ZeroMQ
 * bridge (DESIGN §6, docs/protocol.md). Port 0 picks a free port. The bound endpoint is printed as
 * the first line of stdout (clients started by the Python `make()` read it). SIGINT/SIGTERM close
 * every env and the socket and exit 0; with `--parent-pid`, the server also exits when that process
 * is gone (so a killed Python interpreter never leaves a server behind).
 */
import { z } from 'zod';
import { registryFactory } from '../bridge/envFactory.js';
import { BridgeServer } from '../bridge/server.js';
import { parseFlags } from './common.js';

const FLAGS = {
  bind: { type: 'string' },
  'idle-timeout': { type: 'string' },
  'parent-pid': { type: 'string' },
  quiet: { type: 'boolean' },
} as const;

const Schema = z.object({
  bind: z
    .string()
    .regex(/^(tcp:\/\/[^\s:]+:(\d+|\*)|ipc:\/\/\S+|inproc:\/\/\S+)$/, 'expected tcp://HOST:PORT (port 0 picks a free one), ipc://PATH or inproc://NAME')
    .default('tcp://127.0.0.1:5555'),
  'idle-timeout': z.coerce.number().positive().default(600),
  'parent-pid': z.coerce.number().int().positive().optional(),
  quiet: z.boolean().default(false),
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
export async function serveCommand(argv: string[]): Promise<number> {
  const f = parseFlags('serve', argv, FLAGS, Schema);
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
