import type { Transaction } from 'kysely';
import { sameCanonical, toCanonicalRecord } from '../../domain/canonical.js';
import type { MenuItem, MenuItemInput, StockUpdate } from '../../domain/item.js';
import type { FeedEntry, IdList } from '../batches.js';
import { chunks, type Dialect, idLists, type ReadArrays } from '../dialect.js';
import {
  assignIds,
  fieldsJsonOf,
  foldCanonicalJson,
  foldKeptJson,
  foldMenu,
  type ItemJson,
  itemRow,
  KEPT_JSON_COLUMNS,
  MENU_ITEM_COLUMNS,
  MENU_PRICE_COLUMNS,
  matchByNameAndBrand,
  type PreviousPrice,
  priceKey,
  priceRows,
} from '../rows.js';
import type { Database } from '../schema.js';
import {
  type Actor,
  ConflictError,
  type MenuRepository,
  type RemovalReason,
  UnmatchedStockError,
  type UpsertResult,
} from '../store.js';
import { foundIf, now, OPERATOR, type Writer } from '../write.js';
import { stockTargets } from './stock-levels.js';

export class Menus implements MenuRepository {
  constructor(
    private readonly dialect: Dialect,
    private readonly writer: Writer,
  ) {}

  /**
   * Writes only what differs from the stored menu: new and changed items are written, removed ones
   * deleted, and an unchanged item is left as it is (no write, no feed entry). A sync identical to the
   * stored menu records only its audit entry.
   */
  async replace(dispensaryId: number, items: MenuItemInput[], actor: Actor = OPERATOR): Promise<MenuItem[]> {
    return this.writer.write({ actor, lockDispensary: dispensaryId }, async (trx) => {
      await requireDispensary(trx, dispensaryId);
      const stored = await readItems(this.dialect, trx, dispensaryId);
      // New ids continue after every id the dispensary has used or is importing, so no id is reused.
      const menu = assignIds(items, stored.at(-1)?.id ?? 0);
      const storedById = new Map(stored.map((item) => [item.id, item]));
      const diff = diffItems(menu, storedById);
      const kept = new Set(menu.map((item) => item.id));
      const removed = stored.filter((item) => !kept.has(item.id));
      for (const item of removed) {
        if (item.active) diff.feed.push(removal(item.id, 'deleted'));
      }
      // In item order, whatever happened to each.
      diff.feed.sort((a, b) => (a.itemId ?? 0) - (b.itemId ?? 0));
      await this.rewrite(trx, dispensaryId, diff, [...diff.replaced, ...removed.map((item) => item.id)]);
      return {
        result: menu,
        change: {
          kind: 'menu',
          dispensaryId,
          action: 'menu.replace',
          detail: {
            items: menu.length,
            price_entries: menu.reduce((sum, item) => sum + item.prices.length, 0),
            written: diff.written.length,
            removed: removed.length,
          },
          feed: diff.feed,
          ...(diff.written.length === 0 && removed.length === 0 && { unchanged: true }),
        },
      };
    });
  }

  async upsertItems(
    dispensaryId: number,
    items: MenuItemInput[],
    actor: Actor = OPERATOR,
  ): Promise<UpsertResult> {
    return this.writer.write({ actor, lockDispensary: dispensaryId }, async (trx) => {
      await requireDispensary(trx, dispensaryId);
      // An item without an id is the existing item of the same name and brand, when there is one: the
      // same file upserted twice replaces its items instead of adding them again.
      let matched = items;
      if (items.some((item) => item.id === null)) {
        const rows = await trx
          .selectFrom('items')
          .select(['id', 'name', 'brand'])
          .where('dispensary_id', '=', dispensaryId)
          .orderBy('id')
          .execute();
        matched = matchByNameAndBrand(
          items,
          rows.map((row) => ({ id: Number(row.id), name: row.name, brand: row.brand })),
        );
      }
      const menu = assignIds(matched, await highestItemId(trx, dispensaryId));
      const ids = menu.map((item) => item.id);
      const existing = new Map(
        (await readItems(this.dialect, trx, dispensaryId, ids)).map((item) => [item.id, item]),
      );
      const diff = diffItems(menu, existing);
      await this.rewrite(trx, dispensaryId, diff, diff.replaced);
      const result: UpsertResult = {
        created: ids.filter((id) => !existing.has(id)),
        updated: ids.filter((id) => existing.has(id)),
      };
      return {
        result,
        change: {
          kind: 'menu',
          dispensaryId,
          action: 'menu.upsert',
          detail: { created: result.created.length, updated: result.updated.length },
          feed: diff.feed,
          ...(diff.written.length === 0 && { unchanged: true }),
        },
      };
    });
  }

