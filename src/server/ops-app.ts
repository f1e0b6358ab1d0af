import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { answerHeaders } from '../http/pipeline/answer-headers.js';
import { clientErrorHandler } from '../http/pipeline/client-errors.js';
import { drainOnClose } from '../http/pipeline/drain.js';
import { ERROR_BODY_ID } from '../http/pipeline/error-responses.js';
import { ErrorBody, handleError, handleFrameworkError, sendError } from '../http/pipeline/errors.js';
import type { Metrics } from '../http/pipeline/metrics.js';
import { type HealthChecks, healthRoutes } from '../http/routes/health.js';
import { type MetricsRouteOptions, metricsRoute } from '../http/routes/metrics.js';

export interface OpsAppOptions {
  health: HealthChecks;
  logger: FastifyBaseLogger | false;
  /** The metrics served: the public app's, or (the cluster primary) every worker's, summed. */
  metrics: MetricsRouteOptions['source'];
  /** Where requests Node could not parse on this port are counted: the public app's metrics, if here. */
  counts?: Metrics;
}

/**
 * The ops listener of `serve --ops-port`: `/healthz`, `/readyz` and `/metrics` only, on a port of their
 * own (keep it off the internet), with the same JSON errors as the public port. No credentials.
 */
export async function buildOpsApp(options: OpsAppOptions): Promise<FastifyInstance> {
  const fastifyOptions: FastifyServerOptions = {
    genReqId: () => randomUUID(),
    frameworkErrors: handleFrameworkError,
    return503OnClosing: false,
    clientErrorHandler,
    bodyLimit: 1024,
  };
  const app = Fastify(
    options.logger
      ? { ...fastifyOptions, loggerInstance: options.logger.child({ listener: 'ops' }) }
      : { ...fastifyOptions, logger: false },
  );
  app.decorate('metrics', options.counts ?? null);
  // The health routes' error answers refer to the shared ErrorBody schema, as on the public app.
  app.addSchema({ ...ErrorBody, $id: ERROR_BODY_ID });
  drainOnClose(app);
  app.addHook('onSend', (request, reply, payload, next) => {
    answerHeaders(request, reply);
    next(null, payload);
  });
  app.setErrorHandler(handleError);
  // The paths this listener serves, as its routes register (HEAD routes aside): named in its 404s.
  const served: string[] = [];
  app.addHook('onRoute', (route) => {
    if (route.method === 'GET' && !served.includes(route.url)) served.push(route.url);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    if (served.includes(path)) {
      reply.header('allow', 'GET, HEAD');
      return sendError(
        reply,
        request,
        'method_not_allowed',
        `${request.method} is not allowed on ${path}. Use GET.`,
      );
    }
    return sendError(
      reply,
      request,
      'not_found',
      `There is no ${path} on the ops port: it serves ${served.join(', ')}. The API is on the public port.`,
    );
  });
  await app.register(healthRoutes, options.health);
  await app.register(metricsRoute, { source: options.metrics });
  return app;
}
