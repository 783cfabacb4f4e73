/**
 * What the task-trace readers share: line-by-line reading of large files (`readLines`, in src/core/lines.ts
 * and re-exported here), the summary of a read, CSV numbers.
 */
export { type NumberedLine, readLines } from '../../core/lines.js';

/** What a reader did: rows read, tasks produced, rows or tasks skipped by reason. */
export interface ReadSummary {
  rows: number;
  produced: number;
  skipped: Record<string, number>;
}

/** A fresh summary. */
export function newSummary(): ReadSummary {
  return { rows: 0, produced: 0, skipped: {} };
}

/** Counts one skipped row or task under `reason`. */
export function skip(s: ReadSummary, reason: string): void {
  s.skipped[reason] = (s.skipped[reason] ?? 0) + 1;
}

/** A number from a CSV field: NaN when empty or not a number. */
export function num(field: string | undefined): number {
  if (field === undefined) return Number.NaN;
  const t = field.trim();
  return t === '' ? Number.NaN : Number(t);
}
