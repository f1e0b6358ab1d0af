import { sameCanonical } from './canonical.js';
import type { MenuItem } from './item.js';

/**
 * What changed in a menu after a feed cursor, read in one snapshot: the items the feed's changes name
 * (their ids, and those that still exist, as they are now), and, when an inactive item may have
 * changed, every inactive item as it is now (the feed leaves out the changes of an item that was not
 * in the active menu and is not now).
 */
export interface MenuPatch {
  itemIds: readonly number[];
  items: readonly MenuItem[];
  inactive?: readonly MenuItem[];
}

/** Whether two reads of an item hold the same: its canonical record and its entries' change times. */
export function sameItem(a: MenuItem, b: MenuItem): boolean {
  return (
    a === b ||
    (sameCanonical(a, b) && a.prices.every((price, index) => price.updatedAt === b.prices[index]!.updatedAt))
  );
}

/** The item of `id` in a list ordered by id, or undefined. */
function byId(items: readonly MenuItem[], id: number): MenuItem | undefined {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (items[middle]!.id < id) low = middle + 1;
    else high = middle;
  }
  const found = items[low];
  return found?.id === id ? found : undefined;
}

/**
 * A menu of every item (ordered by id) read at a feed cursor, brought to the snapshot `patch` was read
 * in: an active item the feed does not name is unchanged (every change of an item that is or was active
 * is in the feed), a named one is as the patch reads it (or gone), and the inactive items are the
 * patch's (or, when it read none, the base's: no inactive item changed). An item equal to its earlier self stays the same object, so that what was made of it (an
 * index's row) can be kept by identity.
 */
export function patchMenu(base: readonly MenuItem[], patch: MenuPatch): MenuItem[] {
  const now = new Map<number, MenuItem>();
  for (const item of patch.inactive ?? []) now.set(item.id, item);
  for (const item of patch.items) now.set(item.id, item);
  const named = new Set(patch.itemIds);
  const replacing = [...now.values()]
    .map((item) => {
      const earlier = byId(base, item.id);
      return earlier && sameItem(earlier, item) ? earlier : item;
    })
    .sort((a, b) => a.id - b.id);
  const menu: MenuItem[] = [];
  let next = 0;
  for (const item of base) {
    if ((!item.active && patch.inactive) || named.has(item.id) || now.has(item.id)) continue;
    while (next < replacing.length && replacing[next]!.id < item.id) menu.push(replacing[next++]!);
    menu.push(item);
  }
  while (next < replacing.length) menu.push(replacing[next++]!);
  return menu;
}
