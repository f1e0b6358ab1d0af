import { type PublishedMenu, toPublishedMenu } from '../domain/published-menu.js';
import { isSlug } from '../domain/publishing.js';
import { MenuPricing } from '../domain/special-pricing.js';
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
 * poll interval; at once for this process's own writes). Unpublishing is a `dispensary` notice:
 * every lookup is dropped with it, so the next request of any public URL answers 404.
 */
export class PublishedMenus {
  private readonly slugs = new Map<string, Promise<PublicDispensary | undefined>>();
  private readonly menus = new Map<number, Promise<PublishedMenu>>();
  private readonly listeners = new Set<(change: Change) => void>();
  /** What each published menu was made from: the page's filters query these very items and prices. */
  private readonly sources = new WeakMap<PublishedMenu, PricedMenu>();

  constructor(
    private readonly store: Store,
    feed: Pick<ChangeFeed, 'subscribe'>,
    /** The clock prices are read at (tests): a kept menu is priced until the next boundary's notice. */
    private readonly now: () => number = Date.now,
  ) {
    feed.subscribe((change) => {
      if (change.kind === 'dispensary') this.slugs.clear();
      if (change.kind === 'dispensary' || change.kind === 'store' || change.kind === 'menu') {
        if (change.dispensaryId === null) this.menus.clear();
        else this.menus.delete(change.dispensaryId);
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
   * The items (inactive ones too) and the pricing a menu of `menu()` was made from, so that a query
   * over them (the page's filters, src/http/routes/display/menu-query.ts) lists exactly its items at
   * exactly its prices.
   */
  sourceOf(menu: PublishedMenu): PricedMenu {
    const source = this.sources.get(menu);
    if (!source) throw new Error('not a menu of this PublishedMenus');
    return source;
  }

  private async load(dispensaryId: number): Promise<PublishedMenu> {
    const [publishing, info, items, specials] = await Promise.all([
      this.store.dispensaries.getPublishing(dispensaryId),
      this.store.dispensaries.getStoreInfo(dispensaryId),
      this.store.menus.read(dispensaryId),
      this.store.specials.ofDispensary(dispensaryId),
    ]);
    if (!publishing?.published || !publishing.slug || !info) throw new NotPublishedError();
    // Priced now; at each start or end of a special the scheduler's change notice drops this menu.
    const pricing = new MenuPricing(specials?.specials ?? [], info.timezone, this.now());
    const menu = toPublishedMenu(publishing.slug, info, items, publishing, pricing);
    this.sources.set(menu, { items, pricing });
    return menu;
  }
}
