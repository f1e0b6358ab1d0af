/** Raised when the database cannot be reached right now; the HTTP layer answers 503 with Retry-After. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** Socket errors: the database host refused, reset, or never answered. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/**
 * PostgreSQL SQLSTATEs that mean "not now" rather than "never": class 08 (connection exception),
 * 57P01-57P03 (shutting down, crash recovery, cannot connect now), 53300 (too many connections).
 * SQLITE_BUSY means another process held the file's write lock for longer than busy_timeout.
 */
const TRANSIENT_STATE = /^(08[0-9A-Z]{3}|57P0[123]|53300|SQLITE_BUSY)$/;

/**
 * SQLite results that mean the file or its disk failed, not the request: gone or unopenable
 * (CANTOPEN), read-only (READONLY), disk full (FULL), I/O errors (IOERR_*), locked (BUSY, LOCKED),
 * and a file that is no longer a database (NOTADB, CORRUPT: replaced or damaged underneath us).
 * Each has extended codes such as SQLITE_IOERR_WRITE or SQLITE_READONLY_DBMOVED.
 */
const SQLITE_FAULT = /^SQLITE_(BUSY|LOCKED|READONLY|CANTOPEN|IOERR|FULL|NOTADB|CORRUPT)(_[A-Z_]+)?$/;

/** node-postgres reports some lost or never-made connections by message only. */
const LOST_CONNECTION =
  /Connection terminated|Connection ended unexpectedly|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|connection timeout|Query read timeout/i;

/** Whether an error means the database is unreachable for now (so: 503 and retry), not a bug. */
export function isStoreUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 5) return false;
  if (error instanceof StoreUnavailableError) return true;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (NETWORK_CODES.has(code) || TRANSIENT_STATE.test(code) || SQLITE_FAULT.test(code))
  ) {
    return true;
  }
  if (LOST_CONNECTION.test(error.message)) return true;
  if (error instanceof AggregateError && error.errors.some((inner) => isStoreUnavailable(inner, depth + 1))) {
    return true;
  }
  return isStoreUnavailable(error.cause, depth + 1);
}
