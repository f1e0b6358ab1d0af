import type { MenuItem } from '../../domain/item.js';
import { type ListedItem, SegmentedList } from './segmented.js';
import type { ChangedItems, Representation } from './types.js';

/** A list view: what each canonical item contributes to the array, serialized per item. */
export interface ListDefinition {
  select: (item: MenuItem) => readonly unknown[];
  serializeItem: (value: unknown) => string;
}

/** A list view's answer for one dispensary, in segments, and the generation it is current for. */
export interface ListState {
  list: SegmentedList;
  /** The dispensary's stamp when its items were read: notices after it are not in this list. */
  stamp: number;
  /** The feed cursor the list is at (undefined without a feed: it cannot be patched). */
  cursor: number | undefined;
  /** A menu change arrived since `stamp`: the list is to be patched (see `served`). */
  stale: boolean;
  /**
   * A read was answered from this state: after the next menu change it is patched at once, not on its
   * next read (MenuSnapshots.menuChanged). A state patched so and not read since waits for a read.
   */
  served: boolean;
  gzip: Representation;
}

/** The JSON an item contributes to the list's array (its elements, joined by commas), if any. */
function itemText(definition: ListDefinition, item: MenuItem | undefined): string | undefined {
  if (!item) return undefined;
  const values = definition.select(item);
  return values.length === 0 ? undefined : values.map(definition.serializeItem).join(',');
}

/** The list of a whole menu's items (ordered by id). */
export function buildList(
  definition: ListDefinition,
  items: readonly MenuItem[],
  gzipLevel: number,
): Promise<SegmentedList> {
  const listed: ListedItem[] = [];
  for (const item of items) {
    const value = itemText(definition, item);
    if (value !== undefined) listed.push({ id: item.id, text: value });
  }
  return SegmentedList.build(listed, gzipLevel);
}

/** `base` with the items the feed's changes name replaced by what they are now (or left out). */
export function patchList(
  definition: ListDefinition,
  base: SegmentedList,
  changed: ChangedItems,
  gzipLevel: number,
): Promise<SegmentedList> {
  const byId = new Map(changed.items.map((item) => [item.id, item]));
  return base.patch(
    new Map(changed.itemIds.map((id) => [id, itemText(definition, byId.get(id))])),
    gzipLevel,
  );
}

/** A list's state, its gzip answer ready to serve. */
export function listState(list: SegmentedList, stamp: number, cursor: number | undefined): ListState {
  return {
    list,
    stamp,
    cursor,
    stale: false,
    served: false,
    gzip: { body: list.gzip, encoding: 'gzip', etag: `"${list.tag}-gzip"`, tag: list.tag, cursor },
  };
}
