/**
 * CSV, written once for every output of the project (jobs.csv, resizes.csv, the monitor's series,
 * Batsim's outputs, schedules): RFC 4180 fields, comma-separated, a field quoted when it holds a comma,
 * a double quote, a line feed or a carriage return (its double quotes doubled).
 */

/** One CSV field: `s` as is, or quoted when it must be. */
export function csvField(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A field always quoted (Batsim quotes its `metadata` column whatever it holds). */
export function csvQuoted(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

/** One CSV line (without its line break): strings quoted as `csvField` does, numbers in their shortest exact form. */
export function csvRow(fields: readonly (string | number)[]): string {
  let out = '';
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (i > 0) out += ',';
    out += typeof f === 'number' ? String(f) : csvField(f);
  }
  return out;
}
