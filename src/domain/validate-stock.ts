import { EntriesByItem } from './entries-by-item.js';
import { LIMITS } from './field-kinds.js';
import { type StockUpdate, UNITS, type Unit } from './item.js';
import { parseItemRef } from './item-ref.js';
import type { FieldProblem } from './validate-item.js';

export const MAX_STOCK_UPDATES = 20_000;

/** The fields of a stock update entry; any other is refused. */
const STOCK_UPDATE_FIELDS = new Set(['item_id', 'unit', 'amount', 'stock']);

/** An update whose item_id was `ext:` and an external_id: the service puts the item's id in its place. */
export interface ExternalStockRef {
  /** The update's index in `updates` (and in the batch). */
  index: number;
  externalId: string;
}

/**
 * Validates `[{item_id, unit, amount, stock}]`; stock null means "not tracked". An item_id may be
 * `ext:` and an external_id: such an update has itemId 0 until the service resolves it (`external`).
 */
export function validateStockUpdates(
  raw: unknown,
):
  | { ok: true; updates: StockUpdate[]; external: ExternalStockRef[] }
  | { ok: false; problems: FieldProblem[] } {
  if (!Array.isArray(raw)) {
    return {
      ok: false,
      problems: [{ field: 'body', message: 'must be a JSON array of {item_id, unit, amount, stock}' }],
    };
  }
  if (raw.length > MAX_STOCK_UPDATES) {
    return {
      ok: false,
      problems: [{ field: 'body', message: `has ${raw.length} entries; at most ${MAX_STOCK_UPDATES}` }],
    };
  }
  const problems: FieldProblem[] = [];
  const updates: StockUpdate[] = [];
  const external: ExternalStockRef[] = [];
  // The entries taken so far, by item_id as sent, each with its index.
  const seen = new EntriesByItem<{ unit: unknown; amount: unknown; index: number }>();
  // Batches run to thousands of entries: no copy of an entry and no field name made unless it is wrong.
  for (let index = 0; index < raw.length; index++) {
    const entry: unknown = raw[index];
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push({ field: `[${index}]`, message: 'must be an object {item_id, unit, amount, stock}' });
      continue;
    }
    const record = entry as Record<string, unknown>;
    const { item_id: itemId, unit, amount, stock } = record;
    const before = problems.length;
    for (const field in record) {
      if (!STOCK_UPDATE_FIELDS.has(field))
        problems.push({ field: `[${index}].${field}`, message: 'is not a known field' });
    }
    const ref = typeof itemId === 'string' ? parseItemRef(itemId) : undefined;
    const byExternal = ref !== undefined && 'externalId' in ref ? ref.externalId : undefined;
    if (byExternal === undefined && (typeof itemId !== 'number' || !Number.isInteger(itemId) || itemId < 1)) {
      problems.push({
        field: `[${index}].item_id`,
        message: 'must be a positive integer, or "ext:" and the item\'s external_id',
      });
    }
    if (!UNITS.includes(unit as Unit))
      problems.push({ field: `[${index}].unit`, message: `must be one of ${UNITS.join(', ')}` });
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) {
      problems.push({ field: `[${index}].amount`, message: 'must be a number above 0' });
    }
    if (
      stock !== null &&
      (typeof stock !== 'number' || !Number.isFinite(stock) || stock < 0 || stock > LIMITS.stockMax)
    ) {
      problems.push({
        field: `[${index}].stock`,
        message: `must be a number from 0 to ${LIMITS.stockMax}, or null`,
      });
    }
    if (problems.length > before) continue;
    const first = seen.find(itemId, unit, amount);
    if (first !== undefined) {
      problems.push({ field: `[${index}]`, message: `sets the same price entry as [${first.index}]` });
      continue;
    }
    seen.add(itemId, { unit, amount, index });
    if (byExternal !== undefined) external.push({ index: updates.length, externalId: byExternal });
    updates.push({
      itemId: byExternal === undefined ? (itemId as number) : 0,
      unit: unit as Unit,
      amount: amount as number,
      stock: stock as number | null,
    });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, updates, external };
}
