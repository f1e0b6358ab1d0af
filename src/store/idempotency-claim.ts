import { AsyncLocalStorage } from 'node:async_hooks';
import type { Transaction } from 'kysely';
import type { Database } from './schema.js';

/** The status of an idempotency row whose write is committed and whose answer is not recorded yet. */
export const CLAIMED = 0;

/**
 * An Idempotency-Key to claim in the next write's own transaction: a row under the table's primary key
 * (admin key, Idempotency-Key), so that the database, not a process, decides which of several requests
 * carrying the same new key applies its write. `claimed` turns true once that transaction committed.
 */
export interface IdempotencyClaim {
  adminKeyId: number;
  key: string;
  requestDigest: string;
  /** Rows under the key older than this are expired: replaced, not a claim. */
  notBefore: string;
  claimed: boolean;
}

/** Another request holding the same Idempotency-Key claimed it first; this write was rolled back. */
export class IdempotencyKeyTaken extends Error {
  constructor() {
    super('This Idempotency-Key was claimed by another request.');
    this.name = 'IdempotencyKeyTaken';
  }
}

const pending = new AsyncLocalStorage<IdempotencyClaim>();

/** Runs `work` so that the first write it makes (src/store/write.ts) also claims `claim`. */
export function withIdempotencyClaim<T>(claim: IdempotencyClaim, work: () => Promise<T>): Promise<T> {
  return pending.run(claim, work);
}

/**
 * Inserts the pending claim, if any, in the transaction `trx` (called by the Writer first thing in every
 * write's transaction). On PostgreSQL a second insert of the same key waits for the first transaction
 * and fails once it commits; on SQLite writers take turns. Either way the loser's write rolls back.
 * Returns what to mark claimed once the transaction commits.
 */
export async function claimIn(
  trx: Transaction<Database>,
  isUniqueViolation: (error: unknown) => boolean,
): Promise<IdempotencyClaim | undefined> {
  const claim = pending.getStore();
  if (!claim || claim.claimed) return undefined;
  await trx
    .deleteFrom('idempotency_keys')
    .where('admin_key_id', '=', claim.adminKeyId)
    .where('idempotency_key', '=', claim.key)
    .where('created_at', '<', claim.notBefore)
    .execute();
  try {
    await trx
      .insertInto('idempotency_keys')
      .values({
        admin_key_id: claim.adminKeyId,
        idempotency_key: claim.key,
        request_digest: claim.requestDigest,
        status: CLAIMED,
        response: '',
        created_at: new Date().toISOString(),
      })
      .execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw new IdempotencyKeyTaken();
    throw error;
  }
  return claim;
}
