/**
 * `ZmtpRouter` (bridge/zmtp.ts) against real ZeroMQ peers on real sockets (127.0.0.1 and temporary
 * ipc paths): zeromq.js `Dealer` and `Request` (libzmq 4.3) with multi-frame messages, empty frames,
 * the 255/256-byte frame boundary, messages over 64 KiB and of 8 MiB, many concurrent clients each
 * getting their own replies, the peer's Identity honoured, libzmq heartbeats answered; the refusals
 * (other mechanisms and socket types, ZMTP 2.0, oversize messages) on raw `node:net` connections,
 * a client gone mid-message, unroutable replies, both high-water marks, `close()` with a receive
 * pending, the ipc socket file; and the Python client (pyzmq DEALER and REQ scripts) against
 * `clustergym serve --transport zmtp`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dealer, Request } from 'zeromq';
import { encodeCommand, encodeProperties, GREETING_BYTES, greeting, ZmtpDecoder, ZmtpRouter } from '../../bridge/zmtp.js';
import { CLI } from '../helpers.js';

/** Serves `router` as an echo: every message goes back to its sender as it came. */
function echo(router: ZmtpRouter): Promise<void> {
  return (async () => {
    for (;;) {
      let m: Buffer[];
      try {
        m = await router.receive();
      } catch {
        return;
      }
      await router.send(m);
    }
  })();
}

