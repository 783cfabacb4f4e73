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
