import { EntriesByItem } from '../../domain/entries-by-item.js';
import type { StockUpdate } from '../../domain/item.js';
import type { StockTarget } from '../batches.js';

/** The updates, one per price entry: the last level named for it wins, as in a batch applied in order. */
export function stockTargets(updates: StockUpdate[]): StockTarget[] {
  const targets: StockTarget[] = [];
  const byItem = new EntriesByItem<StockTarget>();
  for (const update of updates) {
    const earlier = byItem.find(update.itemId, update.unit, update.amount);
    if (earlier === undefined) {
      const target: StockTarget = {
        itemId: update.itemId,
        unit: update.unit,
        amount: update.amount,
        stock: update.stock,
        changed: false,
      };
      byItem.add(update.itemId, target);
      targets.push(target);
      continue;
    }
    earlier.changed ||= earlier.stock !== update.stock;
    earlier.stock = update.stock;
  }
  return targets;
}
