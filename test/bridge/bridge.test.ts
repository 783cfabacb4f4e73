/**
 * The ZeroMQ bridge over real sockets (127.0.0.1): robustness against malformed requests, many
 * clients with interleaved envs giving the same episodes as one by one, idle-env reclamation, and
 * the `serve` command's endpoint line and clean shutdown.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dealer } from 'zeromq';
import { derive } from '../../src/core/rng.js';
import { registryFactory } from '../../bridge/envFactory.js';
import { allEnvIds } from '../../envs/index.js';
import { decodeNdArray, isNdArrayMessage, type NdArrayMessage } from '../../bridge/ndarray.js';
import { BridgeServer, wire } from '../../bridge/server.js';
import { CLI } from '../helpers.js';

type Reply = { id: unknown; ok: boolean; error?: { code: string; message: string; details: unknown }; [k: string]: unknown };

/** A DEALER client with request ids. */
class Client {
  readonly sock = new Dealer();
  private next = 1;
  constructor(readonly endpoint: string) {
    this.sock.connect(endpoint);
    this.sock.receiveTimeout = 10_000;
  }
  async raw(payload: Buffer): Promise<Reply> {
    await this.sock.send(payload);
    const [reply] = await this.sock.receive();
    return wire.unpack(reply!) as Reply;
  }
  async call(op: string, fields: Record<string, unknown> = {}): Promise<Reply> {
    const id = this.next++;
    const r = await this.raw(wire.pack({ id, op, ...fields }));
    expect(r.id).toBe(id);
    return r;
  }
  async ok(op: string, fields: Record<string, unknown> = {}): Promise<Reply> {
    const r = await this.call(op, fields);
    if (!r.ok) throw new Error(`${op} failed: ${r.error?.code}: ${r.error?.message}`);
    return r;
  }
  close(): void {
    this.sock.close();
  }
}

const mask = (r: Reply): Uint8Array => decodeNdArray((r.info as { action_mask: NdArrayMessage }).action_mask).array as Uint8Array;

const CONFIG = { trajectory: { length: 12, origin: 'random' }, k: 8 };

function randomBytes(rng: ReturnType<typeof derive>, n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = rng.int(256);
  return b;
}

