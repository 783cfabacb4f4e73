/**
 * A ZeroMQ ROUTER socket that speaks ZMTP itself, on `node:net`, without libzmq.
 *
 * ZMTP (the ZeroMQ Message Transport Protocol, rfc.zeromq.org/spec/23 for 3.0 and spec/37 for 3.1)
 * is what any ZeroMQ socket speaks on a TCP or Unix-socket connection. This module implements the
 * subset a ROUTER server needs to talk to ZeroMQ DEALER and REQ peers (pyzmq, zeromq.js, CZMQ,
 * libzmq 4.x, or a client speaking ZMTP itself):
 *
 * - **Greeting**: each side sends 64 bytes: the signature `FF 00 00 00 00 00 00 00 01 7F`, the version
 *   (major 3, minor 1), the mechanism name `NULL` padded with zeros to 20 bytes, the as-server byte
 *   (0: NULL has no client and server roles; libzmq sends 0 too) and 31 zero bytes. A peer whose first byte is not `FF`, whose tenth byte lacks bit 0, or
 *   whose major version is below 3 (ZMTP 1.0 and 2.0: libzmq before 4.0) is refused: the connection
 *   is closed. A peer announcing a later 3.x minor version is served as 3.1.
 * - **Security**: the NULL mechanism only. A peer that asks for another (PLAIN, CURVE, GSSAPI) gets an
 *   `ERROR` command and the connection is closed.
 * - **Handshake**: after the peer's greeting, this side sends a `READY` command with the properties
 *   `Socket-Type` = `ROUTER` and `Identity` (empty). The peer's `READY` is parsed (property names
 *   compared without case, as the spec says); its `Socket-Type` must be `DEALER` or `REQ` (anything
 *   else gets an `ERROR` command and is closed). A non-empty `Identity` property (a peer's
 *   `ZMQ_ROUTING_ID`, at most 255 bytes) becomes the peer's routing id, as libzmq's ROUTER does; a
 *   routing id already held by another connection is refused (libzmq's default without
 *   `ZMQ_ROUTER_HANDOVER`: the newcomer is not routed). Otherwise the id is generated as libzmq does:
 *   5 bytes, a zero byte then a 32-bit big-endian counter (starting from a random value).
 * - **Frames**: a flags byte (bit 0 MORE, bit 1 LONG, bit 2 COMMAND; the other bits must be zero),
 *   then the size (1 byte, or 8 bytes big-endian when LONG), then the body. A message is its frames
 *   up to the first one without MORE. Commands are single frames (`name-size`, name, data) and may
 *   come between any two frames. Any split of the byte stream into chunks decodes the same
 *   (`ZmtpDecoder` is a state machine fed chunk by chunk).
 * - **Commands after the handshake**: `PING` (ZMTP 3.1 heartbeats, libzmq's `ZMQ_HEARTBEAT_IVL`) is
 *   answered by `PONG` with the ping's context; `PONG` and unknown commands are ignored; `ERROR`
 *   closes the connection.
 * - **Heartbeats** (`heartbeatInterval`, `heartbeatTimeout`, in ms, libzmq's `ZMQ_HEARTBEAT_IVL` and
 *   `ZMQ_HEARTBEAT_TIMEOUT`; 0 turns them off): a connection silent for `heartbeatInterval` gets a
 *   `PING` (TTL 0: a client computing between requests is silent, and must not drop us), and one
 *   silent for `heartbeatTimeout` is closed (its peer's host died, or the network broke: nothing
 *   else closes it). A peer's `PING` with a TTL sets that connection's timeout to the TTL, as libzmq
 *   does. Silence is counted on the event loop: while this process computes (one request that takes
 *   long), nobody is heard, so a tick that comes late forgives the time it was late.
 * - **Handshake timeout**: a connection that has not sent its greeting and READY within 30 s
 *   (`HANDSHAKE_TIMEOUT_MS`, libzmq's `ZMQ_HANDSHAKE_IVL` default) is closed.
 * - **Limits**: `maxMessageSize` (bytes, -1 for none, as libzmq's `ZMQ_MAXMSGSIZE`): a frame or a
 *   message larger than it drops the connection, before it is buffered. Commands are bounded by
 *   `MAX_COMMAND_BYTES`.
 * - **Routing** (ROUTER semantics): `receive()` gives `[routingId, ...frames]` in arrival order across
 *   connections; `send([routingId, ...frames])` writes to the connection of that id, and a message to
 *   an unknown id (a peer gone, or never there) is silently dropped (libzmq's default,
 *   `ZMQ_ROUTER_MANDATORY` off). Each message is one write (one buffer up to 64 KiB, larger ones
 *   corked so that they leave in one `writev`); TCP connections have Nagle off (`setNoDelay`).
 * - **Backpressure**: a peer that does not read gets its messages dropped once more than
 *   `SEND_HIGH_WATER_BYTES` (64 MiB) wait in its connection's write buffer (libzmq's ROUTER drops
 *   at its send high-water mark, 1,000 messages by default); a message to a peer with an empty buffer
 *   is always written, whatever its size. On the receiving side, a connection whose
 *   `RECEIVE_HIGH_WATER_MESSAGES` (1,000) messages wait unread in `receive()`'s queue is paused
 *   (no more reads from it) until the queue drains, as libzmq stops reading at its receive
 *   high-water mark.
 * - **Endpoints**: `tcp://HOST:PORT` (port 0 or `*` picks a free one; host `*` means every
 *   interface) and `ipc://PATH` (a Unix socket; a file left at PATH is unlinked first, as libzmq does,
 *   and the file is removed by `close()`). `inproc://` exists only inside libzmq, and so, in
 *   effect, do abstract Unix sockets (`ipc://@NAME`): Node pads their names (`libzmqOnly`).
 *
 * Not implemented: ZMTP 1.0/2.0 peers, PLAIN/CURVE/GSSAPI, socket types other than DEALER and REQ as
 * peers, outgoing connections (`connect`), ZMTP 3.1's SUBSCRIBE/CANCEL (PUB/SUB), a TTL in our own PINGs.
 */
