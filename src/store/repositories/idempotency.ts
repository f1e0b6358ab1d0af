import type { Kysely } from 'kysely';
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
    await this.db.transaction().execute(async (trx) => {
      // An expired record under the same key is replaced.
      await trx
        .deleteFrom('idempotency_keys')
        .where('admin_key_id', '=', adminKeyId)
        .where('idempotency_key', '=', key)
        .execute();
      await trx
        .insertInto('idempotency_keys')
        .values({
          admin_key_id: adminKeyId,
          idempotency_key: key,
          request_digest: answer.requestDigest,
          status: answer.status,
          response: answer.response,
          created_at: answer.createdAt,
        })
        .execute();
    });
  }

  async deleteBefore(before: string): Promise<void> {
    await this.db.deleteFrom('idempotency_keys').where('created_at', '<', before).execute();
  }
}
