import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { FieldProblem } from '../../domain/validate-item.js';
import { describeProblems, type ErrorCode, RateLimitedError, ServiceError } from '../../services/errors.js';
import { isStoreUnavailable } from '../../store/unavailable.js';
import { answerHeaders } from './answer-headers.js';
import type { Metrics } from './metrics.js';

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  invalid_request: 400,
  invalid_credentials: 401,
  invalid_token: 403,
  not_found: 404,
  cursor_expired: 410,
  method_not_allowed: 405,
  forbidden: 403,
  conflict: 409,
  unprocessable: 422,
  rate_limited: 429,
  unavailable: 503,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  internal_error: 500,
};

/** What a 503 for an unreachable database tells the client to wait, in seconds. */
export const RETRY_AFTER_SECONDS = 2;

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ enum: Object.keys(STATUS_BY_CODE) }),
      message: Type.String(),
      request_id: Type.String(),
      problems: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    }),
  },
  { description: 'Every error has this shape.' },
);
export type ErrorBody = Static<typeof ErrorBody>;

/** Fastify's own errors that are the client's fault, mapped to our codes and messages. */
const FASTIFY_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'payload_too_large',
    message: 'The request body is larger than this endpoint accepts. Send a smaller body.',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    message: 'This Content-Type is not accepted here. Send application/json.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'invalid_request',
    message: 'The Content-Length header does not match the body.',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'invalid_request',
    message: 'The request body is empty. Send a JSON object.',
  },
  FST_ERR_BAD_URL: {
    code: 'invalid_request',
    message: 'The URL is malformed (a bad percent-encoding?). Check the request path.',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    code: 'invalid_request',
    message: 'The request body is not valid JSON.',
  },
};

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  /** The schema that holds the failed keyword (Ajv's `verbose`). */
  parentSchema?: { properties?: Record<string, unknown> };
}

/**
 * The findings a client can act on. A union (`anyOf`: a nullable body, a field of several shapes)
 * adds a finding of its own and one per branch it tried; where a branch has something specific to
 * say, the union's own finding and its `null` branch's ("must be null") say nothing more.
 */
function actionable(issues: ValidationIssue[]): ValidationIssue[] {
  const specific = issues.filter(
    (issue) => issue.keyword !== 'anyOf' && !(issue.keyword === 'type' && issue.params.type === 'null'),
  );
  return specific.length > 0 ? specific : issues;
}

/** Ajv's wording in plain sentence case: "must NOT have more than 256 characters" reads "must have at most …". */
function plainWording(message: string | undefined): string {
  if (!message) return 'is invalid';
  return message
    .replace(/must NOT have more than (\d+) (characters|items|properties)/, 'must have at most $1 $2')
    .replace(/must NOT have fewer than (\d+) (characters|items|properties)/, 'must have at least $1 $2')
    .replace(/must NOT/g, 'must not')
    .replace(/^must be (\w+),(\w+)$/, 'must be $1 or $2')
    .replace(
      /\b1 (character|item|propertie)s\b/g,
      (_match, noun: string) => `1 ${noun === 'propertie' ? 'property' : noun}`,
    );
}

/** Turns Ajv's findings into problems that name the field the way the client sent it. */
export function validationProblems(issues: ValidationIssue[], dataVar: string): FieldProblem[] {
  const where = dataVar === 'headers' ? 'header' : dataVar === 'querystring' ? 'query parameter' : 'field';
  const problems = actionable(issues).map((issue) => {
    const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
    if (issue.keyword === 'additionalProperties') {
      // Named as sent, with the ones this place takes: a misspelling is then plain to see.
      const name = String(issue.params.additionalProperty);
      const known = Object.keys(issue.parentSchema?.properties ?? {});
      return {
        field: path ? `${path}.${name}` : name,
        message: `${where} is unknown here${known.length > 0 ? ` (known: ${known.join(', ')})` : ''}`,
      };
    }
    const missing = issue.keyword === 'required' ? String(issue.params.missingProperty) : undefined;
    // A field missing inside an array entry is named with its entry ("1.unit"), not alone ("unit").
    const field = missing !== undefined && path ? `${path}.${missing}` : (missing ?? path);
    if (!field) {
      return {
        field: dataVar,
        message:
          dataVar !== 'body'
            ? (issue.message ?? 'is invalid')
            : issue.params.type === 'array'
              ? 'must be a JSON array'
              : 'must be a JSON object',
      };
    }
    const message = missing ? `${where} is required` : `${where} ${plainWording(issue.message)}`;
    return { field, message };
  });
  // Several branches of a union may find the same thing: each problem once.
  return problems.filter(
    (problem, index) =>
      problems.findIndex((other) => other.field === problem.field && other.message === problem.message) ===
      index,
  );
}

/** The body of every error answer, whichever path sends it (Fastify's, or the read lane's). */
export function errorBody(
  code: ErrorCode,
  message: string,
  requestId: string,
  problems?: FieldProblem[],
): ErrorBody {
  const body: ErrorBody = { error: { code, message, request_id: requestId } };
  if (problems && problems.length > 0) body.error.problems = problems;
  return body;
}

/** Marks where the request id goes in an error body's text: JSON keeps it as it is, no message has it. */
const REQUEST_ID_MARK = '<request-id>';

/** An error answer's body: its JSON text, and that text's length in UTF-8 bytes (its Content-Length). */
export interface ErrorText {
  readonly text: string;
  readonly bytes: number;
}

