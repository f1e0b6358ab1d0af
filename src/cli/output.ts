import { ServiceError } from '../services/errors.js';
import { DatabaseMissingError } from '../store/open.js';
import { isStoreUnavailable } from '../store/unavailable.js';
import type { OutputOptions } from './options.js';

/** Prints a result: JSON for machines with --json, the human text otherwise. */
export function emit(options: OutputOptions, result: unknown, human: string): void {
  process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${human}\n`);
}

/** How a list command prints its entries: their records with --json; else a table, or a hint when empty. */
export interface ListView<Entry> {
  record: (entry: Entry) => unknown;
  /** What to print instead of an empty table (usually how to make the first one). */
  empty: string;
  headers: string[];
  row: (entry: Entry) => (string | number)[];
}

export function emitList<Entry>(options: OutputOptions, entries: Entry[], view: ListView<Entry>): void {
  emit(
    options,
    entries.map(view.record),
    entries.length === 0 ? view.empty : table(view.headers, entries.map(view.row)),
  );
}

/** A plain text table: one header row, columns padded to the widest cell. */
export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  return cells
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Reports a failure on stdout (--json) or stderr, and sets a non-zero exit code. */
export function fail(options: OutputOptions, error: unknown): void {
  const known = error instanceof ServiceError;
  const code = known
    ? error.code
    : error instanceof DatabaseMissingError
      ? 'not_found'
      : isStoreUnavailable(error)
        ? 'unavailable'
        : 'internal_error';
  const message = known || error instanceof Error ? (error as Error).message : String(error);
  if (options.json) {
    const problems = known ? error.problems : undefined;
    process.stdout.write(
      `${JSON.stringify({ error: { code, message, ...(problems ? { problems } : {}) } }, null, 2)}\n`,
    );
  } else {
    process.stderr.write(`error: ${message}\n`);
    if (known && error.problems && error.problems.length > 5) {
      for (const problem of error.problems) process.stderr.write(`  ${problem.field}: ${problem.message}\n`);
    }
  }
  process.exitCode = 1;
}
