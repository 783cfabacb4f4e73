/**
 * The bridge server on each of its transports (bridge/transport.ts: the server's own ZMTP and
 * libzmq's ROUTER), over real sockets: DEALER and REQ clients are served the same replies, a request
 * over the hard cap drops its sender's connection and the server goes on serving the others, `close()`
 * ends the serve loop, an ipc socket file is removed; the transport's default and its refusals. (The
 * other bridge suites run on the default transport, or on `$CLUSTERGYM_TRANSPORT`.)
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Dealer, Request } from 'zeromq';
import { registryFactory } from '../../bridge/envFactory.js';
import { BridgeServer, hardMessageCap, wire } from '../../bridge/server.js';
import { defaultTransport, TRANSPORTS } from '../../bridge/transport.js';
import { cli } from '../helpers.js';

type Reply = { id: unknown; ok: boolean; error?: { code: string }; [k: string]: unknown };

async function call(sock: Dealer | Request, msg: Record<string, unknown>): Promise<Reply> {
  await sock.send(wire.pack(msg));
  const frames = await sock.receive();
  return wire.unpack(frames[frames.length - 1]!) as Reply;
}

describe.each(TRANSPORTS)('BridgeServer on %s', (transport) => {
  it('serves DEALER and REQ clients the same episode; an oversize request drops only its sender', async () => {
    const dir = mkdtempSync(join(tmpdir(), `bridge-${transport}-`));
    const path = join(dir, 's.sock');
    const server = new BridgeServer(registryFactory(), { bind: `ipc://${path}`, transport, maxRequestBytes: 4096 });
    const endpoint = await server.start();
    expect(endpoint).toBe(`ipc://${path}`);
    expect(server.transport).toBe(transport);
    const dealer = new Dealer({ receiveTimeout: 10_000 });
    const req = new Request({ receiveTimeout: 10_000 });
    dealer.connect(endpoint);
    req.connect(endpoint);
    const config = { k: 8, trajectory: { length: 10, origin: 0 } };
    const episodes: number[][] = [];
    for (const sock of [dealer, req]) {
      const env = (await call(sock, { id: 1, op: 'make', env_id: 'clustergym/Job-v0', config })).env as string;
      expect((await call(sock, { id: 2, op: 'reset', env, seed: 5 })).ok).toBe(true);
      const rewards: number[] = [];
      for (let t = 0; t < 10; t++) {
        const mask = (await call(sock, { id: 3, op: 'action_mask', env })).mask as { data: Uint8Array };
        const r = await call(sock, { id: 4 + t, op: 'step', env, action: mask.data.indexOf(1) });
        expect(r.ok).toBe(true);
        rewards.push(r.reward as number);
        if (r.terminated || r.truncated) break;
      }
      episodes.push(rewards);
    }
    expect(episodes[1]).toEqual(episodes[0]);
    // over --max-request-bytes: a limit_exceeded reply; over the hard cap: no reply, the connection is dropped
    expect((await call(dealer, { id: 9, op: 'ping', pad: 'x'.repeat(5000) })).error?.code).toBe('limit_exceeded');
    const big = new Dealer({ receiveTimeout: 500 });
    big.connect(endpoint);
    await big.send(Buffer.alloc(hardMessageCap(4096) + 1));
    await expect(big.receive()).rejects.toThrow();
    expect((await call(dealer, { id: 10, op: 'ping' })).ok).toBe(true);
    expect((await call(req, { id: 11, op: 'ping' })).ok).toBe(true);
    for (const s of [dealer, req, big]) s.close();
    await server.close();
    // the ZMTP socket removes its socket file in close() (zeromq.js's leaves it to libzmq's I/O thread)
    if (transport === 'zmtp') expect(existsSync(path)).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('the transport', () => {
  it('defaults to zmtp, to libzmq for inproc://, to $CLUSTERGYM_TRANSPORT when set, and names a bad one', () => {
    // '' is an unset variable (an explicit undefined would read the real one)
    expect(defaultTransport('tcp://127.0.0.1:0', '')).toBe('zmtp');
    expect(defaultTransport('inproc://x', '')).toBe('libzmq');
    // only libzmq binds an abstract socket under its own name, whatever the variable says
    expect(defaultTransport('ipc://@name', '')).toBe('libzmq');
    expect(defaultTransport('ipc://@name', 'zmtp')).toBe('libzmq');
    expect(defaultTransport('tcp://127.0.0.1:0', 'libzmq')).toBe('libzmq');
    expect(defaultTransport('ipc:///tmp/x', 'zmtp')).toBe('zmtp');
    expect(defaultTransport('tcp://127.0.0.1:0', 'zmq')).toMatch(/CLUSTERGYM_TRANSPORT: expected one of zmtp, libzmq, got "zmq"/);
  });

  it('clustergym serve refuses a bad --transport, and inproc:// and ipc://@ with zmtp (exit 2, one line)', () => {
    const bad = cli(['serve', '--transport', 'tcp']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('clustergym serve: error: --transport: expected one of zmtp, libzmq, got "tcp"');
    const inproc = cli(['serve', '--bind', 'inproc://x', '--transport', 'zmtp']);
    expect(inproc.code).toBe(2);
    expect(inproc.stderr).toMatch(/inproc:\/\/ is libzmq's in-process transport: give --transport libzmq\n$/);
    const abstract = cli(['serve', '--bind', 'ipc://@x', '--transport', 'zmtp']);
    expect(abstract.code).toBe(2);
    expect(abstract.stderr).toMatch(/ipc:\/\/@x: Node binds an abstract socket .* give --transport libzmq\n$/);
  });
});
