import type { Expression, Transaction } from 'kysely';
import type { Database } from './schema.js';
import type { MenuChangeType, RemovalReason } from './store.js';

// The shapes the batch statements take and give, here so that the dialect, the writer and the
// repositories (which all import this module) are not imported by it.

/** Ids as one statement binds them: `in` a list of parameters, or `=` an expression (any of an array). */
export type IdList = { op: 'in'; ids: readonly number[] } | { op: '='; ids: Expression<number> };

/** One price entry's new stock level, as one row of the set-based update. */
export interface StockTarget {
  itemId: number;
  unit: string;
  amount: number;
  stock: number | null;
  /**
   * The entry is named more than once with different levels. Applied one by one, as the batch means,
   * some step changed the level even if the last one equals the stored level: its time moves.
   */
  changed: boolean;
}

/** What a stock batch did: the items whose levels moved, and the targets that matched no price entry. */
export interface StockOutcome {
  /** Ids of the items one of whose entries changed level (so change time), each once. */
  changedItems: number[];
  unmatched: StockTarget[];
}

/** One entry of the live feed a write records (see MenuChange). */
export interface FeedEntry {
  type: MenuChangeType;
  itemId: number | null;
  reason: RemovalReason | null;
  /** The canonical item JSON after the change, on item.upserted. */
  item: string | null;
  /**
   * Set when `item` is the item's kept JSON (items.fields_json, unchanged since this write read it)
   * with these price entries' JSON put after it, as foldKeptJson builds it: a database may build
   * `item` so from its own rows instead of being sent the whole text (PostgreSQL's insertFeed).
   */
  keptEntries?: string;
}

/** The feed entry of an item written: its canonical JSON (`json`) as it is now. */
export const upsertedEntry = (item: { id: number; json: string; entries?: string }): FeedEntry => ({
  type: 'item.upserted',
  itemId: item.id,
  reason: null,
  item: item.json,
  ...(item.entries !== undefined && { keptEntries: item.entries }),
});

/** The feed entry of an item gone from the active menu, and why. */
export const removedEntry = (itemId: number, reason: RemovalReason): FeedEntry => ({
  type: 'item.removed',
  itemId,
  reason,
  item: null,
});

/** A statement made ahead of running it (see BatchStatements.insertRows): runs it. */
export type MadeStatement = () => Promise<void>;

/**
 * A database's batch statements, each of a text the database parses once, whatever the batch's size:
 * PostgreSQL binds a whole column of a batch as one parameter (an array), one statement per batch;
 * SQLite runs kept statements of a few fixed numbers of VALUES rows (sqlite/batches.ts). Chunks of
 * VALUES and IN lists compiled for each batch would be statements the database parses and plans anew
 * for every chunk, and whose length grows with the batch.
 */
export interface BatchStatements {
  /**
   * An id list for `where column <op> …`, bound as one parameter. Absent: ids go in chunks of
   * parameters (SQLite: `in (select value from json_each(?))` is planned as a scan of the table when
   * it has no statistics, while a list of parameters is looked up by primary key).
   */
  idList?(ids: readonly number[]): IdList;
  /**
   * The insert of rows of a write of items into `table`, in the write's transaction; each row an object
   * of the same columns in the same order. Made now (its parameters encoded), run when the returned
   * statement is called: a write makes the next slice's statements while the database runs the last.
   */
  insertRows(
    trx: Transaction<Database>,
    table: 'items' | 'price_entries',
    rows: readonly Record<string, unknown>[],
  ): Promise<MadeStatement>;
  /**
   * The update of rows of a write of items in `table`, in the write's transaction: each row an object
   * of the same columns in the same order, found by its `keys` columns (its primary key), its other
   * columns set. A row that matches none is passed over. Made now, run later, as insertRows.
   */
  updateRows(
    trx: Transaction<Database>,
    table: 'items' | 'price_entries',
    keys: readonly string[],
    rows: readonly Record<string, unknown>[],
  ): Promise<MadeStatement>;
  /**
   * Sets the stock of every target (stockTargets, repositories/stock-levels.ts), in the write's
   * transaction. An
   * entry changed (and its item is in `changedItems`) when its level moved or it was named with
   * different levels; then its change time is now `at`. Targets that match no price entry are
   * `unmatched` (the write is then refused and rolled back).
   */
  setStock(
    trx: Transaction<Database>,
    dispensaryId: number,
    targets: readonly StockTarget[],
    at: string,
  ): Promise<StockOutcome>;
  /**
   * Inserts the feed entries of one write, numbered in the order given; gives each inserted row's
   * cursor (seq) and item id. An entry's `item` is JSON text (JSON.stringify's) or null, and is stored
   * as sent, byte for byte.
   */
  insertFeed(
    trx: Transaction<Database>,
    dispensaryId: number,
    at: string,
    feed: readonly FeedEntry[],
  ): Promise<{ seq: number; item_id: number | null }[]>;
}
