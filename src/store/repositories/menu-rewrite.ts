import type { Transaction } from 'kysely';
import type { MenuItem } from '../../domain/item.js';
import { type FeedSpelling, type ItemChanges, itemChanges } from '../../domain/menu-writes.js';
import { type FeedEntry, type MadeStatement, removedEntry, upsertedEntry } from '../batches.js';
import { type Dialect, idLists } from '../dialect.js';
import {
  feedJsonOf,
  type ItemTexts,
  itemRow,
  itemTexts,
  priceRows,
  type StoredMenuItem,
  samePriceRow,
} from '../item-rows.js';
import type { Database } from '../schema.js';
import { withStatementQueue } from '../statement-queue.js';
import { now } from '../write.js';
import { deleteItems } from './menu-queries.js';

/**
 * Items whose rows one statement per table writes: the database writes them while the process makes
 * the next ones, and those written once the process is done stay few.
 */
const WRITTEN_PER_STATEMENT = 250;
/**
 * Items whose texts and rows are made between two turns of the event loop (a ms or two): a statement
 * runs only once the process has taken the last one's answer, and the database would wait for it
 * while the process made a whole slice.
 */
const MADE_PER_TURN = 50;

/**
 * Compares `menu` (ordered by id) with the `stored` items of the same ids (see itemChanges) and writes
 * what differs, in the write's transaction: a changed item is written in place, with those of its
 * price entries that changed; a new one is inserted; the stored items `removed` are deleted. Gives
 * the changes, with the feed's entries of the items of `menu`.
 *
 * A changed item whose external_id moves (or that was read whole, its kept JSON stale) is deleted and
 * inserted again instead, and every delete is queued (StatementQueue) before any other statement: an
 * item may take the external_id of any other, later in the menu or removed from it, and the unique
 * index is checked row by row. Every item is compared first (its kept JSON, in place: no text is
 * made); then the rows are made by slices, and each slice's statements made at once (their parameters
 * encoded, see BatchStatements.insertRows) and queued: the database writes one slice while the process
 * makes the next, the texts and their encoding being most of the process's work, and a statement
 * starts as soon as the one before it has finished.
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
  const at = now();
  return withStatementQueue(async (queue) => {
    const changes = itemChanges(menu, stored, pendingSpelling(texts));
    const reinserted = changes.written.filter((item) => {
      const before = stored.get(item.id);
      return before !== undefined && !writableInPlace(before, item);
    });
    const deleted = [...reinserted.map((item) => item.id), ...removed];
    for (const list of idLists(dialect, deleted)) queue.queue(() => deleteItems(trx, dispensaryId, list));
    let slice = emptySlice();
    for (let start = 0; start < changes.written.length; start += MADE_PER_TURN) {
      // A turn of the event loop: the deletes start, and a statement that finished meanwhile hands
      // over to the next one without waiting for a whole slice to be made.
      await dialect.turn?.();
      const items = changes.written.slice(start, start + MADE_PER_TURN);
      addRows(slice, dispensaryId, items, { stored, texts, at });
      slice.items += items.length;
      if (slice.items >= WRITTEN_PER_STATEMENT || start + MADE_PER_TURN >= changes.written.length) {
        const statements = await sliceStatements(dialect, trx, slice);
        queue.queue(async () => {
          for (const statement of statements) await statement();
        });
        slice = emptySlice();
      }
    }
    // The feed's texts are made while the last slices are written, with turns between them as well.
    const feed: FeedEntry[] = [];
    for (let start = 0; start < changes.feed.length; start += MADE_PER_TURN) {
      await dialect.turn?.();
      for (const entry of changes.feed.slice(start, start + MADE_PER_TURN)) feed.push(entry());
    }
    return { ...changes, feed };
  });
}

/**
 * Whether a changed item can be written over its stored row: its external_id stays (another item may
 * be taking the stored one), its entries' rows were read (to write only those that changed), and it
 * keeps at least as many entries (an item with fewer is deleted with the others, in the statements
 * queued first, rather than by one statement of its own).
 */
const writableInPlace = (before: StoredMenuItem, item: MenuItem): boolean =>
  before.externalId === item.externalId &&
  before.entryRows !== undefined &&
  before.entryRows.length <= item.prices.length;

