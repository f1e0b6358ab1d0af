import type { MenuItem } from '../domain/item.js';
import {
  type PublishedItem,
  type PublishedMenu,
  toPublishedItem,
  toPublishedMenu,
} from '../domain/published-menu.js';
import { isSlug, type Publishing } from '../domain/publishing.js';
import { MenuPricing, shownAlike } from '../domain/special-pricing.js';
import type { StoreInfo } from '../domain/store-info.js';
import type { Change, Store } from '../store/store.js';
import type { ChangeFeed } from './change-feed.js';
import type { PricedMenu } from './menu-reader.js';

/** A published dispensary, found by its slug. */
export interface PublicDispensary {
  id: number;
  slug: string;
  showStock: boolean;
}

/** Raised when a dispensary is not (or no longer) published: its public URLs answer 404. */
export class NotPublishedError extends Error {
  constructor() {
    super('not published');
  }
}

/** Slug lookups remembered at most (misses included): more distinct slugs than this start afresh. */
const SLUG_CACHE_LIMIT = 10_000;

/**
 * The published menus: slug lookups and each published dispensary's public menu, kept in memory
 * until a change notice for that dispensary (a notice from any process, within the change feed's
 * poll interval; at once for this process's own writes); after a menu notice the next menu is the
 * last one patched with the items the live feed names (see load). Unpublishing is a `dispensary`
 * notice: every lookup is dropped with it, so the next request of any public URL answers 404.
 */
export class PublishedMenus {
  private readonly slugs = new Map<string, Promise<PublicDispensary | undefined>>();
  private readonly menus = new Map<number, Promise<PublishedMenu>>();
  /** The last menu read of each dispensary, what the next one after a menu change is patched from. */
  private readonly bases = new Map<number, PublishedBase>();
  private readonly listeners = new Set<(change: Change) => void>();
  /** What each published menu was made from: the page's filters query these very items and prices. */
  private readonly sources = new WeakMap<PublishedMenu, PricedMenu>();
  /** Each dispensary's PricedMenu.lineage (the sources'), until a `dispensary` notice. */
  private readonly lineages = new Map<number, object>();

  constructor(
    private readonly store: Store,
    feed: Pick<ChangeFeed, 'subscribe'>,
    /** The clock prices are read at (tests): a kept menu is priced until the next boundary's notice. */
    private readonly now: () => number = Date.now,
  ) {
    feed.subscribe((change) => {
      if (change.kind === 'dispensary') {
        this.slugs.clear();
        if (change.dispensaryId === null) this.lineages.clear();
        else this.lineages.delete(change.dispensaryId);
      }
      if (change.kind === 'dispensary' || change.kind === 'store' || change.kind === 'menu') {
        if (change.dispensaryId === null) this.menus.clear();
        else this.menus.delete(change.dispensaryId);
        // A menu change is patched in (the feed names its items); any other is read whole.
        if (change.kind !== 'menu' || change.dispensaryId === null) this.dropBases(change.dispensaryId);
        for (const listener of this.listeners) listener(change);
      }
    });
  }

