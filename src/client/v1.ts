import type { InventoryEntry, StoreInfo } from './types.js';
import type { V1ChangesPage, V1Item, V1ItemOf, V1MenuPage, V1MenuQuery, V1Special } from './v1-types.js';

/** Cancels a call, including its retries. */
interface Signal {
  signal?: AbortSignal;
}

/**
 * One GET of Form v1 by the client that made the reader (its credentials, retries and timeout):
 * `path` under the base URL, `conditional` when the answer may be revalidated with its ETag.
 */
export type V1Get = <T>(
  path: string,
  query: URLSearchParams,
  conditional: boolean,
  signal: AbortSignal | undefined,
) => Promise<T>;

/**
 * Form v1's reads of one dispensary (`MenuClient.v1(token)`): the menu filtered, searched, sorted and
 * paged, one item, the store, inventory, specials and the change feed. Errors are MenuApiError, as in
 * Forms A and B; every answer but the change feed is revalidated with its ETag.
 */
export class V1Reader {
  readonly #get: V1Get;

  constructor(get: V1Get) {
    this.#get = get;
  }

  /** One page of the menu; `next_cursor` (sent back as `cursor` with the same query) leads to the next. */
  menu<Q extends V1MenuQuery = Record<never, never>>(
    query?: Q,
    options: Signal = {},
  ): Promise<V1MenuPage<V1ItemOf<Q>>> {
    return this.#get('v1/menu', menuSearch(query ?? {}), true, options.signal);
  }

  /**
   * Every page of the query, first to last, following `next_cursor`. A cursor is a position in the
   * order, not an offset: a menu changing meanwhile neither repeats an item nor skips one that stayed.
   * When the server no longer keeps the menu version the paging reads (and the menu has changed the
   * query's order since), the next page throws CursorExpiredError (410): start again with `pages(query)`,
   * setting aside what this paging yielded. It never restarts by itself: that would yield items twice.
   */
  async *pages<Q extends V1MenuQuery = Record<never, never>>(
    query?: Q,
    options: Signal = {},
  ): AsyncGenerator<V1MenuPage<V1ItemOf<Q>>, void, undefined> {
    let cursor = query?.cursor;
    for (;;) {
      const page = await this.menu<Q>({ ...query, cursor } as Q, options);
      yield page;
      if (page.next_cursor === null) return;
      cursor = page.next_cursor;
    }
  }

  /** One item, active or not, by its id or `ext:` and its external_id; 404 not_found when there is none. */
  item(id: number | `ext:${string}`, options: Signal = {}): Promise<V1Item> {
    return this.#get(
      `v1/menu/${encodeURIComponent(String(id))}`,
      new URLSearchParams(),
      true,
      options.signal,
    );
  }

  /** The store information, as `/store` answers it in every form. */
  store(options: Signal = {}): Promise<StoreInfo> {
    return this.#get('v1/store', new URLSearchParams(), true, options.signal);
  }

  /** Stock of every price entry of every active item; with `since`, only those changed after it. */
  inventory(options: Signal & { since?: string | Date } = {}): Promise<InventoryEntry[]> {
    const query = new URLSearchParams();
    if (options.since !== undefined) query.set('since', timeText(options.since));
    return this.#get('v1/inventory', query, true, options.signal);
  }

  /** Every special of the dispensary, whether it applies now or not. */
  specials(options: Signal = {}): Promise<V1Special[]> {
    return this.#get('v1/specials', new URLSearchParams(), true, options.signal);
  }

  /**
   * The changes after `cursor` (a `next_cursor`, or left out: from the oldest kept), oldest first, at
   * most `limit` (1 to 1,000, default 100). An expired cursor is a 410 cursor_expired: read the menu again.
   */
  changes(cursor?: string, options: Signal & { limit?: number } = {}): Promise<V1ChangesPage> {
    const query = new URLSearchParams();
    if (cursor !== undefined) query.set('after', cursor);
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    return this.#get('v1/changes', query, false, options.signal);
  }
}

const timeText = (time: string | Date) => (time instanceof Date ? time.toISOString() : time);

/**
 * The query string of a menu query: lists as repeated parameters, false filters left out (`active`
 * is no filter but a choice: false asks for the inactive items).
 */
export function menuSearch(query: V1MenuQuery): URLSearchParams {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query) as [string, unknown][]) {
    if (value === undefined || (value === false && name !== 'active')) continue;
    for (const one of Array.isArray(value) ? value : [value])
      search.append(name, one instanceof Date ? one.toISOString() : String(one));
  }
  return search;
}
