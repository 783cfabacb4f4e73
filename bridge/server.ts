/**
 * The ZeroMQ bridge server (DESIGN §6): a ROUTER socket that maps each request to an environment
 * call and replies. Clients use DEALER (any number of requests in flight) or REQ sockets; the reply
 * goes back with the request's envelope. The socket speaks ZMTP itself by default, or is libzmq's
 * (`transport`, bridge/transport.ts); clients see the same ZeroMQ ROUTER either way. How messages
 * travel (msgpack maps readable by any msgpack library, `__ndarray__` maps, binary step frames) is
 * bridge/codec.ts's: this module decodes a request, calls the env and hands the result to the codec.
 *
 * The server never dies of a message: anything wrong in a request (not msgpack, unknown op, bad
 * fields, unknown env, invalid action, bad config) becomes an error reply and the server goes on.
 * Environments idle for longer than `idleTimeoutMs` are closed (a client that vanished mid-episode
 * does not leak its envs). `close()` stops cleanly; `clustergym serve` calls it on SIGINT/SIGTERM.
 *
 * The server holds no RL logic: it only maps messages to calls on `BridgeEnv`s made by an
 * `EnvFactory` (the gym registry in production, anything in tests).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { defaultTransport, isTransport, openRouter, type RouterSocket, type Transport } from './transport.js';
import { BridgeError, limitError, PROTOCOL_VERSION, parseRequest, requestIdOf, type ErrorCode, type Op, type Request } from './protocol.js';
import { encodeNdArray } from './ndarray.js';
import { BINARY_MAGIC, BINARY_VERSION, type BinaryLayout, binaryLayout, binaryRequestId, layoutMessage, parseBinaryRequest } from './binary.js';
import {
  type BatchResult,
  BinaryReplies,
  batchInfo,
  copyObservation,
  encodeObservation,
  encodeValue,
  errorReply,
  okReply,
  resetBatchReply,
  stepBatchReply,
  stepReply,
  unpackRequest,
} from './codec.js';

import type { SpaceDescriptor } from './protocol.js';

export type { SpaceDescriptor } from './protocol.js';
// the codec's helpers, where clients of this module found them before bridge/codec.ts
export { encodeValue, stackObservations, wire } from './codec.js';

/** What the bridge needs of an environment. */
export interface BridgeEnv {
  readonly observationSpace: SpaceDescriptor;
  readonly actionSpace: SpaceDescriptor;
  reset(args: { seed?: number | undefined; options?: Record<string, unknown> | undefined }): { observation: unknown; info: Record<string, unknown> };
  /**
   * Throws what `reset(args)` would throw for a bad seed or bad options, changing nothing (optional):
   * `reset_batch` checks every env's reset with it before any env resets.
   */
  checkReset?(args: { seed?: number | undefined; options?: Record<string, unknown> | undefined }): void;
  step(action: number): { observation: unknown; reward: number; terminated: boolean; truncated: boolean; info: Record<string, unknown> };
  actionMask(): Uint8Array;
  /**
   * What the env does with an action its mask forbids: `noop` (the env steps it as a no-op, so a
   * batch passes it through) or `raise`/absent (a batch refuses it before any env moves).
   */
  readonly invalidAction?: 'noop' | 'raise';
  close(): void;
}

/** Makes environments and classifies their errors. */
export interface EnvFactory {
  /** Registered env ids. */
  ids(): string[];
  /** Makes an env; throws for an unknown id or a bad config. */
  make(envId: string, config: Record<string, unknown>): BridgeEnv;
  /** The factory's own limits, reported by `hello` (optional). */
  limits?(): Record<string, number>;
  /** Maps an error thrown by `make`, `reset` or `step` to an error reply, or null if it is a bug. */
  classify(e: unknown): { code: ErrorCode; message: string; details?: unknown } | null;
}