import { randomInt } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';

/** Flag bits of a frame's first byte. */
export const FLAG_MORE = 1;
export const FLAG_LONG = 2;
export const FLAG_COMMAND = 4;

/** The size of a ZMTP 3 greeting. */
export const GREETING_BYTES = 64;

/** A command frame's body at most (a READY with its properties, a PING): larger drops the connection. */
export const MAX_COMMAND_BYTES = 64 * 1024;

/** Bytes waiting in a connection's write buffer above which messages to it are dropped. */
export const SEND_HIGH_WATER_BYTES = 64 * 1024 * 1024;

/** Messages of one connection waiting in `receive()`'s queue above which that connection is paused. */
export const RECEIVE_HIGH_WATER_MESSAGES = 1000;

/** A connection whose handshake (greeting and READY) is not done after this many ms is closed (libzmq's `ZMQ_HANDSHAKE_IVL`). */
export const HANDSHAKE_TIMEOUT_MS = 30_000;

/** Messages whose frames total less than this are copied into one buffer; larger ones are corked. */
const COPY_BELOW_BYTES = 64 * 1024;

/** A 64-byte ZMTP 3.1 greeting (this router sends as-server 0 with NULL, as libzmq does). */
export function greeting(asServer: boolean, mechanism = 'NULL'): Buffer {
  const g = Buffer.alloc(GREETING_BYTES);
  g[0] = 0xff;
  g[9] = 0x7f;
  g[10] = 3;
  g[11] = 1;
  g.write(mechanism, 12, 20, 'latin1');
  g[32] = asServer ? 1 : 0;
  return g;
}

/** A greeting's fields. */
export interface Greeting {
  major: number;
  minor: number;
  /** The mechanism name without its zero padding. */
  mechanism: string;
  asServer: boolean;
}

/** Reads a complete 64-byte greeting (its signature already checked by the decoder). */
export function parseGreeting(g: Buffer): Greeting {
  const m = g.subarray(12, 32);
  const end = m.indexOf(0);
  return { major: g[10]!, minor: g[11]!, mechanism: m.subarray(0, end < 0 ? 20 : end).toString('latin1'), asServer: g[32] === 1 };
}

/** The bytes of one frame header (flags and size) for a body of `size` bytes. */
function headerBytes(size: number): number {
  return size < 256 ? 2 : 9;
}

/** Writes a frame header at `at`; returns the offset after it. */
function writeHeader(out: Buffer, at: number, flags: number, size: number): number {
  if (size < 256) {
    out[at] = flags;
    out[at + 1] = size;
    return at + 2;
  }
  out[at] = flags | FLAG_LONG;
  out.writeUInt32BE(Math.floor(size / 2 ** 32), at + 1);
  out.writeUInt32BE(size >>> 0, at + 5);
  return at + 9;
}

