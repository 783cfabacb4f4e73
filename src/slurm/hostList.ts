/**
 * Slurm's syntax for host lists (`n[1-3,7]`, `r[1-2]n[1-4]`) and times (`MaxTime`, `PriorityMaxAge`:
 * minutes, `[days-]hours:minutes:seconds`, `UNLIMITED`), shared by the slurm.conf reader and the Slurm
 * client.
 */

/** Expands a Slurm host list (`n[1-3,7],m[01-02]`, `r[1-2]n[1-2]`) into names, in order. */
export function expandHostList(expr: string): string[] {
  const out: string[] = [];
  for (const part of splitTopLevel(expr)) {
    if (part === '') throw new Error(`empty host name in ${JSON.stringify(expr)}`);
    let names = [''];
    let rest = part;
    while (rest.length > 0) {
      const open = rest.indexOf('[');
      if (open < 0) {
        names = names.map((n) => n + rest);
        break;
      }
      const close = rest.indexOf(']', open);
      if (close < 0) throw new Error(`unclosed "[" in ${JSON.stringify(expr)}`);
      const prefix = rest.slice(0, open);
      const items: string[] = [];
      for (const r of rest.slice(open + 1, close).split(',')) {
        const m = /^(\d+)(?:-(\d+))?$/.exec(r.trim());
        if (!m) throw new Error(`bad range ${JSON.stringify(r)} in ${JSON.stringify(expr)} (expected N or N-M)`);
        const a = Number(m[1]);
        const b = m[2] === undefined ? a : Number(m[2]);
        if (b < a) throw new Error(`range ${r} goes down in ${JSON.stringify(expr)}`);
        if (b - a > 1_000_000) throw new Error(`range ${r} too long in ${JSON.stringify(expr)}`);
        const width = m[1]!.length;
        for (let i = a; i <= b; i++) items.push(String(i).padStart(width, '0'));
      }
      names = names.flatMap((n) => items.map((x) => n + prefix + x));
      rest = rest.slice(close + 1);
    }
    out.push(...names);
  }
  return out;
}

/** The shortest usual host list of `names` (`n1,n2,n3,n7` -> `n[1-3,7]`), the inverse of `expandHostList`. */
export function compressHostList(names: readonly string[]): string {
  const byPrefix = new Map<string, { width: number; nums: number[] }[]>();
  const out: string[] = [];
  const order: string[] = [];
  for (const n of names) {
    const m = /^(.*?)(\d+)$/.exec(n);
    if (!m) {
      out.push(n);
      continue;
    }
    const key = `${m[1]}\u0000${m[2]!.startsWith('0') ? m[2]!.length : 0}`;
    if (!byPrefix.has(key)) {
      byPrefix.set(key, [{ width: m[2]!.startsWith('0') ? m[2]!.length : 0, nums: [] }]);
      order.push(key);
    }
    byPrefix.get(key)![0]!.nums.push(Number(m[2]));
  }
  for (const key of order) {
    const prefix = key.split('\u0000')[0]!;
    const { width, nums } = byPrefix.get(key)![0]!;
    const sorted = [...new Set(nums)].sort((a, b) => a - b);
    const pad = (x: number) => String(x).padStart(width, '0');
    if (sorted.length === 1) {
      out.push(prefix + pad(sorted[0]!));
      continue;
    }
    const ranges: string[] = [];
    for (let i = 0; i < sorted.length; ) {
      let j = i;
      while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
      ranges.push(i === j ? pad(sorted[i]!) : `${pad(sorted[i]!)}-${pad(sorted[j]!)}`);
      i = j + 1;
    }
    out.push(`${prefix}[${ranges.join(',')}]`);
  }
  return out.join(',');
}

/** Splits at commas outside brackets (`open`/`close`: `[` and `]` by default). */
export function splitTopLevel(s: string, open = '[', close = ']'): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of s) {
    if (c === open) depth++;
    else if (c === close) depth--;
    if (c === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += c;
  }
  parts.push(cur);
  return parts;
}

/**
 * A Slurm time (`MaxTime`, `PriorityMaxAge`...) in seconds: `minutes`, `minutes:seconds`,
 * `hours:minutes:seconds`, `days-hours`, `days-hours:minutes`, `days-hours:minutes:seconds`;
 * `UNLIMITED`/`INFINITE` is Infinity.
 */
export function parseSlurmTime(v: string): number {
  const s = v.trim();
  if (/^(unlimited|infinite)$/i.test(s)) return Number.POSITIVE_INFINITY;
  let m = /^(\d+)-(\d+)(?::(\d+))?(?::(\d+))?$/.exec(s);
  if (m) return Number(m[1]) * 86400 + Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
  m = /^(\d+)(?::(\d+))?(?::(\d+))?$/.exec(s);
  if (!m) throw new Error(`expected a Slurm time (minutes, [days-]hours:minutes:seconds, UNLIMITED), found ${JSON.stringify(v)}`);
  if (m[3] !== undefined) return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
  if (m[2] !== undefined) return Number(m[1]) * 60 + Number(m[2]);
  return Number(m[1]) * 60;
}
