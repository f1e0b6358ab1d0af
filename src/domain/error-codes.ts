/**
 * Every failure a caller can act on has one of these codes: the `code` of every error answer, in both
 * forms and the sync API. The services raise them, the HTTP layer and the CLI each map them, and the
 * client (src/client, which ships alone and imports nothing of the server) types its errors with them:
 * a leaf, so that all of them share the one list.
 */
export type ErrorCode =
  | 'invalid_request'
  | 'invalid_credentials'
  | 'invalid_token'
  | 'not_found'
  | 'cursor_expired'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'conflict'
  | 'unprocessable'
  | 'forbidden'
  | 'rate_limited'
  | 'unavailable'
  | 'request_timeout'
  | 'headers_too_large'
  | 'internal_error';
