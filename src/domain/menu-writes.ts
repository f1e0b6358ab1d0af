import { sameCanonical } from './canonical.js';
import type { MenuItem, MenuItemInput } from './item.js';

// The rules of a menu write, apart from how the store keeps it: which ids new items get, which stored
// item an item without an id is, what counts as a change of an item, and when a price entry is unchanged.

/** Why an item left the active menu. */
export type RemovalReason = 'deleted' | 'deactivated';

/** Gives every item without an id a fresh one, after every id the dispensary has used or is writing. */
export function assignIds(items: readonly MenuItemInput[], highestExisting: number): MenuItem[] {
  let nextId = Math.max(highestExisting, ...items.map((item) => item.id ?? 0)) + 1;
  // An item that has its id is taken as it is: copying each item of a large sync only made garbage.
  return items
    .map((item) => (item.id === null ? { ...item, id: nextId++ } : (item as MenuItem)))
    .sort((a, b) => a.id - b.id);
}

/** How upsert matches an item without an id: its name and brand, trimmed, whatever their case. */
const itemKey = (item: { name: string; brand: string }) =>
  `${item.name.trim().toLowerCase()}\n${item.brand.trim().toLowerCase()}`;

/**
 * Gives each item without an id the id of the existing item with the same name and brand (the first
 * by id, each existing item at most once, never one the batch names by id).
 */
export function matchByNameAndBrand(
  items: MenuItemInput[],
  existing: readonly { id: number; name: string; brand: string }[],
): MenuItemInput[] {
  const named = new Set(items.map((item) => item.id).filter((id) => id !== null));
  const byKey = new Map<string, number[]>();
  for (const row of existing) {
    if (named.has(row.id)) continue;
    const key = itemKey(row);
    byKey.set(key, [...(byKey.get(key) ?? []), row.id]);
  }
  return items.map((item) => {
    if (item.id !== null) return item;
    const id = byKey.get(itemKey(item))?.shift();
    return id === undefined ? item : { ...item, id };
  });
}

/** What a write of items changes: the items to write, the stored ones among them, and the feed's entries. */
export interface ItemChanges<E> {
  /** New and changed items. */
  written: MenuItem[];
  /** Ids of stored items that are rewritten (changed). */
  replaced: number[];
  feed: E[];
}

/** How the caller spells the live feed's entries (so that no entry is built twice). */
export interface FeedSpelling<E> {
  upserted(item: MenuItem): E;
  removed(itemId: number, reason: RemovalReason): E;
}

/** A stored item as a write of items sees it: whether it is in the active menu, and whether `item` is it unchanged. */
export interface StoredItem {
  active: boolean;
  /** Whether `item` equals the stored item in every field (see sameCanonical). */
  unchanged(item: MenuItem): boolean;
}

/** A stored item the store read whole: unchanged means the same canonical record. */
export const wholeItem = (stored: MenuItem): StoredItem => ({
  active: stored.active,
  unchanged: (item) => sameCanonical(stored, item),
});

/**
 * Compares the items being written with the stored ones of the same ids. An item equal in every field
 * is left out. A changed or new item is written; it enters the feed when it is (still or now) active,
 * leaves it (deactivated) when it was active and is not now, and an inactive item stays silent: it was
 * not in the active menu and is not now.
 */
export function itemChanges<E>(
  menu: readonly MenuItem[],
  stored: ReadonlyMap<number, StoredItem>,
  spelling: FeedSpelling<E>,
): ItemChanges<E> {
  const changes: ItemChanges<E> = { written: [], replaced: [], feed: [] };
  const seen = new Set<number>();
  for (const item of menu) {
    // As the insert of a second row with one id would, even when the item is unchanged (not written).
    if (seen.has(item.id)) throw new Error(`item id ${item.id} appears more than once in one write`);
    seen.add(item.id);
    const before = stored.get(item.id);
    if (before?.unchanged(item)) continue;
    changes.written.push(item);
    if (before) changes.replaced.push(item.id);
    if (item.active) changes.feed.push(spelling.upserted(item));
    else if (before?.active) changes.feed.push(spelling.removed(item.id, 'deactivated'));
  }
  return changes;
}

/** What a price entry was when stored: enough to tell whether a write changes it. */
export interface StoredEntry {
  priceCents: number;
  stock: number | null;
  /** Whether the entry's item was active: an item that comes back counts as a change of its entries. */
  active: boolean;
}

/**
 * Whether a price entry being written (of an item that is `active` or not) is the stored one
 * unchanged: the same price and stock level, its item as active as before. An unchanged entry keeps
 * its change time, so that an inventory poll with `since` sees only real changes after a full sync.
 */
export function entryUnchanged(
  before: StoredEntry | undefined,
  entry: { priceCents: number; stock: number | null },
  active: boolean,
): before is StoredEntry {
  return (
    before !== undefined &&
    before.priceCents === entry.priceCents &&
    before.stock === entry.stock &&
    before.active === active
  );
}
