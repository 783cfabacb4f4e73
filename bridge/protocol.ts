/**
 * The wire protocol of the ZeroMQ bridge (DESIGN §6; reference with examples: docs/protocol.md).
 *
 * Every message is ONE msgpack map. A request is `{id, op, ...fields}`; its reply echoes `id`:
 * `{id, ok: true, ...result}` or `{id, ok: false, error: {code, message, details}}`. Requests are
 * validated here with zod; nothing in a request can crash the server.
 */
import { z } from 'zod';
import { jsonPath, unknownKeys } from '../src/core/errors.js';
import { decodeNdArray, isNdArrayMessage } from './ndarray.js';

/** A JSON-serialisable space descriptor (see envs/spaces). */
export interface SpaceDescriptor {
  type: string;
  shape?: number[] | undefined;
  spaces?: Record<string, SpaceDescriptor> | undefined;
  [k: string]: unknown;
}

/** Version of this protocol; `hello` reports it. Bumped on any incompatible change. */
export const PROTOCOL_VERSION = 1;

/** Error codes of error replies. */
export const ERROR_CODES = {
  /** Not msgpack, or not a map. */
  bad_message: 'the message is not a msgpack map',
  /** `op` missing or not one of the ops. */
  unknown_op: 'unknown op',
  /** A field is missing or of the wrong type (details: issues with their paths). */
  bad_request: 'bad request fields',
  /** `env` names no open environment. */
  unknown_env: 'no such environment',
  /** The env id given to `make` is not registered (details: the valid ids). */
  unknown_env_id: 'unknown environment id',
  /** The env config failed validation (details: issues with their paths). */
  bad_config: 'invalid environment config',
  /** The action is not allowed now (details: the action mask). */
  invalid_action: 'invalid action',
  /** `step` before `reset`, or after the episode ended. */
  bad_state: 'the environment cannot do that now',
  /** A limit of the server was reached (details: `{limit, value, max, flag}`; the flag of `serve` raises it). */
  limit_exceeded: 'a server limit was reached',
  /** The request names a file the server may not read (outside `--data-root`, a device, a FIFO...). */
  forbidden: 'access refused',
  /** The server has a token (`serve --token-file`) and the request did not carry it. */
  unauthorized: 'missing or wrong token',
  /** A bug: the message says what. The server keeps serving. */
  internal: 'internal error',
} as const;

/** An error code. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** An error that becomes an error reply. */
export class BridgeError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: unknown = null,
  ) {
    super(message);
    this.name = 'BridgeError';
  }
}

/** A `limit_exceeded` error naming the limit, the value, the maximum and the flag that raises it. */
export function limitError(limit: string, value: number, max: number, flag: string): BridgeError {
  return new BridgeError('limit_exceeded', `${limit}: ${value} exceeds the server's limit of ${max} (raise it with clustergym serve ${flag})`, {
    limit,
    value,
    max,
    flag,
  });
}

const requestId = z.union([z.number().int(), z.string().max(256)]);
const envHandle = z.string().min(1).max(64);

/** An action: an integer, or a one-element integer ndarray (numpy scalars arrive as ints). */
const action = z.union([
  z.number().int(),
  z.custom<unknown>(isNdArrayMessage, 'expected an integer or a one-element ndarray').transform((m, ctx) => {
    try {
      const { array } = decodeNdArray(m as Parameters<typeof decodeNdArray>[0]);
      if (array.length !== 1) throw new Error(`expected one element, got ${array.length}`);
      const v = Number(array[0]);
      if (!Number.isInteger(v)) throw new Error('expected an integer');
      return v;
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
      return z.NEVER;
    }
  }),
]);

/** Seeds travel as msgpack integers: any integer in [0, 2^64). Above 2^53 they are hashed to 53 bits (`seedToNumber`). */
const seedValue = z.union([z.number(), z.bigint()]).transform((v, ctx) => {
  const r = seedToNumber(v);
  if (typeof r === 'string') {
    ctx.addIssue({ code: 'custom', message: r });
    return z.NEVER;
  }
  return r;
});
const seed = seedValue.nullable().optional();
const options = z.record(z.unknown()).nullable().optional();

/** Request schemas by op. */
export const REQUESTS = {
  hello: z.object({ id: requestId, op: z.literal('hello') }).passthrough(),
  ping: z.object({ id: requestId, op: z.literal('ping') }).passthrough(),
  stats: z.object({ id: requestId, op: z.literal('stats') }).passthrough(),
  list: z.object({ id: requestId, op: z.literal('list') }).passthrough(),
  make: z.object({ id: requestId, op: z.literal('make'), env_id: z.string(), config: z.record(z.unknown()).default({}) }).passthrough(),
  reset: z.object({ id: requestId, op: z.literal('reset'), env: envHandle, seed, options }).passthrough(),
  step: z.object({ id: requestId, op: z.literal('step'), env: envHandle, action }).passthrough(),
  action_mask: z.object({ id: requestId, op: z.literal('action_mask'), env: envHandle }).passthrough(),
  step_batch: z
    .object({
      id: requestId,
      op: z.literal('step_batch'),
      envs: z.array(envHandle).min(1),
      actions: z.array(action).min(1),
      autoreset: z.boolean().default(true),
    })
    .passthrough()
    .refine((r) => r.envs.length === r.actions.length, { message: 'envs and actions must have the same length', path: ['actions'] }),
  reset_batch: z
    .object({
      id: requestId,
      op: z.literal('reset_batch'),
      envs: z.array(envHandle).min(1),
      seeds: z.array(seedValue.nullable()).nullable().optional(),
      options,
    })
    .passthrough()
    .refine((r) => !r.seeds || r.seeds.length === r.envs.length, { message: 'seeds must have one entry per env', path: ['seeds'] }),
  close: z.object({ id: requestId, op: z.literal('close'), env: envHandle }).passthrough(),
} as const;

