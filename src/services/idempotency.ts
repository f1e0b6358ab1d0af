import { createHash } from 'node:crypto';
import type { Store } from '../store/store.js';
import { ServiceError } from './errors.js';

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
const KEY = /^[\x21-\x7e]{1,255}$/;

export interface IdempotentRequest {
  adminKeyId: number;
  key: string;
  /** Method, path and body: what must match for a repeat to count as the same request. */
  fingerprint: string;
  /** The answer's field that carries a secret (a token or password): never stored, so never replayed. */
  secretField?: string;
}

export interface Answer {
  status: number;
  body: unknown;
  replayed: boolean;
}

/**
 * Runs a write at most once per Idempotency-Key within 24 hours. A repeat with the same request gets
 * the first answer; with another request, 422. Repeats in this process wait for the first to finish.
 */
export class IdempotencyService {
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(private readonly store: Store) {}

  async run(
    request: IdempotentRequest,
    write: () => Promise<{ status: number; body: unknown }>,
  ): Promise<Answer> {
    if (!KEY.test(request.key)) {
      throw new ServiceError(
        'invalid_request',
        'Idempotency-Key must be 1 to 255 visible ASCII characters, for example a UUID.',
      );
    }
    const lock = `${request.adminKeyId}\0${request.key}`;
    while (this.running.has(lock)) await this.running.get(lock)?.catch(() => undefined);
    const work = this.once(request, write);
    this.running.set(lock, work);
    try {
      return await work;
    } finally {
      this.running.delete(lock);
    }
  }

  private async once(
    request: IdempotentRequest,
    write: () => Promise<{ status: number; body: unknown }>,
  ): Promise<Answer> {
    const digest = createHash('sha256').update(request.fingerprint).digest('hex');
    const notBefore = new Date(Date.now() - IDEMPOTENCY_WINDOW_MS).toISOString();
    const earlier = await this.store.idempotency.find(request.adminKeyId, request.key, notBefore);
    if (earlier) {
      if (earlier.requestDigest !== digest) {
        throw new ServiceError(
          'unprocessable',
          'This Idempotency-Key was used with a different request in the last 24 hours. Use a new key for a new request.',
        );
      }
      const body = JSON.parse(earlier.response) as Record<string, unknown>;
      if (request.secretField && body[request.secretField] === null) {
        throw new ServiceError(
          'conflict',
          `This request was already applied at ${earlier.createdAt}. Its ${request.secretField} is shown only once and is not kept; rotate it to get a new one.`,
        );
      }
      return { status: earlier.status, body, replayed: true };
    }
    const answer = await write();
    if (answer.status < 300) {
      const stored =
        request.secretField && answer.body && typeof answer.body === 'object'
          ? { ...(answer.body as Record<string, unknown>), [request.secretField]: null }
          : answer.body;
      await this.store.idempotency.deleteBefore(notBefore);
      await this.store.idempotency.save(request.adminKeyId, request.key, {
        requestDigest: digest,
        status: answer.status,
        response: JSON.stringify(stored ?? null),
        createdAt: new Date().toISOString(),
      });
    }
    return { ...answer, replayed: false };
  }
}
