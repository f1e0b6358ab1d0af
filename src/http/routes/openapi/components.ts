import { ERROR_BODY_ID } from '../../pipeline/error-responses.js';
import { STATUS_BY_CODE } from '../../pipeline/errors.js';

/**
 * The parts of the document that no route schema carries and every operation refers to: the headers
 * and parameters declared once, and the shared error responses with their examples.
 */

export type Json = Record<string, unknown>;

/** An example error per status, and per audience where the code differs (public reads vs. sync API). */
const EXAMPLE_MESSAGES: Record<string, string> = {
  invalid_request: 'The request is malformed: active field must be boolean.',
  invalid_credentials: 'The username or password is wrong. Check the credential the operator issued to you.',
  invalid_token:
    'The dispensary token is not valid (unknown, or replaced by a newer one and past its grace period). Ask the dispensary for its current token.',
  forbidden: 'This admin key is limited to dispensary 1.',
  not_found: 'There is no dispensary 42.',
  cursor_expired:
    'Changes after this cursor are no longer kept (changes are kept 7 day(s)). Read the whole menu again (GET or POST /menu), then follow the changes after its Menu-Cursor header.',
  conflict: 'A credential named menu-board exists. Choose another username.',
  payload_too_large: 'The request body is larger than this endpoint accepts. Send a smaller body.',
  unsupported_media_type: 'This Content-Type is not accepted here. Send application/json.',
  unprocessable: 'No price entry matches: item 1 has no gram 2 entry. Nothing was changed.',
  rate_limited: 'Too many requests. Retry after the number of seconds in Retry-After.',
  internal_error: 'Something went wrong on our side. Retry, and report the request id if it persists.',
  unavailable: 'The database is unreachable right now. Retry in a few seconds.',
};

function exampleError(status: number, admin: boolean) {
  const codes = Object.entries(STATUS_BY_CODE)
    .filter(([, value]) => value === status)
    .map(([code]) => code);
  const code = status === 403 ? (admin ? 'forbidden' : 'invalid_token') : (codes[0] ?? 'internal_error');
  const error: Record<string, unknown> = {
    code,
    message: EXAMPLE_MESSAGES[code] ?? code,
    request_id: '6f1c2d3e-4b5a-4c6d-8e7f-901a2b3c4d5e',
  };
  if (code === 'invalid_request') error.problems = [{ field: 'active', message: 'field must be boolean' }];
  return { error };
}

const RETRY_AFTER = {
  description: 'Seconds to wait before retrying.',
  schema: { type: 'integer', minimum: 0, examples: [2] },
};

/** The headers answers carry, declared once (components.headers) and referred to by every response. */
export const HEADERS: Record<string, Json> = {
  RequestId: {
    description:
      'The request id: the client’s own `x-request-id` when it sent a valid one (up to 64 characters of `A-Za-z0-9._:-`), otherwise a UUID. Quote it when reporting a problem.',
    schema: { type: 'string', examples: ['6f1c2d3e-4b5a-4c6d-8e7f-901a2b3c4d5e'] },
  },
  RateLimit: {
    description:
      'The state of each rate-limit bucket this request was counted in (draft-ietf-httpapi-ratelimit-headers): `r` requests left, `t` seconds until the bucket is full again.',
    schema: { type: 'string', examples: ['"address";r=199;t=1, "credential";r=99;t=1'] },
  },
  RateLimitPolicy: {
    description:
      'The policy of each rate-limit bucket this request was counted in: `q` the burst, `w` the seconds a full burst takes to refill.',
    schema: { type: 'string', examples: ['"address";q=200;w=4, "credential";q=100;w=5'] },
  },
  RetryAfter: RETRY_AFTER,
  IdempotentReplayed: {
    description:
      '`true` when this answer is the replay of an earlier write with the same `Idempotency-Key` (nothing was changed again); absent otherwise.',
    schema: { type: 'string', enum: ['true'] },
  },
  Allow: {
    description: 'The methods this path is served with, for example `GET, HEAD, POST`.',
    schema: { type: 'string', examples: ['GET, HEAD, POST'] },
  },
};

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Request headers every operation (or every idempotent write) reads, declared once (components.parameters). */
export const PARAMETERS: Record<string, Json> = {
  RequestId: {
    in: 'header',
    name: 'x-request-id',
    required: false,
    description:
      'Your own id for this request (up to 64 characters of `A-Za-z0-9._:-`), echoed in the answer’s `x-request-id` and written to the request log; anything else is replaced by a UUID.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,64}$' },
  },
  IdempotencyKey: {
    in: 'header',
    name: 'Idempotency-Key',
    required: false,
    description:
      'Makes a retry safe: the same key with the same request within 24 hours returns the first answer (with `idempotent-replayed: true`) and changes nothing again; with another request, 422. 1 to 255 visible ASCII characters, for example a UUID. An answer that carried a secret (a new token or password) is not kept: its replay is a 409.',
    schema: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      examples: ['0b6f5c1e-2d7a-4b8e-9f3c-5a1d2e3f4a5b'],
    },
  },
};

