import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IdempotencyService } from '../../../services/idempotency.js';
import { adminKeyOf } from './auth.js';

export type Write = () => Promise<{ status: number; body: unknown }>;

/**
 * Runs a write through the Idempotency-Key check when its route declares itself idempotent
 * (`config.idempotent`, src/http/pipeline/route-facts.ts) and the client sent a key, and sends the answer.
 */
export function idempotentWriter(idempotency: IdempotencyService) {
  return async (request: FastifyRequest, reply: FastifyReply, write: Write) => {
    const declared = request.routeOptions.config.idempotent;
    const key = request.headers['idempotency-key'];
    const answer =
      declared && typeof key === 'string'
        ? await idempotency.run(
            {
              adminKeyId: adminKeyOf(request).id,
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
