/**
 * Prints a real session with the bridge, message by message, for docs/protocol.md: it starts an
 * in-process server on a free port, talks to it over a DEALER socket and shows each request and
 * reply as decoded msgpack (bytes abbreviated, ndarrays shown with their dtype and shape).
 *
 *     npx tsc -p . && node dist/tools/protocolTranscript.js
 */
import { Dealer } from 'zeromq';
import { registryFactory } from '../bridge/envFactory.js';
import { BridgeServer, wire } from '../bridge/server.js';
import { decodeNdArray, isNdArrayMessage } from '../bridge/ndarray.js';
import { encodeBinaryRequest, layoutFromMessage, replyOffsets } from '../bridge/binary.js';

function show(v: unknown, depth = 0): unknown {
  if (isNdArrayMessage(v)) {
    const { array } = decodeNdArray(v);
    const head = Array.from(array.slice(0, 6) as ArrayLike<number>, (x) => (typeof x === 'number' ? Math.round(x * 1e4) / 1e4 : x));
    return { __ndarray__: true, dtype: v.dtype, shape: v.shape, data: `<${v.data.byteLength} bytes: ${head.join(', ')}${array.length > 6 ? ', ...' : ''}>` };
  }
  if (v instanceof Uint8Array) return `<${v.byteLength} bytes>`;
  if (Array.isArray(v))
    return v.length > 12 && depth > 0 ? [...v.slice(0, 12).map((x) => show(x, depth + 1)), `... ${v.length - 12} more`] : v.map((x) => show(x, depth + 1));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, show(x, depth + 1)]));
  return v;
}

