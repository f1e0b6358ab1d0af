import type { MenuItem } from '../domain/item.js';
import { MenuPricing } from '../domain/special-pricing.js';
import type { StoreInfo } from '../domain/store-info.js';
import type { DispensarySpecials, Store } from '../store/store.js';
import type { ChangeFeed } from './change-feed.js';
import { notFound } from './dispensaries.js';
import { withCursor } from './menu-feed.js';

/** A dispensary's items with their pricing at the instant they were read (the specials then in force). */
export interface PricedMenu {
  items: MenuItem[];
  pricing: MenuPricing;
}

/**
 * Serves a dispensary's menu, store information and specials from memory, read from the store once per
 * change. Concurrent readers of something that is being loaded share the one load; a failed load is
 * not kept.
 */
export class MenuReader {
  private readonly menus = new Map<number, Promise<MenuItem[]>>();
  private readonly stores = new Map<number, Promise<StoreInfo>>();
  private readonly specialsKept = new Map<number, Promise<DispensarySpecials>>();
  private readonly pricedMenus = new Map<number, Promise<PricedMenu>>();

  constructor(
    private readonly store: Store,
    feed: ChangeFeed,
    /** The clock prices are read at (tests move it). */
    private readonly now: () => number = Date.now,
  ) {
    feed.subscribe((change) => {
      const forget = (cache: Map<number, unknown>) =>
        change.dispensaryId === null ? cache.clear() : cache.delete(change.dispensaryId);
      if (change.kind === 'menu' || change.kind === 'dispensary') forget(this.menus);
      if (change.kind === 'store' || change.kind === 'dispensary') forget(this.stores);
      // Specials are menu writes, and each start or end of one that reprices an item is a menu change;
      // the store's time zone decides when they apply.
      if (change.kind === 'menu' || change.kind === 'store' || change.kind === 'dispensary') {
        forget(this.specialsKept);
        forget(this.pricedMenus);
      }
    });
  }

  /** The dispensary's specials and the time zone they are read in. */
  specials(dispensaryId: number): Promise<DispensarySpecials> {
    return shared(this.specialsKept, dispensaryId, async () => {
      const found = await this.store.specials.ofDispensary(dispensaryId);
      if (!found) throw notFound(dispensaryId);
      return found;
    });
  }

  /**
   * The items priced now: kept until the next change notice, as the items are. A special's start or
   * end that reprices an item is one (the special scheduler records it), so the prices kept are the
   * prices now; one that reprices no active item leaves them, as it leaves every active price.
   */
  priced(dispensaryId: number): Promise<PricedMenu> {
    return shared(this.pricedMenus, dispensaryId, async () => {
      const [items, found] = await Promise.all([this.items(dispensaryId), this.specials(dispensaryId)]);
      return { items, pricing: new MenuPricing(found.specials, found.timezone, this.now()) };
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
