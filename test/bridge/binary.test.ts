/**
 * Binary `step` / `step_batch` frames (bridge/binary.ts) over real sockets (127.0.0.1): the same
 * episodes as msgpack requests, value for value (observations, rewards, flags, masks, infos, across
 * episode ends and autoresets); malformed frames, bad actions, unknown envs and missing tokens get
 * msgpack error replies that echo the frame's id and leave the envs where they were; random frames
 * never crash the server.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dealer } from 'zeromq';
import {
  BINARY_MAGIC,
  type BinaryLayout,
  binaryLayout,
  columnSpec,
  decodeBinaryReply,
  encodeBinaryReply,
  encodeBinaryRequest,
  layoutFromMessage,
  replyOffsets,
  splitInfoColumns,
} from '../../bridge/binary.js';
import { registryFactory } from '../../bridge/envFactory.js';
import { decodeNdArray, type NdArrayMessage } from '../../bridge/ndarray.js';
import { BridgeServer, wire } from '../../bridge/server.js';

type Reply = { id: unknown; ok: boolean; error?: { code: string; message: string; details: unknown }; [k: string]: unknown };

class Client {
  readonly sock = new Dealer();
  private next = 1;
  constructor(
    endpoint: string,
    readonly token?: string,
  ) {
    this.sock.connect(endpoint);
    this.sock.receiveTimeout = 10_000;
  }
  async raw(payload: Buffer): Promise<Buffer> {
    await this.sock.send(payload);
    const [reply] = await this.sock.receive();
    return reply!;
  }
  async ok(op: string, fields: Record<string, unknown> = {}): Promise<Reply> {
    const id = this.next++;
    const r = wire.unpack(await this.raw(wire.pack({ id, op, ...fields, ...(this.token ? { token: this.token } : {}) }))) as Reply;
    if (!r.ok) throw new Error(`${op} failed: ${r.error?.code}: ${r.error?.message}`);
    return r;
  }
  close(): void {
    this.sock.close();
  }
}

const nd = (m: unknown): number[] => Array.from(decodeNdArray(m as NdArrayMessage).array as ArrayLike<number>);
const CONFIG = { trajectory: { length: 20, origin: 'random' }, k: 8 };
/** The strict invalid-action rule: a forbidden action is an `invalid_action` error reply. */
const STRICT = { ...CONFIG, invalid_action: 'raise' };

describe('binary layout', () => {
  it('is the Box or the flat Dict of Boxes of the observation space, with the Discrete action count', () => {
    const dict = binaryLayout(
      { type: 'Dict', spaces: { jobs: { type: 'Box', shape: [4, 8], dtype: 'float32' }, g: { type: 'Box', shape: [5] } } },
      { type: 'Discrete', n: 5 },
    )!;
    expect(dict.arrays).toEqual([
      { key: 'jobs', dtype: 'float32', shape: [4, 8], bytes: 128 },
      { key: 'g', dtype: 'float32', shape: [5], bytes: 20 },
    ]);
    expect(dict.mask).toBe(5);
    // header 32, rewards 8n, flags 2n (padded to 8), then each block padded to 8
    const o = replyOffsets(dict, 3);
    expect(o).toEqual({ rewards: 32, terminated: 56, truncated: 59, arrays: [64, 448], masks: 512, info: 528 });
    expect(binaryLayout({ type: 'Box', shape: [3], dtype: 'float64' }, { type: 'Discrete', n: 2 })!.arrays[0]).toEqual({
      key: null,
      dtype: 'float64',
      shape: [3],
      bytes: 24,
    });
    expect(binaryLayout({ type: 'Box', shape: [3] }, { type: 'MultiDiscrete', nvec: [2, 2] })).toBeNull();
    expect(binaryLayout({ type: 'Dict', spaces: { a: { type: 'Discrete', n: 3 } } }, { type: 'Discrete', n: 2 })).toBeNull();
  });
});

