import type { MenuItem } from '../../domain/item.js';
import { chunks, type Dialect, idLists, type ReadArrays } from '../dialect.js';
import { foldMenu } from '../item-folds.js';
import type { MenuRepository } from '../store.js';
import { inactiveQueries, menuQueries } from './menu-queries.js';

/** The items the feed's changes after a cursor name, and the cursor (the head) they are read at. */
type ChangedSince = { itemIds: number[]; items: MenuItem[]; cursor: number };

/** Dispensaries whose last readChangedSince answer is kept (the least recently read go first). */
const CHANGED_SINCE_KEPT = 64;

/** A dispensary's menu as it is read (the snapshots' reads, each one read transaction). */
export class MenuReads
  implements
    Pick<MenuRepository, 'read' | 'readAt' | 'readChangedSince' | 'readPatchSince' | 'idsByExternalId'>
{
  /**
   * The last answer of readChangedSince per dispensary and cursor: after a change every list snapshot
   * (Form A, Form B, inventory) and the published menu patch from the same cursor, and each read and
   * folded the same items (1,000 rich items at a special's boundary: 30-60 ms of CPU each). Given again
   * while the feed's head is where it was; the items are shared, and read only.
   */
  private readonly lastChangedSince = new Map<number, { after: number; answer: ChangedSince }>();

  constructor(protected readonly dialect: Dialect) {}

  async read(dispensaryId: number): Promise<MenuItem[]> {
    return (await this.readMenu(dispensaryId, false)).items;
  }

  async readAt(dispensaryId: number): Promise<{ items: MenuItem[]; cursor: number }> {
    return this.readMenu(dispensaryId, true);
  }

  async idsByExternalId(dispensaryId: number, externalIds: readonly string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    const wanted = [...new Set(externalIds)].filter((externalId) => externalId !== '');
    for (const list of chunks(this.dialect, wanted, 1)) {
      const rows = await this.dialect.db
        .selectFrom('items')
        .select(['id', 'external_id'])
        .where('dispensary_id', '=', dispensaryId)
        .where('external_id', 'in', list)
        .execute();
      for (const row of rows) found.set(row.external_id, Number(row.id));
    }
    return found;
  }

  private async readMenu(dispensaryId: number, withCursor: boolean) {
    // Two queries rather than a join, which would repeat every item column (long descriptions) on
    // each of its price rows; one read transaction, so that both (and the feed's head) see the same snapshot.
    const [itemsQuery, pricesQuery] = menuQueries(this.dialect.db, dispensaryId);
    const [items, prices, cursor] = await this.dialect.readTransaction(async (readArrays) => {
      const items = await readArrays(itemsQuery);
      const prices = await readArrays(pricesQuery);
      const cursor = withCursor ? await feedHead(this.dialect, readArrays) : 0;
      return [items, prices, cursor] as const;
    });
    return { items: foldMenu(items, prices), cursor };
  }

  /**
   * The items the dispensary's feed changes after cursor `after` name (their ids, and those that still
   * exist, as they are now) and the feed's head, read as one snapshot: a menu read at `after` with
   * these items replaced is the menu at the head. Undefined when changes after `after` may have been
   * pruned, or `after` is past the head (a database restored from an older copy).
   */
  async readChangedSince(dispensaryId: number, after: number): Promise<ChangedSince | undefined> {
    return this.dialect.readTransaction((readArrays) => this.readChanged(readArrays, dispensaryId, after));
  }

  /**
   * readChangedSince with every inactive item as it is now, in the same snapshot: the feed leaves an
   * inactive item's changes out (it was not in the active menu and is not now), so a menu of every
   * item read at `after` is brought to the head with both.
   */
  async readPatchSince(
    dispensaryId: number,
    after: number,
  ): Promise<(ChangedSince & { inactive: MenuItem[] }) | undefined> {
    return this.dialect.readTransaction(async (readArrays) => {
      const changed = await this.readChanged(readArrays, dispensaryId, after);
      if (!changed) return undefined;
      const [items, prices] = inactiveQueries(this.dialect.db, dispensaryId);
      const inactive = foldMenu(await readArrays(items), await readArrays(prices));
      return { ...changed, inactive };
    });
  }

  private async readChanged(
    readArrays: ReadArrays,
    dispensaryId: number,
    after: number,
  ): Promise<ChangedSince | undefined> {
    const named = this.dialect.db
      .selectFrom('menu_changes')
      .select('item_id')
      .distinct()
      .where('dispensary_id', '=', dispensaryId)
      .where('seq', '>', after)
      .where('item_id', 'is not', null)
      .compile();
    const { head, oldest } = await feedBounds(this.dialect, readArrays);
    if (after > head || (oldest !== undefined && after < oldest - 1)) return undefined;
    const known = this.lastChangedSince.get(dispensaryId);
    if (known?.after === after && known.answer.cursor === head) return known.answer;
    const itemIds = (await readArrays(named)).map((row) => Number(row[0])).sort((a, b) => a - b);
    let itemRows: unknown[][] = [];
    let priceRows: unknown[][] = [];
    for (const list of idLists(this.dialect, itemIds)) {
      const [items, prices] = menuQueries(this.dialect.db, dispensaryId, list);
      itemRows = itemRows.concat(await readArrays(items));
      priceRows = priceRows.concat(await readArrays(prices));
    }
    const answer = { itemIds, items: foldMenu(itemRows, priceRows), cursor: head };
    this.lastChangedSince.delete(dispensaryId);
    if (this.lastChangedSince.size >= CHANGED_SINCE_KEPT) {
      this.lastChangedSince.delete(this.lastChangedSince.keys().next().value!);
    }
    this.lastChangedSince.set(dispensaryId, { after, answer });
    return answer;
  }
}

/** The live feed's head (its newest cursor; 0 before any change), read inside a read transaction. */
export async function feedHead(dialect: Dialect, readArrays: ReadArrays): Promise<number> {
  const query = dialect.db
    .selectFrom('menu_changes')
    .select(({ fn }) => fn.max<number>('seq').as('head'))
    .compile();
  const [row] = await readArrays(query);
  return Number(row?.[0] ?? 0);
}

/**
 * The live feed's newest and oldest kept cursor (head 0 before any change), inside a read transaction.
 * Two statements: each of max() and min() alone is one step down the key, while both in one
 * statement made SQLite read every row of the feed.
 */
export async function feedBounds(
  dialect: Dialect,
  readArrays: ReadArrays,
): Promise<{ head: number; oldest: number | undefined }> {
  const oldest = dialect.db
    .selectFrom('menu_changes')
    .select(({ fn }) => fn.min<number>('seq').as('oldest'))
    .compile();
  const head = await feedHead(dialect, readArrays);
  const [oldestRow] = await readArrays(oldest);
  return {
    head,
    oldest: oldestRow?.[0] === null || oldestRow?.[0] === undefined ? undefined : Number(oldestRow[0]),
  };
}
