import type { StockUpdate } from '../../domain/item.js';
import type { StockTarget } from '../batches.js';

/**
 * The updates, one per price entry: the last level named for it wins, as in a batch applied in order.
 * An entry is found among its item's few targets by unit and amount, not by a text key made of all
 * three: a batch of 6,680 entries made and hashed 6,680 such texts (bench/PROFILE.md, round twenty-nine).
 */
export function stockTargets(updates: StockUpdate[]): StockTarget[] {
  const targets: StockTarget[] = [];
  const byItem = new Map<number, StockTarget[]>();
  for (const update of updates) {
    let ofItem = byItem.get(update.itemId);
    if (ofItem === undefined) {
      ofItem = [];
      byItem.set(update.itemId, ofItem);
    }
    const earlier = ofItem.find((target) => target.unit === update.unit && target.amount === update.amount);
    if (earlier === undefined) {
      const target: StockTarget = {
        itemId: update.itemId,
        unit: update.unit,
        amount: update.amount,
        stock: update.stock,
        changed: false,
      };
      ofItem.push(target);
      targets.push(target);
      continue;
    }
    earlier.changed ||= earlier.stock !== update.stock;
    earlier.stock = update.stock;
  }
  return targets;
}
