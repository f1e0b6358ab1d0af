import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { NotedLimit } from '../../infra/rate-limit/rate-limiter.js';
import type { Metrics } from './metrics.js';
import { writeRequestLine } from './request-logger.js';

/** The levels at which the request line is written. */
const LOGS_REQUESTS = new Set(['info', 'debug', 'trace']);

/**
 * What is recorded of a request once it is answered: a Fastify request, or the read lane's. Both
 * carry these fields already, so recording one allocates nothing but the log line (when written).
 */
export interface AnsweredRequest {
  readonly method: string;
  /** The client address (behind trusted proxies, the one they name). */
  readonly ip: string;
  /** Whether it is counted in the in-flight gauge (until answered or aborted). */
  inFlight: boolean;
  readonly rateLimits: NotedLimit[] | null;
  readonly credentialUsername: string | null;
  /** The sync API's admin key (Fastify requests only). */
  readonly adminKey?: { name: string } | null;
  /** The request's logger, request id bound (read only to write a line). */
  readonly log: FastifyBaseLogger;
}

/**
 * The one place an answer is recorded, whichever path sent it (Fastify's onResponse below, or the
 * read lane's): the in-flight gauge, the answer's count and duration by route pattern, a 429's limit,
 * and the request line. `route` is the route pattern, null for a request no route matched. `levels`:
 * the logger whose level says whether the line is written (the app's, or the request's: the same
 * level), asked first so that the lane's request logger is made only to write.
 */
export function recordAnswer(
  metrics: Metrics,
  request: AnsweredRequest,
  route: string | null,
  status: number,
  elapsedMs: number,
  levels: FastifyBaseLogger,
): void {
  answerEnded(metrics, request);
  // The label of an unmatched request is fixed, so that random paths cannot flood the labels.
  metrics.tallyAnswer(request.method, route ?? 'unmatched', status, elapsedMs / 1000);
  if (status === 429) metrics.recordRateLimited(refusingLimit(request.rateLimits));
  if (!logsRequests(levels)) return;
  writeRequestLine(request.log, {
    method: request.method,
    route,
    status,
    ms: Math.round(elapsedMs * 10) / 10,
    address: request.ip,
    username: request.credentialUsername,
    adminKey: request.adminKey ? request.adminKey.name : null,
  });
}

/** A request received: counted in flight until it is answered or aborted. */
export function answerStarted(metrics: Metrics, request: AnsweredRequest): void {
  request.inFlight = true;
  metrics.countInFlight(1);
}

/** A request answered or given up (the client went away): no longer in flight. */
export function answerEnded(metrics: Metrics, request: AnsweredRequest): void {
  if (!request.inFlight) return;
  request.inFlight = false;
  metrics.countInFlight(-1);
}

/** The bucket that refused a 429: the rate limiter's policy name, else the failed-login guard. */
export function refusingLimit(noted: NotedLimit[] | null): string {
  return noted?.find((limit) => !limit.decision.allowed)?.policy.name ?? 'login';
}

/**
 * Whether `log` writes the request line. Building the line is work too: skipped when the level would
 * drop it (the null logger has none).
 */
export function logsRequests(log: FastifyBaseLogger): boolean {
  return LOGS_REQUESTS.has(log.level);
}

/**
 * Records every answer of a Fastify app (recordAnswer), from one onRequest, one onResponse and one
 * onRequestAbort hook. `reachable` feeds `menu_api_database_up`. The hooks are synchronous callbacks:
 * they run on every request, and an async hook costs a promise and a microtask each (bench/PROFILE.md).
 */
export function recordAnswers(app: FastifyInstance, metrics: Metrics, reachable?: () => boolean): void {
  if (reachable) metrics.trackDatabase(reachable);
  app.addHook('onRequest', (request, _reply, next) => {
    answerStarted(metrics, request);
    next();
  });
  app.addHook('onResponse', (request, reply, next) => {
    const route = request.routeOptions.url ?? null;
    recordAnswer(metrics, request, route, reply.statusCode, reply.elapsedTime, request.log);
    next();
  });
  app.addHook('onRequestAbort', (request, next) => {
    answerEnded(metrics, request);
    next();
  });
}
