/**
 * The ZMTP 3 codec of bridge/zmtp.ts without sockets: greetings, frame headers at the 255/256-byte
 * boundary (hand-written bytes), commands and READY properties, the decoder's refusals (ZMTP 1.0 and
 * 2.0 peers, reserved flags, commands with MORE, oversize frames and messages), and, under
 * fast-check, that any split of a valid byte stream into chunks decodes to the same commands and
 * messages as the whole stream, and that arbitrary bytes never make it throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  encodeCommand,
  encodeMessage,
  encodeProperties,
  FLAG_COMMAND,
  FLAG_LONG,
  FLAG_MORE,
  frameHeader,
  GREETING_BYTES,
  greeting,
  parseEndpoint,
  parseGreeting,
  parseProperties,
  ZmtpDecoder,
  type ZmtpSink,
} from '../../bridge/zmtp.js';

type Item = { greeting: Buffer } | { command: string; data: Buffer } | { message: Buffer[] } | { error: string };

/** A decoder recording what it reports. */
function recorder(maxMessageSize = -1): { decoder: ZmtpDecoder; items: Item[] } {
  const items: Item[] = [];
  const sink: ZmtpSink = {
    greeting: (g) => items.push({ greeting: Buffer.from(g) }),
    command: (name, data) => items.push({ command: name, data: Buffer.from(data) }),
    message: (frames) => items.push({ message: frames.map((f) => Buffer.from(f)) }),
    error: (reason) => items.push({ error: reason }),
  };
  return { decoder: new ZmtpDecoder(sink, maxMessageSize), items };
}

const b = (...bytes: number[]): Buffer => Buffer.from(bytes);

describe('ZMTP encoding (hand-written bytes)', () => {
  it('a greeting is 64 bytes: signature, version 3.1, NULL, as-server, zero filler', () => {
    const g = greeting(false);
    expect(g.length).toBe(GREETING_BYTES);
    expect([...g.subarray(0, 12)]).toEqual([0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f, 3, 1]);
    expect(g.subarray(12, 32).toString('latin1')).toBe(`NULL${'\0'.repeat(16)}`);
    expect(g[32]).toBe(0);
    expect(g.subarray(33).every((x) => x === 0)).toBe(true);
    expect(parseGreeting(greeting(true, 'CURVE'))).toEqual({ major: 3, minor: 1, mechanism: 'CURVE', asServer: true });
  });

  it('frames: a 1-byte size up to 255, an 8-byte big-endian size from 256, MORE on all but the last', () => {
    expect([...encodeMessage([b(1, 2), Buffer.alloc(0), b(9)])]).toEqual([FLAG_MORE, 2, 1, 2, FLAG_MORE, 0, 0, 1, 9]);
    const f255 = encodeMessage([Buffer.alloc(255, 7)]);
    expect(f255.length).toBe(257);
    expect([...f255.subarray(0, 2)]).toEqual([0, 255]);
    const f256 = encodeMessage([Buffer.alloc(256, 7)]);
    expect(f256.length).toBe(265);
    expect([...f256.subarray(0, 9)]).toEqual([FLAG_LONG, 0, 0, 0, 0, 0, 0, 1, 0]);
    expect([...frameHeader(FLAG_MORE, 5 * 2 ** 32 + 3)]).toEqual([FLAG_MORE | FLAG_LONG, 0, 0, 0, 5, 0, 0, 0, 3]);
    // the routing id (frame 0) is skipped when sending from 1
    expect([...encodeMessage([b(0, 0, 0, 0, 1), b(42)], 1)]).toEqual([0, 1, 42]);
  });

  it('commands: name-size, name, data; READY properties with 4-byte value sizes, names read without case', () => {
    expect([...encodeCommand('PONG', b(7, 8))]).toEqual([FLAG_COMMAND, 7, 4, ...Buffer.from('PONG'), 7, 8]);
    const props = encodeProperties([['Socket-Type', Buffer.from('DEALER')]]);
    expect([...props]).toEqual([11, ...Buffer.from('Socket-Type'), 0, 0, 0, 6, ...Buffer.from('DEALER')]);
    const parsed = parseProperties(Buffer.concat([props, encodeProperties([['IDENTITY', b()]])]));
    expect(parsed.get('socket-type')?.toString()).toBe('DEALER');
    expect(parsed.get('identity')?.length).toBe(0);
    expect(() => parseProperties(props.subarray(0, props.length - 1))).toThrow(/malformed/);
    expect(() => parseProperties(b(0))).toThrow(/malformed/);
  });

  it('endpoints: tcp with a port, * or 0; ipc paths; inproc and the abstract namespace (ipc://@) are refused', () => {
    expect(parseEndpoint('tcp://127.0.0.1:*')).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 0 });
    expect(parseEndpoint('tcp://*:5555')).toEqual({ kind: 'tcp', host: '0.0.0.0', port: 5555 });
    expect(parseEndpoint('tcp://[::1]:0')).toEqual({ kind: 'tcp', host: '::1', port: 0 });
    expect(parseEndpoint('ipc:///tmp/x.sock')).toEqual({ kind: 'ipc', path: '/tmp/x.sock' });
    expect(() => parseEndpoint('ipc://@name')).toThrow(/padded with NUL bytes.*libzmq/);
    expect(() => parseEndpoint('tcp://127.0.0.1:70000')).toThrow(/out of range/);
    expect(() => parseEndpoint('inproc://x')).toThrow(/libzmq/);
    expect(() => parseEndpoint('udp://x:1')).toThrow(/expected tcp/);
  });
});

