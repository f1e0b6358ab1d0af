import { sql, type Transaction } from 'kysely';
import type { StockUpdate } from '../../domain/item.js';
import type { StockOutcome, StockRow, StockTarget } from '../batches.js';
import { chunks, type Dialect } from '../dialect.js';
import { priceKey } from '../rows.js';
import type { Database } from '../schema.js';

/** Bound values per StockTarget row of the portable statement. */
const STOCK_TARGET_PARAMETERS = 6;

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

/**
 * Sets the stock of every target, in one statement per chunk of targets (where the dialect binds
 * arrays, one statement: BatchStatements.setStock). An entry changed when its change time is now
 * this write's `at`.
 */
export async function setStockLevels(
  dialect: Dialect,
  trx: Transaction<Database>,
  dispensaryId: number,
  targets: readonly StockTarget[],
  at: string,
): Promise<StockOutcome> {
  if (dialect.batches) return dialect.batches.setStock(trx, dispensaryId, targets, at);
  const rows: StockRow[] = [];
  for (const chunk of chunks(dialect, targets, STOCK_TARGET_PARAMETERS)) {
    rows.push(...(await setStockChunk(trx, dispensaryId, chunk, at)));
  }
  return stockOutcome(rows, targets, at);
}

/** The outcome of a batch from the entries its update returned: an entry changed when its time is `at`. */
export function stockOutcome(
  rows: readonly StockRow[],
  targets: readonly StockTarget[],
  at: string,
): StockOutcome {
  const matched = new Set<string>();
  const changedItems = new Set<number>();
  for (const row of rows) {
    matched.add(priceKey(Number(row.item_id), row.unit, Number(row.amount)));
    if (row.updated_at === at) changedItems.add(Number(row.item_id));
  }
  return {
    changedItems: [...changedItems],
    unmatched: targets.filter((target) => !matched.has(priceKey(target.itemId, target.unit, target.amount))),
  };
}

/**
 * Sets the stock of every target in one statement and gives the entries it matched: RETURNING sees
 * the new row only, so an entry changed when its change time is now `at`. UPDATE ... FROM (VALUES ...)
 * runs on PostgreSQL and on SQLite (3.33 and later); both name the columns of a VALUES list column1,
 * column2, ..., and the casts give PostgreSQL their types.
 */
async function setStockChunk(
  trx: Transaction<Database>,
  dispensaryId: number,
  targets: StockTarget[],
  at: string,
) {
  const values = sql.join(
    targets.map(
      (target) =>
        sql`(cast(${dispensaryId} as integer), cast(${target.itemId} as integer), cast(${target.unit} as text), cast(${target.amount} as double precision), cast(${target.stock} as double precision), cast(${target.changed ? 1 : 0} as integer))`,
    ),
  );
  // The change time moves only when the level does, so `since` polls see real changes only.
  // The dispensary is a column of the VALUES list, not a constant: then the only way to an index of
  // price_entries is from each VALUES row, by its key (dispensary, item). With a constant, SQLite
  // scanned every price entry of the dispensary and, for each, the whole VALUES list (measured:
  // 11,567 × 1,000 comparisons per chunk of a 6,680-entry batch on the 5,000-item menu).
  const { rows } = await sql<StockRow>`
    update price_entries as p
    set stock = v.column5,
        updated_at = case when v.column6 = 1 or p.stock is distinct from v.column5 then ${at} else p.updated_at end
    from (values ${values}) as v
    where p.dispensary_id = v.column1
      and p.item_id = v.column2 and p.unit = v.column3 and p.amount = v.column4
    returning item_id, unit, amount, updated_at`.execute(trx);
  return rows;
}