describe('bridge over real sockets', () => {
  let server: BridgeServer;
  let endpoint: string;
  const reclaimed: string[] = [];
  beforeAll(async () => {
    server = new BridgeServer(registryFactory(), { bind: 'tcp://127.0.0.1:0', idleTimeoutMs: 1500, onReclaim: (e) => reclaimed.push(e) });
    endpoint = await server.start();
    expect(endpoint).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
  });
  afterAll(async () => {
    await server.close();
  });

  it('hello reports the protocol and the env ids', async () => {
    const c = new Client(endpoint);
    const r = await c.ok('hello');
    expect(r.protocol).toBe(1);
    const ids = (r.capabilities as { env_ids: string[] }).env_ids;
    expect(ids).toEqual(allEnvIds());
    expect(ids.slice(0, 3)).toEqual(['clustergym/JobNode-v0', 'clustergym/Job-v0', 'clustergym/PolicyPair-v0']);
    c.close();
  });

  it('1,000 malformed requests each get an error reply and the server keeps serving', async () => {
    const c = new Client(endpoint);
    const made = await c.ok('make', { env_id: 'clustergym/Job-v0', config: CONFIG });
    const env = made.env as string;
    await c.ok('reset', { env, seed: 1 });
    const rng = derive(99, 'malformed');
    const kinds: Record<string, number> = {};
    for (let i = 0; i < 1000; i++) {
      const kind = i % 10;
      let payload: Buffer;
      let expected: string;
      switch (kind) {
        case 0:
          payload = randomBytes(rng, 1 + rng.int(64));
          expected = 'bad_message|unknown_op';
          break;
        case 1:
          payload = wire.pack([1, 2, 3]);
          expected = 'bad_message';
          break;
        case 2:
          payload = wire.pack({ id: i, op: `nope${i}` });
          expected = 'unknown_op';
          break;
        case 3:
          payload = wire.pack({ id: i, op: 'step', env, action: 'left' });
          expected = 'bad_request';
          break;
        case 4:
          payload = wire.pack({ id: i, op: 'step', env: `e${100000 + i}`, action: 0 });
          expected = 'unknown_env';
          break;
        case 5:
          payload = wire.pack({ id: i, op: 'step', env, action: 1_000_000 + i });
          expected = 'invalid_action';
          break;
        case 6:
          payload = wire.pack({ id: i, op: 'make', env_id: 'clustergym/Nope-v9', config: {} });
          expected = 'unknown_env_id';
          break;
        case 7:
          payload = wire.pack({ id: i, op: 'make', env_id: 'clustergym/Job-v0', config: { k: -3, reward: 'fun' } });
          expected = 'bad_config';
          break;
        case 8:
          payload = wire.pack({ id: i, op: 'reset', env, seed: 'x' });
          expected = 'bad_request';
          break;
        default:
          payload = wire.pack({ id: i, op: 'step_batch', envs: [env, env], actions: [0] });
          expected = 'bad_request';
      }
      const r = await c.raw(payload);
      expect(r.ok, `request ${i} (kind ${kind})`).toBe(false);
      expect(r.error!.code).toMatch(new RegExp(`^(${expected})$`));
      expect(typeof r.error!.message).toBe('string');
      kinds[r.error!.code] = (kinds[r.error!.code] ?? 0) + 1;
    }
    expect(Object.keys(kinds).sort()).toEqual(['bad_config', 'bad_message', 'bad_request', 'invalid_action', 'unknown_env', 'unknown_env_id', 'unknown_op']);
    // a bad config names every bad field with its path
    const bad = await c.call('make', { env_id: 'clustergym/Job-v0', config: { k: -3, reward: 'fun' } });
    const issues = (bad.error!.details as { issues: { path: string }[] }).issues.map((x) => x.path);
    expect(issues).toEqual(expect.arrayContaining(['$.k', '$.reward']));
    // still serving, and the env still works after all those errors
    const st = await c.ok('action_mask', { env });
    const m = decodeNdArray(st.mask as NdArrayMessage).array as Uint8Array;
    const a = m.indexOf(1);
    const step = await c.ok('step', { env, action: a });
    expect(typeof step.reward).toBe('number');
    await c.ok('close', { env });
    c.close();
  });

  it('8 clients x 4 envs interleaved give the same episodes as one by one', async () => {
    // reference: each (client, env) episode alone, with a deterministic policy (lowest allowed action)
    const seeds = Array.from({ length: 32 }, (_, i) => 1000 + i);
    async function episode(c: Client, env: string, seed: number): Promise<number[]> {
      let r = await c.ok('reset', { env, seed });
      const trace: number[] = [];
      for (;;) {
        const a = mask(r).indexOf(1);
        r = await c.ok('step', { env, action: a });
        trace.push(a, r.reward as number);
        if (r.terminated || r.truncated) {
          trace.push((r.info as { metrics: { mean_bsld: number } }).metrics.mean_bsld);
          return trace;
        }
      }
    }
    const solo = new Client(endpoint);
    const reference: number[][] = [];
    for (const s of seeds) {
      const env = (await solo.ok('make', { env_id: 'clustergym/Job-v0', config: CONFIG })).env as string;
      reference.push(await episode(solo, env, s));
      await solo.ok('close', { env });
    }
    solo.close();
    // interleaved: 8 clients, each with 4 envs stepped round-robin, all clients concurrently
    const clients = Array.from({ length: 8 }, () => new Client(endpoint));
    const results = await Promise.all(
      clients.map(async (c, ci) => {
        const envs: string[] = [];
        for (let k = 0; k < 4; k++) envs.push((await c.ok('make', { env_id: 'clustergym/Job-v0', config: CONFIG })).env as string);
        const replies = new Map<string, Reply>();
        for (let k = 0; k < 4; k++) replies.set(envs[k]!, await c.ok('reset', { env: envs[k], seed: seeds[ci * 4 + k] }));
        const traces: number[][] = [[], [], [], []];
        const done = [false, false, false, false];
        while (done.includes(false)) {
          for (let k = 0; k < 4; k++) {
            if (done[k]) continue;
            const a = mask(replies.get(envs[k]!)!).indexOf(1);
            const r = await c.ok('step', { env: envs[k], action: a });
            replies.set(envs[k]!, r);
            traces[k]!.push(a, r.reward as number);
            if (r.terminated || r.truncated) {
              traces[k]!.push((r.info as { metrics: { mean_bsld: number } }).metrics.mean_bsld);
              done[k] = true;
            }
          }
        }
        for (const e of envs) await c.ok('close', { env: e });
        return traces;
      }),
    );
    for (const c of clients) c.close();
    expect(results.flat()).toEqual(reference);
  });

  it('step_batch and reset_batch stack observations, rewards and masks', async () => {
    const c = new Client(endpoint);
    const envs: string[] = [];
    for (let k = 0; k < 3; k++) envs.push((await c.ok('make', { env_id: 'clustergym/Job-v0', config: { ...CONFIG, observation: 'flat' } })).env as string);
    const rb = await c.ok('reset_batch', { envs, seeds: [1, 2, 3] });
    const obs = decodeNdArray(rb.observations as NdArrayMessage);
    expect(obs.shape[0]).toBe(3);
    const masks = decodeNdArray(rb.action_masks as NdArrayMessage);
    expect(masks.shape).toEqual([3, 9]);
    const actions = [0, 1, 2].map((i) => Array.from(masks.array.slice(i * 9, i * 9 + 9) as Uint8Array).indexOf(1));
    const sb = await c.ok('step_batch', { envs, actions });
    expect(decodeNdArray(sb.rewards as NdArrayMessage).shape).toEqual([3]);
    expect(isNdArrayMessage(sb.terminated)).toBe(true);
    expect((sb.infos as unknown[]).length).toBe(3);
    // a forbidden action anywhere changes nothing anywhere
    const bad = await c.call('step_batch', { envs, actions: [actions[0], 999, actions[2]] });
    expect(bad.error!.code).toBe('invalid_action');
    expect(bad.error!.details).toMatchObject({ index: 1, env: envs[1] });
    // proof: the next valid batch step is the second step of each episode, as in fresh envs reset with the same seeds
    const m1 = decodeNdArray(sb.action_masks as NdArrayMessage).array as Uint8Array;
    const next = [0, 1, 2].map((i) => Array.from(m1.slice(i * 9, i * 9 + 9)).indexOf(1));
    const sb2 = await c.ok('step_batch', { envs, actions: next });
    const ref: string[] = [];
    for (let k = 0; k < 3; k++) ref.push((await c.ok('make', { env_id: 'clustergym/Job-v0', config: { ...CONFIG, observation: 'flat' } })).env as string);
    await c.ok('reset_batch', { envs: ref, seeds: [1, 2, 3] });
    await c.ok('step_batch', { envs: ref, actions });
    const want = await c.ok('step_batch', { envs: ref, actions: next });
    const values = (m: unknown) => Array.from(decodeNdArray(m as NdArrayMessage).array as Float32Array | Float64Array);
    expect(values(sb2.observations)).toEqual(values(want.observations));
    expect(values(sb2.rewards)).toEqual(values(want.rewards));
    expect((sb2.infos as { steps: number }[]).map((i) => i.steps)).toEqual([2, 2, 2]);
    expect(sb2.infos).toEqual(want.infos);
    for (const e of [...envs, ...ref]) await c.ok('close', { env: e });
    c.close();
  });

  it('a client that disappears mid-episode has its env reclaimed after the idle timeout', async () => {
    const c = new Client(endpoint);
    const env = (await c.ok('make', { env_id: 'clustergym/Job-v0', config: CONFIG })).env as string;
    await c.ok('reset', { env, seed: 3 });
    c.close(); // gone, without closing its env
    const before = server.openEnvs;
    expect(before).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 2500));
    expect(reclaimed).toContain(env);
    const other = new Client(endpoint);
    const r = await other.call('step', { env, action: 0 });
    expect(r.error!.code).toBe('unknown_env');
    other.close();
  });
});

