import { createHash } from 'node:crypto';
import {
  CLAIMED,
  type IdempotencyClaim,
  IdempotencyKeyTaken,
  withIdempotencyClaim,
} from '../store/idempotency-claim.js';
import type { IdempotentAnswer, Store } from '../store/store.js';
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
 * Runs a write at most once per Idempotency-Key within 24 hours, however many processes serve: the
 * key is claimed by a row inserted in the write's own transaction (src/store/idempotency-claim.ts), so
 * of two requests with the same new key only one write commits; the other waits for its answer. A
 * repeat with the same request gets the first answer; with another request, 422. Repeats in this
 * process wait for the first to finish without asking the database.
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
    const waitUntil = Date.now() + CLAIM_WAIT_MS;
    for (;;) {
      const earlier = await this.store.idempotency.find(request.adminKeyId, request.key, notBefore);
      if (earlier) {
        const replay = this.replay(request, digest, earlier);
        if (replay) return replay;
        // Claimed by a write that committed and whose answer is on its way: wait for it.
        const stale = Date.parse(earlier.createdAt) < Date.now() - CLAIM_WAIT_MS;
        if (stale || Date.now() > waitUntil) throw stillClaimed(earlier.createdAt);
        await new Promise((resolve) => setTimeout(resolve, CLAIM_POLL_MS));
        continue;
      }
      const claim: IdempotencyClaim = {
        adminKeyId: request.adminKeyId,
        key: request.key,
        requestDigest: digest,
        notBefore,
        claimed: false,
      };
      let answer: { status: number; body: unknown };
      try {
        answer = await withIdempotencyClaim(claim, write);
      } catch (error) {
        // Another process claimed the key first; its answer is read on the next turn.
        if (error instanceof IdempotencyKeyTaken) continue;
        throw error;
      }
      await this.keep(request, digest, notBefore, claim, answer);
      return { ...answer, replayed: false };
    }
  }

  /** The earlier answer for a repeat, or undefined while the earlier write's answer is not recorded. */
  private replay(request: IdempotentRequest, digest: string, earlier: IdempotentAnswer): Answer | undefined {
    if (earlier.requestDigest !== digest) {
      throw new ServiceError(
        'unprocessable',
        'This Idempotency-Key was used with a different request in the last 24 hours. Use a new key for a new request.',
      );
    }
    if (earlier.status === CLAIMED) return undefined;
    const body = JSON.parse(earlier.response) as Record<string, unknown>;
    if (request.secretField && body[request.secretField] === null) {
      throw new ServiceError(
        'conflict',
        `This request was already applied at ${earlier.createdAt}. Its ${request.secretField} is shown only once and is not kept; rotate it to get a new one.`,
      );
    }
    return { status: earlier.status, body, replayed: true };
  }

  /** Records the answer under the key: on the claim the write made, or (a write that wrote nothing) anew. */
  private async keep(
    request: IdempotentRequest,
    digest: string,
    notBefore: string,
    claim: IdempotencyClaim,
    answer: { status: number; body: unknown },
  ): Promise<void> {
    if (answer.status >= 300) {
      if (claim.claimed) await this.store.idempotency.release(request.adminKeyId, request.key);
      return;
    }
    const stored =
      request.secretField && answer.body && typeof answer.body === 'object'
        ? { ...(answer.body as Record<string, unknown>), [request.secretField]: null }
        : answer.body;
    const response = JSON.stringify(stored ?? null);
    await this.store.idempotency.deleteBefore(notBefore);
    if (claim.claimed) {
      await this.store.idempotency.complete(request.adminKeyId, request.key, {
        status: answer.status,
        response,
      });
    } else {
      await this.store.idempotency.save(request.adminKeyId, request.key, {
        requestDigest: digest,
        status: answer.status,
        response,
        createdAt: new Date().toISOString(),
      });
    }
  }
}

/** How long a repeat waits for the answer of the write that claimed its key, ms. */
export const CLAIM_WAIT_MS = 10_000;
const CLAIM_POLL_MS = 25;

function stillClaimed(since: string): ServiceError {
  return new ServiceError(
    'conflict',
    `A request with this Idempotency-Key was applied at ${since} but its answer is not recorded yet (it may still be on its way, or the server that applied it stopped). Read the current state before writing again; retry with the same key to get the answer once it is recorded.`,
  );
}
