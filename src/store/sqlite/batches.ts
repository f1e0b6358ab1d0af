import { sql } from 'kysely';
import type { BatchStatements } from '../batches.js';

/** Where the batch statements run: the store's connection, inside the open transaction (WatchedConnection). */
interface ArrayRunner {
  /** Runs a statement, kept by its text, and gives the rows it returns as arrays. */
  readArrays(source: string, parameters: readonly unknown[]): unknown[][];
  /** Runs a statement that returns no rows, kept by its text. */
  run(source: string, parameters: readonly unknown[]): void;
}

/**
 * The sizes a batch is cut into, largest first: each size is one statement with that many rows of
 * VALUES, prepared once per connection and kept. A batch of n rows runs about n / 512 statements and
 * at most 7 more (one of each smaller size 7 times), whatever n is; a single stock change runs one
 * statement of one row.
 */
const STOCK_CHUNKS = [512, 64, 8, 1];
/** Feed rows carry whole items: smaller statements bind fewer long texts at once. */
const FEED_CHUNKS = [64, 8, 1];
/** Item and price rows of a write of items: an item row binds about 35 values, some of them long texts. */
const ROW_CHUNKS = [64, 8, 1];

/** `rows` cut into slices of the given sizes (the last size must be 1), largest first. */
function* chunked<T>(rows: readonly T[], sizes: readonly number[]): Generator<readonly T[]> {
  let next = 0;
  for (const size of sizes) {
    for (; rows.length - next >= size; next += size) yield rows.slice(next, next + size);
  }
}

/** The text of a statement, by the number of VALUES rows it takes (each text is a kept statement). */
function bySize(text: (values: string) => string, row = '(?, ?, ?, ?, ?, ?)'): (size: number) => string {
  const texts = new Map<number, string>();
  return (size) => {
    let source = texts.get(size);
    if (source === undefined) {
      source = text(Array.from({ length: size }, () => row).join(', '));
      texts.set(size, source);
    }
    return source;
  };
}

/** The insert of rows of `columns` into `table`, by the number of rows (see bySize), one per table and column list. */
const rowInserts = new Map<string, (size: number) => string>();
function rowInsert(table: string, columns: readonly string[]): (size: number) => string {
  const key = `${table}(${columns.join(',')})`;
  let insert = rowInserts.get(key);
  if (insert === undefined) {
    const names = columns.map((column) => `"${column}"`).join(', ');
    insert = bySize(
      (values) => `insert into "${table}" (${names}) values ${values}`,
      `(${columns.map(() => '?').join(', ')})`,
    );
    rowInserts.set(key, insert);
  }
  return insert;
}

/** The update of one row of `table` found by `keys`, setting `columns` (its other columns), one per table and column list. */
const rowUpdates = new Map<string, string>();
function rowUpdate(table: string, keys: readonly string[], columns: readonly string[]): string {
  const key = `${table}(${keys.join(',')}|${columns.join(',')})`;
  let update = rowUpdates.get(key);
  if (update === undefined) {
    const set = columns.map((column) => `"${column}" = ?`).join(', ');
    update = `update "${table}" set ${set} where ${keys.map((column) => `"${column}" = ?`).join(' and ')}`;
    rowUpdates.set(key, update);
  }
  return update;
}

/**
 * One slice of a stock batch. The change time moves only when the level does, so `since` polls see
 * real changes only. The dispensary is a column of each row, not a constant: then SQLite goes from
 * each row to price_entries by its key. With a constant it scanned every price entry of the
 * dispensary and, for each, the whole list (11,567 × 1,000 comparisons per chunk of 1,000).
 */
const stockUpdate = bySize(
  (values) => `update price_entries as p
    set stock = v.column5,
        updated_at = case when v.column6 or p.stock is distinct from v.column5 then ? else p.updated_at end
    from (values ${values}) as v
    where p.dispensary_id = v.column1
      and p.item_id = v.column2 and p.unit = v.column3 and p.amount = v.column4
    returning item_id, updated_at = ? as moved`,
);

/** One slice of a write's feed rows, numbered (seq) as they are inserted, in the order given. */
const feedInsert = bySize(
  (values) => `insert into menu_changes (dispensary_id, at, type, item_id, reason, item)
    values ${values} returning seq, item_id`,
);

