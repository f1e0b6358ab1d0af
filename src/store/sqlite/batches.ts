import { sql } from 'kysely';
import type { BatchStatements } from '../batches.js';

/** Where the feed's rows are inserted one by one: the store's connection (WatchedConnection.runEach). */
interface RowRunner {
  runEach(source: string, rows: readonly (readonly unknown[])[]): unknown[][];
}

/** One feed row, numbered (seq) as it is inserted, in the order given. */
const INSERT_FEED_ROW = `insert into menu_changes (dispensary_id, at, type, item_id, reason, item)
  values (?, ?, ?, ?, ?, ?) returning seq, item_id`;

/**
 * SQLite's batch statements. The stock batch is bound as one JSON array and read back row by row
 * with json_each, so its text is the same for 1 entry or 10,000: chunks of VALUES lists of up to 6,000
 * parameters, which better-sqlite3 prepares and Kysely compiles anew for every chunk, took a quarter
 * of a 6,680-entry batch's time. Feed rows, which carry whole items, are inserted by one kept
 * statement run once per row, on the transaction's own connection (`rows`): half the time of the
 * same rows through json_each, which had to unescape every item's text. Id lists stay lists of
 * parameters (see BatchStatements.idList).
 */
export function sqliteBatches(rows: RowRunner): BatchStatements {
  return {
    async setStock(trx, dispensaryId, targets, at) {
      const batch = JSON.stringify(
        targets.map((target) => [
          dispensaryId,
          target.itemId,
          target.unit,
          target.amount,
          target.stock,
          target.changed,
        ]),
      );
      // The change time moves only when the level does, so `since` polls see real changes only. The
      // dispensary is a column of each row, not a constant: then SQLite goes from each row to
      // price_entries by its key. With a constant it scanned every price entry of the dispensary and,
      // for each, the whole list (measured with VALUES lists: 11,567 × 1,000 comparisons per chunk).
      const { rows: updated } = await sql<{ item_id: number; moved: number }>`
        update price_entries as p
        set stock = v.stock,
            updated_at = case when v.changed or p.stock is distinct from v.stock then ${at} else p.updated_at end
        from (select value ->> 0 as dispensary_id, value ->> 1 as item_id, value ->> 2 as unit,
                     value ->> 3 as amount, value ->> 4 as stock, value ->> 5 as changed
              from json_each(${batch})) as v
        where p.dispensary_id = v.dispensary_id
          and p.item_id = v.item_id and p.unit = v.unit and p.amount = v.amount
        returning item_id, updated_at = ${at} as moved`.execute(trx);
      const changedItems = new Set<number>();
      for (const row of updated) if (row.moved) changedItems.add(Number(row.item_id));
      // A unit and amount appear once per item (validateItem), and the targets name each entry once:
      // every target matched one entry at most, and no two the same one.
      if (updated.length === targets.length) return { changedItems: [...changedItems], unmatched: [] };
      // Some target matched nothing, and the write is rolled back: which ones, for the error.
      const { rows: missing } = await sql<{ n: number }>`
        select v.key as n from json_each(${batch}) as v
        where not exists (
          select 1 from price_entries p
          where p.dispensary_id = v.value ->> 0 and p.item_id = v.value ->> 1
            and p.unit = v.value ->> 2 and p.amount = v.value ->> 3)`.execute(trx);
      return { changedItems: [...changedItems], unmatched: missing.map((row) => targets[row.n]!) };
    },

    // Kysely's transaction runs on the same (only) connection, so these inserts are inside it.
    async insertFeed(_trx, dispensaryId, at, feed) {
      const inserted = rows.runEach(
        INSERT_FEED_ROW,
        feed.map((entry) => [dispensaryId, at, entry.type, entry.itemId, entry.reason, entry.item]),
      );
      return inserted.map(([seq, itemId]) => ({
        seq: Number(seq),
        item_id: itemId === null ? null : Number(itemId),
      }));
    },
  };
}
