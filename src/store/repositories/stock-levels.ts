import { sql, type Transaction } from 'kysely';
import type { StockUpdate } from '../../domain/item.js';
import { priceKey } from '../rows.js';
import type { Database } from '../schema.js';

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

/** Bound values per StockTarget row. */
export const STOCK_TARGET_PARAMETERS = 5;

/** The updates, one per price entry: the last level named for it wins, as in a batch applied in order. */
export function stockTargets(updates: StockUpdate[]): StockTarget[] {
  const targets = new Map<string, StockTarget>();
  for (const update of updates) {
    const key = priceKey(update.itemId, update.unit, update.amount);
    const earlier = targets.get(key);
    targets.set(key, {
      itemId: update.itemId,
      unit: update.unit,
      amount: update.amount,
      stock: update.stock,
      changed: earlier !== undefined && (earlier.changed || earlier.stock !== update.stock),
    });
  }
  return [...targets.values()];
}

/** A price entry a stock update matched, and whether its level (so its change time) moved. */
export interface MatchedStock {
  key: string;
  itemId: number;
  changed: boolean;
}

/**
 * Sets the stock of every target in one statement, and gives the entries it matched (their priceKey),
 * each with whether it changed: RETURNING sees the new row only, so an entry changed when its change
 * time is now this write's `at`. UPDATE ... FROM (VALUES ...) runs on PostgreSQL and on SQLite (3.33 and later); both name
 * the columns of a VALUES list column1, column2, ..., and the casts give PostgreSQL their types.
 */
export async function setStockLevels(
  trx: Transaction<Database>,
  dispensaryId: number,
  targets: StockTarget[],
  at: string,
): Promise<MatchedStock[]> {
  const values = sql.join(
    targets.map(
      (target) =>
        sql`(cast(${target.itemId} as integer), cast(${target.unit} as text), cast(${target.amount} as double precision), cast(${target.stock} as double precision), cast(${target.changed ? 1 : 0} as integer))`,
    ),
  );
  // The change time moves only when the level does, so `since` polls see real changes only.
  const { rows } = await sql<{ item_id: number; unit: string; amount: number; updated_at: string }>`
    update price_entries as p
    set stock = v.column4,
        updated_at = case when v.column5 = 1 or p.stock is distinct from v.column4 then ${at} else p.updated_at end
    from (values ${values}) as v
    where p.dispensary_id = ${dispensaryId}
      and p.item_id = v.column1 and p.unit = v.column2 and p.amount = v.column3
    returning item_id, unit, amount, updated_at`.execute(trx);
  return rows.map((row) => ({
    key: priceKey(Number(row.item_id), row.unit, Number(row.amount)),
    itemId: Number(row.item_id),
    changed: row.updated_at === at,
  }));
}
