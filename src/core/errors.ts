/**
 * Errors a user can act on. `InputError` is bad input (a file, a JSON path, an SWF line, a CLI
 * flag): the CLI prints its message and exits with code 2, without a stack trace.
 */
export class InputError extends Error {
  /** Where the problem is: a file name, optionally with `:line` or a JSON path. */
  readonly where: string | undefined;
  constructor(message: string, where?: string) {
    super(where ? `${where}: ${message}` : message);
    this.name = 'InputError';
    this.where = where;
  }
}

/** Formats a zod-like issue path as a JSON path: `$.clusters[0].nodes[1].count`. */
export function jsonPath(path: readonly (string | number)[]): string {
  let s = '$';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`;
  return s;
}

interface IssueLike {
  path: (string | number)[];
  message: string;
}

/** Builds one `InputError` naming every issue of a failed zod parse, each with its JSON path. */
export function inputErrorFromIssues(where: string, issues: readonly IssueLike[]): InputError {
  const lines = issues.map((i) => `${jsonPath(i.path)}: ${i.message}`);
  return new InputError(lines.length === 1 ? lines[0]! : `\n  ${lines.join('\n  ')}`, where);
}

/** Levenshtein edit distance between two short strings. */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = [i];
    for (let j = 1; j <= n; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[n]!;
}

/**
 * The candidate closest to `name` when it is plausibly a misspelling of it (edit distance at most a
 * third of the longer name, at least 1; or the same letters without `_`), or a candidate that `name`
 * begins (`Energy` -> `EnergyHeuristic`), else null.
 */
export function closestName(name: string, candidates: readonly string[]): string | null {
  const bare = (s: string) => s.toLowerCase().replace(/[_-]/g, '');
  if (name.length >= 3) {
    const prefixed = candidates.filter((c) => bare(c).startsWith(bare(name)));
    if (prefixed.length === 1) return prefixed[0]!;
  }
  let best: string | null = null;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = bare(c) === bare(name) ? 0 : editDistance(name.toLowerCase(), c.toLowerCase());
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  if (best === null) return null;
  return bestD <= Math.max(1, Math.floor(Math.max(name.length, best.length) / 3)) ? best : null;
}

/** ` (did you mean "x"?)` when `name` looks like a misspelling of one of `candidates`, else ``. */
export function didYouMean(name: string, candidates: readonly string[]): string {
  const c = closestName(name, candidates);
  return c === null ? '' : ` (did you mean ${JSON.stringify(c)}?)`;
}

/**
 * The keys of `obj` not in `known`, each as a message `unknown field "memvol" (did you mean "mem_vol"?)`;
 * an empty array when every key is known.
 */
export function unknownKeys(obj: Record<string, unknown>, known: readonly string[]): { key: string; message: string }[] {
  const out: { key: string; message: string }[] = [];
  for (const k of Object.keys(obj)) if (!known.includes(k)) out.push({ key: k, message: `unknown field ${JSON.stringify(k)}${didYouMean(k, known)}` });
  return out;
}
