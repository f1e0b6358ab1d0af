import type { Transaction } from 'kysely';
import type { RemovalReason } from '../../domain/menu-writes.js';
import type { Database } from '../schema.js';

/** What a change notice says changed, so that a process drops only what it cached of that. */
export type ChangeKind = 'menu' | 'dispensary' | 'store' | 'credential' | 'admin_key' | 'webhook' | 'account';

export interface Change {
  seq: number;
  kind: ChangeKind;
  dispensaryId: number | null;
  /** For credential changes, the username; for menu changes, INACTIVE_ITEMS_CHANGED or null. */
  subject: string | null;
}

/**
 * The subject of a menu change notice whose write changed an item the live feed does not name: an
 * inactive item written, its stock set, or deleted (what reads every item, Form v1, reads those again).
 */
export const INACTIVE_ITEMS_CHANGED = 'inactive-items';

/** The change notices every recorded write leaves, for other processes' caches. */
export interface ChangeRepository {
  since(seq: number): Promise<Change[]>;
  lastSeq(): Promise<number>;
}

/** What a change of the live menu feed says: see the README, "Live menus". */
export type MenuChangeType = 'item.upserted' | 'item.removed' | 'store.updated';

export type { RemovalReason };

/**
 * One change of a dispensary's live menu feed, as stored: `seq` is its cursor (commit order), `item`
 * the canonical item JSON text (src/domain/canonical.ts) after the change, on `item.upserted` only.
 */
export interface MenuChange {
  seq: number;
  dispensaryId: number;
  at: string;
  type: MenuChangeType;
  itemId: number | null;
  reason: RemovalReason | null;
  item: string | null;
}

/**
 * Runs inside a write's transaction right after its feed changes were inserted, with those rows (never
 * called for a write that made none). What it writes commits or rolls back with the change (an outbox).
 */
export type FeedHook = (trx: Transaction<Database>, rows: readonly MenuChange[]) => Promise<void>;

/** A page of a dispensary's live feed, read as one snapshot. */
export interface MenuChangePage {
  /** Changes with a cursor after the one asked for, oldest first, at most `limit`. */
  changes: MenuChange[];
  /** The cursor of the newest change of every dispensary, when the page was read (0: none yet). */
  head: number;
  /** The oldest change still kept, of any dispensary (undefined: none kept). */
  oldest: number | undefined;
}

/** The live menu feed (written by Writer with each write's change notice); read and pruned here. */
export interface MenuChangeRepository {
  /** The dispensary's changes after `after` (a seq; 0 for the start), at most `limit`, in one snapshot. */
  page(dispensaryId: number, after: number, limit: number): Promise<MenuChangePage>;
  /** Every dispensary's changes after `after`, at most `limit`, oldest first (for the live hub). */
  since(after: number, limit: number): Promise<MenuChange[]>;
  /** The cursor of the newest change of every dispensary (0: none). */
  head(): Promise<number>;
  /**
   * Deletes changes recorded before `before` (ISO time), `batch` rows per statement; the newest change
   * is always kept, so that the oldest kept one tells which cursors expired. Returns the rows deleted.
   */
  prune(before: string, batch?: number): Promise<number>;
}