/** Options of the server. */
export interface BridgeServerOptions {
  /** Endpoint to bind, e.g. `tcp://127.0.0.1:5555`; port 0 picks a free port. */
  bind: string;
  /**
   * The socket: `zmtp` (ZMTP spoken on `node:net`, bridge/zmtp.ts) or `libzmq` (zeromq.js's ROUTER;
   * needed for `inproc://`). Default: `$CLUSTERGYM_TRANSPORT`, else `zmtp` (`defaultTransport`).
   * `clustergym serve --transport`.
   */
  transport?: Transport | undefined;
  /**
   * Heartbeats to the clients (ms; 0 turns each off): a PING to a client silent for
   * `heartbeatIntervalMs`, and a client silent for `heartbeatTimeoutMs` disconnected (its host died or
   * the network broke). Defaults `DEFAULT_HEARTBEAT` (5 s, 60 s). `clustergym serve --heartbeat-ivl/--heartbeat-timeout`.
   */
  heartbeatIntervalMs?: number | undefined;
  heartbeatTimeoutMs?: number | undefined;
  /** Close envs idle for longer than this (ms); default 10 minutes. */
  idleTimeoutMs?: number | undefined;
  /** Called with each env reclaimed for idleness (logs, tests). */
  onReclaim?: ((env: string) => void) | undefined;
  /** Open envs on the server at most (default `DEFAULT_LIMITS.maxEnvs`). */
  maxEnvs?: number | undefined;
  /** Open envs per client (ZeroMQ peer) at most (default `DEFAULT_LIMITS.maxEnvsPerClient`). */
  maxEnvsPerClient?: number | undefined;
  /** Size of one request in bytes at most (default `DEFAULT_LIMITS.maxRequestBytes`). */
  maxRequestBytes?: number | undefined;
  /**
   * A shared secret: when set, every request must carry it as its `token` field (else `unauthorized`).
   * `clustergym serve --token-file FILE`; clients send it (Python: `CLUSTERGYM_TOKEN` or `token=`).
   */
  token?: string | undefined;
}

/**
 * The largest message ZeroMQ accepts for a request limit of `maxRequestBytes`: the limit plus as much
 * again (at least 1 MiB more), so a request somewhat over the limit is read and answered with
 * `limit_exceeded`, and a far larger one is dropped by ZeroMQ before it is buffered.
 */
export function hardMessageCap(maxRequestBytes: number): number {
  return maxRequestBytes + Math.max(maxRequestBytes, 1 << 20);
}

/**
 * The server's default heartbeats (ms): a PING after 5 s of a client's silence, the client dropped
 * after 60 s of it. A client that computes between requests (the Python client's direct transport
 * sends nothing then) and is dropped reconnects with its next request; its envs stay.
 */
export const DEFAULT_HEARTBEAT = { intervalMs: 5000, timeoutMs: 60_000 } as const;

/** The server's default limits (each raised by a flag of `clustergym serve`, named in `limit_exceeded` errors). */
export const DEFAULT_LIMITS = {
  /** `--max-envs`: open envs on the server. */
  maxEnvs: 4096,
  /** `--max-envs-per-client`: open envs of one client (one ZeroMQ peer). */
  maxEnvsPerClient: 1024,
  /** `--max-request-bytes`: size of one request. */
  maxRequestBytes: 64 * 1024 * 1024,
} as const;

interface Slot {
  env: BridgeEnv;
  envId: string;
  /** The client (ZeroMQ identity, hex) that made it. */
  owner: string;
  /** Its spaces as one string: a batch must not mix envs whose spaces differ. */
  spaceKey: string;
  /** A reset succeeded (until then, an unseeded reset draws entropy). */
  seeded: boolean;
  /** Wire forms of the env's observation buffers, built once (envs reuse their buffers). */
  obsCache: Map<object, unknown>;
  lastUsed: number;
  /** An episode is running (reset done, not yet ended). */
  active: boolean;
  /** How its steps travel in binary frames (null: msgpack only). */
  layout: BinaryLayout | null;
}

/** Compares a given secret with the server's token in constant time (for equal lengths). */
function sameSecret(given: Buffer, token: Buffer): boolean {
  return given.length === token.length && timingSafeEqual(given, token);
}