describe('clustergym serve', () => {
  it('prints the endpoint first, serves, and exits 0 on SIGTERM, also when a second SIGTERM comes while it closes', async () => {
    const p = spawn(process.execPath, [CLI, 'serve', '--bind', 'tcp://127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const endpoint = await new Promise<string>((resolve, reject) => {
      let buf = '';
      p.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        const nl = buf.indexOf('\n');
        if (nl >= 0) resolve(buf.slice(0, nl));
      });
      p.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
    });
    expect(endpoint).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
    const c = new Client(endpoint);
    expect((await c.ok('hello')).protocol).toBe(1);
    c.close();
    // a supervisor signals the process group and the server itself (Slurm's slurmstepd and
    // deploy/slurm/fleet-server.sh's trap): the second signal, here sent once the server has begun to
    // close, must not kill it before it has closed
    let log = '';
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => {
      p.on('exit', (code, signal) => resolve([code, signal]));
      p.stderr.on('data', (d: Buffer) => {
        const before = log;
        log += d.toString();
        if (!before.includes('SIGTERM, closing') && log.includes('SIGTERM, closing')) p.kill('SIGTERM');
      });
      p.kill('SIGTERM');
    });
    expect(log).toContain('clustergym serve: SIGTERM, closing');
    expect([code, signal]).toEqual([0, null]);
  });

  it('exits when its --parent-pid is gone', async () => {
    const parent = spawn('sleep', ['30']);
    const p = spawn(process.execPath, [CLI, 'serve', '--bind', 'tcp://127.0.0.1:0', '--quiet', '--parent-pid', String(parent.pid)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await new Promise<void>((resolve) => p.stdout.once('data', () => resolve()));
    const exited = new Promise<number | null>((resolve) => p.on('exit', (c) => resolve(c)));
    parent.kill('SIGKILL');
    expect(await exited).toBe(0);
  });
});