async function main(): Promise<void> {
  const server = new BridgeServer(registryFactory(), { bind: 'tcp://127.0.0.1:0' });
  const endpoint = await server.start();
  const sock = new Dealer();
  sock.connect(endpoint);
  let id = 0;
  const call = async (msg: Record<string, unknown>) => {
    const req = { id: ++id, ...msg };
    await sock.send(wire.pack(req));
    const [b] = await sock.receive();
    const rep = wire.unpack(b!) as Record<string, unknown>;
    console.log(`--> ${JSON.stringify(show(req))}\n<-- ${JSON.stringify(show(rep), null, 1).replace(/\n\s*/g, ' ')}\n`);
    return rep;
  };
  await call({ op: 'hello' });
  const config = { trajectory: { length: 8, origin: 0 }, k: 4, observation: 'dict' };
  const made = await call({ op: 'make', env_id: 'clustergym/Job-v0', config });
  const env = made.env as string;
  await call({ op: 'reset', env, seed: 7, options: {} });
  await call({ op: 'action_mask', env });
  await call({ op: 'step', env, action: 0 });
  await call({ op: 'step', env, action: 99 });
  await call({ op: 'list' });
  const flat = { ...config, observation: 'flat' };
  const a = (await call({ op: 'make', env_id: 'clustergym/Job-v0', config: flat })).env as string;
  const b = (await call({ op: 'make', env_id: 'clustergym/Job-v0', config: flat })).env as string;
  await call({ op: 'reset_batch', envs: [a, b], seeds: [1, 2] });
  await call({ op: 'step_batch', envs: [a, b], actions: [0, 0] });
  await call({ op: 'make', env_id: 'clustergym/Job-v0', config: { k: 0, reward: 'fun' } });
  await call({ op: 'teleport', env });
  await call({ op: 'ping' });
  await call({ op: 'stats' });
  await call({ op: 'make', env_id: 'clustergym/Job-v0', config: { platform: '/etc/passwd' } });
  await call({ op: 'make', env_id: 'clustergym/Job-v0', config: { generator: { jobs: 1e9 } } });
  await call({ op: 'reset', env, seed: -1 });
  const c = (await call({ op: 'make', env_id: 'clustergym/Job-v0', config: { ...flat, k: 8 } })).env as string;
  await call({ op: 'reset', env: c, seed: 3 });
  await call({ op: 'step_batch', envs: [a, c], actions: [0, 0] });
  // binary step frames (bridge/binary.ts): a fresh small env, a hex dump of the request and the reply
  const small = await call({ op: 'make', env_id: 'clustergym/Job-v0', config: { trajectory: { length: 10, origin: 0 }, k: 2 } });
  await call({ op: 'reset', env: small.env, seed: 42 });
  const frame = encodeBinaryRequest('step', ++id, [small.env as string], [0]);
  await sock.send(frame);
  const [rb] = await sock.receive();
  const layout = layoutFromMessage(small.binary as Parameters<typeof layoutFromMessage>[0]);
  const hex = (x: Uint8Array, from: number, to: number) =>
    Buffer.from(x.subarray(from, to))
      .toString('hex')
      .replace(/(..)(?!$)/g, '$1 ');
  console.log(`--> binary step (${frame.length} bytes): ${hex(frame, 0, frame.length)}`);
  const o = replyOffsets(layout, 1);
  console.log(`<-- binary reply (${rb!.length} bytes), offsets ${JSON.stringify(o)}`);
  for (let at = 0; at < o.arrays[0]!; at += 16) console.log(`${String(at).padStart(5)}  ${hex(rb!, at, at + 16)}`);
  console.log(
    `  ${o.arrays[0]}  jobs ${Array.from(new Float32Array(rb!.buffer.slice(rb!.byteOffset + o.arrays[0]!, rb!.byteOffset + o.arrays[0]! + 64)), (x) => Math.round(x * 1e4) / 1e4).join(', ')}`,
  );
  console.log(`  ${o.masks}  mask ${hex(rb!, o.masks, o.masks + layout.mask)}`);
  console.log(`  ${o.info}  info ${JSON.stringify(wire.unpack(rb!.subarray(o.info)))}`);
  // a binary step_batch of two such envs asking for info columns (flag bit 1): the info part
  const small2 = await call({ op: 'make', env_id: 'clustergym/Job-v0', config: { trajectory: { length: 10, origin: 0 }, k: 2 } });
  await call({ op: 'reset', env: small2.env, seed: 43 });
  const batch = encodeBinaryRequest('step_batch', ++id, [small.env as string, small2.env as string], [0, 0], { infoColumns: true });
  await sock.send(batch);
  const [rc] = await sock.receive();
  const o2 = replyOffsets(layout, 2);
  const columns = rc!.readUInt32LE(16);
  const specLength = rc!.readUInt32LE(20);
  console.log(`\n--> binary step_batch, info columns (${batch.length} bytes): ${hex(batch, 0, batch.length)}`);
  console.log(`<-- binary reply (${rc!.length} bytes), offsets ${JSON.stringify(o2)}`);
  console.log(`${String(0).padStart(5)}  ${hex(rc!, 0, 32)}`);
  const spec = wire.unpack(rc!.subarray(o2.info + 16 * columns, o2.info + 16 * columns + specLength)) as [string, string][];
  spec.forEach(([k, kind], j) => {
    const at = o2.info + 16 * j;
    const values = kind === 'i8' ? [rc!.readBigInt64LE(at), rc!.readBigInt64LE(at + 8)].map(Number) : [rc!.readDoubleLE(at), rc!.readDoubleLE(at + 8)];
    console.log(`${String(at).padStart(5)}  column ${k} (${kind}): ${hex(rc!, at, at + 16)}  = ${values.join(', ')}`);
  });
  const specAt = o2.info + 16 * columns;
  console.log(`${String(specAt).padStart(5)}  spec (${specLength} bytes) ${JSON.stringify(spec)}`);
  console.log(`${String(specAt + specLength).padStart(5)}  rest ${JSON.stringify(wire.unpack(rc!.subarray(specAt + specLength)))}`);
  await call({ op: 'close', env });
  sock.close();
  await server.close();
}

void main();
