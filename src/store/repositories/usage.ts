import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { UsageCount, UsageRepository } from '../store.js';

/** Requests per credential per hour: counters added to, one row per credential and hour. */
export class Usage implements UsageRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async add(counts: readonly UsageCount[]): Promise<void> {
    if (counts.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const count of counts) {
        await trx
          .insertInto('usage_counts')
          .values({ username: count.username, hour: count.hour, requests: count.requests })
          .onConflict((conflict) =>
            conflict
              .columns(['username', 'hour'])
              .doUpdateSet((eb) => ({ requests: eb('usage_counts.requests', '+', count.requests) })),
          )
          .execute();
      }
    });
  }

  async since(hour: string): Promise<UsageCount[]> {
    const rows = await this.db
      .selectFrom('usage_counts')
      .select(['username', 'hour', 'requests'])
      .where('hour', '>=', hour)
      .orderBy('hour')
      .orderBy('username')
      .execute();
    return rows.map((row) => ({ username: row.username, hour: row.hour, requests: Number(row.requests) }));
  }
}
