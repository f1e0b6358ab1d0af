import { sql } from 'kysely';
import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KyselyStore } from '../../src/store/create.js';
import { priceEntry } from '../domain/item-builder.js';
import { onPostgres } from '../helpers/database.js';
import { type PostgresStoreFixture, postgresStoreFixture } from '../helpers/postgres-store.js';
import { until } from '../helpers/wait.js';
import { item } from './contract/fixtures.js';

const ITEMS = 200;
const CHANGED = 60;

/**
 * A stock batch rewrites stock levels in place (migration 0010): on PostgreSQL every one of its row
 * updates is a HOT update, which writes no index entry. An index on a column a stock change sets
 * (stock, updated_at) would make each update write every index of the table again.
 */
describe.runIf(onPostgres)('stock levels are updated in place on PostgreSQL', () => {
  let fixture: PostgresStoreFixture;
  let store: KyselyStore;
  let watcher: pg.Client;

  beforeEach(async () => {
    // One connection: the write's, asked below to hand in its statistics at once.
    fixture = await postgresStoreFixture({ poolSize: 1 });
    ({ store, session: watcher } = fixture);
  });

  afterEach(() => fixture.close());

  /** price_entries' update counts in this database, once the writers' statistics have arrived. */
  async function updates(): Promise<{ all: number; hot: number }> {
    const { rows } = await watcher.query<{ all: number; hot: number }>(
      `select n_tup_upd::int as all, n_tup_hot_upd::int as hot
       from pg_stat_user_tables where relname = 'price_entries'`,
    );
    return rows[0]!;
  }

  it('a stock batch updates each entry without touching an index', async () => {
    const dispensary = await store.dispensaries.create('In place', 'digest-in-place');
    const menu = Array.from({ length: ITEMS }, (_, index) =>
      item(index + 1, {
        prices: [
          priceEntry({ unit: 'gram', amount: 1, priceCents: 1000, stock: 5 }),
          priceEntry({ unit: 'gram', amount: 3.5, priceCents: 3000, stock: 5 }),
        ],
      }),
    );
    await store.menus.replace(dispensary.id, menu);
    const before = await updates();
    const batch = Array.from({ length: CHANGED }, (_, index) => ({
      itemId: index * 3 + 1,
      unit: 'gram' as const,
      amount: index % 2 === 0 ? 1 : 3.5,
      stock: 40 + index,
    }));
    expect(await store.menus.setStock(dispensary.id, batch)).toBe(CHANGED);
    // A session hands in its statistics when idle, at least a second apart (10 s unless asked).
    await sql`select pg_stat_force_next_flush()`.execute(store.database);
    let after = before;
    await until(
      async () => {
        after = await updates();
        return after.all - before.all >= CHANGED;
      },
      15_000,
      `${CHANGED} updates of price_entries in pg_stat_user_tables`,
    );
    expect(after.all - before.all).toBe(CHANGED);
    expect(after.hot - before.hot).toBe(CHANGED);
  });
});
