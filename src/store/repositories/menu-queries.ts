import { type Kysely, sql, type Transaction } from 'kysely';
import type { MenuItem } from '../../domain/item.js';
import { wholeItem } from '../../domain/menu-writes.js';
import type { SpecialTarget, TargetedItem } from '../../domain/special-pricing.js';
import type { IdList } from '../batches.js';
import { chunks, type Dialect, idLists } from '../dialect.js';
import {
  foldCanonicalJson,
  foldKeptJson,
  foldMenu,
  foldPricing,
  foldStoredItems,
  type ItemJson,
  KEPT_JSON_COLUMNS,
  PRICING_ITEM_COLUMNS,
  PRICING_PRICE_COLUMNS,
  STORED_ITEM_COLUMNS,
  targetOf,
} from '../item-folds.js';
import { fieldsJsonOf, MENU_ITEM_COLUMNS, MENU_PRICE_COLUMNS, type StoredMenuItem } from '../item-rows.js';
import type { Database } from '../schema.js';
import { ConflictError } from '../store.js';

// The queries of a menu's rows: the two ordered ones every menu read folds (see item-folds.ts), and the
// reads and deletes a write of items makes inside its transaction.

/** Columns of the items table, as a menu read selects them. */
type ItemColumnList = readonly (keyof Database['items'] & string)[];

/**
 * The two ordered queries of a menu read (all items, or those of `ids`): the items as `itemColumns`
 * (the id first), ordered by id, and their price entries as MENU_PRICE_COLUMNS, by item and position.
 * On the database or inside a transaction.
 */
export function menuQueries(
  db: Kysely<Database>,
  dispensaryId: number,
  ids?: IdList,
  itemColumns: ItemColumnList = MENU_ITEM_COLUMNS,
) {
  let items = db.selectFrom('items').select(itemColumns).where('dispensary_id', '=', dispensaryId);
  let prices = db
    .selectFrom('price_entries')
    .select(MENU_PRICE_COLUMNS)
    .where('dispensary_id', '=', dispensaryId);
  if (ids) {
    items = items.where('id', ids.op, ids.ids);
    prices = prices.where('item_id', ids.op, ids.ids);
  }
  return [items.orderBy('id').compile(), prices.orderBy('item_id').orderBy('position').compile()] as const;
}

/** The two ordered queries of a menu read of the dispensary's inactive items (as menuQueries orders them). */
export function inactiveQueries(db: Kysely<Database>, dispensaryId: number) {
  const inactive = db
    .selectFrom('items')
    .select('id')
    .where('dispensary_id', '=', dispensaryId)
    .where('active', '=', 0);
  return [
    db
      .selectFrom('items')
      .select(MENU_ITEM_COLUMNS)
      .where('dispensary_id', '=', dispensaryId)
      .where('active', '=', 0)
      .orderBy('id')
      .compile(),
    db
      .selectFrom('price_entries')
      .select(MENU_PRICE_COLUMNS)
      .where('dispensary_id', '=', dispensaryId)
      .where('item_id', 'in', inactive)
      .orderBy('item_id')
      .orderBy('position')
      .compile(),
  ] as const;
}

