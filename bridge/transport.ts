/**
 * The bridge's socket, behind one small interface: a ZeroMQ ROUTER bound to an endpoint, giving
 * `[routingId, ...frames]` messages and routing replies by id. Two implementations speak the same
 * wire protocol (ZMTP 3), so any ZeroMQ DEALER or REQ client connects to either:
 *
 * - `zmtp` (the default): `ZmtpRouter` (bridge/zmtp.ts), ZMTP spoken by this process on `node:net`;
 *   a request is read and its reply written on the event loop's thread, with no hop through
 *   libzmq's I/O thread.
 * - `libzmq`: zeromq.js's `Router` (libzmq and its I/O thread), the bridge's socket before; also
 *   the only one that binds `inproc://` and abstract `ipc://@NAME` endpoints (`libzmqOnly`).
 */
import { z } from 'zod';
import { libzmqOnly, ZmtpRouter } from './zmtp.js';

export { libzmqOnly } from './zmtp.js';

/** The bridge's transports (`clustergym serve --transport`). */
export const TRANSPORTS = ['zmtp', 'libzmq'] as const;

/** A transport name. */
export type Transport = (typeof TRANSPORTS)[number];

/** A transport name, validated. */
export const TransportSchema = z.enum(TRANSPORTS);

/**
 * The transport when none is named: the endpoint's own when only libzmq binds it (`libzmqOnly`:
 * `inproc://`, `ipc://@NAME`), else `$CLUSTERGYM_TRANSPORT` when set (so that servers started by a
 * client, such as Python's `make()`, and test runs can be switched), else `zmtp`. Returns an error
 * message for a bad variable.
 */
export function defaultTransport(bind: string, env = process.env.CLUSTERGYM_TRANSPORT): Transport | string {
  if (env !== undefined && env !== '' && !isTransport(env)) return `CLUSTERGYM_TRANSPORT: expected one of ${TRANSPORTS.join(', ')}, got ${JSON.stringify(env)}`;
  if (libzmqOnly(bind) !== null) return 'libzmq';
  return env !== undefined && env !== '' ? (env as Transport) : 'zmtp';
}

/** Whether `s` names a transport. */
export function isTransport(s: string): s is Transport {
  return (TRANSPORTS as readonly string[]).includes(s);
}

/** What the bridge uses of a ROUTER socket (zeromq.js's `Router` has this surface; so has `ZmtpRouter`). */
export interface RouterSocket {
  /** A frame or message over this many bytes drops its sender's connection (-1: no limit); set before `bind`. */
  maxMessageSize: number;
  /** A PING to a peer after this many ms of silence (0: none); set before `bind` (`ZMQ_HEARTBEAT_IVL`). */
  heartbeatInterval: number;
  /** A peer silent for this many ms is disconnected (0: never); set before `bind` (`ZMQ_HEARTBEAT_TIMEOUT`). */
  heartbeatTimeout: number;
  /** The endpoint bound (with the port picked for port `*`), once `bind` resolved. */
  readonly lastEndpoint: string | null;
  /** Binds `tcp://HOST:PORT|*` or `ipc://PATH` (and `inproc://NAME` with libzmq). */
  bind(endpoint: string): Promise<void>;
  /** The next message, `[routingId, ...frames]`, in arrival order; rejects once the socket is closed. */
  receive(): Promise<Buffer[]>;
  /** Sends `[routingId, ...frames]` to that peer (dropped silently when it is gone). */
  send(message: Buffer[]): Promise<void>;
  /** Closes the socket and its connections. */
  close(): void;
}

/** A new ROUTER socket of `transport` (zeromq.js is loaded only when `libzmq` is asked). */
export async function openRouter(transport: Transport): Promise<RouterSocket> {
  if (transport === 'zmtp') return new ZmtpRouter();
  const { Router } = await import('zeromq');
  return new Router();
}
