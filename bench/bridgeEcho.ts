/**
 * The two servers of the side-by-side bridge benchmark (`npm run bench` section `bridge`), in ONE
 * Node process: the bridge (`BridgeServer` over the gym registry) and a raw ZeroMQ ROUTER that
 * answers every message with a fixed reply. `python-client/examples/bench_wire.py` starts this
 * script, captures a real bridge reply, installs it as the raw server's reply (a two-frame message
 * `["set", bytes]`), and then times bridge round trips and raw round trips of the same size,
 * interleaved, so that both run in the same process, on the same machine state. A raw server told
 * `["busy", microseconds]` keeps the CPU busy that long before each reply: a raw ping-pong whose
 * server does as much computing per message as the simulator does per bridge step, the yardstick
 * of what the bridge itself adds (on a loaded machine the wake-up latency of an idle process is
 * part of a round trip, so "raw + the simulator's seconds" computed apart is not it).
 *
 * A raw server told `["sim", JSON of {env_id, config, n}]` makes n such envs in process (once per
 * distinct message; later ones reuse them) and, before each reply, takes one step of each (the first
 * valid action; a reset at the episode's end): a raw ping-pong whose server does exactly the
 * simulator's work of a bridge step, in the same process, with no bridge code at all (`raw_sim`).
 * `["sim", ""]` turns it off.
 *
 * The raw server is zeromq.js's ROUTER (libzmq): the issue's "raw ZeroMQ round trip". A third
 * server, the same raw echo on the bridge's own ZMTP ROUTER (bridge/zmtp.ts), measures what ZMTP
 * spoken in process saves against libzmq (`python-client/examples/bench_transport.py`).
 *
 * Flags: `--transport zmtp|libzmq` (the bridge's socket; default as `BridgeServer`'s), `--ipc DIR`
 * (bind the three servers to Unix sockets in DIR instead of 127.0.0.1 ports).
 *
 * Prints the bridge endpoint, the raw (zeromq.js) endpoint and the raw ZMTP endpoint, one per line;
 * exits on SIGTERM/SIGINT or when stdin closes (its parent is gone).
 */
import { join } from 'node:path';
import { registryFactory } from '../bridge/envFactory.js';
import { BridgeServer } from '../bridge/server.js';
import { openRouter, type Transport, TransportSchema } from '../bridge/transport.js';
import { make } from '../envs/registry.js';
import type { GymEnv } from '../envs/gym.js';

/** One step of `env` with its first valid action (a reset when the episode ended). */
function stepFirstValid(env: GymEnv): void {
  const mask = env.actionMask();
  const a = mask.indexOf(1);
  const r = env.step(a);
  if (r.terminated || r.truncated) env.reset();
}

/**
 * Starts the raw echo ROUTER on `bind` (zeromq.js's by default, the ZMTP one with `zmtp`); returns its
 * endpoint and a closer.
 */
export async function startRawEcho(bind: string, transport: Transport = 'libzmq'): Promise<{ endpoint: string; close: () => void }> {
  const sock = await openRouter(transport);
  await sock.bind(bind);
  let reply: Buffer = Buffer.from([0x80]); // an empty msgpack map until `set`
  let busyMs = 0;
  let sim: GymEnv[] | null = null;
  const sims = new Map<string, GymEnv[]>();
  let closed = false;
  void (async () => {
    for (;;) {
      let frames: Buffer[];
      try {
        frames = await sock.receive();
      } catch {
        return;
      }
      if (closed) return;
      const identity = frames[0]!;
      if (frames.length === 3 && frames[1]!.toString() === 'set') {
        reply = Buffer.from(frames[2]!);
        await sock.send([identity, Buffer.alloc(0)]);
        continue;
      }
      if (frames.length === 3 && frames[1]!.toString() === 'busy') {
        busyMs = Math.max(0, Number(frames[2]!.toString()) / 1000 || 0);
        await sock.send([identity, Buffer.alloc(0)]);
        continue;
      }
      if (frames.length === 3 && frames[1]!.toString() === 'sim') {
        const spec = frames[2]!.toString();
        sim = spec ? (sims.get(spec) ?? null) : null;
        if (spec && !sim) {
          const { env_id, config, n } = JSON.parse(spec) as { env_id: string; config: unknown; n: number };
          sim = Array.from({ length: n }, (_, i) => {
            const env = make(env_id, config);
            env.reset({ seed: i });
            return env;
          });
          sims.set(spec, sim);
        }
        await sock.send([identity, Buffer.alloc(0)]);
        continue;
      }
      if (sim) for (const env of sim) stepFirstValid(env);
      if (busyMs > 0) {
        const end = performance.now() + busyMs;
        while (performance.now() < end) {
          // the simulator's share of a bridge round trip, spent here
        }
      }
      await sock.send([identity, reply]);
    }
  })();
  return {
    endpoint: sock.lastEndpoint ?? bind,
    close: () => {
      closed = true;
      sock.close();
    },
  };
}

/** The value of `--name VALUE` in argv (undefined when absent). */
function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const t = flag('--transport');
  const transport = t === undefined ? undefined : TransportSchema.parse(t);
  const ipc = flag('--ipc');
  const at = (name: string) => (ipc === undefined ? 'tcp://127.0.0.1:*' : `ipc://${join(ipc, `${name}.sock`)}`);
  // a short-lived benchmark server on loopback: any regular file may be named (the trace under ../shared)
  const bridge = new BridgeServer(registryFactory({ roots: ['/'] }), { bind: at('bridge'), transport });
  const b = await bridge.start();
  const raw = await startRawEcho(at('raw'));
  const rawZmtp = await startRawEcho(at('raw-zmtp'), 'zmtp');
  process.stdout.write(`${b}\n${raw.endpoint}\n${rawZmtp.endpoint}\n`);
  const stop = () => {
    raw.close();
    rawZmtp.close();
    void bridge.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop()!)) void main();