/** One frame's header (for frames written apart from their body). */
export function frameHeader(flags: number, size: number): Buffer {
  const h = Buffer.allocUnsafe(headerBytes(size));
  writeHeader(h, 0, flags, size);
  return h;
}

/** A message's frames (MORE on all but the last) encoded into one buffer. */
export function encodeMessage(frames: readonly Uint8Array[], from = 0): Buffer {
  let n = 0;
  for (let i = from; i < frames.length; i++) n += headerBytes(frames[i]!.length) + frames[i]!.length;
  const out = Buffer.allocUnsafe(n);
  let at = 0;
  for (let i = from; i < frames.length; i++) {
    const f = frames[i]!;
    at = writeHeader(out, at, i < frames.length - 1 ? FLAG_MORE : 0, f.length);
    out.set(f, at);
    at += f.length;
  }
  return out;
}

/** A command frame: `name-size`, name, data. */
export function encodeCommand(name: string, data: Uint8Array = Buffer.alloc(0)): Buffer {
  const body = Buffer.allocUnsafe(1 + name.length + data.length);
  body[0] = name.length;
  body.write(name, 1, 'latin1');
  body.set(data, 1 + name.length);
  const out = Buffer.allocUnsafe(headerBytes(body.length) + body.length);
  body.copy(out, writeHeader(out, 0, FLAG_COMMAND, body.length));
  return out;
}

/** The data of a READY command: properties as `name-size`, name, 4-byte big-endian `value-size`, value. */
export function encodeProperties(props: ReadonlyArray<readonly [string, Uint8Array]>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of props) {
    const h = Buffer.allocUnsafe(1 + name.length + 4);
    h[0] = name.length;
    h.write(name, 1, 'latin1');
    h.writeUInt32BE(value.length, 1 + name.length);
    parts.push(h, Buffer.from(value));
  }
  return Buffer.concat(parts);
}

/** Parses a READY command's properties (names lower-cased); throws on a malformed list. */
export function parseProperties(data: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  let at = 0;
  while (at < data.length) {
    const nameSize = data[at]!;
    if (nameSize === 0 || at + 1 + nameSize + 4 > data.length) throw new Error('malformed READY properties');
    const name = data.toString('latin1', at + 1, at + 1 + nameSize).toLowerCase();
    const valueSize = data.readUInt32BE(at + 1 + nameSize);
    const start = at + 1 + nameSize + 4;
    if (start + valueSize > data.length) throw new Error('malformed READY properties');
    out.set(name, data.subarray(start, start + valueSize));
    at = start + valueSize;
  }
  return out;
}

/** What a `ZmtpDecoder` reports. */
export interface ZmtpSink {
  /** The peer's 64-byte greeting (signature and major version already checked). */
  greeting(g: Buffer): void;
  /** A command frame: its name and data. */
  command(name: string, data: Buffer): void;
  /** A complete message (every frame up to the one without MORE). */
  message(frames: Buffer[]): void;
  /** The stream is not ZMTP 3 or breaks a limit; the decoder ignores anything after. */
  error(reason: string): void;
}

const S_GREETING = 0;
const S_HEADER = 1;
const S_BODY = 2;
const S_FAILED = 3;

/**
 * The ZMTP 3 stream decoder: a state machine fed the bytes of one connection chunk by chunk, in any
 * split, reporting the greeting, then commands and complete messages to its sink. Frame bodies that
 * lie within one chunk are views of it (no copy); others are copied once when complete.
 */
export class ZmtpDecoder {
  private state = S_GREETING;
  private readonly head = Buffer.alloc(GREETING_BYTES);
  /** Bytes of `head` filled (greeting, or the frame header being read). */
  private headFill = 0;
  private flags = 0;
  private bodyLeft = 0;
  private bodySize = 0;
  private bodyParts: Buffer[] = [];
  private frames: Buffer[] = [];
  private messageBytes = 0;

  /**
   * @param sink where decoded items go
   * @param maxMessageSize a frame or message over this many bytes is an error (-1: no limit)
   */
  constructor(
    private readonly sink: ZmtpSink,
    public maxMessageSize = -1,
  ) {}

  /** Whether the stream was refused (nothing more is decoded). */
  get failed(): boolean {
    return this.state === S_FAILED;
  }

