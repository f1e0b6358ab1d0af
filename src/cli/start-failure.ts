import type { ServerConfig } from '../config.js';
import { ServiceError } from '../services/errors.js';
import { describeAddress } from '../store/open.js';

/** The first error in the cause chain that carries a code, and that code. */
function codeOf(error: unknown): { code: string; error: Error } | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return { code, error: current };
    current = current.cause;
  }
  return undefined;
}

/**
 * Why `serve` could not start, in one line an operator can act on: a database file that cannot be
 * created, opened or written (a missing or read-only folder, a full disk), a port in use. Never a
 * stack trace; unknown failures keep their own message.
 */
export function startFailure(
  error: unknown,
  config: Pick<ServerConfig, 'database' | 'host' | 'port'>,
): string {
  const database = describeAddress(config.database);
  const found = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (!found) return message;
  const { code } = found;
  const detail = `${found.error.message.replace(/\s+$/, '')} (${code})`;
  if (code === 'ENOTDIR' || code === 'ENOENT' || code === 'EISDIR' || code === 'EEXIST') {
    return `the database ${database} cannot be created there: ${detail}. Check the path: its folder must be a directory.`;
  }
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || /^SQLITE_READONLY/.test(code)) {
    if ((found.error as { syscall?: string }).syscall === 'listen') {
      return `not allowed to listen on ${config.host}:${config.port}: ${detail}. Use a port above 1023 or another address.`;
    }
    return `the database ${database} cannot be written: ${detail}. Check that the file and its folder are writable (and the disk is not mounted read-only).`;
  }
  if (
    code === 'ENOSPC' ||
    code === 'EFBIG' ||
    code === 'EDQUOT' ||
    code === 'SQLITE_FULL' ||
    /^SQLITE_IOERR/.test(code)
  ) {
    return `the database ${database} cannot be written: ${detail}. Is the disk full or failing? Free some space and start again.`;
  }
  if (/^SQLITE_CANTOPEN/.test(code)) {
    return `the database ${database} cannot be opened: ${detail}. Check the path and the permissions of the file and its folder.`;
  }
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return `${database} is not a usable SQLite database: ${detail}. Point --db at the right file, or restore it from a backup.`;
  }
  if (code === 'EADDRINUSE') {
    return `the address ${found.error.message.replace(/^listen EADDRINUSE: address already in use /, '')} is in use by another process. Stop it, or choose another port.`;
  }
  if (code === 'EADDRNOTAVAIL') {
    return `cannot listen on ${config.host}: that address is not on this machine (${code}).`;
  }
  return message;
}

/**
 * The failure `serve` reports: a known cause of the machine's (a port in use, a database that cannot be
 * written) is `unavailable` with a message saying what to do; only an unknown one stays a bare error
 * (`internal_error` under --json).
 */
export function startError(error: unknown, config: Pick<ServerConfig, 'database' | 'host' | 'port'>): Error {
  const message = `The server could not start: ${startFailure(error, config)}`;
  return codeOf(error) ? new ServiceError('unavailable', message) : new Error(message);
}
