import { hash } from 'node:crypto';
import { sameCanonical } from '../../domain/canonical.js';
import type { MenuItem } from '../../domain/item.js';
import type { MenuPricing } from '../../domain/special-pricing.js';
import { encodeCursor, type Position, type SortValue } from './cursor.js';
import type { Facet, MenuQuery, SortKey } from './query.js';
import { orderKey } from './query.js';
import { latestChange, matches, type Row, rowOf, wordsOf } from './rows.js';
import { type ChangedWords, SearchIndex } from './search-index.js';

export { fold, matches, type Row, rowOf, wordsOf } from './rows.js';

/**
 * The query engine of `/v1/menu`: one index per menu (built once from the items the menu reader keeps,
 * so a warm menu is queried without reading the database), then each query a filter, a sort and a
 * keyset page over it.
 */

/** The value an item is sorted by (null: it has none, and comes last in either direction). */
export function sortValue(row: Row, key: SortKey | undefined, query: MenuQuery, score: number): SortValue {
  switch (key) {
    case undefined:
      return null;
    case 'name':
      return row.name;
    case 'price': {
      const prices = query.menuType === 'med' ? row.medPrices : row.recPrices;
      return prices.length > 0 ? Math.min(...prices) : null;
    }
    case 'price_per_gram':
      return row.pricePerGram;
    case 'thc': {
      const thc = query.potencyUnit === 'mg' ? row.thcMg : row.thc;
      return thc === null ? null : thc.max;
    }
    case 'updated_at':
      return row.updatedAt === '' ? null : row.updatedAt;
    case 'relevance':
      // Best first when ascending.
      return -score;
  }
}

/** The order of two (value, id) pairs: by value (nulls last either way), then by id ascending. */
export function compareKeys(
  a: SortValue,
  aId: number,
  b: SortValue,
  bId: number,
  descending: boolean,
): number {
  if (a !== b) {
    if (a === null) return 1;
    if (b === null) return -1;
    const order = a < b ? -1 : 1;
    return descending ? -order : order;
  }
  return aId - bId;
}

interface Ranked {
  row: Row;
  value: SortValue;
}

/** A query's result before paging: the filtered items in order, and the facets over them. */
interface Result {
  ranked: Ranked[];
  facets: Readonly<Record<string, Record<string, number>>>;
  /** orderPrint's, made the first time a cursor needs it. */
  print?: string;
}

/** The sort of a query: `sort`, or relevance with `q`, or by id. */
function effectiveSort(query: MenuQuery): SortKey | undefined {
  return query.sort ?? (query.q ? 'relevance' : undefined);
}

const FACET_VALUES: Readonly<Record<Facet, (row: Row) => readonly string[]>> = {
  brand: (row) => (row.record.brand === '' ? [] : [row.record.brand]),
  product_type: (row) => [row.record.product_type],
  strain_type: (row) => (row.strainType === null ? [] : [row.strainType]),
  tag: (row) => row.record.tags,
};