  /** Whether a message is partly received (some frames with MORE, or a frame's body in progress). */
  get midMessage(): boolean {
    return this.frames.length > 0 || (this.state === S_BODY && (this.flags & FLAG_COMMAND) === 0) || (this.state === S_HEADER && this.headFill > 0);
  }

  /** Feeds the next bytes of the stream. */
  push(chunk: Buffer): void {
    let at = 0;
    const n = chunk.length;
    while (at < n) {
      const state = this.state;
      if (state === S_HEADER) {
        if (this.headFill === 0 && n - at >= 2) {
          // fast path: a short header whole in this chunk
          const flags = chunk[at]!;
          if ((flags & FLAG_LONG) === 0) {
            at += 2;
            if (!this.header(flags, chunk[at - 1]!)) return;
            if (this.state === S_BODY && n - at >= this.bodyLeft) {
              const size = this.bodyLeft;
              at += size;
              if (!this.frame(chunk.subarray(at - size, at))) return;
            }
            continue;
          }
        }
        const flags = this.headFill > 0 ? this.head[0]! : chunk[at]!;
        const need = flags & FLAG_LONG ? 9 : 2;
        const take = Math.min(need - this.headFill, n - at);
        chunk.copy(this.head, this.headFill, at, at + take);
        this.headFill += take;
        at += take;
        if (this.headFill < need) return;
        this.headFill = 0;
        let size: number;
        if (need === 2) size = this.head[1]!;
        else {
          const hi = this.head.readUInt32BE(1);
          if (hi >= 2 ** 21) {
            this.fail(`a frame of ${this.head.readBigUInt64BE(1)} bytes`);
            return;
          }
          size = hi * 2 ** 32 + this.head.readUInt32BE(5);
        }
        if (!this.header(flags, size)) return;
      } else if (state === S_BODY) {
        const take = Math.min(this.bodyLeft, n - at);
        const part = chunk.subarray(at, at + take);
        at += take;
        this.bodyLeft -= take;
        if (this.bodyLeft > 0) {
          this.bodyParts.push(part);
          continue;
        }
        let body = part;
        if (this.bodyParts.length > 0) {
          this.bodyParts.push(part);
          body = Buffer.concat(this.bodyParts, this.bodySize);
          this.bodyParts = [];
        }
        if (!this.frame(body)) return;
      } else if (state === S_GREETING) {
        const take = Math.min(GREETING_BYTES - this.headFill, n - at);
        chunk.copy(this.head, this.headFill, at, at + take);
        const before = this.headFill;
        this.headFill += take;
        at += take;
        const h = this.head;
        if (before < 1 && h[0] !== 0xff) {
          this.fail('not a ZMTP 3 peer (its greeting does not start with 0xFF: ZMTP 1.0?)');
          return;
        }
        if (before < 10 && this.headFill >= 10 && (h[9]! & 1) !== 1) {
          this.fail('not a ZMTP 3 peer (bad greeting signature)');
          return;
        }
        if (before < 11 && this.headFill >= 11 && h[10]! < 3) {
          this.fail(`ZMTP ${h[10]}.x peer refused: this server speaks ZMTP 3 (libzmq 4.0 or later, any current ZeroMQ library)`);
          return;
        }
        if (this.headFill < GREETING_BYTES) return;
        this.headFill = 0;
        this.state = S_HEADER;
        this.sink.greeting(Buffer.from(h));
        if (this.failed) return;
      } else return;
    }
  }

  /** A frame header was read: checks it; true to go on. */
  private header(flags: number, size: number): boolean {
    let why: string | null = null;
    if ((flags & 0xf8) !== 0) why = `bad frame flags 0x${flags.toString(16)}`;
    else if (flags & FLAG_COMMAND) {
      if (flags & FLAG_MORE) why = 'a command frame with MORE';
      else if (size > MAX_COMMAND_BYTES) why = `a command of ${size} bytes (at most ${MAX_COMMAND_BYTES})`;
    } else if (this.maxMessageSize >= 0 && this.messageBytes + size > this.maxMessageSize)
      why = `a message of more than ${this.maxMessageSize} bytes (maxMessageSize)`;
    if (why !== null) {
      this.fail(why);
      return false;
    }
    this.flags = flags;
    this.bodySize = size;
    this.bodyLeft = size;
    this.state = S_BODY;
    if (size === 0) return this.frame(Buffer.alloc(0));
    return true;
  }