export const parameterRef = (name: string) => ({ $ref: `#/components/parameters/${name}` });

/** The answer to a method a path is not served with: no operation can refer to it, so it is listed alone. */
export const METHOD_NOT_ALLOWED: Json = {
  description:
    'method_not_allowed: the path exists but is not served with this method; `Allow` lists the methods it is served with.',
  headers: { allow: headerRef('Allow'), 'x-request-id': headerRef('RequestId') },
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${ERROR_BODY_ID}` } } },
};

/**
 * The headers of a response: the request id always, the rate-limit state where requests are counted,
 * the replay flag on an idempotent write's success.
 */
export function responseHeaders(status: string, limited: boolean, replayable: boolean): Json {
  return {
    ...(replayable && status.startsWith('2')
      ? { 'idempotent-replayed': headerRef('IdempotentReplayed') }
      : {}),
    ...(limited
      ? { ratelimit: headerRef('RateLimit'), 'ratelimit-policy': headerRef('RateLimitPolicy') }
      : {}),
    ...(status === '429' || status === '503' ? { 'retry-after': headerRef('RetryAfter') } : {}),
    'x-request-id': headerRef('RequestId'),
  };
}

export const ETAG_HEADER = {
  description: 'A strong validator of this answer: send it back as If-None-Match to get 304 while it holds.',
  schema: { type: 'string', examples: ['"3f2a9c1b"'] },
};

export const MENU_CURSOR_HEADER = {
  description:
    'The live feed cursor this content is consistent with: follow GET/POST /changes (or /events) after it and no change is missed.',
  schema: { type: 'string', pattern: '^[0-9]{16}$', examples: ['0000000000001234'] },
};

export const IF_NONE_MATCH = {
  in: 'header',
  name: 'if-none-match',
  required: false,
  description: 'The ETag of the copy you have: an unchanged answer is then a 304 with no body.',
  schema: { type: 'string' },
};

/** The name of the shared response for an error status (403 differs between public reads and the sync API). */
const ERROR_RESPONSE_NAMES: Record<string, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'InvalidToken',
  404: 'NotFound',
  410: 'CursorExpired',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Unprocessable',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'Unavailable',
};

/** An error answer, with its example and headers, as a shared response that operations refer to. */
export function sharedErrorResponse(
  status: string,
  response: Json,
  admin: boolean,
  shared: Record<string, Json>,
): Json {
  const media = (response.content as Record<string, Json> | undefined)?.['application/json'];
  if (!media || (media.schema as Json | undefined)?.$ref !== `#/components/schemas/${ERROR_BODY_ID}`)
    return response;
  media.example = exampleError(Number(status), admin);
  const base = ERROR_RESPONSE_NAMES[status];
  if (!base) return response;
  const name = status === '403' && admin ? 'Forbidden' : base;
  const known = shared[name];
  if (known && JSON.stringify(known) !== JSON.stringify(response)) return response;
  shared[name] = response;
  return { $ref: `#/components/responses/${name}` };
}
