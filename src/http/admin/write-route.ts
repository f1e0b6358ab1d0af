import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { errorResponses } from '../error-responses.js';
import type { AdminContext } from './context.js';
import type { Write } from './idempotent.js';

/** One write of the sync API: what its schema documents and what it does. */
export interface WriteRoute {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  summary: string;
  description?: string;
  params?: TSchema;
  body?: TSchema;
  /** The success responses, for example `{ 200: Thing }` or `noContent('Deleted.')`. */
  success: object;
  /** The field of the answer that holds a secret, which an Idempotency-Key replay must not repeat. */
  secretField?: string;
  run: (request: FastifyRequest) => ReturnType<Write>;
}

/**
 * Registers the writes of one route file: every write answers the same errors and goes through the
 * Idempotency-Key check (`write`), so each route says only what is its own.
 */
export function writeRoutes(app: FastifyInstance, write: AdminContext['write'], tags: string[]) {
  return ({ method, url, summary, description, params, body, success, secretField, run }: WriteRoute) =>
    app.route({
      method,
      url,
      schema: {
        summary,
        ...(description === undefined ? {} : { description }),
        tags,
        ...(params === undefined ? {} : { params }),
        ...(body === undefined ? {} : { body }),
        response: { ...success, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503) },
      },
      handler: (request, reply) => write(request, reply, () => run(request), secretField),
    });
}
