import type { Transaction } from 'kysely';
import type { IdList } from './dialect.js';
import type { StockOutcome, StockTarget } from './repositories/stock-levels.js';
import type { Database } from './schema.js';
import type { FeedEntry } from './write.js';

/**
 * Batch statements of a database that binds a whole column of a batch as one parameter (PostgreSQL:
 * arrays; SQLite: a JSON array read with json_each). Each is one statement of constant text whatever
 * the batch's size, where the portable
 * form sends chunks of VALUES and IN lists with a parameter per value: statements the server parses
 * and plans anew for every chunk, and whose length grows with the batch. Each method does exactly
 * what its portable counterpart in the store does.
 */
export interface BatchStatements {
  /**
   * An id list for `where column <op> …`, bound as one parameter. Absent: ids go in chunks of
   * parameters (SQLite: `in (select value from json_each(?))` is planned as a scan of the table when
   * it has no statistics, while a list of parameters is looked up by primary key).
   */
  idList?(ids: readonly number[]): IdList;
  /** setStockLevels (repositories/stock-levels.ts), the whole batch in one statement. */
  setStock(
    trx: Transaction<Database>,
    dispensaryId: number,
    targets: readonly StockTarget[],
    at: string,
  ): Promise<StockOutcome>;
  /**
   * Inserts the feed entries of one write, numbered in the order given, in one statement; gives each
   * inserted row's cursor (seq) and item id. An entry's `item` is JSON text (JSON.stringify's) or null,
   * and is stored as sent, byte for byte.
   */
  insertFeed(
    trx: Transaction<Database>,
    dispensaryId: number,
    at: string,
    feed: readonly FeedEntry[],
  ): Promise<{ seq: number; item_id: number | null }[]>;
}