/** Whether the item is active; undefined when the dispensary has no such item. */
export async function isActive(
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
export async function readItems(
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
export async function readItemJson(
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
 * The dispensary's active items that `wanted` keeps, inside a write's transaction, ordered by id, as
 * specials target and price them (foldPricing): a few columns of each item, and two of each entry of
 * the items kept. At a boundary `wanted` keeps the items a special that starts or ends targets (the
 * others cannot be repriced: MenuPricing.mayDifferFrom), and the entries of the rest of the menu are
 * not read (bench/PROFILE.md, round thirty-one).
 */
export async function readPricing(
  dialect: Dialect,
  trx: Transaction<Database>,
  dispensaryId: number,
  wanted: (item: SpecialTarget) => boolean,
): Promise<TargetedItem[]> {
  const items = trx
    .selectFrom('items')
    .select(PRICING_ITEM_COLUMNS)
    .where('dispensary_id', '=', dispensaryId)
    .where('active', '=', 1)
    .orderBy('id')
    .compile();
  // Each item's target is made once (its tags parsed once), for `wanted` and for the fold.
  const targets = (await dialect.arraysInWrite(trx, items)).map(targetOf).filter(wanted);
  const ids = targets.map((target) => target.id);
  const prices: unknown[][] = [];
  // The ids are in order, and so each slice of them (idLists) and its entries: no sort needed.
  for (const list of idLists(dialect, ids)) {
    const query = trx
      .selectFrom('price_entries')
      .select(PRICING_PRICE_COLUMNS)
      .where('dispensary_id', '=', dispensaryId)
      .where('item_id', list.op, list.ids)
      .orderBy('item_id')
      .orderBy('position')
      .compile();
    for (const row of await dialect.arraysInWrite(trx, query)) prices.push(row);
  }
  return foldPricing(targets, prices);
}

/** The stored items a write of items compares its items with (see readStoredItems). */
export interface StoredItems {
  /** By id, in id order. */
  items: Map<number, StoredMenuItem>;
  /** Those whose kept JSON is stale, read whole. */
  stale: MenuItem[];
}

/**
 * The dispensary's items inside a write's transaction, those of `ids` or all, as the write compares
 * them (StoredItem): from each item's kept JSON and its price entries (foldStoredItems), without its
 * other columns; an item whose kept JSON is missing or of another version is read whole instead (and
 * listed in `stale`, so that the write can renew its kept JSON: see renewKeptJson).
 */
export async function readStoredItems(
  dialect: Dialect,
  trx: Transaction<Database>,
  dispensaryId: number,
  ids?: readonly number[],
): Promise<StoredItems> {
  const { kept, stale } = foldStoredItems(
    ...(await readItemRows(dialect, trx, dispensaryId, ids, STORED_ITEM_COLUMNS)),
  );
  if (stale.length === 0) return { items: kept, stale: [] };
  const whole = await readItems(dialect, trx, dispensaryId, stale);
  const items = [...kept, ...whole.map((item) => [item.id, wholeStoredItem(item)] as const)];
  return { items: new Map(items.sort((a, b) => a[0] - b[0])), stale: whole };
}

/** A stored item read whole (see wholeItem), with its price entries as read. */
const wholeStoredItem = (item: MenuItem): StoredMenuItem => ({
  ...wholeItem(item),
  externalId: item.externalId,
  previousPrices: () =>
    item.prices.map((price) => ({
      unit: price.unit,
      amount: price.amount,
      priceCents: price.priceCents,
      stock: price.stock,
      // A price entry read from its row (foldMenu) has its change time.
      updatedAt: price.updatedAt!,
      active: item.active,
    })),
});

/**
 * Writes the kept JSON of stored items whose kept JSON was stale and that a write leaves as they are,
 * so that the next write compares them by it (readStoredItems). Their other columns, their change
 * times and the feed are left alone: the item itself does not change.
 */
export async function renewKeptJson(
  dialect: Dialect,
  trx: Transaction<Database>,
  dispensaryId: number,
  items: readonly MenuItem[],
): Promise<void> {
  // Each binds its id twice and its JSON once.
  for (const chunk of chunks(dialect, items, 3)) {
    const json = sql.join(
      chunk.map((item) => sql`when id = ${item.id} then ${fieldsJsonOf(item)}`),
      sql` `,
    );
    await trx
      .updateTable('items')
      .set({ fields_json: sql<string>`case ${json} end` })
      .where('dispensary_id', '=', dispensaryId)
      .where(
        'id',
        'in',
        chunk.map((item) => item.id),
      )
      .execute();
  }
}

/**
 * The rows of the dispensary's items inside a write's transaction, those of `ids` or all, and of their
 * price entries, as arrays of `itemColumns` (the id first) and MENU_PRICE_COLUMNS, in the order the
 * folds take.
 */
export async function readItemRows(
  dialect: Dialect,
  trx: Transaction<Database>,
  dispensaryId: number,
  ids?: readonly number[],
  itemColumns: ItemColumnList = MENU_ITEM_COLUMNS,
): Promise<[unknown[][], unknown[][]]> {
  if (ids?.length === 0) return [[], []];
  const items: unknown[][] = [];
  const prices: unknown[][] = [];
  let lists = 0;
  for (const list of ids ? idLists(dialect, ids) : [undefined]) {
    lists++;
    const [itemQuery, priceQuery] = menuQueries(trx, dispensaryId, list, itemColumns);
    // Rows as arrays on the transaction's own connection: no object per row to build and take apart.
    for (const row of await dialect.arraysInWrite(trx, itemQuery)) items.push(row);
    for (const row of await dialect.arraysInWrite(trx, priceQuery)) prices.push(row);
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
 * Deletes a dispensary's items, those of `ids` (a non-empty list, see idLists) or all, with their price entries.
 * Explicitly rather than by cascade, so that no dialect's foreign-key setting matters.
 */
export async function deleteItems(
  trx: Transaction<Database>,
  dispensaryId: number,
  ids?: IdList,
): Promise<{ items: number; priceEntries: number }> {
  let prices = trx.deleteFrom('price_entries').where('dispensary_id', '=', dispensaryId);
  let items = trx.deleteFrom('items').where('dispensary_id', '=', dispensaryId);
  if (ids) {
    prices = prices.where('item_id', ids.op, ids.ids);
    items = items.where('id', ids.op, ids.ids);
  }
  const pricesDeleted = await prices.executeTakeFirst();
  const itemsDeleted = await items.executeTakeFirst();
  return { items: Number(itemsDeleted.numDeletedRows), priceEntries: Number(pricesDeleted.numDeletedRows) };
}

export async function requireDispensary(trx: Transaction<Database>, dispensaryId: number): Promise<void> {
  const exists = await trx
    .selectFrom('dispensaries')
    .select('id')
    .where('id', '=', dispensaryId)
    .executeTakeFirst();
  if (!exists) throw new ConflictError(`dispensary ${dispensaryId} does not exist`);
}

export async function highestItemId(trx: Transaction<Database>, dispensaryId: number): Promise<number> {
  const row = await trx
    .selectFrom('items')
    .select(({ fn }) => fn.max<number>('id').as('max_id'))
    .where('dispensary_id', '=', dispensaryId)
    .executeTakeFirst();
  return Number(row?.max_id ?? 0);
}