/** A fresh seed from the OS's entropy (53 bits), for a first reset without a seed (as Gymnasium does). */
function entropySeed(): number {
  return Number(randomBytes(8).readBigUInt64LE() >> 11n);
}

/** The bridge server. `start()` binds and serves until `close()`. */
export class BridgeServer {
  private sock: RouterSocket | null = null;
  private readonly envs = new Map<string, Slot>();
  private nextEnv = 1;
  private readonly idleTimeoutMs: number;
  private reaper: NodeJS.Timeout | null = null;
  private closed = false;
  private loop: Promise<void> | null = null;
  /** Endpoint actually bound (with the port chosen when 0 was asked). */
  endpoint = '';
  /** The socket's transport, once started. */
  transport: Transport | null = null;
  /** Requests served (including error replies). */
  served = 0;
  private readonly limits: { maxEnvs: number; maxEnvsPerClient: number; maxRequestBytes: number };
  private readonly perClient = new Map<string, number>();
  /** Seconds spent in `handle` (decode, dispatch, env calls, encode) and in the envs' `step`/`reset` calls. */
  private handleSeconds = 0;
  private envSeconds = 0;
  /** Seconds spent encoding replies (msgpack packing, binary reply frames with their info). */
  private encodeSeconds = 0;
  /** The token's bytes (binary frames carry it as bytes). */
  private readonly tokenBytes: Buffer | null;
  /** The binary replies (with their packed info-column specs). */
  private readonly binaryReplies = new BinaryReplies();