describe('ZmtpDecoder', () => {
  it('decodes a greeting, a READY, a PING and two messages from one chunk', () => {
    const { decoder, items } = recorder();
    const ready = encodeCommand('READY', encodeProperties([['Socket-Type', Buffer.from('REQ')]]));
    decoder.push(
      Buffer.concat([
        greeting(false),
        ready,
        encodeMessage([b(), Buffer.from('hi')]),
        encodeCommand('PING', b(0, 10, 1, 2)),
        encodeMessage([Buffer.alloc(300, 1)]),
      ]),
    );
    expect(items.length).toBe(5);
    expect(items[0]).toEqual({ greeting: greeting(false) });
    expect(items[1]).toMatchObject({ command: 'READY' });
    expect(
      parseProperties((items[1] as { data: Buffer }).data)
        .get('socket-type')
        ?.toString(),
    ).toBe('REQ');
    expect(items[2]).toEqual({ message: [b(), Buffer.from('hi')] });
    expect(items[3]).toEqual({ command: 'PING', data: b(0, 10, 1, 2) });
    expect(items[4]).toEqual({ message: [Buffer.alloc(300, 1)] });
    expect(decoder.failed).toBe(false);
  });

  it('a command between two frames of a message leaves the message whole', () => {
    const { decoder, items } = recorder();
    decoder.push(Buffer.concat([greeting(false), b(FLAG_MORE, 1, 65), encodeCommand('PING', b(0, 0)), b(0, 1, 66)]));
    expect(items.slice(1)).toEqual([{ command: 'PING', data: b(0, 0) }, { message: [b(65), b(66)] }]);
  });

  it('refuses ZMTP 1.0 at the first byte and ZMTP 2.0 at the version byte, naming it', () => {
    const one = recorder();
    one.decoder.push(b(1, 0, 65));
    expect(one.items).toEqual([{ error: expect.stringMatching(/0xFF/) }]);
    const two = recorder();
    const g = greeting(false);
    g[10] = 1;
    two.decoder.push(g.subarray(0, 10));
    expect(two.items).toEqual([]);
    two.decoder.push(g.subarray(10, 11));
    expect(two.items).toEqual([{ error: expect.stringMatching(/ZMTP 1\.x peer refused/) }]);
    // nothing more is decoded after an error
    two.decoder.push(encodeMessage([b(1)]));
    expect(two.items.length).toBe(1);
    const sig = recorder();
    const bad = greeting(false);
    bad[9] = 0x7e;
    sig.decoder.push(bad);
    expect(sig.items).toEqual([{ error: expect.stringMatching(/signature/) }]);
  });

  it('refuses reserved flag bits, a command with MORE, a malformed command', () => {
    for (const [bytes, why] of [
      [b(8, 0), /flags 0x8/],
      [b(FLAG_COMMAND | FLAG_MORE, 1, 1), /command frame with MORE/],
      [b(FLAG_COMMAND, 2, 5, 65), /malformed command/],
      [b(FLAG_COMMAND, 0), /malformed command/],
    ] as const) {
      const { decoder, items } = recorder();
      decoder.push(Buffer.concat([greeting(false), bytes]));
      expect(items[1]).toEqual({ error: expect.stringMatching(why) });
      expect(decoder.failed).toBe(true);
    }
  });

  it('maxMessageSize: a frame over it, or a message whose frames add up over it, is refused at its header', () => {
    const ok = recorder(10);
    ok.decoder.push(Buffer.concat([greeting(false), encodeMessage([Buffer.alloc(4), Buffer.alloc(6)])]));
    expect(ok.items[1]).toEqual({ message: [Buffer.alloc(4), Buffer.alloc(6)] });
    const frame = recorder(10);
    // only the header of the 11-byte frame: refused before its body is read
    frame.decoder.push(Buffer.concat([greeting(false), b(0, 11)]));
    expect(frame.items[1]).toEqual({ error: expect.stringMatching(/more than 10 bytes/) });
    const message = recorder(10);
    message.decoder.push(Buffer.concat([greeting(false), b(FLAG_MORE, 6, 1, 2, 3, 4, 5, 6, 0, 5)]));
    expect(message.items[1]).toEqual({ error: expect.stringMatching(/more than 10 bytes/) });
    // a size beyond 2^53 is refused whatever the limit
    const huge = recorder();
    huge.decoder.push(Buffer.concat([greeting(false), b(FLAG_LONG, 0xff, 0, 0, 0, 0, 0, 0, 1)]));
    expect(huge.items[1]).toEqual({ error: expect.stringMatching(/a frame of \d+ bytes/) });
  });

  it('bodies within one chunk are views of it; bodies across chunks are copied whole', () => {
    const { decoder, items } = recorder();
    const msg = encodeMessage([Buffer.alloc(1000, 3)]);
    decoder.push(greeting(false));
    decoder.push(msg.subarray(0, 500));
    decoder.push(msg.subarray(500));
    expect(items[1]).toEqual({ message: [Buffer.alloc(1000, 3)] });
  });
});

