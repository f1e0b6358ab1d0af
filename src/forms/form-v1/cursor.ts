import { createHash } from 'node:crypto';
import { ServiceError } from '../../services/errors.js';

/** What an item sorts by (a number, a text, or null for none); with its id, where a paging is. */
export type SortValue = number | string | null;

/** The cursor's integrity check: not a secret, only so that a changed cursor is told from a real one. */
function check(order: string, body: string): string {
  return createHash('sha256').update(order).update('\0').update(body).digest('base64url').slice(0, 16);
}

/**
 * Where a paging is: the menu version its pages are read from (the feed cursor that version was read
 * at), the order of the query's whole result in that version (orderPrint), and the last item listed
 * (its sort value and id).
 */
export interface Position {
  version: number;
  print: string;
  value: SortValue;
  id: number;
}

/** A cursor: the position, bound to the query's order key. */
export function encodeCursor(order: string, position: Position): string {
  const body = JSON.stringify([position.version, position.print, position.value, position.id]);
  return Buffer.from(JSON.stringify([body, check(order, body)])).toString('base64url');
}

const badCursor = (why: string) =>
  new ServiceError(
    'invalid_request',
    `The query parameter cursor ${why}. Send the next_cursor of the previous page with the same query, or leave cursor out to start again.`,
    [{ field: 'cursor', message: why }],
  );

const NOT_OURS = 'is not a cursor this server gave out (it was changed or cut)';

export function decodeCursor(order: string, cursor: string): Position {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor(NOT_OURS);
  }
  if (!Array.isArray(parts) || typeof parts[0] !== 'string' || typeof parts[1] !== 'string') {
    throw badCursor(NOT_OURS);
  }
  const [body, sum] = parts as [string, string];
  if (sum !== check(order, body)) {
    throw badCursor(
      'was made for another query (or changed): a cursor works only with the query it came from',
    );
  }
  const fields: unknown = JSON.parse(body);
  // A cursor of the earlier shape (no version) checks out but cannot be continued safely.
  if (!Array.isArray(fields) || fields.length !== 4) throw badCursor(NOT_OURS);
  const [version, print, value, id] = fields as [number, string, SortValue, number];
  return { version, print, value, id };
}