/**
 * SQLite's batch statements: a batch is cut into slices of a few fixed sizes (STOCK_CHUNKS,
 * FEED_CHUNKS), each a statement of VALUES rows kept on the transaction's own connection, so none is
 * parsed twice. Chunks of VALUES that Kysely compiled and better-sqlite3 prepared anew for every
 * chunk took a quarter of a 6,680-entry stock batch's time; one statement over a JSON array
 * (json_each) took twice as long as the kept slices do, as it reads each row's fields back out of
 * JSON text (bench/PROFILE.md, round ten). Id lists stay lists of parameters (see
 * BatchStatements.idList).
 */
export function sqliteBatches(connection: ArrayRunner): BatchStatements {
  return {
    // Kept statements of a few sizes, as for the feed: chunks of a thousand rows that Kysely compiled
    // and better-sqlite3 prepared anew for every write took about a tenth of a full sync of 5,000 rich
    // items (bench/PROFILE.md, round fourteen). Nothing to make ahead: better-sqlite3 binds the
    // parameters as it runs the statement, and the process waits for it whatever it does.
    async insertRows(_trx, table, rows) {
      return async () => {
        const columns = Object.keys(rows[0] ?? {});
        const insert = rowInsert(table, columns);
        for (const slice of chunked(rows, ROW_CHUNKS)) {
          const parameters: unknown[] = [];
          for (const row of slice) for (const column of columns) parameters.push(row[column]);
          connection.run(insert(slice.length), parameters);
        }
      };
    },

    // One kept statement per row: found by its primary key, each row is one look-up in the table.
    async updateRows(_trx, table, keys, rows) {
      return async () => {
        const columns = Object.keys(rows[0] ?? {}).filter((column) => !keys.includes(column));
        const update = rowUpdate(table, keys, columns);
        for (const row of rows) {
          const parameters: unknown[] = [];
          for (const column of columns) parameters.push(row[column]);
          for (const column of keys) parameters.push(row[column]);
          connection.run(update, parameters);
        }
      };
    },

    // Kysely's transaction runs on the same (only) connection, so these statements are inside it.
    async setStock(trx, dispensaryId, targets, at) {
      const changedItems = new Set<number>();
      let matched = 0;
      for (const slice of chunked(targets, STOCK_CHUNKS)) {
        const parameters: unknown[] = [at];
        for (const target of slice) {
          parameters.push(
            dispensaryId,
            target.itemId,
            target.unit,
            target.amount,
            target.stock,
            target.changed ? 1 : 0,
          );
        }
        parameters.push(at);
        for (const [itemId, moved] of connection.readArrays(stockUpdate(slice.length), parameters)) {
          matched++;
          if (moved) changedItems.add(Number(itemId));
        }
      }
      // A unit and amount appear once per item (validateItem), and the targets name each entry once:
      // every target matched one entry at most, and no two the same one.
      if (matched === targets.length) return { changedItems: [...changedItems], unmatched: [] };
      // Some target matched nothing, and the write is rolled back: which ones, for the error.
      const batch = JSON.stringify(
        targets.map((target) => [dispensaryId, target.itemId, target.unit, target.amount]),
      );
      const { rows: missing } = await sql<{ n: number }>`
        select v.key as n from json_each(${batch}) as v
        where not exists (
          select 1 from price_entries p
          where p.dispensary_id = v.value ->> 0 and p.item_id = v.value ->> 1
            and p.unit = v.value ->> 2 and p.amount = v.value ->> 3)`.execute(trx);
      return { changedItems: [...changedItems], unmatched: missing.map((row) => targets[row.n]!) };
    },

    async insertFeed(_trx, dispensaryId, at, feed) {
      const inserted: { seq: number; item_id: number | null }[] = [];
      for (const slice of chunked(feed, FEED_CHUNKS)) {
        const parameters: unknown[] = [];
        for (const entry of slice) {
          parameters.push(dispensaryId, at, entry.type, entry.itemId, entry.reason, entry.item);
        }
        for (const [seq, itemId] of connection.readArrays(feedInsert(slice.length), parameters)) {
          inserted.push({ seq: Number(seq), item_id: itemId === null ? null : Number(itemId) });
        }
      }
      return inserted;
    },
  };
}
