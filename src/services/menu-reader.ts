import type { MenuItem } from '../domain/item.js';
import { patchMenu } from '../domain/menu-patch.js';
import { MenuPricing } from '../domain/special-pricing.js';
import type { StoreInfo } from '../domain/store-info.js';
import { type DispensarySpecials, INACTIVE_ITEMS_CHANGED, type Store } from '../store/store.js';
import type { ChangeFeed } from './change-feed.js';
import { notFound } from './dispensaries.js';
import { cursorOf, withCursor } from './menu-feed.js';

/** A dispensary's items with their pricing at the instant they were read (the specials then in force). */
export interface PricedMenu {
  items: MenuItem[];
  pricing: MenuPricing;
  /**
   * The same object for every menu version one reader gives of one dispensary, until a `dispensary`
   * notice (its removal among them) ends the line: what work carried from version to version is kept
   * under (in a WeakMap), so that it goes with the dispensary instead of staying by its id for ever.
   */
  lineage: object;
}

/**
 * Serves a dispensary's menu, store information and specials from memory, read from the store once per
 * change. Concurrent readers of something that is being loaded share the one load; a failed load is
 * not kept. After a change of a menu's items, the menu read last is brought up to date with the items
 * the live feed names and the inactive items (patchMenu), not read whole again.
 */
export class MenuReader {
  private readonly menus = new Map<number, Promise<MenuItem[]>>();
  /**
   * Each dispensary's menu read last (tagged with its cursor): what the next read after a change
   * patches; `inactiveAt` is the count of inactive-item notices its inactive items are current with.
   */
  private readonly bases = new Map<number, { items: MenuItem[]; inactiveAt: number }>();
  /** Each dispensary's count of notices that an inactive item changed (INACTIVE_ITEMS_CHANGED). */
  private readonly inactiveNotices = new Map<number, number>();
  private readonly stores = new Map<number, Promise<StoreInfo>>();
  private readonly specialsKept = new Map<number, Promise<DispensarySpecials>>();
  private readonly pricedMenus = new Map<number, Promise<PricedMenu>>();
  /** What each load of pricedMenus gave, once it is done (pricedKept). */
  private readonly pricedLoaded = new WeakMap<Promise<PricedMenu>, PricedMenu>();
  /** Each dispensary's PricedMenu.lineage. */
  private readonly lineages = new Map<number, object>();

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
      // A menu change of one dispensary is recorded item by item; anything else may change every item.
      if (change.kind === 'dispensary' || (change.kind === 'menu' && change.dispensaryId === null))
        forget(this.bases);
      else if (change.kind === 'menu' && change.subject === INACTIVE_ITEMS_CHANGED && change.dispensaryId) {
        const id = change.dispensaryId;
        this.inactiveNotices.set(id, (this.inactiveNotices.get(id) ?? 0) + 1);
      }
      if (change.kind === 'dispensary') forget(this.lineages);
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
    const kept = this.pricedMenus.get(dispensaryId);
    if (kept) return kept;
    const loading = shared(this.pricedMenus, dispensaryId, async () => {
      const lineage = this.lineages.get(dispensaryId) ?? {};
      this.lineages.set(dispensaryId, lineage);
      const [items, found] = await Promise.all([this.items(dispensaryId), this.specials(dispensaryId)]);
      return { items, pricing: new MenuPricing(found.specials, found.timezone, this.now()), lineage };
    });
    loading.then(
      (priced) => this.pricedLoaded.set(loading, priced),
      () => {},
    );
    return loading;
  }

  /**
   * `priced` without waiting: the priced menu itself once the current load of it is done (no change
   * notice since), else the promise of it. A warm read then answers in the same turn, as the snapshots do.
   */
  pricedKept(dispensaryId: number): PricedMenu | Promise<PricedMenu> {
    const current = this.priced(dispensaryId);
    return this.pricedLoaded.get(current) ?? current;
  }

  /** Every item of the dispensary, active or not, ordered by id; tagged with its cursor (cursorOf). */
  items(dispensaryId: number): Promise<MenuItem[]> {
    return shared(this.menus, dispensaryId, async () => {
      const inactiveAt = this.inactiveNotices.get(dispensaryId) ?? 0;
      const items = await this.readItems(dispensaryId, inactiveAt);
      // A read that began before another may end after it: the menu at the later cursor stays the base.
      const base = this.bases.get(dispensaryId);
      if (!base || (cursorOf(items) ?? 0) >= (cursorOf(base.items) ?? 0))
        this.bases.set(dispensaryId, { items, inactiveAt });
      return items;
    });
  }

  /**
   * The menu read last, patched with the items the feed names since (and the inactive items, when a
   * notice since said one changed), while the feed holds every change since; else read whole.
   */
  private async readItems(dispensaryId: number, inactiveAt: number): Promise<MenuItem[]> {
    const base = this.bases.get(dispensaryId);
    const cursor = cursorOf(base?.items);
    if (base && cursor !== undefined) {
      const patch =
        base.inactiveAt < inactiveAt
          ? await this.store.menus.readPatchSince(dispensaryId, cursor)
          : await this.store.menus.readChangedSince(dispensaryId, cursor);
      if (patch) return withCursor(patchMenu(base.items, patch), patch.cursor);
    }
    return loadItems(this.store, dispensaryId);
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
