import type { ErrorCode } from '../domain/error-codes.js';
import type { FieldProblem } from '../domain/validate-item.js';

/** The codes are shared with the client, from the domain (a leaf): see there. */
export type { ErrorCode };

export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Field-level reasons, for validation failures. */
    readonly problems?: FieldProblem[],
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

/** A 429: too many requests or failed logins; `retryAfterSeconds` becomes the Retry-After header. */
export class RateLimitedError extends ServiceError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('rate_limited', message);
    this.name = 'RateLimitedError';
  }
}

/**
 * An error made without capturing a stack trace, for refusals that are part of normal traffic (a 429,
 * a 403 for a token nobody holds): nobody reads their stack, and capturing one through Fastify's
 * frames cost more than serving a read (bench/PROFILE.md). A refusal must cost no more than an answer.
 */
export function withoutStack<E extends Error>(make: () => E): E {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * A write refused for its problems (400 invalid_request), in the words every refusal of a menu, a
 * stock update, a special or a lab result uses: "The special was refused (2 problems), nothing was
 * changed: …". `what` is the subject and its verb ("The special was refused").
 */
export function refusedWrite(what: string, problems: FieldProblem[]): ServiceError {
  const count = `${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}`;
  return new ServiceError(
    'invalid_request',
    `${what} (${count}), nothing was changed: ${describeProblems(problems)}`,
    problems,
  );
}

export function describeProblems(problems: FieldProblem[], shown = 5): string {
  const listed = problems.slice(0, shown).map((problem) => `${problem.field} ${problem.message}`);
  const more = problems.length > shown ? ` (and ${problems.length - shown} more)` : '';
  return `${listed.join('; ')}${more}`;
}
