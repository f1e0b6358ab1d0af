/**
 * Error responses for route schemas: `response: { 200: Thing, ...errorResponses(400, 401, 403) }`.
 * Each entry points at the one shared ErrorBody schema (added to the app as `ErrorBody` by
 * src/http/routes/openapi.ts), so Fastify serializes errors with it and the OpenAPI document lists them.
 */

/** The $id under which the ErrorBody schema is shared by every route. */
export const ERROR_BODY_ID = 'ErrorBody';

/** What each error status means, whichever endpoint answers it; the `code` field tells which case. */
export const ERROR_DESCRIPTIONS = {
  400: 'invalid_request: the request is malformed (a missing or wrongly typed field or header, bad JSON, a credential header sent twice, a bad `since`). The message and `problems` name each field.',
  401: 'invalid_credentials: the username or password is missing or wrong (sync API: the admin key is missing, unknown or revoked). An unknown username and a wrong password get the same answer.',
  403: 'invalid_token: the dispensary token is unknown or removed, or was rotated out and its grace period (24 hours by default) has passed; forbidden: an admin key scoped to one dispensary reached for another, or for an operator-only action.',
  404: 'not_found: no such dispensary, item or credential.',
  409: 'conflict: a credential username or admin key name that exists already (dispensary names need not be unique), an idempotent replay of an answer that carried a secret (rotate instead), or a retry of a webhook delivery that was delivered.',
  410: 'cursor_expired: the feed cannot continue from this cursor: the changes after it are no longer kept (see --change-retention-days), or it is ahead of the feed, which never gave it out (a database restored from an older copy). Read the whole menu again, then follow the changes after its Menu-Cursor header. On /v1/menu: the menu version a paging reads is no longer kept and the menu has changed since; start the paging again without cursor.',
  413: 'payload_too_large: the body is over the limit (64 KiB on the public endpoints, 16 MiB on the sync API by default).',
  415: 'unsupported_media_type: a content type this endpoint does not read. Send application/json.',
  422: 'unprocessable: the request is well-formed but cannot be applied (a stock level for a price entry that does not exist; an Idempotency-Key reused with another request). Nothing was changed.',
  429: 'rate_limited: too many requests, or too many failed logins. Wait the `Retry-After` seconds before trying again.',
  500: 'internal_error: a bug on our side, never with details. Retry, and report the request id if it persists.',
  503: 'unavailable: the database is unreachable right now. Retry after `Retry-After` seconds.',
} as const;

export type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS;

/** Route schema entries for these error statuses, each the shared ErrorBody with its description. */
export function errorResponses(
  ...statuses: ErrorStatus[]
): Record<number, { $ref: string; description: string }> {
  const responses: Record<number, { $ref: string; description: string }> = {};
  for (const status of statuses) {
    responses[status] = { $ref: `${ERROR_BODY_ID}#`, description: ERROR_DESCRIPTIONS[status] };
  }
  return responses;
}

/**
 * A conditional GET (`If-None-Match`) whose ETag still matches: no body, reuse the copy you have.
 * Listed on Form B's reads whether or not the server sends ETags yet, so that clients handle it.
 */
export const notModified = () => ({
  304: {
    type: 'null',
    description:
      'Not Modified: the `If-None-Match` ETag still matches; there is no body, reuse the copy you have.',
  } as const,
});

/** A success without a body (a delete). */
export const noContent = (description: string) => ({ 204: { type: 'null', description } as const });