/** An op name. */
export type Op = keyof typeof REQUESTS;

/** The fields each op takes: any other key of a request is a `bad_request` with a suggestion (`"sed"`: did you mean `"seed"`?). */
export const FIELDS: Record<Op, readonly string[]> = {
  hello: ['id', 'op'],
  ping: ['id', 'op'],
  stats: ['id', 'op'],
  list: ['id', 'op'],
  make: ['id', 'op', 'env_id', 'config'],
  reset: ['id', 'op', 'env', 'seed', 'options'],
  step: ['id', 'op', 'env', 'action'],
  action_mask: ['id', 'op', 'env'],
  step_batch: ['id', 'op', 'envs', 'actions', 'autoreset'],
  reset_batch: ['id', 'op', 'envs', 'seeds', 'options'],
  close: ['id', 'op', 'env'],
};
/** The parsed request of an op. */
export type Request<O extends Op> = z.infer<(typeof REQUESTS)[O]>;

const TWO_53 = 2 ** 53;
const TWO_64 = 1n << 64n;

/**
 * The seed an env gets for a wire seed: integers in [0, 2^53) as they are; integers in [2^53, 2^64)
 * hashed to 53 bits (SplitMix64's finaliser of the 64-bit value, top 53 bits), so that every seed a
 * numpy or Gymnasium user may pass is accepted and distinct seeds stay (almost surely) distinct.
 * Returns a message (string) for anything else.
 */
export function seedToNumber(v: number | bigint): number | string {
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) return `expected an integer seed, got ${v}`;
    if (v < 0) return `expected a non-negative seed (0 <= seed < 2^64), got ${v}`;
    if (v < TWO_53) return v;
    if (v >= 2 ** 64) return `expected a seed below 2^64, got ${v}`;
    return hashSeed(BigInt(v));
  }
  if (v < 0n) return `expected a non-negative seed (0 <= seed < 2^64), got ${v}`;
  if (v >= TWO_64) return `expected a seed below 2^64, got ${v}`;
  return v < BigInt(TWO_53) ? Number(v) : hashSeed(v);
}

function hashSeed(x: bigint): number {
  const M = (1n << 64n) - 1n;
  let z = (x + 0x9e3779b97f4a7c15n) & M;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
  z ^= z >> 31n;
  return Number(z >> 11n);
}

function isHandle(v: unknown): v is string {
  return typeof v === 'string' && v.length >= 1 && v.length <= 64;
}

function isIntAction(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

function isRequestId(v: unknown): boolean {
  return (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && v.length <= 256);
}

/**
 * The hot path: a well-formed `step` or `step_batch` (handles are strings, actions plain integers)
 * is accepted without running its zod schema, which would only confirm it; anything else (ndarray
 * actions, a missing field, a wrong type) returns null and goes through the schema, which names the
 * problem.
 */
function fastParse(op: string, m: Record<string, unknown>): Request<Op> | null {
  if (!isRequestId(m.id)) return null;
  let keys = 0;
  for (const _ in m) keys++;
  if (op === 'step') return keys === 4 && isHandle(m.env) && isIntAction(m.action) ? (m as Request<'step'>) : null;
  if (op === 'step_batch') {
    const envs = m.envs;
    const actions = m.actions;
    if (keys !== (m.autoreset === undefined ? 4 : 5)) return null;
    if (!Array.isArray(envs) || !Array.isArray(actions) || envs.length === 0 || envs.length !== actions.length) return null;
    if (m.autoreset !== undefined && typeof m.autoreset !== 'boolean') return null;
    for (let i = 0; i < envs.length; i++) if (!isHandle(envs[i]) || !isIntAction(actions[i])) return null;
    if (m.autoreset === undefined) m.autoreset = true;
    return m as Request<'step_batch'>;
  }
  return null;
}

/** Validates a decoded message; returns the op and the parsed request, or throws a `BridgeError`. */
export function parseRequest(msg: unknown): { op: Op; req: Request<Op> } {
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg) || msg instanceof Uint8Array)
    throw new BridgeError('bad_message', `expected a msgpack map, got ${msg === null ? 'nil' : Array.isArray(msg) ? 'an array' : typeof msg}`);
  const op = (msg as { op?: unknown }).op;
  if (typeof op !== 'string' || !Object.hasOwn(REQUESTS, op))
    throw new BridgeError('unknown_op', `unknown op ${JSON.stringify(op)}; expected one of ${Object.keys(REQUESTS).join(', ')}`, {
      ops: Object.keys(REQUESTS),
    });
  const fast = fastParse(op, msg as Record<string, unknown>);
  if (fast) return { op: op as Op, req: fast };
  const r = REQUESTS[op as Op].safeParse(msg);
  const unknown = unknownKeys(msg as Record<string, unknown>, FIELDS[op as Op]).map((u) => ({ path: jsonPath([u.key]), message: u.message }));
  if (!r.success || unknown.length > 0) {
    const issues = [...unknown, ...(r.success ? [] : r.error.issues.map((i) => ({ path: jsonPath(i.path), message: i.message })))];
    throw new BridgeError('bad_request', `bad ${op} request: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues });
  }
  return { op: op as Op, req: r.data as Request<Op> };
}

/** The request id of a message, if it has a usable one (error replies echo it). */
export function requestIdOf(msg: unknown): number | string | null {
  if (typeof msg !== 'object' || msg === null) return null;
  const id = (msg as { id?: unknown }).id;
  return typeof id === 'number' || (typeof id === 'string' && id.length <= 256) ? id : null;
}
