import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KyselyStore } from '../../src/store/create.js';
import { onPostgres } from '../helpers/database.js';
import { type PostgresStoreFixture, postgresStoreFixture } from '../helpers/postgres-store.js';
import { item } from './contract/fixtures.js';

const POOL_SIZE = 4;
/**
 * A read that waits this long for a pooled connection fails (and its request would answer 503); so
 * does a write waiting for its turn. Writes here wait behind the held lock while the test reads, which
 * takes more than a second on a loaded machine; a read starved of connections would wait until the
 * lock is released, after the reads: for ever, so the reads' check fails at any deadline.
 */
const ACQUIRE_TIMEOUT_MS = 3_000;
const WRITES = 3 * POOL_SIZE;

/**
 * Writes that wait for a lock in PostgreSQL (a dispensary's row lock) must not hold the pooled
 * connections reads need: a backlog of writes slows writes, never reads (src/store/write-turns.ts).
 * The lock is held here by another session, as a long write through another process would hold it.
 */
describe.runIf(onPostgres)('a backlog of writes waiting for locks leaves connections to reads', () => {
  let fixture: PostgresStoreFixture;
  let store: KyselyStore;
  let holder: pg.Client;

  beforeEach(async () => {
    fixture = await postgresStoreFixture({ poolSize: POOL_SIZE, connectTimeoutMs: ACQUIRE_TIMEOUT_MS });
    ({ store, session: holder } = fixture);
  });

  afterEach(() => fixture.close());

  /** Takes the row locks of these dispensaries in `holder`'s transaction, until `release`. */
  async function lockRows(ids: number[]): Promise<{ release(): Promise<void> }> {
    await holder.query('begin');
    await holder.query('select 1 from dispensaries where id = any($1) for update', [ids]);
    return { release: async () => void (await holder.query('commit')) };
  }

  /**
   * Resolves once some of the writes wait for the lock, and a little later, so that all that will take
   * a connection before the reads below have taken it (today's code: every pooled connection).
   */
  async function writesWaiting(): Promise<void> {
    for (;;) {
      const { rows } = await holder.query<{ waiting: number }>(
        `select count(*)::int as waiting from pg_stat_activity
         where datname = current_database() and wait_event_type = 'Lock'`,
      );
      if (rows[0]!.waiting > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  /** Reads of every kind a request makes, each of which needs a pooled connection. */
  const reads = (dispensaryId: number) =>
    Array.from({ length: 2 * POOL_SIZE }, (_, index) =>
      index % 2 ? store.menus.readAt(dispensaryId) : store.dispensaries.getStoreInfoAt(dispensaryId),
    );

  const stockOf = async (dispensaryId: number) => (await store.menus.read(dispensaryId))[0]!.prices[0]!.stock;

  it('writes to one dispensary queued behind its row lock: reads go on, writes apply in order', async () => {
    const dispensary = await store.dispensaries.create('Busy', 'digest-busy');
    await store.menus.replace(dispensary.id, [item(1)]);
    const lock = await lockRows([dispensary.id]);
    const writes = Array.from({ length: WRITES }, (_, index) =>
      store.menus.setStock(dispensary.id, [{ itemId: 1, unit: 'gram', amount: 1, stock: 100 + index }]),
    );
    await writesWaiting();
    const read = await Promise.allSettled(reads(dispensary.id));
    expect(read.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    await lock.release();
    expect((await Promise.allSettled(writes)).filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    expect(await stockOf(dispensary.id)).toBe(100 + WRITES - 1);
  });

  it('writes to many dispensaries, each waiting for its lock, take at most half the pool', async () => {
    const ids: number[] = [];
    for (let index = 0; index < WRITES; index++) {
      const dispensary = await store.dispensaries.create(`Busy ${index}`, `digest-${index}`);
      await store.menus.replace(dispensary.id, [item(1)]);
      ids.push(dispensary.id);
    }
    const lock = await lockRows(ids);
    const writes = ids.map((id) =>
      store.menus.setStock(id, [{ itemId: 1, unit: 'gram', amount: 1, stock: 7 }]),
    );
    await writesWaiting();
    const read = await Promise.allSettled(reads(ids[0]!));
    expect(read.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    await lock.release();
    expect((await Promise.allSettled(writes)).filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    for (const id of ids) expect(await stockOf(id)).toBe(7);
  });
});