describe('binary frames over real sockets', () => {
  let server: BridgeServer;
  let endpoint: string;
  beforeAll(async () => {
    server = new BridgeServer(registryFactory(), { bind: 'tcp://127.0.0.1:0' });
    endpoint = await server.start();
  });
  afterAll(async () => {
    await server.close();
  });

  it('hello offers them and make gives the layout', async () => {
    const c = new Client(endpoint);
    const h = await c.ok('hello');
    expect((h.capabilities as { binary: number }).binary).toBe(1);
    expect((h.capabilities as { binary_info_columns: boolean }).binary_info_columns).toBe(true);
    const m = await c.ok('make', { env_id: 'clustergym/Job-v0', config: CONFIG });
    expect(m.binary).toEqual({
      version: 1,
      arrays: [
        { key: 'jobs', dtype: 'float32', shape: [8, 8] },
        { key: 'nodes', dtype: 'float32', shape: [20, 7] },
        { key: 'global', dtype: 'float32', shape: [5] },
      ],
      mask: 9,
    });
    c.close();
  });

  it('step: the same episode as msgpack, value for value, through the end of the episode', async () => {
    const c = new Client(endpoint);
    const a = (await c.ok('make', { env_id: 'clustergym/Job-v0', config: CONFIG })).env as string;
    const m = await c.ok('make', { env_id: 'clustergym/Job-v0', config: CONFIG });
    const b = m.env as string;
    const layout = layoutFromMessage(m.binary as Parameters<typeof layoutFromMessage>[0]);
    let ra = await c.ok('reset', { env: a, seed: 7 });
    await c.ok('reset', { env: b, seed: 7 });
    let steps = 0;
    for (;;) {
      const maskA = nd((ra.info as { action_mask: unknown }).action_mask);
      const action = maskA.lastIndexOf(1); // the last valid action: jobs, not only "wait"
      ra = await c.ok('step', { env: a, action });
      const raw = await c.raw(encodeBinaryRequest('step', 1000 + steps, [b], [action]));
      expect(raw[0]).toBe(BINARY_MAGIC);
      const rb = decodeBinaryReply(layout, raw);
      expect(rb.id).toBe(1000 + steps);
      const obs = ra.observation as Record<string, unknown>;
      for (const k of ['jobs', 'nodes', 'global']) expect(Array.from(rb.arrays[k] as Float32Array)).toEqual(nd(obs[k]));
      expect(rb.rewards[0]).toBe(ra.reward);
      expect(rb.terminated[0] === 1).toBe(ra.terminated);
      expect(rb.truncated[0] === 1).toBe(ra.truncated);
      const { action_mask, ...rest } = ra.info as Record<string, unknown>;
      expect(Array.from(rb.masks)).toEqual(nd(action_mask));
      expect(wire.unpack(Buffer.from(rb.info))).toEqual(rest);
      steps++;
      if (ra.terminated || ra.truncated) break;
    }
    expect(steps).toBeGreaterThanOrEqual(20);
    // the episode is over: a binary step is refused (msgpack error reply echoing the frame's id)
    const late = wire.unpack(await c.raw(encodeBinaryRequest('step', 77, [b], [0]))) as Reply;
    expect(late).toMatchObject({ id: 77, ok: false, error: { code: 'bad_state' } });
    c.close();
  });

  it('step_batch with autoreset: the same replies as msgpack over several episodes', async () => {
    const c = new Client(endpoint);
    const made = async () => c.ok('make', { env_id: 'clustergym/Job-v0', config: { ...CONFIG, trajectory: { length: 6, origin: 'random' } } });
    const msg = [(await made()).env, (await made()).env, (await made()).env] as string[];
    const m = await made();
    const bin = [m.env, (await made()).env, (await made()).env] as string[];
    const cols = [(await made()).env, (await made()).env, (await made()).env] as string[];
    const layout = layoutFromMessage(m.binary as Parameters<typeof layoutFromMessage>[0]);
    const seeds = [3, 4, 5];
    const r0 = await c.ok('reset_batch', { envs: msg, seeds });
    await c.ok('reset_batch', { envs: bin, seeds });
    await c.ok('reset_batch', { envs: cols, seeds });
    let masks = nd(r0.action_masks);
    let ends = 0;
    for (let t = 0; t < 30; t++) {
      const actions = [0, 1, 2].map((i) => masks.slice(i * 9, (i + 1) * 9).lastIndexOf(1));
      const rm = await c.ok('step_batch', { envs: msg, actions });
      const rb = decodeBinaryReply(layout, await c.raw(encodeBinaryRequest('step_batch', t + 1, bin, actions, { autoreset: true })));
      const obs = rm.observations as Record<string, unknown>;
      for (const k of ['jobs', 'nodes', 'global']) expect(Array.from(rb.arrays[k] as Float32Array)).toEqual(nd(obs[k]));
      expect(Array.from(rb.rewards)).toEqual(nd(rm.rewards));
      expect(Array.from(rb.terminated)).toEqual(nd(rm.terminated));
      expect(Array.from(rb.truncated)).toEqual(nd(rm.truncated));
      expect(Array.from(rb.masks)).toEqual(nd(rm.action_masks));
      // infos (with final_observation after an autoreset) decode to the same values
      expect(wire.unpack(Buffer.from(rb.info))).toEqual(rm.infos);
      expect(rb.columns).toBeUndefined();
      // info columns (flag bit 1): the numeric keys as columns, the rest msgpack; merged, the same infos
      const rc = decodeBinaryReply(layout, await c.raw(encodeBinaryRequest('step_batch', t + 100, cols, actions, { autoreset: true, infoColumns: true })));
      expect(Array.from(rc.rewards)).toEqual(nd(rm.rewards));
      expect(Array.from(rc.masks)).toEqual(nd(rm.action_masks));
      const spec = wire.unpack(Buffer.from(rc.columns!.spec)) as [string, 'i8' | 'f8'][];
      const rest = wire.unpack(Buffer.from(rc.info)) as Record<string, unknown>[];
      const merged = rest.map((r, i) => ({ ...Object.fromEntries(spec.map(([k, kind], j) => [k, rc.columns!.values[j]![kind][i]])), ...r }));
      expect(merged).toEqual(rm.infos);
      // every step info has these numbers: they are columns, never in the rest
      expect(spec.map(([k]) => k)).toEqual(expect.arrayContaining(['time', 'steps', 'queue_length', 'running']));
      expect(spec.find(([k]) => k === 'steps')![1]).toBe('i8');
      for (const r of rest) for (const [k] of spec) expect(r).not.toHaveProperty(k);
      ends += nd(rm.terminated).reduce((x, y) => x + y, 0);
      masks = nd(rm.action_masks);
    }
    expect(ends).toBeGreaterThanOrEqual(3);
    c.close();
  });

  it('info columns: hand-built infos give the columns, kinds and rest the format says', () => {
    const infos = [
      { time: 1.5, steps: 3, big: -(2 ** 40) - 7, flag: true, metrics: { a: 1 } },
      { time: 2, steps: 4, big: 2 ** 52, flag: false },
    ];
    const split = splitInfoColumns(infos);
    // flag is a boolean and metrics not in every info: not columns; time has a fraction: f8
    expect(split.keys).toEqual(['time', 'steps', 'big']);
    expect(columnSpec(split)).toEqual([
      ['time', 'f8'],
      ['steps', 'i8'],
      ['big', 'i8'],
    ]);
    expect(split.rest).toEqual([{ flag: true, metrics: { a: 1 } }, { flag: false }]);
    const layout = binaryLayout({ type: 'Box', shape: [2], dtype: 'float32' }, { type: 'Discrete', n: 3 })!;
    const spec = wire.pack(columnSpec(split));
    const b = encodeBinaryReply(layout, {
      op: 'step_batch',
      id: 9,
      rewards: [0.5, -1],
      terminated: [0, 1],
      truncated: [0, 0],
      observations: [Float32Array.of(1, 2), Float32Array.of(3, 4)],
      masks: [Uint8Array.of(1, 0, 1), Uint8Array.of(0, 0, 0)],
      info: wire.pack(split.rest),
      columns: { split, infos, spec },
    });
    const o = replyOffsets(layout, 2);
    // flags byte, C = 3 columns, S = the spec's length; the info part: 3 x 2 x 8 bytes, spec, rest
    expect([b[2], b.readUInt32LE(16), b.readUInt32LE(20)]).toEqual([2, 3, spec.length]);
    expect(b.readUInt32LE(12)).toBe(48 + spec.length + wire.pack(split.rest).length);
    expect([b.readDoubleLE(o.info), b.readDoubleLE(o.info + 8)]).toEqual([1.5, 2]);
    expect([b.readBigInt64LE(o.info + 16), b.readBigInt64LE(o.info + 24)]).toEqual([3n, 4n]);
    expect([b.readBigInt64LE(o.info + 32), b.readBigInt64LE(o.info + 40)]).toEqual([-(2n ** 40n) - 7n, 2n ** 52n]);
    const d = decodeBinaryReply(layout, b);
    expect(d.columns!.values.map((v, j) => (j === 0 ? v.f8 : v.i8))).toEqual([
      [1.5, 2],
      [3, 4],
      [-(2 ** 40) - 7, 2 ** 52],
    ]);
    expect(wire.unpack(Buffer.from(d.info))).toEqual(split.rest);
  });

  it('errors are msgpack replies with the frame id; nothing moves (invalid_action: "raise")', async () => {
    const c = new Client(endpoint);
    const m = await c.ok('make', { env_id: 'clustergym/Job-v0', config: STRICT });
    const e = m.env as string;
    const layout = layoutFromMessage(m.binary as Parameters<typeof layoutFromMessage>[0]);
    const r = await c.ok('reset', { env: e, seed: 1 });
    const e2 = (await c.ok('make', { env_id: 'clustergym/Job-v0', config: STRICT })).env as string;
    const r2 = await c.ok('reset', { env: e2, seed: 2 });
    const err = async (b: Buffer) => wire.unpack(await c.raw(b)) as Reply;
    // an action the mask forbids (the mask says which are allowed)
    const bad = nd((r.info as { action_mask: unknown }).action_mask).indexOf(0);
    expect(await err(encodeBinaryRequest('step', 5, [e], [bad]))).toMatchObject({ id: 5, ok: false, error: { code: 'invalid_action' } });
    expect(await err(encodeBinaryRequest('step', 6, [e], [-3]))).toMatchObject({ id: 6, ok: false, error: { code: 'invalid_action' } });
    expect(await err(encodeBinaryRequest('step', 7, ['e999999'], [0]))).toMatchObject({ id: 7, ok: false, error: { code: 'unknown_env' } });
    // a batch with one bad action moves no env (e2's action is valid, e's is not)
    const good2 = nd((r2.info as { action_mask: unknown }).action_mask).indexOf(1);
    expect(await err(encodeBinaryRequest('step_batch', 8, [e2, e], [good2, bad]))).toMatchObject({
      id: 8,
      error: { code: 'invalid_action', details: { index: 1, env: e } },
    });
    // a batch naming an env twice is refused whole
    expect(await err(encodeBinaryRequest('step_batch', 13, [e, e], [0, 0]))).toMatchObject({ id: 13, error: { code: 'bad_request' } });
    // malformed frames
    const short = Buffer.from([BINARY_MAGIC, 1, 0]);
    expect(await err(short)).toMatchObject({ id: null, ok: false, error: { code: 'bad_message' } });
    const wrongOp = encodeBinaryRequest('step', 9, [e], [0]);
    wrongOp[1] = 9;
    expect(await err(wrongOp)).toMatchObject({ id: 9, error: { code: 'bad_message', message: expect.stringContaining('op code 9') } });
    const twoForStep = encodeBinaryRequest('step_batch', 10, [e, e], [0, 0]);
    twoForStep[1] = 1;
    expect(await err(twoForStep)).toMatchObject({ id: 10, error: { code: 'bad_message', message: expect.stringContaining('exactly one env') } });
    const truncated = encodeBinaryRequest('step', 11, [e], [0]).subarray(0, 18);
    expect(await err(Buffer.from(truncated))).toMatchObject({ id: 11, error: { code: 'bad_message' } });
    // no env moved: a valid step of each is the first step of its episode, as in a fresh env reset with the same seed
    const good = nd((r.info as { action_mask: unknown }).action_mask).indexOf(1);
    const ok = decodeBinaryReply(layout, await c.raw(encodeBinaryRequest('step', 12, [e], [good])));
    expect(ok.id).toBe(12);
    const ok2 = decodeBinaryReply(layout, await c.raw(encodeBinaryRequest('step', 14, [e2], [good2])));
    const ref = (await c.ok('make', { env_id: 'clustergym/Job-v0', config: STRICT })).env as string;
    for (const [got, seed, action] of [
      [ok, 1, good],
      [ok2, 2, good2],
    ] as const) {
      await c.ok('reset', { env: ref, seed });
      const want = await c.ok('step', { env: ref, action });
      expect(Array.from(got.arrays.jobs as Float32Array)).toEqual(nd((want.observation as Record<string, unknown>).jobs));
      const info = wire.unpack(Buffer.from(got.info)) as { steps: number };
      expect(info.steps).toBe(1);
      expect(info.steps).toBe((want.info as { steps: number }).steps);
    }
    for (const env of [e, e2, ref]) await c.ok('close', { env });
    c.close();
  });

  it('by default a forbidden action is a no-op: a binary reply with info.invalid_action, the state unchanged, the penalty paid; a batch moves the other envs', async () => {
    const c = new Client(endpoint);
    const m = await c.ok('make', { env_id: 'clustergym/Job-v0', config: { ...CONFIG, invalid_action_penalty: 0.5 } });
    const e = m.env as string;
    const layout = layoutFromMessage(m.binary as Parameters<typeof layoutFromMessage>[0]);
    const r = await c.ok('reset', { env: e, seed: 1 });
    const e2 = (await c.ok('make', { env_id: 'clustergym/Job-v0', config: { ...CONFIG, invalid_action_penalty: 0.5 } })).env as string;
    const r2 = await c.ok('reset', { env: e2, seed: 2 });
    const mask = nd((r.info as { action_mask: unknown }).action_mask);
    const bad = mask.indexOf(0);
    expect(bad).toBeGreaterThanOrEqual(0);
    const jobs0 = nd((r.observation as Record<string, unknown>).jobs);
    const one = decodeBinaryReply(layout, await c.raw(encodeBinaryRequest('step', 3, [e], [bad])));
    expect([one.rewards[0], one.terminated[0], one.truncated[0]]).toEqual([-0.5, 0, 0]);
    expect(Array.from(one.arrays.jobs as Float32Array)).toEqual(jobs0);
    expect(Array.from(one.masks)).toEqual(mask);
    expect(wire.unpack(Buffer.from(one.info))).toMatchObject({ invalid_action: true, steps: 0, time: (r.info as { time: number }).time });
    // values outside the action space are still refused
    expect((wire.unpack(await c.raw(encodeBinaryRequest('step', 4, [e], [mask.length]))) as Reply).error?.code).toBe('invalid_action');
    // a batch: e2 takes an allowed action, e a forbidden one
    const good2 = nd((r2.info as { action_mask: unknown }).action_mask).indexOf(1);
    const b = decodeBinaryReply(layout, await c.raw(encodeBinaryRequest('step_batch', 5, [e2, e], [good2, bad])));
    expect(b.rewards[1]).toBe(-0.5);
    const infos = wire.unpack(Buffer.from(b.info)) as { steps: number; invalid_action?: boolean }[];
    expect(infos.map((x) => [x.steps, x.invalid_action])).toEqual([
      [1, undefined],
      [0, true],
    ]);
    // msgpack step: the same outcome
    const s = await c.ok('step', { env: e, action: bad });
    expect([s.reward, s.terminated, s.truncated, (s.info as { invalid_action: boolean }).invalid_action]).toEqual([-0.5, false, false, true]);
    for (const env of [e, e2]) await c.ok('close', { env });
    c.close();
  });

  it('random frames starting with 0xC1 always get an answer', async () => {
    const c = new Client(endpoint);
    const e = (await c.ok('make', { env_id: 'clustergym/Job-v0', config: CONFIG })).env as string;
    await c.ok('reset', { env: e, seed: 2 });
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 64 }), async (tail) => {
        const frame = Buffer.concat([Buffer.from([BINARY_MAGIC]), Buffer.from(tail)]);
        const reply = await c.raw(frame);
        expect(reply.length).toBeGreaterThan(0);
      }),
      { numRuns: 300, seed: 42 },
    );
    expect((await c.ok('ping')).pong).toBe(true);
    c.close();
  });
});