async function tcpRouter(): Promise<ZmtpRouter> {
  const r = new ZmtpRouter();
  await r.bind('tcp://127.0.0.1:*');
  expect(r.lastEndpoint).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
  return r;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A raw TCP connection to `endpoint` with everything it reads decoded (after the router's greeting). */
async function rawPeer(endpoint: string): Promise<{ sock: Socket; items: (string | Buffer[])[]; closed: Promise<void> }> {
  const m = /^tcp:\/\/([^:]+):(\d+)$/.exec(endpoint)!;
  const sock = connect({ host: m[1]!, port: Number(m[2]) });
  const items: (string | Buffer[])[] = [];
  const decoder = new ZmtpDecoder({
    greeting: () => items.push('greeting'),
    command: (name, data) => items.push(`${name}:${data.toString('latin1')}`),
    message: (frames) => items.push(frames),
    error: (reason) => items.push(`error:${reason}`),
  });
  sock.on('data', (d: Buffer) => decoder.push(d));
  sock.on('error', () => {});
  const closed = new Promise<void>((r) => sock.on('close', () => r()));
  await new Promise<void>((r) => sock.once('connect', () => r()));
  return { sock, items, closed };
}

const ready = (type: string, identity?: string) =>
  encodeCommand(
    'READY',
    encodeProperties([['Socket-Type', Buffer.from(type)], ...(identity === undefined ? [] : ([['Identity', Buffer.from(identity)]] as const))]),
  );

describe('ZmtpRouter with zeromq.js peers', () => {
  let router: ZmtpRouter;
  let loop: Promise<void>;
  beforeAll(async () => {
    router = await tcpRouter();
    router.maxMessageSize = 16 * 1024 * 1024;
    loop = echo(router);
  });
  afterAll(async () => {
    router.close();
    await loop;
  });

  it('a Dealer: multi-frame messages, empty frames, 255/256-byte frames, 70 KiB and 8 MiB messages come back as sent', async () => {
    const d = new Dealer({ receiveTimeout: 10_000 });
    d.connect(router.lastEndpoint!);
    const messages: Buffer[][] = [
      [Buffer.from('one')],
      [Buffer.alloc(0)],
      [Buffer.from('a'), Buffer.alloc(0), Buffer.from('c'), Buffer.alloc(0)],
      [Buffer.alloc(255, 1), Buffer.alloc(256, 2), Buffer.alloc(257, 3)],
      [Buffer.alloc(70 * 1024, 4), Buffer.from('tail')],
      [Buffer.from(Array.from({ length: 8 * 1024 * 1024 }, (_, i) => (i * 31) & 255))],
    ];
    for (const m of messages) {
      await d.send(m);
      const back = await d.receive();
      expect(back.length).toBe(m.length);
      for (let i = 0; i < m.length; i++) expect(back[i]!.equals(m[i]!)).toBe(true);
    }
    d.close();
  });

  it('a Request socket (REQ: an empty delimiter frame) gets its replies', async () => {
    const q = new Request({ receiveTimeout: 10_000 });
    q.connect(router.lastEndpoint!);
    for (const body of ['x', 'y'.repeat(300), '']) {
      await q.send(body);
      expect((await q.receive()).map(String)).toEqual([body]);
    }
    q.close();
  });

  it('40 Dealers with 25 requests each in flight get their own replies, in order', async () => {
    const clients = Array.from({ length: 40 }, () => {
      const d = new Dealer({ receiveTimeout: 10_000 });
      d.connect(router.lastEndpoint!);
      return d;
    });
    await Promise.all(
      clients.map(async (d, c) => {
        for (let i = 0; i < 25; i++) await d.send([Buffer.from(`c${c}`), Buffer.from(`m${i}`)]);
        for (let i = 0; i < 25; i++) expect((await d.receive()).map(String)).toEqual([`c${c}`, `m${i}`]);
      }),
    );
    for (const d of clients) d.close();
  });

  it("a peer's Identity property is its routing id; without one, 5 bytes: 0 and a counter; a duplicate is refused", async () => {
    const r = await tcpRouter();
    const drops: string[] = [];
    r.onDrop = (why) => drops.push(why);
    const alice = new Dealer({ routingId: 'alice' });
    alice.connect(r.lastEndpoint!);
    await alice.send('hi');
    const [id, body] = await r.receive();
    expect(id!.toString()).toBe('alice');
    expect(body!.toString()).toBe('hi');
    await r.send([Buffer.from('alice'), Buffer.from('to alice')]);
    expect((await alice.receive()).map(String)).toEqual(['to alice']);
    const anon = new Dealer();
    anon.connect(r.lastEndpoint!);
    await anon.send('x');
    const [a1] = await r.receive();
    expect(a1!.length).toBe(5);
    expect(a1![0]).toBe(0);
    const anon2 = new Dealer();
    anon2.connect(r.lastEndpoint!);
    await anon2.send('y');
    const [a2] = await r.receive();
    expect(a2![0]).toBe(0);
    expect(a2!.readUInt32BE(1)).toBe((a1!.readUInt32BE(1) + 1) >>> 0);
    // a second 'alice' while the first is connected: refused, the first keeps its replies
    const twin = new Dealer({ routingId: 'alice' });
    twin.connect(r.lastEndpoint!);
    await twin.send('from the twin');
    await sleep(200);
    expect(drops.some((d) => /already connected/.test(d))).toBe(true);
    await r.send([Buffer.from('alice'), Buffer.from('still alice')]);
    expect((await alice.receive()).map(String)).toEqual(['still alice']);
    for (const s of [alice, anon, anon2, twin]) s.close();
    r.close();
  });

  it('libzmq heartbeats (heartbeatInterval, heartbeatTimeout) are answered: the connection outlives the timeout', async () => {
    const r = await tcpRouter();
    const d = new Dealer({ heartbeatInterval: 20, heartbeatTimeout: 100, receiveTimeout: 5000 });
    d.connect(r.lastEndpoint!);
    await d.send('first');
    const [id1] = await r.receive();
    // 10 heartbeat timeouts of silence: without PONGs libzmq would drop the connection and reconnect
    // with a new generated routing id
    await sleep(1000);
    await d.send('second');
    const [id2, body] = await r.receive();
    expect(body!.toString()).toBe('second');
    expect(id2!.equals(id1!)).toBe(true);
    await r.send([id2!, Buffer.from('reply')]);
    expect((await d.receive()).map(String)).toEqual(['reply']);
    d.close();
    r.close();
  });

  it('a message over maxMessageSize drops its connection (nothing delivered); other clients are served', async () => {
    const r = await tcpRouter();
    r.maxMessageSize = 1000;
    const drops: string[] = [];
    r.onDrop = (why) => drops.push(why);
    const l = echo(r);
    const big = new Dealer({ receiveTimeout: 300 });
    big.connect(r.lastEndpoint!);
    const small = new Dealer({ receiveTimeout: 5000 });
    small.connect(r.lastEndpoint!);
    await big.send([Buffer.alloc(600), Buffer.alloc(600)]);
    await expect(big.receive()).rejects.toThrow();
    expect(drops.some((d) => /more than 1000 bytes/.test(d))).toBe(true);
    await small.send(Buffer.alloc(1000, 9));
    expect((await small.receive())[0]!.equals(Buffer.alloc(1000, 9))).toBe(true);
    big.close();
    small.close();
    r.close();
    await l;
  });
});

describe('ZmtpRouter refusals and edges (raw connections)', () => {
  it('another mechanism gets an ERROR command and the connection closes', async () => {
    const r = await tcpRouter();
    const p = await rawPeer(r.lastEndpoint!);
    p.sock.write(greeting(false, 'PLAIN'));
    await p.closed;
    expect(p.items[0]).toBe('greeting');
    expect(p.items[1]).toMatch(/^ERROR:.*PLAIN is not supported/);
    r.close();
  });

  it('a socket type other than DEALER/REQ gets an ERROR; the router sends READY with Socket-Type ROUTER', async () => {
    const r = await tcpRouter();
    const p = await rawPeer(r.lastEndpoint!);
    p.sock.write(Buffer.concat([greeting(false), ready('PUB')]));
    await p.closed;
    expect(p.items[1]).toMatch(/^READY:.*Socket-Type\0\0\0\u0006ROUTER/);
    expect(p.items[2]).toMatch(/^ERROR:.*socket type PUB/);
    r.close();
  });

  it('a ZMTP 2.0 peer (libzmq 3.x) is closed after its version byte', async () => {
    const r = await tcpRouter();
    const p = await rawPeer(r.lastEndpoint!);
    const drops: string[] = [];
    r.onDrop = (why) => drops.push(why);
    p.sock.write(Buffer.from([0xff, 0, 0, 0, 0, 0, 0, 0, 1, 0x7f, 1]));
    await p.closed;
    expect(drops).toEqual([expect.stringMatching(/ZMTP 1\.x peer refused/)]);
    r.close();
  });

  it('PING gets a PONG with its context; a message to an unknown routing id is dropped silently', async () => {
    const r = await tcpRouter();
    const p = await rawPeer(r.lastEndpoint!);
    p.sock.write(Buffer.concat([greeting(false), ready('DEALER', 'raw'), encodeCommand('PING', Buffer.from('\u0000\u0064ctx'))]));
    for (let i = 0; i < 50 && p.items.length < 3; i++) await sleep(10);
    expect(p.items.slice(0, 3)).toEqual(['greeting', expect.stringMatching(/^READY:/), 'PONG:ctx']);
    await expect(r.send([Buffer.from('nobody'), Buffer.from('x')])).resolves.toBeUndefined();
    await r.send([Buffer.from('raw'), Buffer.from('y')]);
    for (let i = 0; i < 50 && p.items.length < 4; i++) await sleep(10);
    expect(p.items[3]).toEqual([Buffer.from('y')]);
    p.sock.destroy();
    r.close();
  });

  it('a client gone mid-message delivers nothing of it; the router goes on', async () => {
    const r = await tcpRouter();
    const p = await rawPeer(r.lastEndpoint!);
    // one frame with MORE, then half of the next frame's body, then gone
    p.sock.write(Buffer.concat([greeting(false), ready('DEALER'), Buffer.from([1, 1, 65, 0, 10, 1, 2, 3])]));
    await sleep(50);
    p.sock.destroy();
    await p.closed;
    const d = new Dealer();
    d.connect(r.lastEndpoint!);
    await d.send('after');
    const m = await r.receive();
    expect(m.slice(1).map(String)).toEqual(['after']);
    d.close();
    r.close();
  });

  it('a peer that does not read has its messages dropped past sendHighWaterBytes; the rest arrive whole', async () => {
    const r = await tcpRouter();
    r.sendHighWaterBytes = 1 << 20;
    const p = await rawPeer(r.lastEndpoint!);
    p.sock.write(Buffer.concat([greeting(false), ready('DEALER', 'slow')]));
    await sleep(100);
    p.sock.pause();
    const body = Buffer.alloc(256 * 1024, 5);
    for (let i = 0; i < 400; i++) await r.send([Buffer.from('slow'), body]);
    p.sock.resume();
    await sleep(500);
    const got = p.items.filter((x) => Array.isArray(x)) as Buffer[][];
    // 100 MB were sent; the 1 MiB mark and the kernel's buffers hold a small part of it
    expect(got.length).toBeGreaterThanOrEqual(4);
    expect(got.length).toBeLessThan(400);
    for (const m of got) expect(m[0]!.equals(body)).toBe(true);
    p.sock.destroy();
    r.close();
  });

  it('5,000 messages sent while nobody receives all arrive, in order (the connection is paused, not dropped)', async () => {
    const r = await tcpRouter();
    const d = new Dealer({ sendHighWaterMark: 0 });
    d.connect(r.lastEndpoint!);
    for (let i = 0; i < 5000; i++) await d.send(String(i));
    await sleep(200);
    for (let i = 0; i < 5000; i++) expect(String((await r.receive())[1])).toBe(String(i));
    d.close();
    r.close();
  });

  it('close() rejects a pending receive and later calls; the ipc socket file is replaced at bind and removed at close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zmtp-'));
    const path = join(dir, 's.sock');
    writeFileSync(path, 'stale');
    const r = new ZmtpRouter();
    await r.bind(`ipc://${path}`);
    expect(r.lastEndpoint).toBe(`ipc://${path}`);
    const d = new Dealer({ receiveTimeout: 5000 });
    d.connect(`ipc://${path}`);
    await d.send('over ipc');
    const m = await r.receive();
    expect(m[1]!.toString()).toBe('over ipc');
    await r.send([m[0]!, Buffer.from('back')]);
    expect((await d.receive()).map(String)).toEqual(['back']);
    const pending = r.receive();
    r.close();
    await expect(pending).rejects.toThrow(/closed/);
    await expect(r.receive()).rejects.toThrow(/closed/);
    expect(existsSync(path)).toBe(false);
    d.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('40 connections sending random bytes (after a handshake or instead of one) never stop the router', async () => {
    const r = await tcpRouter();
    const l = echo(r);
    let seed = 31;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed >>> 16;
    };
    for (let i = 0; i < 40; i++) {
      const p = await rawPeer(r.lastEndpoint!);
      const junk = Buffer.from(Array.from({ length: 1 + (rand() % 400) }, () => rand() & 255));
      p.sock.write(i % 2 === 0 ? Buffer.concat([greeting(false), ready('DEALER'), junk]) : junk);
      await sleep(5);
      p.sock.destroy();
    }
    const d = new Dealer({ receiveTimeout: 5000 });
    d.connect(r.lastEndpoint!);
    await d.send('still here');
    expect((await d.receive()).map(String)).toEqual(['still here']);
    d.close();
    r.close();
    await l;
  });

  it('a connection that does not finish its handshake in handshakeTimeoutMs is closed', async () => {
    const r = await tcpRouter();
    r.handshakeTimeoutMs = 100;
    const drops: string[] = [];
    r.onDrop = (why) => drops.push(why);
    const p = await rawPeer(r.lastEndpoint!);
    // the greeting but no READY
    p.sock.write(greeting(false));
    const t0 = Date.now();
    await p.closed;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(50);
    expect(drops).toEqual(['no handshake within 100 ms']);
    r.close();
  });

  it('heartbeats: a silent peer is PINGed after heartbeatInterval and closed after heartbeatTimeout; one that talks stays', async () => {
    const r = new ZmtpRouter();
    r.heartbeatInterval = 50;
    r.heartbeatTimeout = 300;
    const drops: string[] = [];
    r.onDrop = (why) => drops.push(why);
    await r.bind('tcp://127.0.0.1:*');
    const silent = await rawPeer(r.lastEndpoint!);
    const talker = await rawPeer(r.lastEndpoint!);
    for (const p of [silent, talker]) p.sock.write(Buffer.concat([greeting(false), ready('DEALER')]));
    // the talker answers every PING with a PONG, as a ZeroMQ peer's I/O thread does
    const answer = setInterval(() => talker.sock.write(encodeCommand('PONG', Buffer.from('cg'))), 40);
    const t0 = Date.now();
    await silent.closed;
    const took = Date.now() - t0;
    clearInterval(answer);
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(1500);
    // PINGs with TTL 0 and our 2-byte context came before the close
    expect(silent.items.filter((x) => x === 'PING:\u0000\u0000cg').length).toBeGreaterThanOrEqual(2);
    expect(drops).toEqual([expect.stringMatching(/^heartbeat timeout: nothing from the peer for \d+ ms$/)]);
    expect(talker.sock.destroyed).toBe(false);
    talker.sock.destroy();
    r.close();
  });

  it("a peer's PING with a TTL closes its connection after that much silence, with our own heartbeats off", async () => {
    const r = await tcpRouter();
    const p = await rawPeer(r.lastEndpoint!);
    // TTL 3: 300 ms (tenths of a second)
    p.sock.write(Buffer.concat([greeting(false), ready('DEALER'), encodeCommand('PING', Buffer.from([0, 3]))]));
    const t0 = Date.now();
    await p.closed;
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(2500);
    r.close();
  });

  it('a router busy on its event loop longer than the timeout does not take its peers for dead', async () => {
    const r = new ZmtpRouter();
    r.heartbeatInterval = 50;
    r.heartbeatTimeout = 200;
    await r.bind('tcp://127.0.0.1:*');
    const p = await rawPeer(r.lastEndpoint!);
    p.sock.write(Buffer.concat([greeting(false), ready('DEALER')]));
    await sleep(30);
    const busyUntil = Date.now() + 600; // a long request: no timer, no socket read meanwhile
    while (Date.now() < busyUntil) {
      // spin
    }
    p.sock.write(encodeCommand('PONG', Buffer.from('cg')));
    await sleep(120);
    expect(p.sock.destroyed).toBe(false);
    // and silence after that is timed from then on
    await p.closed;
    r.close();
  });

  it('the greeting is 64 bytes and comes before anything else', async () => {
    const r = await tcpRouter();
    const m = /^tcp:\/\/([^:]+):(\d+)$/.exec(r.lastEndpoint!)!;
    const sock = connect({ host: m[1]!, port: Number(m[2]) });
    const first = await new Promise<Buffer>((res) => sock.once('data', (d: Buffer) => res(d)));
    expect(first.length).toBe(GREETING_BYTES);
    expect(first.equals(greeting(false))).toBe(true);
    sock.destroy();
    r.close();
  });
});

