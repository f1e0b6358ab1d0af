import type { ApiErrorCode, ClientErrorCode, Problem } from './types.js';

/**
 * Every failure of a MenuClient call. `status` is the HTTP status, or 0 when no answer came (a
 * timeout, a network failure). `code` is the server's error code (`invalid_credentials`,
 * `invalid_token`, `rate_limited`, …) or the client's (`timeout`, `network_error`,
 * `invalid_response`, `aborted`). `requestId` is the server's request id: quote it in a report.
 */
export class MenuApiError extends Error {
  override readonly name = 'MenuApiError';
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
  return new MenuApiError({
    status,
    code: typeof error.code === 'string' ? error.code : `http_${status}`,
    message: typeof error.message === 'string' ? error.message : `The server answered ${status}.`,
    requestId,
    problems: Array.isArray(error.problems) ? (error.problems as Problem[]) : [],
    retryAfterMs,
  });
}