  /** A frame is complete: a command, or a message's frame; true to go on. */
  private frame(body: Buffer): boolean {
    this.state = S_HEADER;
    const flags = this.flags;
    if (flags & FLAG_COMMAND) {
      const nameSize = body.length > 0 ? body[0]! : 0;
      if (nameSize === 0 || 1 + nameSize > body.length) {
        this.fail('a malformed command frame');
        return false;
      }
      this.sink.command(body.toString('latin1', 1, 1 + nameSize), body.subarray(1 + nameSize));
      return !this.failed;
    }
    this.frames.push(body);
    this.messageBytes += body.length;
    if ((flags & FLAG_MORE) === 0) {
      const frames = this.frames;
      this.frames = [];
      this.messageBytes = 0;
      this.sink.message(frames);
    }
    return !this.failed;
  }

  /** Refuses the rest of the stream (also called by the sink's owner to stop decoding). */
  fail(reason: string): void {
    if (this.state === S_FAILED) return;
    this.state = S_FAILED;
    this.frames = [];
    this.bodyParts = [];
    this.sink.error(reason);
  }
}

/** A peer's socket types this ROUTER serves. */
const PEER_TYPES = new Set(['DEALER', 'REQ']);

/** Our heartbeat: a PING with TTL 0 (the peer need not time us out) and a 2-byte context. */
const PING = encodeCommand('PING', Buffer.from([0, 0, 0x63, 0x67]));

const READY = encodeCommand(
  'READY',
  encodeProperties([
    ['Socket-Type', Buffer.from('ROUTER')],
    ['Identity', Buffer.alloc(0)],
  ]),
);

/** An `ERROR` command with its reason (at most 255 bytes). */
function errorCommand(reason: string): Buffer {
  const r = Buffer.from(reason, 'latin1').subarray(0, 255);
  return encodeCommand('ERROR', Buffer.concat([Buffer.of(r.length), r]));
}

/**
 * Why only libzmq binds `bind` (null when the ZMTP socket can): `inproc://` exists inside libzmq
 * only, and Node binds an abstract Unix socket (`ipc://@NAME`) under its name padded with NUL bytes
 * to 108, a name no ZeroMQ peer connects to (libzmq and Python use the name's own length).
 */
export function libzmqOnly(bind: string): string | null {
  if (bind.startsWith('inproc://')) return "inproc:// is libzmq's in-process transport";
  if (bind.startsWith('ipc://@'))
    return "Node binds an abstract socket (ipc://@NAME) under its name padded with NUL bytes, which no ZeroMQ peer reaches; libzmq's socket binds the name itself";
  return null;
}

/** The parts of a bound endpoint. */
type Listen = { kind: 'tcp'; host: string; port: number } | { kind: 'ipc'; path: string };

/** Parses an endpoint this socket binds; throws an error naming what is wrong. */
export function parseEndpoint(endpoint: string): Listen {
  const tcp = /^tcp:\/\/(\[[^\]]+\]|[^:/]+):(\d+|\*)$/.exec(endpoint);
  if (tcp) {
    const port = tcp[2] === '*' ? 0 : Number(tcp[2]);
    if (port > 65535) throw new Error(`port ${port} is out of range in ${endpoint}`);
    let host = tcp[1]!;
    if (host.startsWith('[')) host = host.slice(1, -1);
    if (host === '*') host = '0.0.0.0';
    return { kind: 'tcp', host, port };
  }
  const ipc = /^ipc:\/\/(.+)$/.exec(endpoint);
  if (ipc) {
    if (ipc[1] === '*') throw new Error('ipc://* (a generated path) is not supported: name the socket file');
    if (ipc[1]!.startsWith('@')) throw new Error(`${endpoint}: ${libzmqOnly(endpoint)}; use the libzmq transport for it`);
    return { kind: 'ipc', path: ipc[1]! };
  }
  if (endpoint.startsWith('inproc://')) throw new Error(`${endpoint}: ${libzmqOnly(endpoint)}; use the libzmq transport for it`);
  throw new Error(`${endpoint}: expected tcp://HOST:PORT or ipc://PATH`);
}