/** A frozen error's body text before and after its request id, and the UTF-8 bytes of both. */
interface ErrorTextParts {
  readonly before: string;
  readonly after: string;
  readonly bytes: number;
}
const errorTextParts = new WeakMap<ServiceError, ErrorTextParts>();

/**
 * The JSON text of an error answer's body, with its length in bytes. A refusal answered again and
 * again (a frozen error: the 403 for an unknown token, each 429) is serialized and measured once,
 * around its request id: a refusal must cost no more than an answer. Request ids need no escaping in
 * JSON and are ASCII, a byte a character (src/http/pipeline/request-id.ts).
 */
export function errorText(error: ServiceError, requestId: string): ErrorText {
  if (!Object.isFrozen(error) || error.problems) {
    const text = JSON.stringify(errorBody(error.code, error.message, requestId, error.problems));
    return { text, bytes: Buffer.byteLength(text) };
  }
  let parts = errorTextParts.get(error);
  if (parts === undefined) {
    const text = JSON.stringify(errorBody(error.code, error.message, REQUEST_ID_MARK));
    // The request id is the body's last field.
    const at = text.lastIndexOf(REQUEST_ID_MARK);
    const before = text.slice(0, at);
    const after = text.slice(at + REQUEST_ID_MARK.length);
    parts = { before, after, bytes: Buffer.byteLength(before) + Buffer.byteLength(after) };
    errorTextParts.set(error, parts);
  }
  return { text: parts.before + requestId + parts.after, bytes: parts.bytes + requestId.length };
}

export function sendError(
  reply: FastifyReply,
  request: FastifyRequest,
  code: ErrorCode,
  message: string,
  problems?: FieldProblem[],
): FastifyReply {
  const body = errorBody(code, message, String(request.id), problems);
  const status = STATUS_BY_CODE[code];
  countAuthFailure(request.server.metrics, code, request.url);
  // Every 503 says when to try again, whichever path raised it.
  if (code === 'unavailable' && !reply.hasHeader('retry-after')) {
    reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  }
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/** Counts an error answer in menu_api_auth_failures_total when it is a 401 or a 403, by surface. */
export function countAuthFailure(metrics: Metrics | null, code: ErrorCode, path: string): void {
  const status = STATUS_BY_CODE[code];
  if (status !== 401 && status !== 403) return;
  metrics?.recordAuthFailure(status, code, path.startsWith('/admin/') ? 'admin' : 'public');
}

/** The Retry-After of an error answer, in seconds: a 429's wait, and RETRY_AFTER_SECONDS for a 503. */
export function retryAfterOf(error: ServiceError): number | undefined {
  if (error instanceof RateLimitedError) return error.retryAfterSeconds;
  return error.code === 'unavailable' ? RETRY_AFTER_SECONDS : undefined;
}

/** A 413 that states the limit, in bytes and in a unit a person reads. */
export function tooLargeMessage(limit: number | undefined): string {
  if (limit === undefined)
    return 'The request body is larger than this endpoint accepts. Send a smaller body.';
  const readable =
    limit >= 1024 * 1024 && limit % (1024 * 1024) === 0
      ? `${limit / (1024 * 1024)} MiB`
      : limit >= 1024 && limit % 1024 === 0
        ? `${limit / 1024} KiB`
        : `${limit} bytes`;
  return `The request body is larger than this endpoint accepts: at most ${limit} bytes (${readable}). Send a smaller body${
    limit < 1024 * 1024 ? '' : ', or split a full sync into partial syncs'
  }.`;
}

/** A service's refusal as its answer: the status of its code, and Retry-After for a 429. */
export function sendServiceError(
  error: ServiceError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const retryAfter = retryAfterOf(error);
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  return sendError(reply, request, error.code, error.message, error.problems);
}

/**
 * Fastify's `frameworkErrors` handler (a malformed URL, before any route): such a reply is sent past
 * the hooks, so the standard headers are set here, by the same function as the onSend hook's.
 */
export function handleFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  answerHeaders(request, reply);
  return handleError(error, request, reply);
}

/** The one error handler: known failures get their status; anything else is a bug and a bare 500. */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof ServiceError) return sendServiceError(error, request, reply);
  if (error.validation) {
    const problems = validationProblems(
      error.validation as ValidationIssue[],
      error.validationContext ?? 'body',
    );
    const message = `The request is malformed: ${describeProblems(problems)}.`;
    return sendError(reply, request, 'invalid_request', message, problems);
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    const limit = request.routeOptions.bodyLimit;
    return sendError(reply, request, 'payload_too_large', tooLargeMessage(limit));
  }
  const known = error.code ? FASTIFY_ERRORS[error.code] : undefined;
  if (known) return sendError(reply, request, known.code, known.message);
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return sendError(reply, request, 'invalid_request', 'The request is malformed.');
  }
  return sendServiceError(faultAnswer(error, request.log), request, reply);
}

/**
 * What a failure that is no client's mistake is answered with, logged here: 503 while the database
 * is unreachable, else a bare 500 (a bug). A refusal a service answered is answered as it is.
 */
export function faultAnswer(error: unknown, log: FastifyBaseLogger): ServiceError {
  if (error instanceof ServiceError) return error;
  if (isStoreUnavailable(error)) {
    log.warn({ err: error }, 'database unavailable');
    // sendError adds its Retry-After (RETRY_AFTER_SECONDS), as to every 503.
    return new ServiceError('unavailable', 'The database is unreachable right now. Retry in a few seconds.');
  }
  log.error({ err: error }, 'unhandled error');
  return new ServiceError(
    'internal_error',
    'Something went wrong on our side. Retry, and report the request id if it persists.',
  );
}
