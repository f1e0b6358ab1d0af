import { describe, expect, it } from 'vitest';
import { patchMenu, sameItem } from '../../src/domain/menu-patch.js';
import { menuItem } from './item-builder.js';

describe('patchMenu: a menu read at a cursor, brought up to a later one', () => {
  const base = [
    menuItem(1),
    menuItem(2, { active: false }),
    menuItem(3),
    menuItem(4, { active: false }),
    menuItem(5),
  ];

  it('takes the named items as they are now (or leaves them out) and keeps every other active item', () => {
    const patched = patchMenu(base, {
      itemIds: [3, 5, 6],
      items: [menuItem(3, { name: 'Renamed' }), menuItem(6)],
    });
    expect(patched.map((item) => item.id)).toEqual([1, 2, 3, 4, 6]);
    expect(patched[2]!.name).toBe('Renamed');
    // Unchanged items stay the same objects; without inactive items read, the base's are kept.
    expect(patched[0]).toBe(base[0]);
    expect(patched[1]).toBe(base[1]);
    expect(patched[3]).toBe(base[3]);
  });

  it('with the inactive items read, takes them as they are now: changed, gone or new', () => {
    const patched = patchMenu(base, {
      itemIds: [1],
      items: [menuItem(1, { active: false })],
      inactive: [
        menuItem(1, { active: false }),
        menuItem(2, { active: false }),
        menuItem(7, { active: false }),
      ],
    });
    expect(patched.map((item) => [item.id, item.active])).toEqual([
      [1, false],
      [2, false],
      [3, true],
      [5, true],
      [7, false],
    ]);
    // Item 2 read again, unchanged: the base's object.
    expect(patched[1]).toBe(base[1]);
  });

  it('tells items apart by their canonical record and their entries change times', () => {
    const item = menuItem(1);
    expect(sameItem(item, structuredClone(item))).toBe(true);
    expect(sameItem(item, { ...item, name: 'Other' })).toBe(false);
    const later = {
      ...item,
      prices: item.prices.map((price) => ({ ...price, updatedAt: '2099-01-01T00:00:00.000Z' })),
    };
    expect(sameItem(item, later)).toBe(item.prices.length === 0);
  });
});
