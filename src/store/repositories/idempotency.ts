import type { Kysely } from 'kysely';
import { CLAIMED } from '../idempotency-claim.js';
import type { Database } from '../schema.js';
import type { IdempotencyRepository, IdempotentAnswer } from '../store.js';

/** Answers kept for retried admin requests: bookkeeping, not changes (no notice, no audit entry). */
export class IdempotencyKeys implements IdempotencyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async find(adminKeyId: number, key: string, notBefore: string): Promise<IdempotentAnswer | undefined> {
    const row = await this.db
      .selectFrom('idempotency_keys')
      .select(['request_digest', 'status', 'response', 'created_at'])
      .where('admin_key_id', '=', adminKeyId)
      .where('idempotency_key', '=', key)
      .where('created_at', '>=', notBefore)
      .executeTakeFirst();
    return (
      row && {
        requestDigest: row.request_digest,
        status: Number(row.status),
        response: row.response,
        createdAt: row.created_at,
      }
    );
  }

  async save(adminKeyId: number, key: string, answer: IdempotentAnswer): Promise<void> {
    // One statement: an expired answer under the key is replaced, and a process saving under the same
    // key at the same moment cannot make this fail with a unique violation.
    await this.db
      .insertInto('idempotency_keys')
      .values({
        admin_key_id: adminKeyId,
        idempotency_key: key,
        request_digest: answer.requestDigest,
        status: answer.status,
        response: answer.response,
        created_at: answer.createdAt,
      })
      .onConflict((conflict) =>
        conflict.columns(['admin_key_id', 'idempotency_key']).doUpdateSet({
          request_digest: answer.requestDigest,
          status: answer.status,
          response: answer.response,
          created_at: answer.createdAt,
        }),
      )
      .execute();
  }

  async complete(
    adminKeyId: number,
    key: string,
    answer: Pick<IdempotentAnswer, 'status' | 'response'>,
  ): Promise<void> {
    await this.db
      .updateTable('idempotency_keys')
      .set({ status: answer.status, response: answer.response })
      .where('admin_key_id', '=', adminKeyId)
      .where('idempotency_key', '=', key)
      .where('status', '=', CLAIMED)
      .execute();
  }

  async release(adminKeyId: number, key: string): Promise<void> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where('admin_key_id', '=', adminKeyId)
      .where('idempotency_key', '=', key)
      .where('status', '=', CLAIMED)
      .execute();
  }

  async deleteBefore(before: string): Promise<void> {
    await this.db.deleteFrom('idempotency_keys').where('created_at', '<', before).execute();
  }
}
