/** How long a menu version a cursor reads is kept after the last page read from it. */
export const PINNED_TTL_MS = 10 * 60_000;
/**
 * At most this many items across the versions kept (all dispensaries): the least recently read version
 * goes first. A version kept is its query index, about 4 KiB an item (bench/RESULTS.md, Form v1), so
 * 20,000 items (a largest menu, or four versions of a 5,000-item one) is about 80 MiB at most.
 */
export const PINNED_MAX_ITEMS = 20_000;

interface Pinned<T> {
  /** Its key in `pinned`, and what it is made of. */
  readonly key: string;
  readonly dispensaryId: number;
  readonly version: number;
  readonly menu: T;
  /** Its items, which the bound counts. */
  readonly items: number;
  lastRead: number;
}

/**
 * The menu versions `/v1/menu` cursors read (src/forms/form-v1/menu.ts): a paging reads every page from
 * the version its first page came from, so that an item whose sort value changes meanwhile cannot
 * cross the cursor (listed twice, or never). Versions are this process's, bounded in time and items.
 */
export class PinnedMenus<T> {
  /** By `dispensary:version`, least recently read first. */
  private readonly pinned = new Map<string, Pinned<T>>();
  private items = 0;
  /**
   * The version pinned or found last: the last in `pinned`, while it is kept. Pinning it again needs no
   * key built and looked up.
   */
  private latest: Pinned<T> | undefined;

  constructor(
    private readonly ttlMs = PINNED_TTL_MS,
    private readonly maxItems = PINNED_MAX_ITEMS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Keeps (or touches) a version a cursor was given out for, of `items` items. */
  pin(dispensaryId: number, version: number, menu: T, items: number): void {
    const latest = this.latest;
    if (latest?.menu === menu && latest.dispensaryId === dispensaryId && latest.version === version) {
      // The version read last read again (every first page of a paging does): it stays where it is,
      // last. Alone it is all there is to keep; with others, the least recently read may have had their time.
      latest.lastRead = this.now();
      if (this.pinned.size > 1) this.evict(latest.key);
      return;
    }
    const key = `${dispensaryId}:${version}`;
    const found = this.pinned.get(key);
    if (found) {
      this.pinned.delete(key);
      this.items -= found.items;
    }
    const entry = { key, dispensaryId, version, menu, items, lastRead: this.now() };
    this.pinned.set(key, entry);
    this.latest = entry;
    this.items += items;
    this.evict(key);
  }

  /** The version, touched, or undefined when it is not kept (never was here, expired or evicted). */
  find(dispensaryId: number, version: number): T | undefined {
    this.evict();
    const key = `${dispensaryId}:${version}`;
    const found = this.pinned.get(key);
    if (!found) return undefined;
    this.pinned.delete(key);
    found.lastRead = this.now();
    this.pinned.set(key, found);
    this.latest = found;
    return found.menu;
  }

  /** Drops expired versions, then the least recently read while over the item bound (never `keep`). */
  private evict(keep?: string): void {
    const oldest = this.now() - this.ttlMs;
    for (const [key, entry] of this.pinned) {
      if (key === keep) continue;
      // Least recently read first: from the first one kept on, every other is kept too.
      if (entry.lastRead >= oldest && this.items <= this.maxItems) return;
      this.pinned.delete(key);
      this.items -= entry.items;
      if (entry === this.latest) this.latest = undefined;
    }
  }
}
