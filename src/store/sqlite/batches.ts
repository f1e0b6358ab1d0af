import { sql } from 'kysely';
import type { BatchStatements, StockRow } from '../batches.js';
import { stockOutcome } from '../repositories/stock-levels.js';

/**
 * SQLite's batch statements (id lists stay lists of parameters: see BatchStatements.idList): a batch is bound as one JSON array and read back row by row with
 * json_each, so a statement's text is the same for 1 entry or 10,000. The portable form sends chunks
 * of VALUES lists of up to 6,000 parameters, which better-sqlite3 prepares and Kysely compiles anew
 * for every chunk: measured on a 6,680-entry stock batch, preparing and compiling took a quarter of
 * the batch's time.
 */
export const sqliteBatches: BatchStatements = {
  async setStock(trx, dispensaryId, targets, at) {
    const rows = JSON.stringify(
      targets.map((target) => [
        dispensaryId,
        target.itemId,
        target.unit,
        target.amount,
        target.stock,
        target.changed,
      ]),
    );
    // As the portable update (repositories/stock-levels.ts): the dispensary is a column of each row,
    // so that SQLite goes from each row to price_entries by its key rather than scanning the dispensary.
    const { rows: updated } = await sql<StockRow>`
      update price_entries as p
      set stock = v.stock,
          updated_at = case when v.changed or p.stock is distinct from v.stock then ${at} else p.updated_at end
      from (select value ->> 0 as dispensary_id, value ->> 1 as item_id, value ->> 2 as unit,
                   value ->> 3 as amount, value ->> 4 as stock, value ->> 5 as changed
            from json_each(${rows})) as v
      where p.dispensary_id = v.dispensary_id
        and p.item_id = v.item_id and p.unit = v.unit and p.amount = v.amount
      returning item_id, unit, amount, updated_at`.execute(trx);
    return stockOutcome(updated, targets, at);
  },

  async insertFeed(trx, dispensaryId, at, feed) {
    // An entry's item (canonical JSON text, or null) goes as a JSON string, which ->> gives back as
    // the very text: byte for byte what JSON.stringify made.
    const rows = JSON.stringify(feed.map((entry) => [entry.type, entry.itemId, entry.reason, entry.item]));
    const { rows: inserted } = await sql<{ seq: number; item_id: number | null }>`
      insert into menu_changes (dispensary_id, at, type, item_id, reason, item)
      select ${dispensaryId}, ${at}, value ->> 0, value ->> 1, value ->> 2, value ->> 3
      from json_each(${rows})
      -- Inserted, so numbered, in the order given.
      order by key
      returning seq, item_id`.execute(trx);
    return inserted;
  },
};
