import type { Transaction } from 'kysely';
import type { MenuItem, MenuItemInput, StockUpdate } from '../../domain/item.js';
import { chunks, type Dialect } from '../dialect.js';
import {
  assignIds,
  foldMenu,
  itemRow,
  MENU_ITEM_COLUMNS,
  MENU_PRICE_COLUMNS,
  type PreviousPrice,
  priceKey,
  priceRows,
} from '../rows.js';
import type { Database } from '../schema.js';
import {
  type Actor,
  ConflictError,
  type MenuRepository,
  UnmatchedStockError,
  type UpsertResult,
} from '../store.js';
import { foundIf, now, OPERATOR, type Writer } from '../write.js';
import { STOCK_TARGET_PARAMETERS, setStockLevels, stockTargets } from './stock-levels.js';

export class Menus implements MenuRepository {
  constructor(
    private readonly dialect: Dialect,
    private readonly writer: Writer,
  ) {}

  async replace(dispensaryId: number, items: MenuItemInput[], actor: Actor = OPERATOR): Promise<MenuItem[]> {
    return this.writer.write({ actor, lockDispensary: dispensaryId }, async (trx) => {
      await requireDispensary(trx, dispensaryId);
      // New ids continue after every id the dispensary has used or is importing, so no id is reused.
      const menu = assignIds(items, await highestItemId(trx, dispensaryId));
      const previous = await previousPrices(trx, dispensaryId);
      await deleteItems(trx, dispensaryId);
      const priceEntries = await this.insertItems(trx, dispensaryId, menu, previous);
      return {
        result: menu,
        change: {
          kind: 'menu',
          dispensaryId,
          action: 'menu.replace',
          detail: { items: menu.length, price_entries: priceEntries },
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
      const menu = assignIds(items, await highestItemId(trx, dispensaryId));
      const ids = menu.map((item) => item.id);
      const existing = new Set<number>();
      for (const chunk of chunks(this.dialect, ids, 1)) {
        const rows = await trx
          .selectFrom('items')
          .select('id')
          .where('dispensary_id', '=', dispensaryId)
          .where('id', 'in', chunk)
          .execute();
        for (const row of rows) existing.add(Number(row.id));
      }
      const previous = await previousPrices(trx, dispensaryId, [...existing]);
      for (const chunk of chunks(this.dialect, [...existing], 1)) await deleteItems(trx, dispensaryId, chunk);
      await this.insertItems(trx, dispensaryId, menu, previous);
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
        },
      };
    });
  }

  async deleteItem(dispensaryId: number, itemId: number, actor: Actor = OPERATOR): Promise<boolean> {
    return this.writer.write({ actor, lockDispensary: dispensaryId }, async (trx) => {
      const deleted = await deleteItems(trx, dispensaryId, [itemId]);
      return foundIf(deleted.items, {
        kind: 'menu',
        dispensaryId,
        action: 'menu.delete_item',
        detail: { item_id: itemId },
      });
    });
  }

  async read(dispensaryId: number): Promise<MenuItem[]> {
    // Two queries rather than a join, which would repeat every item column (long descriptions) on
    // each of its price rows; one read transaction, so that both see the same snapshot.
    const itemsQuery = this.dialect.db
      .selectFrom('items')
      .select(MENU_ITEM_COLUMNS)
      .where('dispensary_id', '=', dispensaryId)
      .orderBy('id')
      .compile();
    const pricesQuery = this.dialect.db
      .selectFrom('price_entries')
      .select(MENU_PRICE_COLUMNS)
      .where('dispensary_id', '=', dispensaryId)
      .orderBy('item_id')
      .orderBy('position')
      .compile();
    const [items, prices] = await this.dialect.readTransaction(async (readArrays) => {
      const items = await readArrays(itemsQuery);
      const prices = await readArrays(pricesQuery);
      return [items, prices] as const;
    });
    return foldMenu(items, prices);
  }

  async setItemActive(
    dispensaryId: number,
    itemId: number,
    active: boolean,
    actor: Actor = OPERATOR,
  ): Promise<boolean> {
    return this.writer.write({ actor, lockDispensary: dispensaryId }, async (trx) => {
      const at = now();
      const result = await trx
        .updateTable('items')
        .set({ active: active ? 1 : 0, updated_at: at })
        .where('dispensary_id', '=', dispensaryId)
        .where('id', '=', itemId)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return { result: false };
      // Entries of an item that comes back must reach clients polling inventory with `since`.
      await trx
        .updateTable('price_entries')
        .set({ updated_at: at })
        .where('dispensary_id', '=', dispensaryId)
        .where('item_id', '=', itemId)
        .execute();
      return {
        result: true,
        change: {
          kind: 'menu',
          dispensaryId,
          action: 'menu.set_active',
          detail: { item_id: itemId, active },
        },
      };
    });
  }

  async setStock(dispensaryId: number, updates: StockUpdate[], actor: Actor = OPERATOR): Promise<number> {
    return this.writer.write({ actor, lockDispensary: dispensaryId }, async (trx) => {
      const at = now();
      const matched = new Set<string>();
      for (const chunk of chunks(this.dialect, stockTargets(updates), STOCK_TARGET_PARAMETERS)) {
        for (const key of await setStockLevels(trx, dispensaryId, chunk, at)) matched.add(key);
      }
      const unmatched = updates.flatMap((update, index) =>
        matched.has(priceKey(update.itemId, update.unit, update.amount)) ? [] : [index],
      );
      // Throwing rolls the whole batch back: either every stock level is set or none.
      if (unmatched.length > 0) throw new UnmatchedStockError(unmatched);
      return {
        result: updates.length,
        change: {
          kind: 'menu',
          dispensaryId,
          action: 'inventory.update',
          detail: { price_entries: updates.length },
        },
      };
    });
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
  trx: Transaction<Database>,
  dispensaryId: number,
  itemIds?: number[],
): Promise<Map<string, PreviousPrice>> {
  let query = trx
    .selectFrom('price_entries as p')
    .innerJoin('items as i', (join) =>
      join.onRef('i.dispensary_id', '=', 'p.dispensary_id').onRef('i.id', '=', 'p.item_id'),
    )
    .select(['p.item_id', 'p.unit', 'p.amount', 'p.price_cents', 'p.stock', 'p.updated_at', 'i.active'])
    .where('p.dispensary_id', '=', dispensaryId);
  if (itemIds) {
    if (itemIds.length === 0) return new Map();
    query = query.where('p.item_id', 'in', itemIds);
  }
  const rows = await query.execute();
  return new Map(
    rows.map((row) => [
      priceKey(Number(row.item_id), row.unit, Number(row.amount)),
      {
        priceCents: Number(row.price_cents),
        stock: row.stock === null ? null : Number(row.stock),
        updatedAt: row.updated_at,
        active: Number(row.active) === 1,
      },
    ]),
  );
}
