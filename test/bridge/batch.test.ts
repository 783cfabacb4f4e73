/**
 * `step_batch` / `reset_batch` replies built from reused scratch arrays (bridge/server.ts): every
 * reply carries the right rows, per key, even when two keys of a dict observation have the same
 * type and length, when batches of different sizes alternate, and across an autoreset. In-process
 * (`handle`), over an env whose observation is a known function of its state.
 */
import { describe, expect, it } from 'vitest';
import { decodeNdArray, type NdArrayMessage } from '../../bridge/ndarray.js';
import type { BridgeEnv, EnvFactory } from '../../bridge/envFactory.js';
import { BridgeServer, wire } from '../../bridge/server.js';

const L = 5; // values per key
const A = 3; // actions

/** An env whose observation is `a[j] = 100 * id + t + j`, `b[j] = -(100 * id + t + j)`, episodes of 3 steps. */
function counterEnv(id: number): BridgeEnv {
  const a = new Float32Array(L);
  const b = new Float32Array(L);
  const mask = new Uint8Array(A);
  let t = 0;
  const observe = () => {
    for (let j = 0; j < L; j++) {
      a[j] = 100 * id + t + j;
      b[j] = -(100 * id + t + j);
    }
    mask.fill(0);
    mask[t % A] = 1;
    return { a, b };
  };
  return {
    observationSpace: { type: 'Dict', spaces: { a: { type: 'Box', shape: [L] }, b: { type: 'Box', shape: [L] } } },
    actionSpace: { type: 'Discrete', n: A },
    reset: () => {
      t = 0;
      return { observation: observe(), info: { action_mask: mask, time: 0, env: id } };
    },
    step: () => {
      t++;
      const observation = observe();
      return {
        observation,
        reward: t,
        terminated: t === 3,
        truncated: false,
        info: { action_mask: mask, time: t, env: id, nested: { t: new Float64Array([t]) } },
      };
    },
    actionMask: () => mask,
    close: () => {},
  };
}

type Reply = Record<string, unknown>;

describe('batched replies from scratch arrays', () => {
  let made = 0;
  const factory: EnvFactory = { ids: () => ['counter'], make: () => counterEnv(++made), classify: () => null };
  const server = new BridgeServer(factory, { bind: 'tcp://127.0.0.1:0' });
  const call = (op: string, fields: Record<string, unknown> = {}): Reply => {
    const r = wire.unpack(server.handle(wire.pack({ id: 1, op, ...fields }) as Buffer)) as Reply;
    if (r.ok !== true) throw new Error(JSON.stringify(r.error));
    return r;
  };
  const rows = (m: unknown, n: number): number[][] => {
    const { array } = decodeNdArray(m as NdArrayMessage);
    return Array.from({ length: n }, (_, i) => Array.from(array.slice(i * L, (i + 1) * L) as Float32Array));
  };
  const expected = (id: number, t: number, sign: number) => Array.from({ length: L }, (_, j) => sign * (100 * id + t + j));

  it('each key, each env, each reply has its own rows; infos lose action_mask; autoreset keeps the final state', () => {
    const envs = [1, 2, 3, 4].map(() => call('make', { env_id: 'counter' }).env as string);
    const small = envs.slice(0, 2);
    const r0 = call('reset_batch', { envs });
    const o0 = r0.observations as Reply;
    expect(rows(o0.a, 4)).toEqual([1, 2, 3, 4].map((id) => expected(id, 0, 1)));
    expect(rows(o0.b, 4)).toEqual([1, 2, 3, 4].map((id) => expected(id, 0, -1)));
    const t = [0, 0, 0, 0];
    for (let round = 0; round < 7; round++) {
      // alternate a batch of all four envs and one of the first two
      const batch = round % 2 === 0 ? envs : small;
      const idx = batch.map((e) => envs.indexOf(e));
      const actions = idx.map((i) => t[i]! % A);
      const r = call('step_batch', { envs: batch, actions });
      const obs = r.observations as Reply;
      const infos = r.infos as Reply[];
      const ended = idx.map((i) => t[i]! + 1 === 3);
      for (const i of idx) t[i] = (t[i]! + 1) % 3; // an ended episode restarts at t = 0
      expect(rows(obs.a, batch.length)).toEqual(idx.map((i) => expected(i + 1, t[i]!, 1)));
      expect(rows(obs.b, batch.length)).toEqual(idx.map((i) => expected(i + 1, t[i]!, -1)));
      const masks = decodeNdArray(r.action_masks as NdArrayMessage);
      expect(masks.shape).toEqual([batch.length, A]);
      idx.forEach((i, k) => {
        expect(Array.from(masks.array.slice(k * A, (k + 1) * A) as Uint8Array)).toEqual([0, 1, 2].map((x) => (x === t[i]! % A ? 1 : 0)));
        const info = infos[k]!;
        expect(info).not.toHaveProperty('action_mask');
        expect(info.env).toBe(i + 1);
        if (ended[k]) {
          expect(info.time).toBe(3);
          expect(Array.from(decodeNdArray((info.nested as Reply).t as NdArrayMessage).array as Float64Array)).toEqual([3]);
          const fin = info.final_observation as Reply;
          expect(rows(fin.a, 1)).toEqual([expected(i + 1, 3, 1)]);
          expect(rows(fin.b, 1)).toEqual([expected(i + 1, 3, -1)]);
          expect((info.final_info as Reply).time).toBe(3);
          expect(info.reset_info).toEqual({ time: 0, env: i + 1 });
        } else expect(info).not.toHaveProperty('final_observation');
      });
    }
  });
});
