import type { FastifyPluginAsync } from 'fastify';

export interface MetricsRouteOptions {
  /** Where the text comes from: an app's metrics, or the sum of every worker's (the cluster primary). */
  source: () => Promise<{ contentType: string; body: string }>;
}

/** `GET /metrics`: Prometheus text format, no credentials (put it on the ops port in production). */
export const metricsRoute: FastifyPluginAsync<MetricsRouteOptions> = async (app, options) => {
  const { source } = options;
  app.get(
    '/metrics',
    {
      config: { rateLimited: false, needsDatabase: false },
      schema: {
        operationId: 'metrics',
        summary: 'Prometheus metrics of this process',
        description: 'Prometheus text exposition format (text/plain; version=0.0.4).',
        tags: ['Operations'],
        response: {
          200: {
            description: 'The metrics, in Prometheus text format.',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (_request, reply) => {
      const { contentType, body } = await source();
      return reply.type(contentType).send(body);
    },
  );
};
