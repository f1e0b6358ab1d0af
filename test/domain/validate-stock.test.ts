import { describe, expect, it } from 'vitest';
import { validateStockUpdates } from '../../src/domain/validate-stock.js';

describe('validateStockUpdates: an entry named twice', () => {
  const entry = (itemId: number | string, unit: string, amount: number, stock: number | null = 1) => ({
    item_id: itemId,
    unit,
    amount,
    stock,
  });

  it('is refused when item, unit and amount are the same, naming the first, however many come between', () => {
    const result = validateStockUpdates([
      entry(1, 'gram', 1),
      entry(1, 'gram', 3.5),
      entry(2, 'gram', 1),
      entry(1, 'ounce', 1),
      entry(1, 'gram', 3.5, 7),
      entry('ext:a', 'unit', 1),
      entry('ext:a', 'unit', 1, null),
      entry(1, 'gram', 1, 0),
    ]);
    expect(result).toEqual({
      ok: false,
      problems: [
        { field: '[4]', message: 'sets the same price entry as [1]' },
        { field: '[6]', message: 'sets the same price entry as [5]' },
        { field: '[7]', message: 'sets the same price entry as [0]' },
      ],
    });
  });

  it('is not one when any of the three differs, an `ext:` reference included', () => {
    const result = validateStockUpdates([
      entry(7, 'gram', 1),
      entry('ext:7', 'gram', 1),
      entry(7, 'unit', 1),
      entry(7, 'gram', 1.5),
      entry(8, 'gram', 1),
      entry('ext:8', 'gram', 1),
    ]);
    expect(result.ok && result.updates.map((update) => [update.itemId, update.unit, update.amount])).toEqual([
      [7, 'gram', 1],
      [0, 'gram', 1],
      [7, 'unit', 1],
      [7, 'gram', 1.5],
      [8, 'gram', 1],
      [0, 'gram', 1],
    ]);
    expect(result.ok && result.external).toEqual([
      { index: 1, externalId: '7' },
      { index: 5, externalId: '8' },
    ]);
  });
});
