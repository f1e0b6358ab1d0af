import type { Transaction } from 'kysely';
import type { MenuItem } from '../../domain/item.js';
import { type FeedSpelling, type ItemChanges, itemChanges } from '../../domain/menu-writes.js';
import type { FeedEntry } from '../batches.js';
import { type Dialect, idLists } from '../dialect.js';
import {
  feedJsonOf,
  type ItemTexts,
  itemRow,
  itemTexts,
  priceRows,
  type StoredMenuItem,
} from '../item-rows.js';
import type { Database } from '../schema.js';
import { withStatementQueue } from '../statement-queue.js';
import type { RemovalReason } from '../store.js';
import { now } from '../write.js';
import { deleteItems } from './menu-queries.js';

/** Items compared (each changed item's texts made) between two turns of the event loop: a few ms. */
const COMPARED_PER_TURN = 50;

/**
 * Items written by one statement per table: the database writes them while the process makes the
 * next ones, and the last of them, written once the process is done, stay few.
 */
const WRITTEN_PER_STATEMENT = 500;

/**
 * Compares `menu` (ordered by id) with the `stored` items of the same ids (see itemChanges) and writes
 * what differs, in the write's transaction: a changed item is deleted and inserted again with its price
 * entries, a new one inserted; the stored items `removed` are deleted. Gives the changes, with the
 * feed's entries of the items of `menu`.
 *
 * The menu is compared by slices, and the rows of every few slices are queued (StatementQueue) as soon
 * as they are made: the database writes them while the process compares and makes the next.
 */
export function rewriteItems(
  dialect: Dialect,
  trx: Transaction<Database>,
  dispensaryId: number,
  menu: readonly MenuItem[],
  stored: ReadonlyMap<number, StoredMenuItem>,
  removed: readonly number[] = [],
): Promise<ItemChanges<FeedEntry>> {
  const texts = new WrittenTexts();
  const spelling = feedSpelling(texts);
  const at = now();
  const changes: ItemChanges<FeedEntry> = { written: [], replaced: [], feed: [] };
  return withStatementQueue(async (queue) => {
    // How many of changes.written and changes.replaced are queued already.
    let written = 0;
    let replaced = 0;
    const queueMade = () => {
      const items = changes.written.slice(written);
      const rows = {
        replaced: changes.replaced.slice(replaced),
        items: items.map((item) => itemRow(dispensaryId, texts.take(item), at)),
        prices: items.flatMap((item) => priceRows(dispensaryId, item, at, stored.get(item.id))),
      };
      written = changes.written.length;
      replaced = changes.replaced.length;
      queue.queue(async () => {
        for (const list of idLists(dialect, rows.replaced)) await deleteItems(trx, dispensaryId, list);
        await dialect.batches.insertRows(trx, 'items', rows.items);
        await dialect.batches.insertRows(trx, 'price_entries', rows.prices);
      });
    };
    for (const slice of slicesById(menu, COMPARED_PER_TURN)) {
      const sliceChanges = itemChanges(slice, stored, spelling);
      changes.written.push(...sliceChanges.written);
      changes.replaced.push(...sliceChanges.replaced);
      changes.feed.push(...sliceChanges.feed);
      if (changes.written.length - written >= WRITTEN_PER_STATEMENT) queueMade();
      // A turn of the event loop: a statement that finished meanwhile hands over to the next one.
      await dialect.turn?.();
    }
    if (changes.written.length > written) queueMade();
    for (const list of idLists(dialect, removed)) queue.queue(() => deleteItems(trx, dispensaryId, list));
    return changes;
  });
}

export const removal = (itemId: number, reason: RemovalReason): FeedEntry => ({
  type: 'item.removed',
  itemId,
  reason,
  item: null,
});

/**
 * `menu` (ordered by id) in slices of about `size` items, all items of one id in the same slice: so
 * that itemChanges, comparing a slice at a time, still finds an id given twice.
 */
function* slicesById(menu: readonly MenuItem[], size: number): Generator<readonly MenuItem[]> {
  for (let start = 0; start < menu.length; ) {
    let end = Math.min(start + size, menu.length);
    while (end < menu.length && menu[end]!.id === menu[end - 1]!.id) end++;
    yield menu.slice(start, end);
    start = end;
  }
}

/**
 * The texts of the items a write writes, each made once (see itemTexts): for the item's feed entry
 * (an active item), then for its row, which takes them.
 */
class WrittenTexts {
  private readonly made = new Map<MenuItem, ItemTexts>();

  of(item: MenuItem): ItemTexts {
    let texts = this.made.get(item);
    if (texts === undefined) {
      texts = itemTexts(item);
      this.made.set(item, texts);
    }
    return texts;
  }

  /** The item's texts, no longer kept: its row is the last to need them. */
  take(item: MenuItem): ItemTexts {
    const texts = this.of(item);
    this.made.delete(item);
    return texts;
  }
}

/** The feed's entries as a write records them, each item's JSON made on its kept JSON (feedJsonOf). */
const feedSpelling = (texts: WrittenTexts): FeedSpelling<FeedEntry> => ({
  upserted: (item) => ({
    type: 'item.upserted',
    itemId: item.id,
    reason: null,
    item: feedJsonOf(item, texts.of(item).fieldsJson),
  }),
  removed: removal,
});
