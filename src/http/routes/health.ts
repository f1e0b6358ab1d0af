import type { FastifyPluginAsync, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { Type } from 'typebox';
import { StoreUnavailableError } from '../../store/unavailable.js';
import { errorResponses } from '../pipeline/error-responses.js';
import { RETRY_AFTER_SECONDS, sendError } from '../pipeline/errors.js';
import { needsDatabase } from '../pipeline/route-facts.js';

/** What the health endpoints ask of the runtime. */
export interface HealthChecks {
  /** Resolves when the database answers and its migrations are current; rejects with the reason otherwise. */
  ready(): Promise<void>;
  /** False while the database is known to be unreachable: cached answers may be stale then. */
  reachable(): boolean;
}

/**
 * `/healthz`: the process is up (for restarts). `/readyz`: it can serve, because the database answers
 * and is migrated (for load balancers). Neither needs credentials; neither says more than that.
 */
export const healthRoutes: FastifyPluginAsync<HealthChecks> = async (app, checks) => {
  app.get(
    '/healthz',
    {
      config: { rateLimited: false, needsDatabase: false },
      schema: {
        operationId: 'liveness',
        summary: 'Liveness: the process answers',
        tags: ['Operations'],
        response: { 200: Type.Object({ status: Type.Literal('ok') }, { examples: [{ status: 'ok' }] }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      config: { rateLimited: false, needsDatabase: false },
      schema: {
        operationId: 'readiness',
        summary: 'Readiness: the database answers and is migrated',
        tags: ['Operations'],
        response: {
          200: Type.Object({ status: Type.Literal('ready') }, { examples: [{ status: 'ready' }] }),
          ...errorResponses(503),
        },
      },
    },
    async (request, reply) => {
      try {
        await checks.ready();
      } catch (error) {
        if ((error as Error | undefined)?.message === SHUTTING_DOWN)
          request.log.info('not ready: shutting down');
        else request.log.warn({ err: error }, 'not ready');
        reply.header('retry-after', String(RETRY_AFTER_SECONDS));
        return sendError(reply, request, 'unavailable', `Not ready: ${notReadyReason(error)}.`);
      }
      return { status: 'ready' as const };
    },
  );
};

/**
 * An app-wide onRequest hook: while the change feed cannot reach the database, every request gets 503
 * (rather than an answer from caches that may miss a revocation) but those to routes that declare
 * `needsDatabase: false` (the health checks and metrics, which report on it).
 */
export function unavailableWhileUnreachable(checks: HealthChecks) {
  return (request: FastifyRequest, _reply: FastifyReply, next: HookHandlerDoneFunction): void => {
    const refused = !checks.reachable() && needsDatabase(request.routeOptions.config);
    next(refused ? new StoreUnavailableError('the database is unreachable') : undefined);
  };
}

/** What `ready()` rejects with once a graceful shutdown has begun, so load balancers stop sending. */
export const SHUTTING_DOWN = 'the server is shutting down';

/** What the `serve --workers` primary's `ready()` rejects with before its workers listen. */
export const WORKERS_NOT_LISTENING = 'the workers are not listening yet';

/** A short reason without addresses or driver details. */
function notReadyReason(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  if (message === SHUTTING_DOWN || message === WORKERS_NOT_LISTENING) return message;
  return message.startsWith('migrations not applied') ? message : 'the database does not answer';
}
