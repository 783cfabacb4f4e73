/**
 * Batsim's interval sets of resource ids as the protocol writes them (Batsim's "interval set string
 * representation", pybatsim's `str(ProcSet)`): closed intervals `a-b` and single ids `a` separated by
 * spaces, e.g. `"0-3 5 7-8"`. Ids are integers >= 0; the set is the union of its parts.
 */

/** The ids of an interval-set string, ascending and distinct; a `string` error message when malformed. */
export function parseIntervalSet(text: string): number[] | string {
  const parts = text
    .trim()
    .split(/\s+/)
    .filter((p) => p.length > 0);
  if (parts.length === 0) return 'the interval set is empty';
  const ids = new Set<number>();
  for (const part of parts) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) return `${JSON.stringify(part)} is not an id nor an interval a-b`;
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b)) return `${JSON.stringify(part)} is out of range`;
    if (b < a) return `${JSON.stringify(part)}: the interval ends before it starts`;
    if (b - a > 1e7) return `${JSON.stringify(part)}: the interval is too large`;
    for (let i = a; i <= b; i++) ids.add(i);
  }
  return [...ids].sort((x, y) => x - y);
}

/** The interval-set string of `ids` (any order, duplicates allowed): `"0-3 5"`, as Batsim writes it. */
export function formatIntervalSet(ids: Iterable<number>): string {
  const sorted = [...new Set(ids)].sort((x, y) => x - y);
  const out: string[] = [];
  let i = 0;
  while (i < sorted.length) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    out.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return out.join(' ');
}
