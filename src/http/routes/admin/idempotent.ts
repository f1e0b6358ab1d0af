import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../../../services/errors.js';
import type { IdempotencyService } from '../../../services/idempotency.js';
import { principalOf } from './auth.js';

export type Write = () => Promise<{ status: number; body: unknown }>;

/**
 * Runs a write through the Idempotency-Key check when its route declares itself idempotent
 * (`config.idempotent`, src/http/pipeline/route-facts.ts) and the client sent a key, and sends the answer.
 */
export function idempotentWriter(idempotency: IdempotencyService) {
  return async (request: FastifyRequest, reply: FastifyReply, write: Write) => {
    const declared = request.routeOptions.config.idempotent;
    const key = request.headers['idempotency-key'];
    const adminKeyId = principalOf(request).adminKeyId;
    if (declared && typeof key === 'string' && adminKeyId === undefined) {
      // Answers are kept per admin key; the console (an account's session) retries nothing by itself.
      throw new ServiceError(
        'invalid_request',
        'Idempotency-Key is for admin keys (machines). Send the write without it when signed in as a person.',
      );
    }
    const answer =
      declared && typeof key === 'string' && adminKeyId !== undefined
        ? await idempotency.run(
            {
              adminKeyId,
              key,
              fingerprint: `${request.method}\n${request.url}\n${JSON.stringify(request.body ?? null)}`,
              secretField: declared.secretField,
            },
            write,
          )
        : { ...(await write()), replayed: false };
    if (answer.replayed) reply.header('idempotent-replayed', 'true');
    reply.code(answer.status);
    return answer.status === 204 ? reply.send() : answer.body;
  };
}