/** One peer's connection. */
class Connection implements ZmtpSink {
  readonly decoder: ZmtpDecoder;
  /** The routing id (null until the handshake is done). */
  id: Buffer | null = null;
  key = '';
  /** Refused with an ERROR command: the socket ends once it is written. */
  private ending = false;
  /** Closes the connection if the handshake takes longer than the router's `handshakeTimeoutMs`. */
  handshakeTimer: NodeJS.Timeout | null;
  /** Its messages waiting in the router's queue. */
  queued = 0;
  paused = false;
  /** When bytes last came from the peer (ms, `Date.now()`). */
  heard = Date.now();
  /** The peer's TTL from its PINGs (ms; 0: none). */
  ttlMs = 0;

  constructor(
    readonly router: ZmtpRouter,
    readonly socket: Socket,
  ) {
    this.decoder = new ZmtpDecoder(this, router.maxMessageSize);
    const ms = router.handshakeTimeoutMs;
    this.handshakeTimer = setTimeout(() => {
      this.handshakeTimer = null;
      this.decoder.fail(`no handshake within ${ms} ms`);
    }, ms);
    this.handshakeTimer.unref();
  }

  greeting(g: Buffer): void {
    const peer = parseGreeting(g);
    if (peer.mechanism !== 'NULL') {
      this.refuse(`security mechanism ${peer.mechanism} is not supported (this server speaks NULL only)`);
      return;
    }
    this.socket.write(READY);
  }

  command(name: string, data: Buffer): void {
    if (this.id === null) {
      if (name === 'READY') {
        this.ready(data);
        return;
      }
      if (name === 'ERROR') {
        this.decoder.fail('the peer sent ERROR during the handshake');
        return;
      }
      this.refuse(`expected READY, got ${name}`);
      return;
    }
    if (name === 'PING') {
      // PING: 2-byte TTL (tenths of a second), then up to 16 bytes of context, echoed in the PONG
      if (data.length >= 2) this.ttlMs = data.readUInt16BE(0) * 100;
      this.write(encodeCommand('PONG', data.subarray(2, 18)));
    } else if (name === 'ERROR') this.decoder.fail('the peer sent ERROR');
  }

  private ready(data: Buffer): void {
    let props: Map<string, Buffer>;
    try {
      props = parseProperties(data);
    } catch (e) {
      this.refuse((e as Error).message);
      return;
    }
    const type = props.get('socket-type')?.toString('latin1') ?? '';
    if (!PEER_TYPES.has(type)) {
      this.refuse(`socket type ${type || '(none)'} cannot talk to a ROUTER here (DEALER or REQ)`);
      return;
    }
    const identity = props.get('identity');
    if (identity !== undefined && identity.length > 255) {
      this.refuse('Identity longer than 255 bytes');
      return;
    }
    const id = this.router.register(this, identity !== undefined && identity.length > 0 ? Buffer.from(identity) : null);
    if (this.handshakeTimer !== null) clearTimeout(this.handshakeTimer);
    this.handshakeTimer = null;
    if (id === null) {
      this.refuse('this routing id is already connected');
      return;
    }
  }

  message(frames: Buffer[]): void {
    if (this.id === null) {
      this.refuse('a message before the handshake');
      return;
    }
    this.router.deliver(this, frames);
  }

  error(reason: string): void {
    if (this.handshakeTimer !== null) clearTimeout(this.handshakeTimer);
    this.handshakeTimer = null;
    this.router.dropped(this, reason);
    if (!this.ending) this.socket.destroy();
  }

  /** Sends an ERROR command and closes the connection (the peer has a second to read it). */
  private refuse(reason: string): void {
    this.ending = true;
    this.socket.end(errorCommand(reason));
    setTimeout(() => this.socket.destroy(), 1000).unref();
    this.decoder.fail(reason);
  }

  /** Writes bytes unless the connection is gone. */
  write(b: Buffer): void {
    if (!this.socket.destroyed) this.socket.write(b);
  }
}

/** A rejected receive's error (the socket closed), as zeromq.js's. */
function closedError(): Error {
  return Object.assign(new Error('Socket is closed'), { code: 'EBADF' });
}

/**
 * A ROUTER socket speaking ZMTP 3.1 on `node:net` (see the module's description), with the surface
 * the bridge server uses of zeromq.js's `Router`.
 */