  /** Told of every change that may alter a published menu (after the caches above dropped it). */
  onChange(listener: (change: Change) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The published dispensary with that slug; undefined for an unknown, malformed or unpublished one. */
  find(slug: string): Promise<PublicDispensary | undefined> {
    if (!isSlug(slug)) return Promise.resolve(undefined);
    const known = this.slugs.get(slug);
    if (known) return known;
    if (this.slugs.size >= SLUG_CACHE_LIMIT) this.slugs.clear();
    const lookup = this.store.dispensaries
      .findBySlug(slug)
      .then((found) =>
        found?.published && found.slug
          ? { id: found.id, slug: found.slug, showStock: found.showStock }
          : undefined,
      );
    this.slugs.set(slug, lookup);
    lookup.catch(() => {
      if (this.slugs.get(slug) === lookup) this.slugs.delete(slug);
    });
    return lookup;
  }

  /** The public menu of a dispensary, or NotPublishedError when it is not published (any more). */
  menu(dispensaryId: number): Promise<PublishedMenu> {
    const known = this.menus.get(dispensaryId);
    if (known) return known;
    const loading = this.load(dispensaryId);
    this.menus.set(dispensaryId, loading);
    loading.catch(() => {
      if (this.menus.get(dispensaryId) === loading) this.menus.delete(dispensaryId);
    });
    return loading;
  }

  /**
   * The active items and the pricing a menu of `menu()` was made from, so that a query
   * over them (the page's filters, src/http/routes/display/menu-query.ts) lists exactly its items at
   * exactly its prices.
   */
  sourceOf(menu: PublishedMenu): PricedMenu {
    const source = this.sources.get(menu);
    if (!source) throw new Error('not a menu of this PublishedMenus');
    return source;
  }

  private dropBases(dispensaryId: number | null): void {
    if (dispensaryId === null) this.bases.clear();
    else this.bases.delete(dispensaryId);
  }

  /**
   * The menu read whole, or patched from the last one read: after a menu change only the items the
   * live feed names since it are read (a special's boundary names the 1,000 items it reprices, of a
   * menu of 5,000), and only those, and the items the specials now show otherwise, published again.
   */
  private async load(dispensaryId: number): Promise<PublishedMenu> {
    const base = this.bases.get(dispensaryId);
    const lineage = this.lineages.get(dispensaryId) ?? {};
    this.lineages.set(dispensaryId, lineage);
    const [publishing, info, specials, read] = await Promise.all([
      this.store.dispensaries.getPublishing(dispensaryId),
      this.store.dispensaries.getStoreInfo(dispensaryId),
      this.store.specials.ofDispensary(dispensaryId),
      base
        ? this.store.menus.readChangedSince(dispensaryId, base.cursor)
        : this.store.menus.readAt(dispensaryId),
    ]);
    if (!publishing?.published || !publishing.slug || !info) throw new NotPublishedError();
    // Priced now; at each start or end of a special the scheduler's change notice drops this menu.
    const pricing = new MenuPricing(specials?.specials ?? [], info.timezone, this.now());
    const store = JSON.stringify([publishing, info]);
    let next: PublishedBase;
    if (base && read && 'itemIds' in read && base.store === store) {
      next = patched(base, read, publishing, info, pricing);
    } else if (read && !('itemIds' in read)) {
      const menu = toPublishedMenu(publishing.slug, info, read.items, publishing, pricing);
      next = baseOf(menu, read.items, read.cursor, pricing, store);
    } else {
      // The changes since the base are no longer all kept, or the store changed: read whole.
      this.bases.delete(dispensaryId);
      return this.load(dispensaryId);
    }
    // Kept only while no other change arrived (its notice would have dropped the menu being loaded).
    if (this.menus.has(dispensaryId)) this.bases.set(dispensaryId, next);
    // The active items suffice: the page lists only what the published menu has.
    this.sources.set(next.menu, { items: [...next.items.values()], pricing: next.pricing, lineage });
    return next.menu;
  }
}

/** A published menu with what patching it needs: its items as read, their published form, its cursor. */
interface PublishedBase {
  menu: PublishedMenu;
  /** The active items, by id. */
  items: Map<number, MenuItem>;
  published: Map<number, PublishedItem>;
  /** The live feed cursor the items were read at. */
  cursor: number;
  pricing: MenuPricing;
  /** The publishing settings and store information it was made with, as JSON. */
  store: string;
}

function baseOf(
  menu: PublishedMenu,
  items: readonly MenuItem[],
  cursor: number,
  pricing: MenuPricing,
  store: string,
): PublishedBase {
  const active = new Map<number, MenuItem>();
  const published = new Map<number, PublishedItem>();
  let index = 0;
  for (const item of items) {
    if (!item.active) continue;
    active.set(item.id, item);
    published.set(item.id, menu.items[index++]!);
  }
  return { menu, items: active, published, cursor, pricing, store };
}

/**
 * `base` with the items the feed named since its cursor as they are now (left out when gone or
 * inactive), and every other item published again only where the pricing now shows it otherwise:
 * the same menu toPublishedMenu makes of the whole menu, the same objects for the items left alike.
 */
function patched(
  base: PublishedBase,
  changed: { itemIds: number[]; items: MenuItem[]; cursor: number },
  publishing: Publishing,
  info: StoreInfo,
  pricing: MenuPricing,
): PublishedBase {
  const items = new Map(base.items);
  for (const id of changed.itemIds) items.delete(id);
  for (const item of changed.items) if (item.active) items.set(item.id, item);
  const named = new Set(changed.itemIds);
  const store = base.menu.store;
  const medical = store.menu_types.includes('med');
  const ordered = [...items.values()].sort((a, b) => a.id - b.id);
  const published = new Map<number, PublishedItem>();
  const shown: PublishedItem[] = [];
  let updatedAt = info.updatedAt;
  // Priced on both sides only where a special that differs targets the item (round twenty-four).
  const mayDiffer = base.pricing.mayDifferFrom(pricing);
  for (const item of ordered) {
    const kept = base.published.get(item.id);
    const now =
      kept && !named.has(item.id) && (!mayDiffer(item) || shownAlike(item, base.pricing, pricing))
        ? kept
        : toPublishedItem(item, publishing, pricing, medical);
    published.set(item.id, now);
    shown.push(now);
    for (const price of item.prices)
      if (price.updatedAt && price.updatedAt > updatedAt) updatedAt = price.updatedAt;
  }
  const menu = { slug: base.menu.slug, store, items: shown, updated_at: updatedAt };
  return { menu, items, published, cursor: changed.cursor, pricing, store: base.store };
}
