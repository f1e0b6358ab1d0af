import type { Transaction } from 'kysely';
import type { MenuItem, MenuItemInput, StockUpdate } from '../../domain/item.js';
import { assignIds, matchByNameAndBrand } from '../../domain/menu-writes.js';
import { type FeedEntry, removedEntry, upsertedEntry } from '../batches.js';
import type { Dialect } from '../dialect.js';
import { feedJsonOf, fieldsJsonOf, priceKey } from '../item-rows.js';
import type { Database } from '../schema.js';
import {
  type Actor,
  INACTIVE_ITEMS_CHANGED,
  type MenuRepository,
  UnmatchedStockError,
  type UpsertResult,
} from '../store.js';
import { foundIf, now, OPERATOR, type Writer } from '../write.js';
import {
  deleteItems,
  highestItemId,
  isActive,
  readItemJson,
  readItems,
  readStoredItems,
  renewKeptJson,
  requireDispensary,
  type StoredItems,
} from './menu-queries.js';
import { MenuReads } from './menu-reads.js';
import { rewriteItems } from './menu-rewrite.js';
import { stockTargets } from './stock-levels.js';

/**
 * The ConflictError of an item write the database refused: the only unique rule such a write can
 * break is one external_id per dispensary (0018; ids are assigned under the dispensary's lock).
 */
const EXTERNAL_ID_TAKEN = 'an external_id of these items is taken by another item of the dispensary';

/** A dispensary's menu: its reads (MenuReads) and the writes that change it. */
export class Menus extends MenuReads implements MenuRepository {
  constructor(
    dialect: Dialect,
    private readonly writer: Writer,
  ) {
    super(dialect);
  }

  /**
   * Writes only what differs from the stored menu: new and changed items are written, removed ones
   * deleted, and an unchanged item is left as it is (no write, no feed entry). A sync identical to the
   * stored menu records only its audit entry.
   */
  async replace(dispensaryId: number, items: MenuItemInput[], actor: Actor = OPERATOR): Promise<MenuItem[]> {
    return this.writer.write(
      { actor, lockDispensary: dispensaryId, conflict: EXTERNAL_ID_TAKEN },
      async (trx) => {
        await requireDispensary(trx, dispensaryId);
        const stored = await readStoredItems(this.dialect, trx, dispensaryId);
        // New ids continue after every id the dispensary has used or is importing, so no id is reused.
        const menu = assignIds(items, [...stored.items.keys()].at(-1) ?? 0);
        const kept = new Set(menu.map((item) => item.id));
        const removed: number[] = [];
        const removals: FeedEntry[] = [];
        for (const [id, item] of stored.items) {
          if (kept.has(id)) continue;
          removed.push(id);
          if (item.active) removals.push(removedEntry(id, 'deleted'));
        }
        const diff = await rewriteItems(this.dialect, trx, dispensaryId, menu, stored.items, removed);
        diff.feed.push(...removals);
        // In item order, whatever happened to each.
        diff.feed.sort((a, b) => (a.itemId ?? 0) - (b.itemId ?? 0));
        await this.renewStale(trx, dispensaryId, stored, [...diff.replaced, ...removed]);
        const silent = removed.some((id) => !stored.items.get(id)?.active);
        return {
          result: menu,
          change: {
            kind: 'menu',
            dispensaryId,
            ...inactiveWritten(diff.written, silent),
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
      },
    );
  }

  async upsertItems(
    dispensaryId: number,
    items: MenuItemInput[],
    actor: Actor = OPERATOR,
  ): Promise<UpsertResult> {
    return this.writer.write(
      { actor, lockDispensary: dispensaryId, conflict: EXTERNAL_ID_TAKEN },
      async (trx) => {
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
        const stored = await readStoredItems(this.dialect, trx, dispensaryId, ids);
        const existing = stored.items;
        const diff = await rewriteItems(this.dialect, trx, dispensaryId, menu, existing);
        await this.renewStale(trx, dispensaryId, stored, diff.replaced);
        const result: UpsertResult = {
          created: ids.filter((id) => !existing.has(id)),
          updated: ids.filter((id) => existing.has(id)),
        };
        return {
          result,
          change: {
            kind: 'menu',
            dispensaryId,
            ...inactiveWritten(diff.written),
            action: 'menu.upsert',
            detail: { created: result.created.length, updated: result.updated.length },
            feed: diff.feed,
            ...(diff.written.length === 0 && { unchanged: true }),
          },
        };
      },
    );
  }

  async deleteItem(dispensaryId: number, itemId: number, actor: Actor = OPERATOR): Promise<boolean> {
    return this.writer.write({ actor, lockDispensary: dispensaryId }, async (trx) => {
      const active = await isActive(trx, dispensaryId, itemId);
      const deleted = await deleteItems(trx, dispensaryId, { op: 'in', ids: [itemId] });
      return foundIf(deleted.items, {
        kind: 'menu',
        dispensaryId,
        ...inactiveWritten([], active === false),
        action: 'menu.delete_item',
        detail: { item_id: itemId },
        // An inactive item was not in the active menu: its removal is no change of it.
        feed: active ? [removedEntry(itemId, 'deleted')] : [],
      });
    });
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
      const fieldsJson = fieldsJsonOf(changed);
      await trx
        .updateTable('items')
        // `active` is one of the fields the item keeps the JSON of.
        .set({ active: active ? 1 : 0, updated_at: at, fields_json: fieldsJson })
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
        ? [upsertedEntry({ id: itemId, json: feedJsonOf(changed, fieldsJson) })]
        : [removedEntry(itemId, 'deactivated')];
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
          ...inactiveWritten(changed),
          action: 'inventory.update',
          detail: { price_entries: updates.length },
          feed: changed.filter((item) => item.active).map(upsertedEntry),
          ...(outcome.changedItems.length === 0 && { unchanged: true }),
        },
      };
    });
  }

  /** Renews the stale kept JSON of the stored items this write leaves in place (see renewKeptJson). */
  private async renewStale(
    trx: Transaction<Database>,
    dispensaryId: number,
    stored: StoredItems,
    rewritten: readonly number[],
  ): Promise<void> {
    if (stored.stale.length === 0) return;
    const gone = new Set(rewritten);
    const left = stored.stale.filter((item) => !gone.has(item.id));
    await renewKeptJson(this.dialect, trx, dispensaryId, left);
  }
}

/** The notice's subject when the write changed an inactive item (which the feed does not name). */
const inactiveWritten = (written: readonly { active: boolean }[], removedInactive = false) =>
  removedInactive || written.some((item) => !item.active) ? { subject: INACTIVE_ITEMS_CHANGED } : {};
