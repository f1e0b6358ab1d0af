import type { MenuItem, MenuItemInput, StockUpdate } from '../../domain/item.js';
import type { Actor } from './actor.js';

export interface UpsertResult {
  created: number[];
  updated: number[];
}

/** Each dispensary's menu: items, their price entries and the entries' stock levels. */
export interface MenuRepository {
  /** Replaces the whole menu in one transaction; items without an id get fresh ones. Returns the new menu. */
  replace(dispensaryId: number, items: MenuItemInput[], actor?: Actor): Promise<MenuItem[]>;
  /** Creates or replaces the given items by id, in one transaction; the rest of the menu stays. */
  upsertItems(dispensaryId: number, items: MenuItemInput[], actor?: Actor): Promise<UpsertResult>;
  deleteItem(dispensaryId: number, itemId: number, actor?: Actor): Promise<boolean>;
  /** Every item, active or not, ordered by id, read as one consistent snapshot. */
  read(dispensaryId: number): Promise<MenuItem[]>;
  /** Like `read`, with the live feed's head taken in the same snapshot: the cursor the menu is at. */
  readAt(dispensaryId: number): Promise<{ items: MenuItem[]; cursor: number }>;
  /**
   * What changed in the menu after feed cursor `after`: the item ids the feed names, those items as
   * they are now, and the head, in one snapshot; undefined when those changes are no longer all kept.
   */
  readChangedSince(
    dispensaryId: number,
    after: number,
  ): Promise<{ itemIds: number[]; items: MenuItem[]; cursor: number } | undefined>;
  /**
   * readChangedSince, with every inactive item as it is now (`inactive`, ordered by id) read in the
   * same snapshot: the feed names no change of an inactive item.
   */
  readPatchSince(
    dispensaryId: number,
    after: number,
  ): Promise<{ itemIds: number[]; items: MenuItem[]; inactive: MenuItem[]; cursor: number } | undefined>;
  /** The ids of the items with these external_ids (those that exist), by external_id. */
  idsByExternalId(dispensaryId: number, externalIds: readonly string[]): Promise<Map<string, number>>;
  setItemActive(dispensaryId: number, itemId: number, active: boolean, actor?: Actor): Promise<boolean>;
  /** Sets every stock level in one transaction, or none: throws UnmatchedStockError naming the misses. */
  setStock(dispensaryId: number, updates: StockUpdate[], actor?: Actor): Promise<number>;
}
