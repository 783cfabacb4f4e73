/**
 * ZMTP 3 on the wire (rfc.zeromq.org/spec/23 for 3.0 and spec/37 for 3.1): what the bytes of a
 * ZeroMQ connection are, with no socket. `zmtp.ts`'s ROUTER speaks it; this module says how it is
 * written and read:
 *
 * - **Greeting**: 64 bytes: the signature `FF 00 00 00 00 00 00 00 01 7F`, the version (major 3,
 *   minor 1), the mechanism name padded with zeros to 20 bytes, the as-server byte and 31 zero bytes
 *   (`greeting`, `parseGreeting`).
 * - **Frames**: a flags byte (bit 0 MORE, bit 1 LONG, bit 2 COMMAND; the other bits must be zero),
 *   then the size (1 byte, or 8 bytes big-endian when LONG), then the body. A message is its frames
 *   up to the first one without MORE (`frameHeader`, `encodeMessage`).
 * - **Commands**: single frames (`name-size`, name, data) that may come between any two frames
 *   (`encodeCommand`); READY's metadata are properties (`encodeProperties`, `parseProperties`).
 * - **Decoding**: `ZmtpDecoder` is a state machine fed a connection's bytes chunk by chunk; any split
 *   of the stream decodes the same. Commands are bounded by `MAX_COMMAND_BYTES`, frames and messages
 *   by the caller's `maxMessageSize`.
 */

/** Flag bits of a frame's first byte. */
export const FLAG_MORE = 1;
export const FLAG_LONG = 2;
export const FLAG_COMMAND = 4;

/** The size of a ZMTP 3 greeting. */
export const GREETING_BYTES = 64;

/** A command frame's body at most (a READY with its properties, a PING): larger drops the connection. */
export const MAX_COMMAND_BYTES = 64 * 1024;

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
