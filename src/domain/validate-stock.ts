import { LIMITS } from './field-kinds.js';
import { type StockUpdate, UNITS, type Unit } from './item.js';
import type { FieldProblem } from './validate-item.js';

export const MAX_STOCK_UPDATES = 20_000;

/** The fields of a stock update entry; any other is refused. */
const STOCK_UPDATE_FIELDS = new Set(['item_id', 'unit', 'amount', 'stock']);

/** Validates `[{item_id, unit, amount, stock}]`; stock null means "not tracked". */
export function validateStockUpdates(
  raw: unknown,
): { ok: true; updates: StockUpdate[] } | { ok: false; problems: FieldProblem[] } {
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
  const seen = new Map<string, number>();
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
    if (typeof itemId !== 'number' || !Number.isInteger(itemId) || itemId < 1) {
      problems.push({ field: `[${index}].item_id`, message: 'must be a positive integer' });
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
    const key = `${itemId}|${unit}|${amount}`;
    const first = seen.get(key);
    if (first !== undefined) {
      problems.push({ field: `[${index}]`, message: `sets the same price entry as [${first}]` });
      continue;
    }
    seen.set(key, index);
    updates.push({
      itemId: itemId as number,
      unit: unit as Unit,
      amount: amount as number,
      stock: stock as number | null,
    });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, updates };
}