  async deleteItem(dispensaryId: number, itemId: number, actor: Actor = OPERATOR): Promise<boolean> {
    return this.writer.write({ actor, lockDispensary: dispensaryId }, async (trx) => {
      const active = await isActive(trx, dispensaryId, itemId);
      const deleted = await deleteItems(trx, dispensaryId, [itemId]);
      return foundIf(deleted.items, {
        kind: 'menu',
        dispensaryId,
        action: 'menu.delete_item',
        detail: { item_id: itemId },
        // An inactive item was not in the active menu: its removal is no change of it.
        feed: active ? [removal(itemId, 'deleted')] : [],
      });
    });
  }

  async read(dispensaryId: number): Promise<MenuItem[]> {
    return (await this.readMenu(dispensaryId, false)).items;
  }

  async readAt(dispensaryId: number): Promise<{ items: MenuItem[]; cursor: number }> {
    return this.readMenu(dispensaryId, true);
  }

  private async readMenu(dispensaryId: number, withCursor: boolean) {
    // Two queries rather than a join, which would repeat every item column (long descriptions) on
    // each of its price rows; one read transaction, so that both (and the feed's head) see the same snapshot.
    const [itemsQuery, pricesQuery] = this.menuQueries(dispensaryId);
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
  async readChangedSince(
    dispensaryId: number,
    after: number,
  ): Promise<{ itemIds: number[]; items: MenuItem[]; cursor: number } | undefined> {
    const named = this.dialect.db
      .selectFrom('menu_changes')
      .select('item_id')
      .distinct()
      .where('dispensary_id', '=', dispensaryId)
      .where('seq', '>', after)
      .where('item_id', 'is not', null)
      .compile();
    return this.dialect.readTransaction(async (readArrays) => {
      const { head, oldest } = await feedBounds(this.dialect, readArrays);
      if (after > head || (oldest !== undefined && after < oldest - 1)) return undefined;
      const itemIds = (await readArrays(named)).map((row) => Number(row[0])).sort((a, b) => a - b);
      let itemRows: unknown[][] = [];
      let priceRows: unknown[][] = [];
      for (const list of idLists(this.dialect, itemIds)) {
        const [items, prices] = this.menuQueries(dispensaryId, list);
        itemRows = itemRows.concat(await readArrays(items));
        priceRows = priceRows.concat(await readArrays(prices));
      }
      return { itemIds, items: foldMenu(itemRows, priceRows), cursor: head };
    });
  }

  /** The two ordered queries of a menu read (all items, or those of `ids`). */
  private menuQueries(dispensaryId: number, ids?: IdList) {
    let items = this.dialect.db
      .selectFrom('items')
      .select(MENU_ITEM_COLUMNS)
      .where('dispensary_id', '=', dispensaryId);
    let prices = this.dialect.db
      .selectFrom('price_entries')
      .select(MENU_PRICE_COLUMNS)
      .where('dispensary_id', '=', dispensaryId);
    if (ids) {
      items = items.where('id', ids.op, ids.ids);
      prices = prices.where('item_id', ids.op, ids.ids);
    }
    return [items.orderBy('id').compile(), prices.orderBy('item_id').orderBy('position').compile()] as const;
  }

  async setItemActive(
    dispensaryId: number,
    itemId: number,
    active: boolean,
    actor: Actor = OPERATOR,
  ): Promise<boolean> {
    return this.writer.write({ actor, lockDispensary: dispensaryId }, async (trx) => {
      const [item] = await readItems(this.dialect, trx, dispensaryId, [itemId]);
      if (item === undefined) return { result: false };
      const change = {
        kind: 'menu' as const,
        dispensaryId,
        action: 'menu.set_active',
        detail: { item_id: itemId, active },
      };
      if (item.active === active) return { result: true, change: { ...change, unchanged: true } };
      const at = now();
      const changed = { ...item, active };
      await trx
        .updateTable('items')
        // `active` is one of the fields the item keeps the JSON of.
        .set({ active: active ? 1 : 0, updated_at: at, fields_json: fieldsJsonOf(changed) })
        .where('dispensary_id', '=', dispensaryId)
        .where('id', '=', itemId)
        .execute();
      // Entries of an item that comes back must reach clients polling inventory with `since`.
      await trx
        .updateTable('price_entries')
        .set({ updated_at: at })
        .where('dispensary_id', '=', dispensaryId)
        .where('item_id', '=', itemId)
        .execute();
      const feed = active
        ? [upserted({ id: itemId, active, json: canonicalJson(changed) })]
        : [removal(itemId, 'deactivated')];
      return { result: true, change: { ...change, feed } };
    });
  }

  async setStock(dispensaryId: number, updates: StockUpdate[], actor: Actor = OPERATOR): Promise<number> {
    return this.writer.write({ actor, lockDispensary: dispensaryId }, async (trx) => {
      const outcome = await this.dialect.batches.setStock(trx, dispensaryId, stockTargets(updates), now());
      const missing = new Set(
        outcome.unmatched.map((target) => priceKey(target.itemId, target.unit, target.amount)),
      );
      const unmatched =
        missing.size === 0
          ? []
          : updates.flatMap((update, index) =>
              missing.has(priceKey(update.itemId, update.unit, update.amount)) ? [index] : [],
            );
      // Throwing rolls the whole batch back: either every stock level is set or none.
      if (unmatched.length > 0) throw new UnmatchedStockError(unmatched);
      // Only the items whose stock really changed are read back; inactive ones are not in the feed.
      const changed = await readItemJson(this.dialect, trx, dispensaryId, outcome.changedItems);
      return {
        result: updates.length,
        change: {
          kind: 'menu',
          dispensaryId,
          action: 'inventory.update',
          detail: { price_entries: updates.length },
          feed: changed.filter((item) => item.active).map(upserted),
          ...(outcome.changedItems.length === 0 && { unchanged: true }),
        },
      };
    });
  }

  /** Deletes the items of `replaced` (stored items being rewritten or removed), then writes `diff.written`. */
  private async rewrite(
    trx: Transaction<Database>,
    dispensaryId: number,
    diff: Diff,
    replaced: readonly number[],
  ): Promise<void> {
    const previous = await previousPrices(this.dialect, trx, dispensaryId, diff.replaced);
    for (const chunk of chunks(this.dialect, replaced, 1)) await deleteItems(trx, dispensaryId, chunk);
    await this.insertItems(trx, dispensaryId, diff.written, previous);
  }

  private async insertItems(
    trx: Transaction<Database>,
    dispensaryId: number,
    menu: MenuItem[],
    previous: Map<string, PreviousPrice>,
  ): Promise<number> {
    const at = now();
    const items = menu.map((item) => itemRow(dispensaryId, item, at));
    const prices = menu.flatMap((item) => priceRows(dispensaryId, item, at, previous));
    for (const chunk of chunks(this.dialect, items, columnCount(items))) {
      await trx.insertInto('items').values(chunk).execute();
    }
    for (const chunk of chunks(this.dialect, prices, columnCount(prices))) {
      await trx.insertInto('price_entries').values(chunk).execute();
    }
    return prices.length;
  }
}

/** What a write of items changes: the items to write, the stored ones among them, and the feed. */
interface Diff {
  written: MenuItem[];
  /** Ids of stored items that are rewritten (changed). */
  replaced: number[];
  feed: FeedEntry[];
}

/** The canonical JSON of an item: what the feed carries, and what tells whether an item changed. */
const canonicalJson = (item: MenuItem): string => JSON.stringify(toCanonicalRecord(item));

const upserted = (item: ItemJson): FeedEntry => ({
  type: 'item.upserted',
  itemId: item.id,
  reason: null,
  item: item.json,
});

const removal = (itemId: number, reason: RemovalReason): FeedEntry => ({
  type: 'item.removed',
  itemId,
  reason,
  item: null,
});

/**
 * Compares the items being written with the stored ones of the same ids. An item equal in every field
 * is left out. A changed or new item is written; it enters the feed when it is (still or now) active,
 * leaves it (deactivated) when it was active and is not now, and an inactive item stays silent: it was
 * not in the active menu and is not now.
 */
function diffItems(menu: readonly MenuItem[], stored: ReadonlyMap<number, MenuItem>): Diff {
  const diff: Diff = { written: [], replaced: [], feed: [] };
  const seen = new Set<number>();
  for (const item of menu) {
    // As the insert of a second row with one id would, even when the item is unchanged (not written).
    if (seen.has(item.id)) throw new Error(`item id ${item.id} appears more than once in one write`);
    seen.add(item.id);
    const before = stored.get(item.id);
    if (before && sameCanonical(before, item)) continue;
    const json = canonicalJson(item);
    diff.written.push(item);
    if (before) diff.replaced.push(item.id);
    if (item.active) diff.feed.push({ type: 'item.upserted', itemId: item.id, reason: null, item: json });
    else if (before?.active) diff.feed.push(removal(item.id, 'deactivated'));
  }
  return diff;
}

/** Whether the item is active; undefined when the dispensary has no such item. */
async function isActive(
  trx: Transaction<Database>,
  dispensaryId: number,
  itemId: number,
): Promise<boolean | undefined> {
  const row = await trx
    .selectFrom('items')
    .select('active')
    .where('dispensary_id', '=', dispensaryId)
    .where('id', '=', itemId)
    .executeTakeFirst();
  return row && Number(row.active) === 1;
}

/**
 * The dispensary's items inside a write's transaction, those of `ids` or all, ordered by id, with
 * their price entries: the same fold as `read`, over rows taken as arrays of its columns.
 */
async function readItems(
  dialect: Dialect,
  trx: Transaction<Database>,
  dispensaryId: number,
  ids?: readonly number[],
): Promise<MenuItem[]> {
  return foldMenu(...(await readItemRows(dialect, trx, dispensaryId, ids)));
}

/**
 * The items of `ids` inside a write's transaction, ordered by id, as the live feed records them
 * (canonical JSON): from each item's kept JSON and its price entries, or from its whole row when it
 * keeps none of this version (see foldKeptJson).
 */
async function readItemJson(
  dialect: Dialect,
  trx: Transaction<Database>,
  dispensaryId: number,
  ids: readonly number[],
): Promise<ItemJson[]> {
  const { kept, stale } = foldKeptJson(
    ...(await readItemRows(dialect, trx, dispensaryId, ids, KEPT_JSON_COLUMNS)),
  );
  if (stale.length === 0) return kept;
  const rebuilt = foldCanonicalJson(...(await readItemRows(dialect, trx, dispensaryId, stale)));
  return [...kept, ...rebuilt].sort((a, b) => a.id - b.id);
}

/**
 * The rows of the dispensary's items inside a write's transaction, those of `ids` or all, and of their
 * price entries, as arrays of `itemColumns` (the id first) and MENU_PRICE_COLUMNS, in the order the
 * folds take.
 */
async function readItemRows(
  dialect: Dialect,
  trx: Transaction<Database>,
  dispensaryId: number,
  ids?: readonly number[],
  itemColumns: readonly (keyof Database['items'] & string)[] = MENU_ITEM_COLUMNS,
): Promise<[unknown[][], unknown[][]]> {
  if (ids?.length === 0) return [[], []];
  const items: unknown[][] = [];
  const prices: unknown[][] = [];
  let lists = 0;
  for (const list of ids ? idLists(dialect, ids) : [undefined]) {
    lists++;
    let itemQuery = trx
      .selectFrom('items')
      .select(itemColumns)
      .where('dispensary_id', '=', dispensaryId)
      .orderBy('id');
    let priceQuery = trx
      .selectFrom('price_entries')
      .select(MENU_PRICE_COLUMNS)
      .where('dispensary_id', '=', dispensaryId)
      .orderBy('item_id')
      .orderBy('position');
    if (list) {
      itemQuery = itemQuery.where('id', list.op, list.ids);
      priceQuery = priceQuery.where('item_id', list.op, list.ids);
    }
    // Rows as arrays on the transaction's own connection: no object per row to build and take apart.
    for (const row of await dialect.arraysInWrite(trx, itemQuery.compile())) items.push(row);
    for (const row of await dialect.arraysInWrite(trx, priceQuery.compile())) prices.push(row);
  }
  if (lists > 1) {
    const itemId = itemColumns.indexOf('id');
    items.sort((a, b) => Number(a[itemId]) - Number(b[itemId]));
    // Chunks are read in the order of `ids`: by item again (a stable sort keeps each item's positions).
    prices.sort((a, b) => Number(a[0]) - Number(b[0]));
  }
  return [items, prices];
}

/**
 * Deletes a dispensary's items, those of `ids` (a non-empty list) or all, with their price entries.
 * Explicitly rather than by cascade, so that no dialect's foreign-key setting matters.
 */
export async function deleteItems(
  trx: Transaction<Database>,
  dispensaryId: number,
  ids?: readonly number[],
): Promise<{ items: number; priceEntries: number }> {
  let prices = trx.deleteFrom('price_entries').where('dispensary_id', '=', dispensaryId);
  let items = trx.deleteFrom('items').where('dispensary_id', '=', dispensaryId);
  if (ids) {
    prices = prices.where('item_id', 'in', ids);
    items = items.where('id', 'in', ids);
  }
  const pricesDeleted = await prices.executeTakeFirst();
  const itemsDeleted = await items.executeTakeFirst();
  return { items: Number(itemsDeleted.numDeletedRows), priceEntries: Number(pricesDeleted.numDeletedRows) };
}

/** The values each row of a multi-row insert binds. */
const columnCount = (rows: readonly object[]): number => Object.keys(rows[0] ?? {}).length;

async function requireDispensary(trx: Transaction<Database>, dispensaryId: number): Promise<void> {
  const exists = await trx
    .selectFrom('dispensaries')
    .select('id')
    .where('id', '=', dispensaryId)
    .executeTakeFirst();
  if (!exists) throw new ConflictError(`dispensary ${dispensaryId} does not exist`);
}

async function highestItemId(trx: Transaction<Database>, dispensaryId: number): Promise<number> {
  const row = await trx
    .selectFrom('items')
    .select(({ fn }) => fn.max<number>('id').as('max_id'))
    .where('dispensary_id', '=', dispensaryId)
    .executeTakeFirst();
  return Number(row?.max_id ?? 0);
}

async function previousPrices(
  dialect: Dialect,
  trx: Transaction<Database>,
  dispensaryId: number,
  itemIds: readonly number[],
): Promise<Map<string, PreviousPrice>> {
  const previous = new Map<string, PreviousPrice>();
  for (const list of idLists(dialect, itemIds)) {
    const rows = await trx
      .selectFrom('price_entries as p')
      .innerJoin('items as i', (join) =>
        join.onRef('i.dispensary_id', '=', 'p.dispensary_id').onRef('i.id', '=', 'p.item_id'),
      )
      .select(['p.item_id', 'p.unit', 'p.amount', 'p.price_cents', 'p.stock', 'p.updated_at', 'i.active'])
      .where('p.dispensary_id', '=', dispensaryId)
      .where('p.item_id', list.op, list.ids)
      .execute();
    for (const row of rows) {
      previous.set(priceKey(Number(row.item_id), row.unit, Number(row.amount)), {
        priceCents: Number(row.price_cents),
        stock: row.stock === null ? null : Number(row.stock),
        updatedAt: row.updated_at,
        active: Number(row.active) === 1,
      });
    }
  }
  return previous;
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
async function feedBounds(
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