  constructor(
    private readonly factory: EnvFactory,
    private readonly options: BridgeServerOptions,
  ) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? 600_000;
    this.tokenBytes = options.token === undefined ? null : Buffer.from(options.token, 'utf8');
    this.limits = {
      maxEnvs: options.maxEnvs ?? DEFAULT_LIMITS.maxEnvs,
      maxEnvsPerClient: options.maxEnvsPerClient ?? DEFAULT_LIMITS.maxEnvsPerClient,
      maxRequestBytes: options.maxRequestBytes ?? DEFAULT_LIMITS.maxRequestBytes,
    };
  }

  /** Binds the socket; resolves with the bound endpoint. Serving goes on in the background. */
  async start(): Promise<string> {
    const bind = this.options.bind.replace(/:0$/, ':*');
    const transport = this.options.transport ?? defaultTransport(this.options.bind);
    if (!isTransport(transport)) throw new Error(transport);
    this.transport = transport;
    const sock = await openRouter(transport);
    this.sock = sock;
    // A request over --max-request-bytes gets a limit_exceeded reply (handleTimed); the socket itself
    // refuses anything over the hard cap (it drops the sender's connection without buffering it), so
    // what one message can hold in memory is bounded either way.
    sock.maxMessageSize = hardMessageCap(this.limits.maxRequestBytes);
    sock.heartbeatInterval = this.options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT.intervalMs;
    sock.heartbeatTimeout = this.options.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT.timeoutMs;
    await sock.bind(bind);
    if (this.closed) {
      // closed while binding
      sock.close();
      return bind;
    }
    this.endpoint = sock.lastEndpoint ?? bind;
    const period = Math.max(10, Math.min(5000, this.idleTimeoutMs / 4));
    this.reaper = setInterval(() => this.reap(), period);
    this.reaper.unref();
    this.loop = this.serve(sock);
    return this.endpoint;
  }

  /** Number of open environments. */
  get openEnvs(): number {
    return this.envs.size;
  }

  /** Stops serving, closes every env and the socket. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.reaper) clearInterval(this.reaper);
    for (const s of this.envs.values()) safeClose(s.env);
    this.envs.clear();
    this.perClient.clear();
    this.sock?.close();
    try {
      await this.loop;
    } catch {
      // the receive loop ends with an error when the socket closes
    }
  }

  private async serve(sock: RouterSocket): Promise<void> {
    for (;;) {
      let frames: Buffer[];
      try {
        frames = await sock.receive();
      } catch (e) {
        if (this.closed) return;
        throw e;
      }
      // DEALER: [identity, payload]; REQ: [identity, empty delimiter, payload]; anything else is refused
      const identity = frames[0]!;
      const req = frames.length === 3 && frames[1]!.length === 0;
      const reply =
        frames.length === 2 || req
          ? this.handle(frames[frames.length - 1]!, identity.toString('hex'))
          : errorReply(
              null,
              new BridgeError('bad_message', `a request is one frame (DEALER: [payload]; REQ: [empty delimiter, payload]); got ${frames.length - 1} frames`, {
                frames: frames.length - 1,
              }),
            );
      this.served++;
      try {
        await sock.send(req ? [identity, Buffer.alloc(0), reply] : [identity, reply]);
      } catch (e) {
        if (this.closed) return;
        // the peer is gone (HWM or unroutable): drop the reply, keep serving
        void e;
      }
    }
  }

  /** Handles one raw message and returns the raw reply (exported for in-process tests). */
  handle(payload: Buffer, client = ''): Buffer {
    const t0 = performance.now();
    const out = this.handleTimed(payload, client);
    this.handleSeconds += (performance.now() - t0) / 1000;
    return out;
  }

  private handleTimed(payload: Buffer, client: string): Buffer {
    if (payload.length > this.limits.maxRequestBytes)
      return errorReply(null, limitError('request size (bytes)', payload.length, this.limits.maxRequestBytes, '--max-request-bytes'));
    if (payload[0] === BINARY_MAGIC) return this.handleBinary(payload);
    let msg: unknown;
    try {
      msg = unpackRequest(payload);
    } catch (e) {
      return errorReply(null, new BridgeError('bad_message', `not msgpack: ${(e as Error).message}`));
    }
    const id = requestIdOf(msg);
    if (this.tokenBytes === null) {
      // a server without a token ignores one (as binary frames do)
      if (msg !== null && typeof msg === 'object' && 'token' in msg) delete (msg as { token?: unknown }).token;
    } else {
      const given = (msg as { token?: unknown } | null)?.token;
      if (typeof given !== 'string' || !sameSecret(Buffer.from(given, 'utf8'), this.tokenBytes))
        return errorReply(id, new BridgeError('unauthorized', 'this server needs its token in every request (the `token` field; Python: CLUSTERGYM_TOKEN)'));
      delete (msg as { token?: unknown }).token;
    }
    try {
      const { op, req } = parseRequest(msg);
      const result = this.dispatch(op, req, client);
      const t0 = performance.now();
      const out = okReply(id, result);
      this.encodeSeconds += (performance.now() - t0) / 1000;
      return out;
    } catch (e) {
      return this.failure(id, e);
    }
  }

  /**
   * A binary `step` or `step_batch` frame (bridge/binary.ts): the same checks and the same env calls
   * as the msgpack ops, a binary reply; errors are msgpack error replies, as for any request.
   */
  private handleBinary(payload: Buffer): Buffer {
    const id = binaryRequestId(payload);
    try {
      const q = parseBinaryRequest(payload);
      if (this.tokenBytes !== null && !sameSecret(q.token, this.tokenBytes))
        throw new BridgeError('unauthorized', 'this server needs its token in every request (binary frames carry it after the actions)');
      // checked before any env moves (the envs of a batch have the same spaces, hence the same layout)
      const first = this.slot(q.envs[0]!);
      const layout = first.layout;
      if (layout === null)
        throw new BridgeError('bad_request', `environment ${q.envs[0]} (${first.envId}) has no binary layout: step it with msgpack requests`);
      const b = q.op === 'step' ? this.runStep(q.envs[0]!, q.actions[0]!, true) : this.runBatch(q.envs, q.actions, q.autoreset);
      const t0 = performance.now();
      const out = this.binaryReplies.encode(layout, q, b);
      this.encodeSeconds += (performance.now() - t0) / 1000;
      return out;
    } catch (e) {
      return this.failure(id, e);
    }
  }

  /** The error reply of anything thrown while handling a request: its own, the factory's classification, or `internal`. */
  private failure(id: number | string | null, e: unknown): Buffer {
    if (e instanceof BridgeError) return errorReply(id, e);
    const c = this.factory.classify(e);
    if (c) return errorReply(id, new BridgeError(c.code, c.message, c.details ?? null));
    return errorReply(id, new BridgeError('internal', (e as Error)?.message ?? String(e)));
  }

  private slot(handle: string, now = Date.now()): Slot {
    const s = this.envs.get(handle);
    if (!s)
      throw new BridgeError(
        'unknown_env',
        `no open environment ${JSON.stringify(handle)} (closed, reclaimed after ${this.idleTimeoutMs / 1000} s idle, or never made)`,
      );
    s.lastUsed = now;
    return s;
  }

  private dispatch(op: Op, r: Request<Op>, client: string): Record<string, unknown> {
    switch (op) {
      case 'ping':
        return { pong: true, open_envs: this.envs.size };
      case 'stats':
        return { requests: this.served, handle_s: this.handleSeconds, env_s: this.envSeconds, encode_s: this.encodeSeconds, open_envs: this.envs.size };
      case 'hello':
        return {
          protocol: PROTOCOL_VERSION,
          server: 'clustergym',
          capabilities: {
            ops: ['hello', 'ping', 'stats', 'list', 'make', 'reset', 'step', 'action_mask', 'step_batch', 'reset_batch', 'close'],
            env_ids: this.factory.ids(),
            ndarray: true,
            // binary step frames (bridge/binary.ts), format version
            binary: BINARY_VERSION,
            // binary step_batch replies carry the numeric info keys as columns when asked (flag bit 1)
            binary_info_columns: true,
            idle_timeout_s: this.idleTimeoutMs / 1000,
            limits: {
              max_envs: this.limits.maxEnvs,
              max_envs_per_client: this.limits.maxEnvsPerClient,
              max_request_bytes: this.limits.maxRequestBytes,
              ...this.factory.limits?.(),
            },
          },
        };
      case 'list':
        return {
          env_ids: this.factory.ids(),
          envs: [...this.envs.entries()].map(([env, s]) => ({ env, env_id: s.envId, idle_s: (Date.now() - s.lastUsed) / 1000 })),
        };
      case 'make': {
        const q = r as Request<'make'>;
        if (this.envs.size >= this.limits.maxEnvs) throw limitError('open environments on the server', this.envs.size + 1, this.limits.maxEnvs, '--max-envs');
        const mine = this.perClient.get(client) ?? 0;
        if (mine >= this.limits.maxEnvsPerClient)
          throw limitError('open environments of this client', mine + 1, this.limits.maxEnvsPerClient, '--max-envs-per-client');
        const env = this.factory.make(q.env_id, q.config);
        const handle = `e${this.nextEnv++}`;
        const spaceKey = JSON.stringify([env.observationSpace, env.actionSpace]);
        const layout = binaryLayout(env.observationSpace, env.actionSpace);
        this.envs.set(handle, {
          env,
          envId: q.env_id,
          owner: client,
          spaceKey,
          seeded: false,
          obsCache: new Map(),
          lastUsed: Date.now(),
          active: false,
          layout,
        });
        this.perClient.set(client, mine + 1);
        const reply: Record<string, unknown> = { env: handle, observation_space: env.observationSpace, action_space: env.actionSpace };
        if (layout) reply.binary = layoutMessage(layout);
        return reply;
      }
      case 'reset': {
        const q = r as Request<'reset'>;
        const s = this.slot(q.env);
        const out = this.resetSlot(s, q.seed, q.options ?? undefined);
        return { observation: encodeObservation(s.obsCache, out.observation, s.env.observationSpace), info: encodeValue(out.info) };
      }
      case 'step': {
        const q = r as Request<'step'>;
        return stepReply(this.runStep(q.env, q.action, false));
      }
      case 'action_mask': {
        const q = r as Request<'action_mask'>;
        return { mask: encodeNdArray(this.slot(q.env).env.actionMask()) };
      }
      case 'step_batch': {
        // with `autoreset` (default), an env whose episode ends is reset at once (seed continuing its
        // stream): its row of `observations` is the first observation of the new episode, and the last
        // observation of the ended one is in its `infos[i].final_observation`
        const q = r as Request<'step_batch'>;
        return stepBatchReply(this.runBatch(q.envs, q.actions, q.autoreset));
      }
      case 'reset_batch': {
        const q = r as Request<'reset_batch'>;
        const slots = this.batchSlots(q.envs);
        const options = q.options ?? undefined;
        // every env's seed and options checked before any env resets
        for (let i = 0; i < slots.length; i++) {
          try {
            slots[i]!.env.checkReset?.({ seed: q.seeds?.[i] ?? undefined, options });
          } catch (e) {
            const c = e instanceof BridgeError ? null : this.factory.classify(e);
            if (c === null) throw e;
            const details = c.details !== null && typeof c.details === 'object' ? { ...c.details, index: i, env: q.envs[i] } : { index: i, env: q.envs[i] };
            throw new BridgeError(c.code, `envs[${i}] (${q.envs[i]}): ${c.message}`, details);
          }
        }
        const outs = slots.map((s, i) => this.resetSlot(s, q.seeds?.[i], options));
        return resetBatchReply(
          slots[0]!.env.observationSpace,
          outs,
          slots.map((s) => s.env.actionMask()),
        );
      }
      case 'close': {
        const q = r as Request<'close'>;
        const s = this.envs.get(q.env);
        if (s) this.drop(q.env, s);
        return { closed: s !== undefined };
      }
    }
  }

  /**
   * One env's step (the `step` op, msgpack or binary): its info as the env gives it (with
   * `action_mask`) for msgpack, without it for binary frames (which carry the mask apart).
   */
  private runStep(handle: string, action: number, binary: boolean): BatchResult {
    const s = this.slot(handle);
    if (!s.active) throw new BridgeError('bad_state', `environment ${handle} needs a reset before step (new, or its episode ended)`);
    const t0 = performance.now();
    const out = s.env.step(action);
    this.envSeconds += (performance.now() - t0) / 1000;
    if (out.terminated || out.truncated) s.active = false;
    return {
      space: s.env.observationSpace,
      cache: s.obsCache,
      masks: [s.env.actionMask()],
      rewards: Float64Array.of(out.reward),
      terminated: Uint8Array.of(out.terminated ? 1 : 0),
      truncated: Uint8Array.of(out.truncated ? 1 : 0),
      observations: [out.observation],
      infos: [binary ? batchInfo(out.info) : out.info],
    };
  }

  /** Steps a batch (the `step_batch` op, msgpack or binary): every action checked before any env moves. */
  private runBatch(handles: string[], actions: number[], autoreset: boolean): BatchResult {
    const slots = this.batchSlots(handles);
    for (let i = 0; i < slots.length; i++)
      if (!slots[i]!.active) throw new BridgeError('bad_state', `environment ${handles[i]} needs a reset before step_batch`);
    const n = slots.length;
    const rewards = new Float64Array(n);
    const terminated = new Uint8Array(n);
    const truncated = new Uint8Array(n);
    const observations: unknown[] = new Array(n);
    const infos: Record<string, unknown>[] = new Array(n);
    // Validate every action first so that a bad one leaves every env unchanged: in the action space,
    // and allowed by the mask for envs in `invalid_action: "raise"` mode (others make it a no-op).
    for (let i = 0; i < n; i++) {
      const env = slots[i]!.env;
      const mask = env.actionMask();
      const a = actions[i]!;
      if (!(Number.isInteger(a) && a >= 0 && a < mask.length) || (mask[a] !== 1 && env.invalidAction !== 'noop'))
        throw new BridgeError('invalid_action', `action ${a} is not allowed in environment ${handles[i]} (index ${i}); allowed: ${allowed(mask)}`, {
          index: i,
          env: handles[i],
          mask: encodeNdArray(mask),
        });
    }
    for (let i = 0; i < n; i++) {
      const s = slots[i]!;
      const t0 = performance.now();
      const out = s.env.step(actions[i]!);
      this.envSeconds += (performance.now() - t0) / 1000;
      rewards[i] = out.reward;
      terminated[i] = out.terminated ? 1 : 0;
      truncated[i] = out.truncated ? 1 : 0;
      let info = batchInfo(out.info);
      let obs = out.observation;
      if (out.terminated || out.truncated) {
        if (autoreset) {
          // envs reuse their observation buffers: copy the final observation before the reset overwrites it
          const finalObservation = encodeValue(copyObservation(obs), s.env.observationSpace);
          const finalInfo = info;
          const t1 = performance.now();
          const r = s.env.reset({});
          this.envSeconds += (performance.now() - t1) / 1000;
          info = { ...info, final_observation: finalObservation, final_info: finalInfo, reset_info: batchInfo(r.info) };
          obs = r.observation;
        } else s.active = false;
      }
      observations[i] = obs;
      infos[i] = info;
    }
    const masks: Uint8Array[] = new Array(n);
    for (let i = 0; i < n; i++) masks[i] = slots[i]!.env.actionMask();
    return { space: slots[0]!.env.observationSpace, cache: slots[0]!.obsCache, masks, rewards, terminated, truncated, observations, infos };
  }

  /**
   * The slots of a batch, checked as a whole before any env moves: every handle open, none twice,
   * and every env with the same observation and action spaces (observations are stacked).
   */
  private batchSlots(handles: string[]): Slot[] {
    const now = Date.now();
    const slots = handles.map((h) => this.slot(h, now));
    if (new Set(handles).size !== handles.length) throw new BridgeError('bad_request', 'an env appears twice in envs');
    const key = slots[0]!.spaceKey;
    for (let i = 1; i < slots.length; i++)
      if (slots[i]!.spaceKey !== key)
        throw new BridgeError(
          'bad_request',
          `envs[${i}] (${handles[i]}, ${slots[i]!.envId}) has other observation or action spaces than envs[0] (${handles[0]}, ${slots[0]!.envId}); a batch holds envs with the same spaces`,
          { index: i },
        );
    return slots;
  }

  /**
   * Resets one env. The seed: the given one, else fresh entropy until a reset of the env succeeded
   * (Gymnasium's rule: a failed first reset does not make the next one deterministic), else the env's stream.
   */
  private resetSlot(
    s: Slot,
    seed: number | null | undefined,
    options: Record<string, unknown> | undefined,
  ): { observation: unknown; info: Record<string, unknown> } {
    const given = seed !== null && seed !== undefined ? seed : s.seeded ? undefined : entropySeed();
    const out = s.env.reset({ seed: given, options });
    s.seeded = true;
    s.active = true;
    return out;
  }

  private drop(handle: string, s: Slot): void {
    safeClose(s.env);
    this.envs.delete(handle);
    const n = (this.perClient.get(s.owner) ?? 1) - 1;
    if (n > 0) this.perClient.set(s.owner, n);
    else this.perClient.delete(s.owner);
  }

  private reap(): void {
    const now = Date.now();
    for (const [h, s] of this.envs)
      if (now - s.lastUsed > this.idleTimeoutMs) {
        this.drop(h, s);
        this.options.onReclaim?.(h);
      }
  }
}

function allowed(mask: Uint8Array): string {
  const a: number[] = [];
  for (let i = 0; i < mask.length && a.length < 20; i++) if (mask[i]) a.push(i);
  return a.length ? a.join(', ') + (a.length === 20 ? ', ...' : '') : '(none)';
}

function safeClose(env: BridgeEnv): void {
  try {
    env.close();
  } catch {
    // closing must not fail the server
  }
}