describe('binary frames and the token', () => {
  it('a server with a token refuses frames without it and serves frames with it', async () => {
    const server = new BridgeServer(registryFactory(), { bind: 'tcp://127.0.0.1:0', token: 's3cret' });
    const endpoint = await server.start();
    const c = new Client(endpoint, 's3cret');
    try {
      const m = await c.ok('make', { env_id: 'clustergym/Job-v0', config: CONFIG });
      const e = m.env as string;
      const layout: BinaryLayout = layoutFromMessage(m.binary as Parameters<typeof layoutFromMessage>[0]);
      const r = await c.ok('reset', { env: e, seed: 3 });
      const action = nd((r.info as { action_mask: unknown }).action_mask).indexOf(1);
      const refused = wire.unpack(await c.raw(encodeBinaryRequest('step', 4, [e], [action]))) as Reply;
      expect(refused).toMatchObject({ id: 4, ok: false, error: { code: 'unauthorized' } });
      const wrong = wire.unpack(await c.raw(encodeBinaryRequest('step', 5, [e], [action], { token: 's3creT' }))) as Reply;
      expect(wrong).toMatchObject({ id: 5, ok: false, error: { code: 'unauthorized' } });
      const served = decodeBinaryReply(layout, await c.raw(encodeBinaryRequest('step', 6, [e], [action], { token: 's3cret' })));
      expect(served.id).toBe(6);
    } finally {
      c.close();
      await server.close();
    }
  });
});