/** A valid stream: greeting, READY, then messages with commands between some of them. */
const streamArb = fc
  .array(
    fc.record({
      frames: fc.array(
        fc.oneof(
          fc.uint8Array({ maxLength: 4 }),
          fc.uint8Array({ minLength: 250, maxLength: 260 }),
          fc.integer({ min: 0, max: 1500 }).map((n) => new Uint8Array(n).fill(n & 255)),
        ),
        { minLength: 1, maxLength: 5 },
      ),
      ping: fc.option(fc.uint8Array({ maxLength: 16 }), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 8 },
  )
  .map((msgs) => {
    const parts: Buffer[] = [greeting(false), encodeCommand('READY', encodeProperties([['Socket-Type', Buffer.from('DEALER')]]))];
    const expected: Item[] = [{ greeting: greeting(false) }, { command: 'READY', data: encodeProperties([['Socket-Type', Buffer.from('DEALER')]]) }];
    for (const m of msgs) {
      if (m.ping) {
        const data = Buffer.concat([b(0, 1), Buffer.from(m.ping)]);
        parts.push(encodeCommand('PING', data));
        expected.push({ command: 'PING', data });
      }
      parts.push(encodeMessage(m.frames));
      expected.push({ message: m.frames.map((f) => Buffer.from(f)) });
    }
    return { stream: Buffer.concat(parts), expected };
  });

describe('ZmtpDecoder under any chunking (fast-check)', () => {
  it('any split of a valid stream into chunks gives the same commands and messages', () => {
    fc.assert(
      fc.property(streamArb, fc.array(fc.nat(), { maxLength: 40 }), ({ stream, expected }, cuts) => {
        const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((x, y) => x - y);
        const { decoder, items } = recorder();
        let from = 0;
        for (const p of [...points, stream.length]) {
          decoder.push(stream.subarray(from, p));
          from = p;
        }
        expect(items).toEqual(expected);
      }),
      { numRuns: 150, seed: 31 },
    );
  });

  it('arbitrary bytes after a greeting never throw: they decode, wait for more, or fail once', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.integer({ min: -1, max: 300 }), (junk, max) => {
        const { decoder, items } = recorder(max);
        expect(() => decoder.push(Buffer.concat([greeting(false), Buffer.from(junk)]))).not.toThrow();
        const errors = items.filter((x) => 'error' in x);
        expect(errors.length).toBeLessThanOrEqual(1);
        if (errors.length === 1) expect(items[items.length - 1]).toBe(errors[0]);
      }),
      { numRuns: 500, seed: 5 },
    );
  });

  it('byte by byte gives the same as the whole stream', () => {
    fc.assert(
      fc.property(streamArb, ({ stream, expected }) => {
        const { decoder, items } = recorder();
        for (let i = 0; i < stream.length; i++) decoder.push(stream.subarray(i, i + 1));
        expect(items).toEqual(expected);
      }),
      { numRuns: 30, seed: 7 },
    );
  });
});