const PYTHON = '/usr/bin/python3';
const hasPyzmq = spawnSync(PYTHON, ['-c', 'import zmq, msgpack'], { encoding: 'utf8' }).status === 0;

/** pyzmq DEALER and REQ clients of `clustergym serve`: hello, make, reset, a few steps, close. */
const PY_CLIENT = `
import sys, zmq, msgpack
endpoint, kind = sys.argv[1], sys.argv[2]
ctx = zmq.Context()
s = ctx.socket(zmq.DEALER if kind == "dealer" else zmq.REQ)
s.setsockopt(zmq.LINGER, 0)
s.setsockopt(zmq.RCVTIMEO, 10000)
s.connect(endpoint)
n = 0
def call(op, **kw):
    global n
    n += 1
    s.send(msgpack.packb(dict(id=n, op=op, **kw)))
    r = msgpack.unpackb(s.recv(), raw=False)
    assert r["id"] == n and r["ok"], r
    return r
assert call("hello")["protocol"] == 1
env = call("make", env_id="clustergym/Job-v0", config={"k": 8, "trajectory": {"length": 12, "origin": 0}})["env"]
call("reset", env=env, seed=3)
steps = 0
for _ in range(5):
    mask = call("action_mask", env=env)["mask"]["data"]
    r = call("step", env=env, action=mask.index(1))
    steps += 1
    if r["terminated"] or r["truncated"]:
        break
call("close", env=env)
print(kind, "ok", steps)
`;

describe.skipIf(!hasPyzmq)('the Python client against clustergym serve --transport zmtp', () => {
  let server: ReturnType<typeof spawn>;
  let endpoint: string;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'zmtp-py-'));
    server = spawn(process.execPath, [CLI, 'serve', '--bind', `ipc://${join(dir, 'serve.sock')}`, '--transport', 'zmtp', '--quiet'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    endpoint = await new Promise<string>((resolve, reject) => {
      let buf = '';
      server.stdout!.on('data', (d: Buffer) => {
        buf += d.toString();
        const nl = buf.indexOf('\n');
        if (nl >= 0) resolve(buf.slice(0, nl));
      });
      server.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
    });
  });
  afterAll(async () => {
    const gone = new Promise((r) => server.on('exit', r));
    server.kill('SIGTERM');
    await gone;
    expect(existsSync(join(dir, 'serve.sock'))).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['dealer', 'req'])('a pyzmq %s makes, resets and steps an env', async (kind) => {
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const p = spawn(PYTHON, ['-c', PY_CLIENT, endpoint, kind], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      p.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(new RegExp(`^${kind} ok [1-5]\\n$`));
  });
});
