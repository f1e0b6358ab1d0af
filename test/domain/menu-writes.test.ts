import { describe, expect, it } from 'vitest';
import type { MenuItem, MenuItemInput } from '../../src/domain/item.js';
import {
  assignIds,
  entryUnchanged,
  type FeedSpelling,
  itemChanges,
  matchByNameAndBrand,
  wholeItem,
} from '../../src/domain/menu-writes.js';
import { menuItem, priceEntry } from './item-builder.js';

/** A stored item (thc 20, one price entry of 12.00 with 4 in stock) with `changes`. */
const item = (id: number, changes: Partial<MenuItem> = {}): MenuItem =>
  menuItem(id, {
    thc: 20,
    prices: [priceEntry({ unit: 'gram', amount: 1, priceCents: 1200, stock: 4 })],
    ...changes,
  });

const input = (id: number | null, name: string, brand = 'Brand'): MenuItemInput => ({
  ...item(0, { name, brand }),
  id,
});

/** Feed entries as short strings, to compare whole feeds at once. */
const SPELLING: FeedSpelling<string> = {
  upserted: (written) => `upserted ${written.id}`,
  removed: (itemId, reason) => `removed ${itemId} ${reason}`,
};

describe('assignIds', () => {
  it('numbers items without an id after the highest id stored or written, in id order', () => {
    const menu = assignIds([input(null, 'a'), input(12, 'b'), input(null, 'c')], 7);
    expect(menu.map((written) => [written.id, written.name])).toEqual([
      [12, 'b'],
      [13, 'a'],
      [14, 'c'],
    ]);
  });

  it('continues after the highest stored id when the write names lower ones', () => {
    expect(assignIds([input(2, 'a'), input(null, 'b')], 30).map((written) => written.id)).toEqual([2, 31]);
  });
});

describe('matchByNameAndBrand', () => {
  const existing = [
    { id: 1, name: 'Blue Dream', brand: 'Acme' },
    { id: 2, name: 'blue dream ', brand: ' ACME' },
    { id: 3, name: 'OG', brand: 'Acme' },
  ];

  it('gives an item without an id the first stored item of its name and brand, whatever the case and spaces', () => {
    const matched = matchByNameAndBrand([input(null, ' BLUE DREAM', 'acme')], existing);
    expect(matched.map((found) => found.id)).toEqual([1]);
  });

  it('uses each stored item at most once, and never one the write names by id', () => {
    const matched = matchByNameAndBrand(
      [input(1, 'Other'), input(null, 'Blue Dream', 'Acme'), input(null, 'Blue Dream', 'Acme')],
      existing,
    );
    expect(matched.map((found) => found.id)).toEqual([1, 2, null]);
  });

  it('leaves an item of a new name and brand without an id', () => {
    expect(matchByNameAndBrand([input(null, 'OG', 'Other')], existing)[0]!.id).toBeNull();
  });
});

describe('itemChanges', () => {
  const stored = new Map(
    [item(1), item(2), item(3, { active: false }), item(4)].map(
      (kept) => [kept.id, wholeItem(kept)] as const,
    ),
  );

  it('leaves out items equal in every field, and writes new and changed ones', () => {
    const changes = itemChanges([item(1), item(2, { thc: 21 }), item(5)], stored, SPELLING);
    expect(changes.written.map((written) => written.id)).toEqual([2, 5]);
    expect(changes.replaced).toEqual([2]);
    expect(changes.feed).toEqual(['upserted 2', 'upserted 5']);
  });

  it('records a deactivation as a removal, a reactivation as an upsert, and keeps an inactive change silent', () => {
    const changes = itemChanges(
      [item(3, { active: true }), item(4, { active: false }), item(6, { active: false })],
      stored,
      SPELLING,
    );
    expect(changes.written.map((written) => written.id)).toEqual([3, 4, 6]);
    expect(changes.replaced).toEqual([3, 4]);
    expect(changes.feed).toEqual(['upserted 3', 'removed 4 deactivated']);
  });

  it('writes a change of an item inactive before and after without a feed entry', () => {
    const changes = itemChanges([item(3, { active: false, thc: 30 })], stored, SPELLING);
    expect(changes.replaced).toEqual([3]);
    expect(changes.feed).toEqual([]);
  });

  it('counts a change of a price entry as a change of its item', () => {
    const changes = itemChanges(
      [
        item(1, {
          prices: [priceEntry({ unit: 'gram', amount: 1, priceCents: 1300, stock: 4 })],
        }),
      ],
      stored,
      SPELLING,
    );
    expect(changes.replaced).toEqual([1]);
  });

  it('refuses an id named twice in one write, even for an unchanged item', () => {
    expect(() => itemChanges([item(1), item(1)], stored, SPELLING)).toThrow(/appears more than once/);
  });
});

describe('entryUnchanged', () => {
  const before = { priceCents: 1200, stock: 4, active: true };

  it('holds for the same price and stock of an item as active as before', () => {
    expect(entryUnchanged(before, { priceCents: 1200, stock: 4 }, true)).toBe(true);
  });

  it('fails for a new entry, another price or stock, or an item that comes back or leaves', () => {
    expect(entryUnchanged(undefined, { priceCents: 1200, stock: 4 }, true)).toBe(false);
    expect(entryUnchanged(before, { priceCents: 1300, stock: 4 }, true)).toBe(false);
    expect(entryUnchanged(before, { priceCents: 1200, stock: null }, true)).toBe(false);
    expect(entryUnchanged(before, { priceCents: 1200, stock: 4 }, false)).toBe(false);
    expect(entryUnchanged({ ...before, active: false }, { priceCents: 1200, stock: 4 }, true)).toBe(false);
  });
});