export class ZmtpRouter {
  /**
   * A frame or message larger than this (bytes) drops its connection (-1: no limit); read when a
   * connection opens. zeromq.js's `maxMessageSize`.
   */
  maxMessageSize = -1;
  /** The endpoint bound (with the port picked for port 0 or `*`), after `bind`. */
  lastEndpoint: string | null = null;
  /** Bytes unwritten to a peer above which messages to it are dropped (`SEND_HIGH_WATER_BYTES`). */
  sendHighWaterBytes = SEND_HIGH_WATER_BYTES;
  /** A connection without its greeting and READY after this many ms is closed (`HANDSHAKE_TIMEOUT_MS`). */
  handshakeTimeoutMs = HANDSHAKE_TIMEOUT_MS;
  /** Called with each connection dropped for a protocol error, a limit or a heartbeat timeout (logs, tests). */
  onDrop: ((reason: string) => void) | null = null;
  /** A PING to a connection silent for this many ms (0: no heartbeats); set before `bind`. libzmq's `ZMQ_HEARTBEAT_IVL`. */
  heartbeatInterval = 0;
  /** A connection silent for this many ms is closed (0: never, unless its peer's PING set a TTL); set before `bind`. */
  heartbeatTimeout = 0;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private tickMs = 1000;
  private lastTick = 0;
  private server: Server | null = null;
  private ipcPath: string | null = null;
  private closed = false;
  private readonly peers = new Map<string, Connection>();
  private readonly sockets = new Set<Socket>();
  private readonly queue: { conn: Connection; frames: Buffer[] }[] = [];
  private queueHead = 0;
  private readonly waiting: { resolve: (m: Buffer[]) => void; reject: (e: Error) => void }[] = [];
  private nextId = randomInt(2 ** 32);

