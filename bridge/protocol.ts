/**
 * The wire protocol of the ZeroMQ bridge (DESIGN §6; reference with examples: docs/protocol.md).
 *
 * Every message is ONE msgpack map. A request is `{id, op, ...fields}`; its reply echoes `id`:
 * `{id, ok: true, ...result}` or `{id, ok: false, error: {code, message, details}}`. Requests are
 * validated here with zod; nothing in a request can crash the server.
 */
import { z } from 'zod';
import { jsonPath } from '../src/core/errors.js';
import { decodeNdArray, isNdArrayMessage } from './ndarray.js';

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

const seed = z.number().int().nullable().optional();
const options = z.record(z.unknown()).nullable().optional();

/** Request schemas by op. */
export const REQUESTS = {
  hello: z.object({ id: requestId, op: z.literal('hello') }).passthrough(),
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
      seeds: z.array(z.number().int().nullable()).nullable().optional(),
      options,
    })
    .passthrough()
    .refine((r) => !r.seeds || r.seeds.length === r.envs.length, { message: 'seeds must have one entry per env', path: ['seeds'] }),
  close: z.object({ id: requestId, op: z.literal('close'), env: envHandle }).passthrough(),
} as const;

/** An op name. */
export type Op = keyof typeof REQUESTS;
/** The parsed request of an op. */
export type Request<O extends Op> = z.infer<(typeof REQUESTS)[O]>;

/** Validates a decoded message; returns the op and the parsed request, or throws a `BridgeError`. */
export function parseRequest(msg: unknown): { op: Op; req: Request<Op> } {
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg) || msg instanceof Uint8Array)
    throw new BridgeError('bad_message', `expected a msgpack map, got ${msg === null ? 'nil' : Array.isArray(msg) ? 'an array' : typeof msg}`);
  const op = (msg as { op?: unknown }).op;
  if (typeof op !== 'string' || !(op in REQUESTS))
    throw new BridgeError('unknown_op', `unknown op ${JSON.stringify(op)}; expected one of ${Object.keys(REQUESTS).join(', ')}`, {
      ops: Object.keys(REQUESTS),
    });
  const r = REQUESTS[op as Op].safeParse(msg);
  if (!r.success) {
    const issues = r.error.issues.map((i) => ({ path: jsonPath(i.path), message: i.message }));
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
