import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { errorResponses } from '../error-responses.js';
import type { AdminContext } from './context.js';

/** One write of the sync API: what its schema documents and what it does. */
export interface WriteRoute {
  /** Unique and stable: code generators name their methods after it. */
  operationId: string;
  summary: string;
  description?: string;
  /** The one success response (`{ 200: Thing }`, `noContent('Deleted.')`) gives the answer's status. */
  schemas: { params?: TSchema; querystring?: TSchema; body?: TSchema; success: Record<number, unknown> };
  /** The field of the answer that holds a secret, which an Idempotency-Key replay must not repeat. */
  secretField?: string;
  /** Does the write and gives the answer's body (nothing for a 204). */
  run: (request: FastifyRequest) => Promise<unknown>;
}

/**
 * Registers the writes of one route file: every write answers the same errors and goes through the
 * Idempotency-Key check (`write`), so each route says only what is its own.
 */
export function writeRoutes(app: FastifyInstance, write: AdminContext['write'], tags: string[]) {
  return (
    method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    { operationId, summary, description, schemas, secretField, run }: WriteRoute,
  ) => {
    const { params, querystring, body, success } = schemas;
    const status = Number(Object.keys(success)[0]);
    return app.route({
      method,
      url,
      schema: {
        operationId,
        summary,
        ...(description === undefined ? {} : { description }),
        tags,
        ...(params === undefined ? {} : { params }),
        ...(querystring === undefined ? {} : { querystring }),
        ...(body === undefined ? {} : { body }),
        response: { ...success, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503) },
      },
      // Every write takes an Idempotency-Key: the writer and the OpenAPI document read this.
      config: { idempotent: secretField === undefined ? {} : { secretField } },
      handler: (request, reply) =>
        write(request, reply, async () => ({ status, body: (await run(request)) ?? null })),
    });
  };
}
