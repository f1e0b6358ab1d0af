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

/** Where `id` is, or would go, in a list ordered by id: the first position whose id is not below it. */
function positionOf(items: readonly MenuItem[], id: number): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (items[middle]!.id < id) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The item of `id` in a list ordered by id, or undefined. */
function byId(items: readonly MenuItem[], id: number): MenuItem | undefined {
  const found = items[positionOf(items, id)];
  return found?.id === id ? found : undefined;
}

/**
 * Past this many items named, the patch walks the whole menu once instead of moving its items for
 * each named one (a splice moves the items after it).
 */
const MOST_SPLICED_ITEMS = 64;

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
  if (!patch.inactive && named.size + replacing.length <= MOST_SPLICED_ITEMS)
    return spliced(base, named, replacing);
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

/**
 * patchMenu's menu when no inactive item was read and few items changed: the base copied whole, the
 * named items taken out and the replacing ones put in their places, instead of a walk that looks up
 * every item of the menu (0.8 ms of a one-item change's first read on 5,000 items: bench/PROFILE.md,
 * round nineteen). The same list: every other item of the base stays, in id order.
 */
function spliced(
  base: readonly MenuItem[],
  named: ReadonlySet<number>,
  replacing: readonly MenuItem[],
): MenuItem[] {
  const menu = base.slice();
  const taken = new Set(named);
  for (const item of replacing) taken.add(item.id);
  for (const id of taken) {
    const at = positionOf(menu, id);
    if (menu[at]?.id === id) menu.splice(at, 1);
  }
  for (const item of replacing) menu.splice(positionOf(menu, item.id), 0, item);
  return menu;
}
