import type { MenuItem, MenuItemInput, StockUpdate } from '../domain/item.js';
import { type ItemRef, refText } from '../domain/item-ref.js';
import type { FieldProblem } from '../domain/validate-item.js';
import type { ExternalStockRef } from '../domain/validate-stock.js';
import { ConflictError, type Store } from '../store/store.js';
import { refusedWrite, ServiceError } from './errors.js';

/** An item as the services take it: its id, or an ItemRef (`ext:` and its external_id). */
export type ItemOrRef = number | ItemRef;

/** The id of the item a reference names; a 404 naming it when the dispensary has no such item. */
export async function itemIdOf(store: Store, dispensaryId: number, item: ItemOrRef): Promise<number> {
  if (typeof item === 'number') return item;
  if ('id' in item) return item.id;
  const found = await store.menus.idsByExternalId(dispensaryId, [item.externalId]);
  const id = found.get(item.externalId);
  if (id === undefined) throw noItem(dispensaryId, item);
  return id;
}

/**
 * Puts in each stock update sent with `ext:` the id of the item with that external_id; one that no
 * item has rejects the batch (404 naming them), before anything is written.
 */
export async function resolveExternalStockRefs(
  store: Store,
  dispensaryId: number,
  updates: StockUpdate[],
  external: readonly ExternalStockRef[],
): Promise<void> {
  if (external.length === 0) return;
  const ids = await store.menus.idsByExternalId(
    dispensaryId,
    external.map((ref) => ref.externalId),
  );
  const unknown = external.filter((ref) => !ids.has(ref.externalId));
  if (unknown.length > 0) {
    const named = unknown.map((ref) => `[${ref.index}] ext:${ref.externalId}`).join(', ');
    throw new ServiceError(
      'not_found',
      `Dispensary ${dispensaryId} has no item with the external_id of ${named}; nothing was applied. See its items with: npx menu-api menu export --dispensary ${dispensaryId}`,
    );
  }
  for (const ref of external)
    updates[ref.index] = { ...updates[ref.index]!, itemId: ids.get(ref.externalId)! };
}

export function noItem(dispensaryId: number, item: ItemOrRef): ServiceError {
  const named = typeof item === 'number' ? String(item) : refText(item);
  return new ServiceError(
    'not_found',
    `Dispensary ${dispensaryId} has no item ${named}. See its items with: npx menu-api menu export --dispensary ${dispensaryId}`,
  );
}

/** Gives each item without an id the id of the stored item with its external_id (the point of sale's id). */
export function matchByExternalId(items: MenuItemInput[], existing: readonly MenuItem[]): MenuItemInput[] {
  const byExternal = new Map(
    existing.filter((item) => item.externalId !== '').map((item) => [item.externalId, item.id]),
  );
  return items.map((item) =>
    item.id === null && item.externalId !== '' && byExternal.has(item.externalId)
      ? { ...item, id: byExternal.get(item.externalId)! }
      : item,
  );
}

/** An external_id the items being written take from another stored item (one the write leaves as it is). */
export function externalIdClashes(
  items: readonly MenuItemInput[],
  existing: readonly MenuItem[],
): FieldProblem[] {
  const rewritten = new Set(items.map((item) => item.id));
  const owner = new Map(
    existing
      .filter((item) => !rewritten.has(item.id) && item.externalId !== '')
      .map((item) => [item.externalId, item.id]),
  );
  return items.flatMap((item, index) => {
    const other = owner.get(item.externalId);
    return other === undefined
      ? []
      : [
          {
            field: `[${index}].external_id`,
            message: `${item.externalId} is the external_id of item ${other}; each is unique within the dispensary: send that item's id, or another external_id`,
          },
        ];
  });
}

/**
 * Runs a write of `items` that the caller checked against a read; the database's unique index on
 * external_id refuses the write when another writer took one of them since (and the write changes
 * nothing): the same 400 as the check's, from the menu as it is now.
 */
export async function withExternalIdsChecked<T>(
  store: Store,
  dispensaryId: number,
  items: readonly MenuItemInput[],
  write: () => Promise<T>,
  field: (problem: FieldProblem) => FieldProblem = (problem) => problem,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    const clashes = externalIdClashes(items, await store.menus.read(dispensaryId));
    const problems =
      clashes.length > 0
        ? clashes
        : [
            {
              field: 'external_id',
              message: 'is taken by another item of the dispensary; send another external_id',
            },
          ];
    throw rejected(problems.map(field));
  }
}

export const rejected = (problems: FieldProblem[]): ServiceError =>
  refusedWrite('The menu was rejected', problems);