  /** Listens on `endpoint` (`tcp://HOST:PORT`, `ipc://PATH`). */
  async bind(endpoint: string): Promise<void> {
    if (this.closed) throw closedError();
    if (this.server) throw new Error('this ZMTP router is already bound');
    const where = parseEndpoint(endpoint);
    const server = createServer({ noDelay: true }, (s) => this.accept(s, where.kind === 'tcp'));
    if (where.kind === 'ipc') {
      // a file left by an earlier server: libzmq unlinks it before binding too
      try {
        unlinkSync(where.path);
      } catch {
        // none there
      }
    }
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      const done = () => {
        server.off('error', reject);
        resolve();
      };
      if (where.kind === 'tcp') server.listen({ host: where.host, port: where.port, exclusive: true }, done);
      else server.listen({ path: where.path, exclusive: true }, done);
    });
    server.on('error', () => {
      // a listening server's errors (none expected once bound) must not crash the process
    });
    this.server = server;
    this.startHeartbeats();
    if (where.kind === 'tcp') {
      const a = server.address() as { address: string; port: number; family: string };
      this.lastEndpoint = `tcp://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
    } else {
      this.ipcPath = where.path;
      this.lastEndpoint = endpoint;
    }
  }

  private accept(s: Socket, tcp: boolean): void {
    if (this.closed) {
      s.destroy();
      return;
    }
    if (tcp) s.setNoDelay(true);
    const conn = new Connection(this, s);
    this.sockets.add(s);
    s.write(greeting(false));
    s.on('data', (chunk: Buffer) => {
      conn.heard = Date.now();
      conn.decoder.push(chunk);
    });
    s.on('error', () => {
      // a reset connection: 'close' follows
    });
    s.on('close', () => {
      this.sockets.delete(s);
      if (conn.id !== null && this.peers.get(conn.key) === conn) this.peers.delete(conn.key);
      if (!conn.decoder.failed) conn.decoder.fail('closed');
    });
  }

  /** Starts the heartbeat ticks (when `heartbeatInterval` or `heartbeatTimeout` is set). */
  private startHeartbeats(): void {
    // a tick at least every second (a peer's PING may set a TTL even when ours are off)
    const every = Math.min(this.heartbeatInterval > 0 ? this.heartbeatInterval : 1000, this.heartbeatTimeout > 0 ? this.heartbeatTimeout / 4 : 1000, 1000);
    this.tickMs = Math.max(10, every);
    this.lastTick = Date.now();
    this.heartbeatTimer = setInterval(() => this.heartbeatTick(), this.tickMs);
    this.heartbeatTimer.unref();
  }

  /** PINGs silent connections and closes those silent past their timeout. */
  private heartbeatTick(): void {
    const now = Date.now();
    const late = now - this.lastTick;
    this.lastTick = now;
    const period = this.tickMs;
    for (const conn of this.peers.values()) {
      // this process was busy (a long request): nobody could be heard meanwhile
      if (late > 2 * period + 250) conn.heard = Math.max(conn.heard, now - period);
      const quiet = now - conn.heard;
      const timeout = conn.ttlMs > 0 ? conn.ttlMs : this.heartbeatTimeout;
      if (timeout > 0 && quiet >= timeout) {
        this.onDrop?.(`heartbeat timeout: nothing from the peer for ${quiet} ms`);
        conn.socket.destroy();
      } else if (this.heartbeatInterval > 0 && quiet >= this.heartbeatInterval) conn.write(PING);
    }
  }

  /** Gives a connection its routing id (its own, or a generated one); null if that id is taken. */
  register(conn: Connection, own: Buffer | null): Buffer | null {
    let id = own;
    let key: string;
    if (id !== null) {
      key = id.toString('latin1');
      if (this.peers.has(key)) return null;
    } else {
      for (;;) {
        id = Buffer.allocUnsafe(5);
        id[0] = 0;
        id.writeUInt32BE(this.nextId, 1);
        this.nextId = (this.nextId + 1) >>> 0;
        key = id.toString('latin1');
        if (!this.peers.has(key)) break;
      }
    }
    conn.id = id;
    conn.key = key;
    this.peers.set(key, conn);
    return id;
  }

  /** A complete message from `conn`: to a waiting `receive()`, else queued. */
  deliver(conn: Connection, frames: Buffer[]): void {
    frames.unshift(conn.id!);
    const w = this.waiting.shift();
    if (w) {
      w.resolve(frames);
      return;
    }
    this.queue.push({ conn, frames });
    if (++conn.queued >= RECEIVE_HIGH_WATER_MESSAGES && !conn.paused) {
      conn.paused = true;
      conn.socket.pause();
    }
  }

  /** A connection refused or broken (the decoder's error). */
  dropped(conn: Connection, reason: string): void {
    if (conn.id !== null && this.peers.get(conn.key) === conn) this.peers.delete(conn.key);
    if (reason !== 'closed') this.onDrop?.(reason);
  }

  /** The next message: `[routingId, ...frames]`. Rejects when the socket closes. */
  receive(): Promise<Buffer[]> {
    if (this.queueHead < this.queue.length) {
      const m = this.queue[this.queueHead]!;
      this.queue[this.queueHead++] = undefined as never;
      if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
        this.queue.splice(0, this.queueHead);
        this.queueHead = 0;
      }
      const c = m.conn;
      if (--c.queued < RECEIVE_HIGH_WATER_MESSAGES / 2 && c.paused) {
        c.paused = false;
        c.socket.resume();
      }
      return Promise.resolve(m.frames);
    }
    if (this.closed) return Promise.reject(closedError());
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /**
   * Sends `[routingId, ...frames]` to that peer. A message to an unknown peer, or to one with more
   * than `sendHighWaterBytes` unwritten, is dropped silently (ROUTER semantics).
   */
  send(message: readonly Uint8Array[]): Promise<void> {
    if (this.closed) return Promise.reject(closedError());
    if (message.length < 2) return Promise.resolve();
    const id = message[0]!;
    const conn = this.peers.get(Buffer.from(id.buffer, id.byteOffset, id.byteLength).toString('latin1'));
    if (conn === undefined) return Promise.resolve();
    const s = conn.socket;
    if (s.destroyed || s.writableLength > this.sendHighWaterBytes) return Promise.resolve();
    let total = 0;
    for (let i = 1; i < message.length; i++) total += message[i]!.length;
    if (total < COPY_BELOW_BYTES) s.write(encodeMessage(message, 1));
    else {
      // no copy of large frames: headers and bodies corked, leaving in one writev
      s.cork();
      for (let i = 1; i < message.length; i++) {
        const f = message[i]!;
        s.write(frameHeader(i < message.length - 1 ? FLAG_MORE : 0, f.length));
        if (f.length > 0) s.write(f);
      }
      s.uncork();
    }
    return Promise.resolve();
  }

  /** Stops listening, closes every connection, rejects pending receives; removes the ipc file. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeatTimer !== null) clearInterval(this.heartbeatTimer);
    this.server?.close();
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    this.peers.clear();
    this.queue.length = 0;
    this.queueHead = 0;
    for (const w of this.waiting.splice(0)) w.reject(closedError());
    if (this.ipcPath !== null) {
      try {
        unlinkSync(this.ipcPath);
      } catch {
        // already gone
      }
    }
  }
}
