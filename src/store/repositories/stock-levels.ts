import type { StockUpdate } from '../../domain/item.js';
import type { StockTarget } from '../batches.js';
import { priceKey } from '../item-rows.js';

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
