/**
 * SimGrid's units for platform values: a number followed by a unit, as SimGrid 3.32 reads them.
 *
 * - speed: `f` or `flops`, with decimal prefixes (`kf`, `Mf`, `Gf`, ..., `Yf`; `kiloflops`, `megaflops`, ...);
 * - bandwidth: `Bps` (bytes/s) or `bps` (bits/s, 1/8 byte), with decimal (`kBps`, `MBps`, `GBps`, ...) or binary
 *   (`KiBps`, `MiBps`, ...) prefixes;
 * - size: `B` or `b`, same prefixes (`MB`, `MiB`, `Gb`, ...);
 * - time: `w`, `d`, `h`, `m`, `s`, `ms`, `us`, `ns`, `ps`.
 *
 * A bare number takes the base unit (SimGrid warns for non-zero ones). Each prefix multiplies the previous
 * one by 1000 (or 1024), so `1Gf` is `1 * (1000 * 1000 * 1000)` exactly as SimGrid computes it.
 */

type UnitTable = ReadonlyMap<string, number>;

function scaled(units: [unit: string, value: number, base: 2 | 10, abbreviated: boolean][]): UnitTable {
  const m = new Map<string, number>();
  for (const [unit, value, base, abbreviated] of units) {
    const mult = base === 2 ? 1024 : 1000;
    const prefixes =
      base === 2
        ? abbreviated
          ? ['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei', 'Zi', 'Yi']
          : ['kibi', 'mebi', 'gibi', 'tebi', 'pebi', 'exbi', 'zebi', 'yobi']
        : abbreviated
          ? ['k', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y']
          : ['kilo', 'mega', 'giga', 'tera', 'peta', 'exa', 'zeta', 'yotta'];
    let v = value;
    if (!m.has(unit)) m.set(unit, v);
    for (const p of prefixes) {
      v *= mult;
      if (!m.has(p + unit)) m.set(p + unit, v);
    }
  }
  return m;
}

const SPEED = scaled([
  ['f', 1, 10, true],
  ['flops', 1, 10, false],
]);
const BANDWIDTH = scaled([
  ['bps', 0.125, 2, true],
  ['bps', 0.125, 10, true],
  ['Bps', 1, 2, true],
  ['Bps', 1, 10, true],
]);
const SIZE = scaled([
  ['b', 0.125, 2, true],
  ['b', 0.125, 10, true],
  ['B', 1, 2, true],
  ['B', 1, 10, true],
]);
const TIME: UnitTable = new Map([
  ['w', 7 * 24 * 60 * 60],
  ['d', 24 * 60 * 60],
  ['h', 60 * 60],
  ['m', 60],
  ['s', 1],
  ['ms', 1e-3],
  ['us', 1e-6],
  ['ns', 1e-9],
  ['ps', 1e-12],
]);

/** The kinds of values SimGrid reads with a unit. */
export type UnitKind = 'speed' | 'bandwidth' | 'size' | 'time';

const TABLES: Record<UnitKind, { table: UnitTable; base: string; examples: string }> = {
  speed: { table: SPEED, base: 'f', examples: 'f, kf, Mf, Gf, Tf (flop/s)' },
  bandwidth: { table: BANDWIDTH, base: 'Bps', examples: 'Bps, kBps, MBps, GBps, KiBps, MiBps, bps, Gbps (bytes or bits per second)' },
  size: { table: SIZE, base: 'B', examples: 'B, kB, MB, GB, KiB, MiB, b, Mb' },
  time: { table: TIME, base: 's', examples: 's, ms, us, ns, ps, m, h, d, w' },
};

const NUMBER = /^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)/;

/**
 * The value of `text` (`"1.5Gf"`, `"10Gbps"`, `"50us"`) in the base unit of `kind` (flop/s, bytes/s, bytes,
 * seconds). Throws an `Error` whose message says what was found and which units are expected.
 */
export function parseUnit(text: string, kind: UnitKind): number {
  const { table, base, examples } = TABLES[kind];
  const m = NUMBER.exec(text);
  if (!m) throw new Error(`cannot read a number in ${JSON.stringify(text)} (expected a ${kind} such as "1${base}")`);
  const value = Number(m[1]);
  const unit = text.slice(m[0].length).trim() || base;
  const mult = table.get(unit);
  if (mult === undefined) throw new Error(`unknown ${kind} unit ${JSON.stringify(unit)} in ${JSON.stringify(text)} (expected one of ${examples})`);
  return value * mult;
}

/** A comma-separated list of speeds (one per power state): `"1Gf, 500Mf"`. */
export function parseSpeeds(text: string): number[] {
  return text.split(',').map((s) => parseUnit(s.trim(), 'speed'));
}