export function facetsOf(rows: readonly Row[], facets: readonly Facet[]) {
  const counts: Record<string, Record<string, number>> = {};
  for (const facet of facets) {
    const count: Record<string, number> = {};
    for (const row of rows)
      for (const value of new Set(FACET_VALUES[facet](row))) count[value] = (count[value] ?? 0) + 1;
    counts[facet] = Object.fromEntries(
      Object.entries(count).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  }
  return counts;
}

/** A menu version an index was built from, and that index (its rows in the items' order). */
export interface BuiltFrom {
  items: readonly MenuItem[];
  pricing: MenuPricing;
  index: MenuIndex;
}

/**
 * What a menu version changed from the one before it: the earlier rows that are gone (their items
 * changed or removed), the rows made anew, and the earlier version's kept results, which a query of
 * this version patches instead of filtering and sorting the whole menu again.
 */
interface Carried {
  results: ReadonlyMap<string, Result>;
  gone: readonly Row[];
  made: readonly Row[];
}

/**
 * The first position of a ranked list whose (value, id) is not before the one given (compareKeys),
 * or, `past` it, the first after it.
 */
function rankOf(
  ranked: readonly Ranked[],
  value: SortValue,
  id: number,
  descending: boolean,
  past = false,
): number {
  let low = 0;
  let high = ranked.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const other = ranked[middle]!;
    const order = compareKeys(other.value, other.row.id, value, id, descending);
    if (order < 0 || (past && order === 0)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Past this many changed rows a query result is made anew, not patched (each patch copies the list). */
const MOST_PATCHED_ROWS = 256;

/** One menu's rows and the results of its recent queries (a few, the most recent kept). */
export class MenuIndex {
  private readonly results = new Map<string, Result>();
  /** Built the first time a query has `q`: most menu versions are never searched. */
  private searchIndex?: SearchIndex;
  private idOrder?: boolean;

  constructor(
    readonly rows: readonly Row[],
    private readonly carried?: Carried,
    /** The version before's search index and the rows whose words changed since (same positions): patched when asked. */
    private earlierSearch?: { index: SearchIndex; changes: ChangedWords[] },
  ) {}

  /**
   * The index of a menu version. With the version before (`previous`: its items, pricing and index), an
   * item equal to its earlier self, priced alike, keeps its row (the same object, after a patched read:
   * see patchMenu), so a one-item change builds one row, not the menu's thousands; and the earlier
   * version's query results are patched with the changed rows when asked for.
   */
  static of(items: readonly MenuItem[], pricing: MenuPricing, previous?: BuiltFrom): MenuIndex {
    if (!previous || previous.pricing.print !== pricing.print)
      return new MenuIndex(items.map((item) => rowOf(item, pricing)));
    const earlierItems = previous.items;
    const earlierRows = previous.index.rows;
    const kept = new Uint8Array(earlierItems.length);
    const made: Row[] = [];
    // Rows made in the place of their earlier selves (by position): what the search index patches.
    const changes: ChangedWords[] = [];
    // Both lists are ordered by id: one walk pairs each item with its earlier self.
    const rows: Row[] = [];
    let at = 0;
    for (let position = 0; position < items.length; position++) {
      const item = items[position]!;
      // Most items are their earlier selves, the same objects (a patched read keeps them: patchMenu),
      // met in turn: kept without reading their ids, which are most of this walk's time otherwise.
      if (earlierItems[at] === item) {
        kept[at] = 1;
        rows.push(earlierRows[at++]!);
        continue;
      }
      while (at < earlierItems.length && earlierItems[at]!.id < item.id) at++;
      const earlier = earlierItems[at];
      if (
        earlier?.id === item.id &&
        (earlier === item || (sameCanonical(earlier, item) && latestChange(earlier) === latestChange(item)))
      ) {
        kept[at] = 1;
        rows.push(earlierRows[at++]!);
        continue;
      }
      const row = rowOf(item, pricing);
      made.push(row);
      if (at === position && earlier?.id === item.id)
        changes.push({ row: position, before: earlierRows[at]!.words, after: row.words });
      rows.push(row);
    }
    const gone: Row[] = [];
    for (let index = 0; index < earlierRows.length; index++)
      if (kept[index] === 0) gone.push(earlierRows[index]!);
    const searched = previous.index.searchIndex;
    // The same items in the same places, a few of them changed: the search index is patched, not built.
    const samePlaces =
      items.length === earlierItems.length &&
      changes.length === made.length &&
      made.length <= MOST_PATCHED_ROWS;
    return new MenuIndex(
      rows,
      { results: previous.index.results, gone, made },
      searched && samePlaces ? { index: searched, changes } : undefined,
    );
  }

  /** The row of an item by its id, or by its external_id (`ext:`); undefined when there is none. */
  find(ref: { id: number } | { externalId: string }): Row | undefined {
    return 'id' in ref
      ? this.rows.find((row) => row.id === ref.id)
      : this.rows.find((row) => row.externalId === ref.externalId);
  }

  result(query: MenuQuery): Result {
    const key = `${orderKey(query)}|${query.facets.join(',')}`;
    const kept = this.results.get(key);
    if (kept) return kept;
    const sort = effectiveSort(query);
    const words = query.q ? wordsOf(query.q) : [];
    const earlier = words.length === 0 ? this.carried?.results.get(key) : undefined;
    const result = earlier ? this.patched(earlier, query, sort) : this.made(query, sort, words);
    if (this.results.size >= 64) this.results.delete(this.results.keys().next().value!);
    this.results.set(key, result);
    return result;
  }

  /**
   * The earlier version's result of a query without `q`, with the changed rows taken out and those
   * that match put in their places: the same list a filter and sort of the whole menu makes, since
   * the order (value, then id) is total.
   */
  private patched(earlier: Result, query: MenuQuery, sort: SortKey | undefined): Result {
    const { gone, made } = this.carried!;
    if (gone.length + made.length > MOST_PATCHED_ROWS) return this.made(query, sort, []);
    const ranked = earlier.ranked.slice();
    // Each gone row's entry, if it had one, is where its (value, id) is: found, not looked for in every
    // entry. The values taken out: a changed row put back with its value keeps the order.
    const taken = new Map<number, SortValue>();
    for (const row of gone) {
      const at = rankOf(ranked, sortValue(row, sort, query, 0), row.id, query.descending);
      const entry = ranked[at];
      if (entry?.row !== row) {
        // A row the query kept must be found (its sort value is what it was): else made anew, to be safe.
        if (matches(row, query)) return this.made(query, sort, []);
        continue;
      }
      taken.set(row.id, entry.value);
      ranked.splice(at, 1);
    }
    let putBack = 0;
    let moved = false;
    for (const row of made) {
      if (!matches(row, query)) continue;
      const entry = { row, value: sortValue(row, sort, query, 0) };
      if (taken.has(row.id) && taken.get(row.id) === entry.value) putBack++;
      else moved = true;
      ranked.splice(rankOf(ranked, entry.value, row.id, query.descending), 0, entry);
    }
    const facets =
      query.facets.length === 0
        ? earlier.facets
        : facetsOf(
            ranked.map((entry) => entry.row),
            query.facets,
          );
    // Every entry taken out put back with its value, none added: the same ids and values in the same
    // order, so the same orderPrint (hashing the whole order again was most of a changed stock level's
    // first page: bench/PROFILE.md, round nineteen).
    const sameOrder = !moved && putBack === taken.size;
    return sameOrder && earlier.print !== undefined
      ? { ranked, facets, print: earlier.print }
      : { ranked, facets };
  }

  /** A query's result made from the whole menu: filtered (or searched), then sorted. */
  private made(query: MenuQuery, sort: SortKey | undefined, words: readonly string[]): Result {
    const ranked: Ranked[] = [];
    const filtered: Row[] = [];
    const keep = (row: Row, score: number) => {
      if (!matches(row, query)) return;
      filtered.push(row);
      ranked.push({ row, value: sortValue(row, sort, query, score) });
    };
    if (words.length > 0) {
      this.searchIndex ??=
        this.earlierSearch?.index.patched(this.earlierSearch.changes) ??
        new SearchIndex(this.rows.map((row) => row.words));
      this.earlierSearch = undefined;
      const found = this.searchIndex.search(words);
      for (let index = 0; index < found.rows.length; index++)
        keep(this.rows[found.rows[index]!]!, found.scores[index]!);
    } else for (const row of this.rows) keep(row, 0);
    if (sort === 'relevance' && this.inIdOrder())
      return { ranked: byRelevance(ranked, query.descending), facets: facetsOf(filtered, query.facets) };
    if (sort !== undefined) {
      ranked.sort((a, b) => compareKeys(a.value, a.row.id, b.value, b.row.id, query.descending));
    }
    return { ranked, facets: facetsOf(filtered, query.facets) };
  }

  /** Whether the rows are in id order (a menu read is: see byRelevance), found the first time asked. */
  private inIdOrder(): boolean {
    this.idOrder ??= this.rows.every((row, at) => at === 0 || this.rows[at - 1]!.id < row.id);
    return this.idOrder;
  }
}

/**
 * A search's entries, in the rows' order (by id), put in relevance order: by score, best first (last
 * when descending), then by id, as compareKeys orders them. The scores are small whole numbers, so
 * each is a bucket that keeps its entries' id order: no comparison sort of every item found.
 */
function byRelevance(found: readonly Ranked[], descending: boolean): Ranked[] {
  const byScore: Ranked[][] = [];
  for (const entry of found) {
    // sortValue's relevance: the score, negated.
    const score = -(entry.value as number);
    const bucket = byScore[score];
    if (bucket) bucket.push(entry);
    else byScore[score] = [entry];
  }
  const ranked: Ranked[] = [];
  for (let at = 0; at < byScore.length; at++) {
    const bucket = byScore[descending ? at : byScore.length - 1 - at];
    if (bucket) for (const entry of bucket) ranked.push(entry);
  }
  return ranked;
}

/**
 * A fingerprint of the order of a query's whole result: its items' ids and sort values in order. Two
 * menu versions with the same print list the query's items in the same order, so a paging begun in one
 * may go on in the other (another process's version of the same menu, or a later one whose changes
 * moved nothing in this query).
 */
export function orderPrint(index: MenuIndex, query: MenuQuery): string {
  const result = index.result(query);
  if (result.print === undefined) {
    // Hashed as one text: an update per item costs a call into the hash for each. Each value as JSON
    // writes it; a finite number's JSON is its String, which costs half as much to make.
    let text = '';
    for (const { row, value } of result.ranked) {
      const json =
        typeof value === 'number' && Number.isFinite(value) ? String(value) : JSON.stringify(value);
      text += `${row.id}\0${json}\n`;
    }
    result.print = hash('sha256', text, 'base64url').slice(0, 16);
  }
  return result.print;
}

/**
 * A page of a query from one menu version: the items after the position, at most `limit`, and the
 * position after them (`version` names the menu the index is of).
 */
export function page(index: MenuIndex, query: MenuQuery, version: number, after?: Position) {
  const { ranked, facets } = index.result(query);
  // The first item after the cursor's (value, id): the list is in that order.
  const start = after ? rankOf(ranked, after.value, after.id, query.descending, true) : 0;
  const rows = ranked.slice(start, start + query.limit);
  const last = rows[rows.length - 1];
  const more = start + query.limit < ranked.length;
  return {
    rows: rows.map((entry) => entry.row),
    total: ranked.length,
    facets,
    next:
      more && last
        ? encodeCursor(orderKey(query), {
            version,
            print: orderPrint(index, query),
            value: last.value,
            id: last.row.id,
          })
        : null,
  };
}