/** The rows of a slice of the items a write writes (see rewriteItems). */
interface SliceRows {
  /** How many items the slice holds. */
  items: number;
  insertedItems: Database['items'][];
  updatedItems: Database['items'][];
  insertedPrices: Database['price_entries'][];
  updatedPrices: Database['price_entries'][];
}

const emptySlice = (): SliceRows => ({
  items: 0,
  insertedItems: [],
  updatedItems: [],
  insertedPrices: [],
  updatedPrices: [],
});

/** Adds the rows of `items` to those of a slice. */
function addRows(
  rows: SliceRows,
  dispensaryId: number,
  items: readonly MenuItem[],
  made: { stored: ReadonlyMap<number, StoredMenuItem>; texts: WrittenTexts; at: string },
): void {
  for (const item of items) {
    const before = made.stored.get(item.id);
    const row = itemRow(dispensaryId, made.texts.of(item), made.at);
    const prices = priceRows(dispensaryId, item, made.at, before);
    const storedEntries = before && writableInPlace(before, item) ? before.entryRows : undefined;
    if (storedEntries === undefined) {
      rows.insertedItems.push(row);
      rows.insertedPrices.push(...prices);
      continue;
    }
    rows.updatedItems.push(row);
    // Entries are stored at positions 0, 1, … of their item: the entry at a position is compared with
    // the stored one there, and left alone when they are alike (an unchanged entry keeps its time).
    for (let position = 0; position < prices.length; position++) {
      const storedEntry = storedEntries[position];
      if (storedEntry === undefined) rows.insertedPrices.push(prices[position]!);
      else if (!samePriceRow(prices[position]!, storedEntry)) rows.updatedPrices.push(prices[position]!);
    }
  }
}

/**
 * The statements that write a slice's rows, made now (see BatchStatements.insertRows), to run in
 * order: the items before their entries, whose foreign key names them.
 */
async function sliceStatements(
  dialect: Dialect,
  trx: Transaction<Database>,
  rows: SliceRows,
): Promise<MadeStatement[]> {
  const { batches } = dialect;
  const statements: MadeStatement[] = [];
  if (rows.insertedItems.length > 0) {
    statements.push(await batches.insertRows(trx, 'items', rows.insertedItems));
  }
  if (rows.updatedItems.length > 0) {
    statements.push(await batches.updateRows(trx, 'items', ITEM_KEY, rows.updatedItems));
  }
  if (rows.updatedPrices.length > 0) {
    statements.push(await batches.updateRows(trx, 'price_entries', PRICE_KEY, rows.updatedPrices));
  }
  if (rows.insertedPrices.length > 0) {
    statements.push(await batches.insertRows(trx, 'price_entries', rows.insertedPrices));
  }
  return statements;
}

/** The primary keys of the tables a write of items writes. */
const ITEM_KEY = ['dispensary_id', 'id'];
const PRICE_KEY = ['dispensary_id', 'item_id', 'position'];

/**
 * The texts of the items a write writes, each made once (see itemTexts): for its row, then its feed
 * entry. Only the kept JSON is held for the feed: the row's column texts go once its slice is written,
 * rather than living on (and being copied by each young-generation collection) to the write's end.
 */
class WrittenTexts {
  private readonly fieldsJson = new Map<MenuItem, string>();

  of(item: MenuItem): ItemTexts {
    const texts = itemTexts(item);
    this.fieldsJson.set(item, texts.fieldsJson);
    return texts;
  }

  fieldsJsonOf(item: MenuItem): string {
    return this.fieldsJson.get(item) ?? this.of(item).fieldsJson;
  }
}

/**
 * The feed's entries as a write records them, each made when called: an item's JSON is made on its kept
 * JSON (feedJsonOf), once the texts of its row are made, not while the write compares the menu.
 */
const pendingSpelling = (texts: WrittenTexts): FeedSpelling<() => FeedEntry> => ({
  upserted: (item) => () => upsertedEntry({ id: item.id, json: feedJsonOf(item, texts.fieldsJsonOf(item)) }),
  removed: (itemId, reason) => () => removedEntry(itemId, reason),
});
