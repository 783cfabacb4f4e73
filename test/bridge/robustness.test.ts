/**
 * Issue 18's bridge defects over real sockets (127.0.0.1), in process: op names that are
 * Object.prototype members, seeds up to 2^64 (hashed above 2^53) and negative seeds refused before
 * the env moves, the hot path agreeing with the schema, ping, limits per server and per client, and
 * whole-batch validation (envs with other spaces move nothing).
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dealer } from 'zeromq';
import { registryFactory } from '../../bridge/envFactory.js';
import { decodeNdArray, encodeNdArray, type NdArrayMessage } from '../../bridge/ndarray.js';
import { BridgeError, parseRequest, seedToNumber } from '../../bridge/protocol.js';
import { PACKAGE_ROOT } from '../../src/core/paths.js';
import { BridgeServer, hardMessageCap, wire } from '../../bridge/server.js';

type Reply = { id: unknown; ok: boolean; error?: { code: string; message: string; details: Record<string, unknown> }; [k: string]: unknown };

class Client {
  readonly sock = new Dealer();
  private next = 1;
  constructor(endpoint: string) {
    this.sock.connect(endpoint);
    this.sock.receiveTimeout = 10_000;
  }
  async call(op: string, fields: Record<string, unknown> = {}): Promise<Reply> {
    await this.sock.send(wire.pack({ id: this.next++, op, ...fields }));
    const [reply] = await this.sock.receive();
    return wire.unpack(reply!) as Reply;
  }
  async ok(op: string, fields: Record<string, unknown> = {}): Promise<Reply> {
    const r = await this.call(op, fields);
    if (!r.ok) throw new Error(`${op}: ${r.error?.code}: ${r.error?.message}`);
    return r;
  }
  close(): void {
    this.sock.close();
  }
}

const CONFIG = { trajectory: { length: 12, origin: 'random' }, k: 8 };
const maskOf = (r: Reply) => decodeNdArray((r.info as { action_mask: NdArrayMessage }).action_mask).array as Uint8Array;

describe('bridge robustness over real sockets', () => {
  let server: BridgeServer;
  let endpoint: string;
  beforeAll(async () => {
    server = new BridgeServer(registryFactory({ maxJobs: 1000 }), { bind: 'tcp://127.0.0.1:0', maxEnvs: 5, maxEnvsPerClient: 3 });
    endpoint = await server.start();
  });
  afterAll(async () => {
    await server.close();
  });

  it('op names that are Object.prototype members are unknown ops, not internal errors', async () => {
    const c = new Client(endpoint);
    for (const op of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const r = await c.call(op);
      expect(r.ok).toBe(false);
      expect(r.error!.code).toBe('unknown_op');
    }
    expect((await c.ok('ping')).pong).toBe(true);
    c.close();
  });

  it('seeds: up to 2^64 accepted (hashed above 2^53, reproducibly), negative and 2^64 refused before the env moves', async () => {
    const c = new Client(endpoint);
    const env = (await c.ok('make', { env_id: 'clustergym/Job-v0', config: CONFIG })).env;
    const big = (1n << 60n) + 5n;
    const a = await c.ok('reset', { env, seed: big });
    const b = await c.ok('reset', { env, seed: big });
    expect(decodeNdArray((a.observation as Record<string, NdArrayMessage>).jobs!).array).toEqual(
      decodeNdArray((b.observation as Record<string, NdArrayMessage>).jobs!).array,
    );
    await c.ok('reset', { env, seed: (1n << 64n) - 1n });
    const r0 = await c.ok('reset', { env, seed: 3 });
    const s1 = await c.ok('step', { env, action: maskOf(r0).indexOf(1) });
    for (const seed of [-1, 2 ** 64, 1.5]) {
      const r = await c.call('reset', { env, seed });
      expect(r.ok).toBe(false);
      expect(r.error!.code).toBe('bad_request');
      expect(r.error!.message).toMatch(/\$\.seed/);
    }
    // the refused resets did not move the env: the episode goes on at step 2
    const s2 = await c.ok('step', { env, action: maskOf(s1).indexOf(1) });
    expect((s2.info as { steps: number }).steps).toBe(2);
    expect(seedToNumber(2 ** 53 - 1)).toBe(2 ** 53 - 1);
    expect(seedToNumber(1n << 60n)).not.toBe(seedToNumber((1n << 60n) + 1n));
    const h = seedToNumber(1n << 63n);
    expect(typeof h === 'number' && Number.isSafeInteger(h) && h >= 0).toBe(true);
    await c.ok('close', { env });
    c.close();
  });

  it('the hot path and the schema agree: plain and ndarray actions step alike, bad ones are named', () => {
    const plain = parseRequest({ id: 1, op: 'step', env: 'e1', action: 3 });
    const nd = parseRequest({ id: 1, op: 'step', env: 'e1', action: encodeNdArray(new Int32Array([3])) });
    expect((plain.req as { action: number }).action).toBe(3);
    expect((nd.req as { action: number }).action).toBe(3);
    expect(() => parseRequest({ id: 1, op: 'step', env: 'e1', action: 1.5 })).toThrow(/\$\.action/);
    expect(() => parseRequest({ id: 1, op: 'step', env: '', action: 1 })).toThrow(/\$\.env/);
    const batch = parseRequest({ id: 1, op: 'step_batch', envs: ['e1', 'e2'], actions: [1, 2] });
    expect((batch.req as { autoreset: boolean }).autoreset).toBe(true);
    expect(() => parseRequest({ id: 1, op: 'step_batch', envs: ['e1', 'e2'], actions: [1] })).toThrow(/same length/);
    expect(() => parseRequest({ id: 1, op: 'step_batch', envs: ['e1'], actions: [1], autoreset: 'yes' })).toThrow(/\$\.autoreset/);
  });

  it('limits: envs per client and per server, jobs of a generator, each naming its flag', async () => {
    const a = new Client(endpoint);
    const b = new Client(endpoint);
    const made: [Client, unknown][] = [];
    for (let i = 0; i < 3; i++) made.push([a, (await a.ok('make', { env_id: 'clustergym/Job-v0', config: CONFIG })).env]);
    const r1 = await a.call('make', { env_id: 'clustergym/Job-v0', config: CONFIG });
    expect(r1.error!.code).toBe('limit_exceeded');
    expect(r1.error!.details.flag).toBe('--max-envs-per-client');
    for (let i = 0; i < 2; i++) made.push([b, (await b.ok('make', { env_id: 'clustergym/Job-v0', config: CONFIG })).env]);
    const r2 = await b.call('make', { env_id: 'clustergym/Job-v0', config: CONFIG });
    expect(r2.error!.details.flag).toBe('--max-envs');
    for (const [c, env] of made) await c.ok('close', { env });
    const r3 = await a.call('make', { env_id: 'clustergym/Job-v0', config: { generator: { jobs: 1e9 } } });
    expect(r3.error!.code).toBe('limit_exceeded');
    expect(r3.error!.details).toMatchObject({ flag: '--max-jobs', max: 1000, value: 1e9 });
    expect(server.openEnvs).toBe(0);
    a.close();
    b.close();
  });

  it('a batch of envs with other spaces is refused whole: no env moves', async () => {
    const c = new Client(endpoint);
    const e1 = (await c.ok('make', { env_id: 'clustergym/Job-v0', config: CONFIG })).env;
    const e2 = (await c.ok('make', { env_id: 'clustergym/Job-v0', config: { ...CONFIG, k: 16 } })).env;
    const r1 = await c.ok('reset', { env: e1, seed: 1 });
    const r2 = await c.ok('reset', { env: e2, seed: 1 });
    const sb = await c.call('step_batch', { envs: [e1, e2], actions: [maskOf(r1).indexOf(1), maskOf(r2).indexOf(1)] });
    expect(sb.error!.code).toBe('bad_request');
    expect(sb.error!.message).toMatch(/same spaces/);
    const rb = await c.call('reset_batch', { envs: [e1, e2], seeds: [9, 9] });
    expect(rb.error!.code).toBe('bad_request');
    const s = await c.ok('step', { env: e1, action: maskOf(r1).indexOf(1) });
    expect((s.info as { steps: number }).steps).toBe(1);
    await c.ok('close', { env: e1 });
    await c.ok('close', { env: e2 });
    c.close();
  });

  it('files: outside the roots, devices and oversize files are refused without their content', async () => {
    const c = new Client(endpoint);
    for (const [field, path] of [
      ['platform', '/etc/passwd'],
      ['workload', '/dev/zero'],
      ['workload', '/etc/hostname'],
    ] as const) {
      const t0 = Date.now();
      const r = await c.call('make', { env_id: 'clustergym/Job-v0', config: { [field]: path } });
      expect(Date.now() - t0).toBeLessThan(3000);
      expect(r.error!.code).toBe('forbidden');
      expect(r.error!.message).toContain(`$.${field}`);
      expect(r.error!.message).not.toMatch(/root:x:0/);
    }
    c.close();
  });

  it('unknown request fields are bad_request with a suggestion; the env does not move', async () => {
    const c = new Client(endpoint);
    const env = (await c.ok('make', { env_id: 'clustergym/Job-v0', config: CONFIG })).env;
    const r0 = await c.ok('reset', { env, seed: 1 });
    const r1 = await c.call('reset', { env, sed: 5 });
    expect(r1.error!.code).toBe('bad_request');
    expect(r1.error!.message).toMatch(/\$\.sed: unknown field "sed" \(did you mean "seed"\?\)/);
    const r2 = await c.call('step', { env, action: maskOf(r0).indexOf(1), actoin: 1 });
    expect(r2.error!.code).toBe('bad_request');
    expect(r2.error!.message).toMatch(/did you mean "action"/);
    const r3 = await c.call('step_batch', { envs: [env], actions: [maskOf(r0).indexOf(1)], auto_reset: false });
    expect(r3.error!.message).toMatch(/did you mean "autoreset"/);
    const s = await c.ok('step', { env, action: maskOf(r0).indexOf(1) });
    expect((s.info as { steps: number }).steps).toBe(1);
    await c.ok('close', { env });
    c.close();
  });

  it('an unknown job field of an inline workload is a bad_config with a suggestion (memvol -> mem_vol)', async () => {
    const c = new Client(endpoint);
    const workload = {
      jobs: [
        { id: 'a', subtime: 0, res: 1, profile: 'p', memvol: 5 },
        { id: 'b', subtime: 1, res: 1, profile: 'p' },
      ],
      profiles: { p: { req_ops: 1e9, ipc: 1, req_time: 2, mem: 10 } },
    };
    const r = await c.call('make', { env_id: 'clustergym/Job-v0', config: { workload, k: 2 } });
    expect(r.ok).toBe(false);
    expect(r.error!.code).toBe('bad_config');
    expect(r.error!.message).toMatch(/memvol/);
    expect(r.error!.message).toMatch(/did you mean "mem_vol"\?/);
    c.close();
  });

  it('a file larger than --max-file-bytes is a limit_exceeded error naming the flag, before it is read', () => {
    const small = registryFactory({ maxFileBytes: 1000 });
    const file = resolve(PACKAGE_ROOT, 'data/workloads/mixed-300.json');
    let err: unknown;
    try {
      small.make('clustergym/Job-v0', { workload: file });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BridgeError);
    expect((err as BridgeError).code).toBe('limit_exceeded');
    expect((err as BridgeError).details).toMatchObject({ flag: '--max-file-bytes', max: 1000 });
    expect(statSync(file).size).toBeGreaterThan(1000);
  });
});

describe('bridge review defects over real sockets', () => {
  let server: BridgeServer;
  let endpoint: string;
  beforeAll(async () => {
    server = new BridgeServer(registryFactory({ maxJobs: 1000 }), { bind: 'tcp://127.0.0.1:0', maxRequestBytes: 4096 });
    endpoint = await server.start();
  });
  afterAll(async () => {
    await server.close();
  });
  const jobsOf = (r: Reply) => Array.from(decodeNdArray((r.observation as Record<string, NdArrayMessage>).jobs!).array as Float32Array);

  it('--max-jobs bounds the episode length of a generator (trajectory.length), before anything is generated', async () => {
    const c = new Client(endpoint);
    const r = await c.call('make', { env_id: 'clustergym/Job-v0', config: { generator: { jobs: 10 }, trajectory: { length: 3000 } } });
    expect(r.ok).toBe(false);
    expect(r.error!.code).toBe('limit_exceeded');
    expect(r.error!.details).toMatchObject({ limit: '$.trajectory.length', flag: '--max-jobs', max: 1000, value: 3000 });
    expect(r.error!.message).toMatch(/--max-jobs/);
    expect(server.openEnvs).toBe(0);
    const ok = await c.ok('make', { env_id: 'clustergym/Job-v0', config: { generator: { jobs: 10 }, trajectory: { length: 1000 } } });
    await c.ok('close', { env: ok.env });
    c.close();
  });

  it('a server without a token ignores a token in msgpack requests, as in binary frames', async () => {
    const c = new Client(endpoint);
    const h = await c.call('hello', { token: 'not-needed' });
    expect(h.ok).toBe(true);
    const env = (await c.ok('make', { env_id: 'clustergym/Job-v0', config: CONFIG, token: 'x' })).env;
    expect((await c.call('reset', { env, seed: 1, token: 'x' })).ok).toBe(true);
    await c.ok('close', { env });
    c.close();
  });

  it("reset_batch checks every env's options before any env resets (env A not reset when env B refuses the origin)", async () => {
    const c = new Client(endpoint);
    const a = (await c.ok('make', { env_id: 'clustergym/Job-v0', config: { trajectory: { length: 12 }, k: 8 } })).env;
    const b = (await c.ok('make', { env_id: 'clustergym/Job-v0', config: { trajectory: { length: 200 }, k: 8 } })).env;
    const ref = (await c.ok('make', { env_id: 'clustergym/Job-v0', config: { trajectory: { length: 12 }, k: 8 } })).env;
    const ra = await c.ok('reset', { env: a, seed: 7 });
    await c.ok('reset', { env: b, seed: 7 });
    const s1 = await c.ok('step', { env: a, action: maskOf(ra).indexOf(1) });
    // origin 288 is valid for A (300 jobs, length 12) but not for B (length 200: at most 100)
    const r = await c.call('reset_batch', { envs: [a, b], seeds: [1, 2], options: { origin: 288 } });
    expect(r.ok).toBe(false);
    expect(r.error!.code).toBe('bad_config');
    expect(r.error!.details).toMatchObject({ index: 1, env: b });
    // A goes on with its episode: the same as a fresh env reset with seed 7 stepping the same way
    const s2 = await c.ok('step', { env: a, action: maskOf(s1).indexOf(1) });
    expect((s2.info as { steps: number }).steps).toBe(2);
    const q0 = await c.ok('reset', { env: ref, seed: 7 });
    const q1 = await c.ok('step', { env: ref, action: maskOf(q0).indexOf(1) });
    const q2 = await c.ok('step', { env: ref, action: maskOf(q1).indexOf(1) });
    expect(jobsOf(s2)).toEqual(jobsOf(q2));
    expect(s2.info).toEqual(q2.info);
    // a valid origin for both resets both
    const ok = await c.ok('reset_batch', { envs: [a, b], options: { origin: 50 } });
    expect((ok.infos as unknown[]).length).toBe(2);
    for (const env of [a, b, ref]) await c.ok('close', { env });
    c.close();
  });

  it('a failed first reset leaves the next unseeded reset drawing entropy (fresh envs get different episodes)', async () => {
    const c = new Client(endpoint);
    const episodes: string[] = [];
    for (let i = 0; i < 4; i++) {
      const env = (await c.ok('make', { env_id: 'clustergym/Job-v0', config: { generator: { jobs: 40 }, k: 8 } })).env;
      const bad = await c.call('reset', { env, options: { bogus: 1 } });
      expect(bad.error!.code).toBe('bad_config');
      episodes.push(JSON.stringify(jobsOf(await c.ok('reset', { env }))));
      await c.ok('close', { env });
    }
    expect(new Set(episodes).size).toBe(4);
    c.close();
  });

  it('--max-request-bytes: over the limit a limit_exceeded reply; over the hard cap ZeroMQ drops the connection (no reply), the server goes on', async () => {
    expect(hardMessageCap(4096)).toBe(4096 + (1 << 20));
    expect(hardMessageCap(64 << 20)).toBe(128 << 20);
    const b = new Client(endpoint);
    const over = await b.call('ping', { pad: 'x'.repeat(5000) });
    expect(over.error!.code).toBe('limit_exceeded');
    expect(over.error!.details).toMatchObject({ flag: '--max-request-bytes' });
    b.close();
    const c = new Client(endpoint);
    c.sock.receiveTimeout = 700;
    await c.sock.send(wire.pack({ id: 1, op: 'ping', pad: 'x'.repeat(hardMessageCap(4096) + 10) }));
    await expect(c.sock.receive()).rejects.toThrow();
    c.close();
    expect(server.openEnvs).toBe(0);
    const d = new Client(endpoint);
    expect((await d.ok('ping')).pong).toBe(true);
    d.close();
  });

  it('a request of several frames is refused with a bad_message reply', async () => {
    const c = new Client(endpoint);
    await c.sock.send([wire.pack({ id: 1, op: 'ping' }), wire.pack({ id: 2, op: 'ping' })]);
    const frames = await c.sock.receive();
    expect(frames.length).toBe(1);
    const r = wire.unpack(frames[0]!) as Reply;
    expect(r.ok).toBe(false);
    expect(r.error!.code).toBe('bad_message');
    expect(r.error!.details).toMatchObject({ frames: 2 });
    expect((await c.ok('ping')).pong).toBe(true);
    c.close();
  });
});
