import type { ApiErrorCode, ClientErrorCode, Problem } from './types.js';

/**
 * Every failure of a MenuClient call. `status` is the HTTP status, or 0 when no answer came (a
 * timeout, a network failure). `code` is the server's error code (`invalid_credentials`,
 * `invalid_token`, `rate_limited`, …) or the client's (`timeout`, `network_error`,
 * `invalid_response`, `aborted`). `requestId` is the server's request id: quote it in a report.
 */
export class MenuApiError extends Error {
  override readonly name: string = 'MenuApiError';
  readonly status: number;
  readonly code: ApiErrorCode | ClientErrorCode | (string & {});
  readonly requestId: string | null;
  readonly problems: Problem[];
  /** What the server's Retry-After asked for, in milliseconds, when it sent one. */
  readonly retryAfterMs: number | undefined;

  constructor(init: {
    status: number;
    code: MenuApiError['code'];
    message: string;
    requestId?: string | null;
    problems?: Problem[];
    retryAfterMs?: number;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId ?? null;
    this.problems = init.problems ?? [];
    this.retryAfterMs = init.retryAfterMs;
  }
}

/**
 * 410 `cursor_expired`: a cursor that cannot be continued (a MenuApiError, so a catch of those sees it).
 * From `v1(token).pages()` (or `menu()` with a cursor): the menu version the paging reads is no longer
 * kept where the page was asked (10 minutes after its last page, or a server restart) and the menu has
 * changed the query's order since. The pages already yielded came from that version: start again from
 * the first page, `pages(query)` without `cursor`, and set aside (or reconcile) what the abandoned
 * paging gave. From `changes()`: the feed no longer holds the cursor; read the menu again.
 */
export class CursorExpiredError extends MenuApiError {
  override readonly name: string = 'CursorExpiredError';
}

/** The MenuApiError for an error answer, from its JSON body when it has one. */
export function errorFromAnswer(
  status: number,
  headers: Headers,
  text: string,
  retryAfterMs?: number,
): MenuApiError {
  let body: { error?: { code?: unknown; message?: unknown; request_id?: unknown; problems?: unknown } } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // not JSON: described by status below
  }
  const error = body?.error ?? {};
  const requestId = typeof error.request_id === 'string' ? error.request_id : headers.get('x-request-id');
  const Failure = error.code === 'cursor_expired' ? CursorExpiredError : MenuApiError;
  return new Failure({
    status,
    code: typeof error.code === 'string' ? error.code : `http_${status}`,
    message: typeof error.message === 'string' ? error.message : `The server answered ${status}.`,
    requestId,
    problems: Array.isArray(error.problems) ? (error.problems as Problem[]) : [],
    retryAfterMs,
  });
}
