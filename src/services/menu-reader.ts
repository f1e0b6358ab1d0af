import type { MenuItem } from '../domain/item.js';
import type { StoreInfo } from '../domain/store-info.js';
import type { Store } from '../store/store.js';
import type { ChangeFeed } from './change-feed.js';
import { notFound } from './dispensaries.js';
import { withCursor } from './menu-feed.js';

/**
 * Serves a dispensary's menu and store information from memory, read from the store once per change.
 * Concurrent readers of something that is being loaded share the one load; a failed load is not kept.
 */
export class MenuReader {
  private readonly menus = new Map<number, Promise<MenuItem[]>>();
  private readonly stores = new Map<number, Promise<StoreInfo>>();

  constructor(
    private readonly store: Store,
    feed: ChangeFeed,
  ) {
    feed.subscribe((change) => {
      const forget = (cache: Map<number, unknown>) =>
        change.dispensaryId === null ? cache.clear() : cache.delete(change.dispensaryId);
      if (change.kind === 'menu' || change.kind === 'dispensary') forget(this.menus);
      if (change.kind === 'store' || change.kind === 'dispensary') forget(this.stores);
    });
  }

  /** Every item of the dispensary, active or not, ordered by id; tagged with its cursor (cursorOf). */
  items(dispensaryId: number): Promise<MenuItem[]> {
    return shared(this.menus, dispensaryId, () => loadItems(this.store, dispensaryId));
  }

  /** The store information, tagged with its cursor (cursorOf). */
  storeInfo(dispensaryId: number): Promise<StoreInfo> {
    return shared(this.stores, dispensaryId, async () => {
      const read = await this.store.dispensaries.getStoreInfoAt(dispensaryId);
      if (!read) throw notFound(dispensaryId);
      return withCursor(read.info, read.cursor);
    });
  }
}

function shared<T>(cache: Map<number, Promise<T>>, key: number, load: () => Promise<T>): Promise<T> {
  let pending = cache.get(key);
  if (!pending) {
    const loading = load();
    pending = loading;
    cache.set(key, loading);
    loading.catch(() => {
      if (cache.get(key) === loading) cache.delete(key);
    });
  }
  return pending;
}

/** A dispensary's items read from the store, tagged with the feed cursor they are at (cursorOf). */
export async function loadItems(store: Store, dispensaryId: number): Promise<MenuItem[]> {
  const { items, cursor } = await store.menus.readAt(dispensaryId);
  return withCursor(items, cursor);
}
