import type { MenuChange, Store } from '../store/store.js';
import { ServiceError } from './errors.js';

/**
 * Cursors of the live feed on the wire: the change's number, zero-padded to 16 digits, so that they
 * are opaque to clients, increase, and also sort as strings. "0000000000000000" is the start.
 */
const CURSOR = /^[0-9]{16}$/;

/**
 * The feed's last possible number, 2^53 - 1: the migrations stop `menu_changes.seq` there on both
 * databases (0012-feed-cursor-range), so every cursor the server gives out is exact as a JavaScript
 * number and fits in 16 digits. Sixteen digits can say more; no such cursor was ever given out.
 */
export const LAST_CURSOR = Number.MAX_SAFE_INTEGER;

export const encodeCursor = (seq: number): string => String(seq).padStart(16, '0');

/**
 * The change number of a cursor; 400 for anything that is not 16 digits. A cursor past LAST_CURSOR
 * decodes to LAST_CURSOR + 1, past every number the feed holds (Number() would round it, to a value
 * that prints as another cursor), so that MenuFeed.page refuses it as ahead of the feed once the
 * request is granted.
 */
export function decodeCursor(cursor: string): number {
  if (!CURSOR.test(cursor)) {
    throw new ServiceError(
      'invalid_request',
      `The cursor "${cursor.slice(0, 40)}" is not one this server gave out: a cursor is 16 digits. Use a next_cursor of /changes, a Menu-Cursor header or an event id, or leave it out to start at the oldest change kept.`,
    );
  }
  const seq = Number(cursor);
  return seq <= LAST_CURSOR ? seq : LAST_CURSOR + 1;
}

export const DEFAULT_CHANGES_LIMIT = 100;
export const MAX_CHANGES_LIMIT = 1_000;

/** What a client does about a cursor the feed cannot continue from (410). */
const READ_AGAIN =
  'Read the whole menu again (GET or POST /menu), then follow the changes after its Menu-Cursor header.';

/** 410: the changes after this cursor are no longer kept. */
export function cursorExpired(retentionDays: number): ServiceError {
  return new ServiceError(
    'cursor_expired',
    `Changes after this cursor are no longer kept (changes are kept ${retentionDays} day(s)). ${READ_AGAIN}`,
  );
}

/**
 * 410 under the same code as an expired cursor, since the client's remedy is the same: a cursor past
 * the feed's head, which this database never gave out (restored from an older copy, say).
 */
export function cursorAhead(head: number): ServiceError {
  return new ServiceError(
    'cursor_expired',
    `This cursor is ahead of the feed, whose newest change is ${encodeCursor(head)}: this server never gave it out (its database may have been restored from an older copy). ${READ_AGAIN}`,
  );
}

export interface ChangesPage {
  changes: MenuChange[];
  /** Where to continue: the last change's cursor, or (when there is no more) the feed's head. */
  nextCursor: number;
  hasMore: boolean;
}

export interface MenuFeedOptions {
  /** How many days changes are kept (`--change-retention-days`). */
  retentionDays: number;
  /** How often old changes are pruned, ms. */
  pruneIntervalMs?: number;
}

/**
 * The change feed of each dispensary's active menu (`/changes`): pages after a cursor, tells an
 * expired cursor from a live one, and prunes what is older than the retention on a timer.
 *
 * A cursor C has expired when changes after it may have been pruned: when C is below the oldest change
 * kept (of any dispensary) minus one. Pruning always keeps the newest change, so "the oldest kept" is
 * always known once the feed has had a change. C is ahead when it is past the head, the newest change
 * of any dispensary (the numbers are shared): the server never gave it out.
 */
export class MenuFeed {
  private timer: NodeJS.Timeout | undefined;
  private pruning: Promise<unknown> | undefined;

  constructor(
    private readonly store: Store,
    readonly options: MenuFeedOptions,
  ) {}

  /** The changes after `after` (omitted: from the oldest kept), at most `limit`. */
  async page(dispensaryId: number, after: number | undefined, limit: number): Promise<ChangesPage> {
    const from = after ?? 0;
    const page = await this.store.menuChanges.page(dispensaryId, from, limit);
    if (after !== undefined && page.oldest !== undefined && after < page.oldest - 1) {
      throw cursorExpired(this.options.retentionDays);
    }
    // A stream after such a cursor would wait for changes that come only once the feed passes it.
    if (after !== undefined && after > page.head) throw cursorAhead(page.head);
    const hasMore = page.changes.length === limit;
    const last = page.changes.at(-1)?.seq ?? from;
    // Past the end, the head: a quiet dispensary's client moves on with the feed, never falls behind it.
    return { changes: page.changes, hasMore, nextCursor: hasMore ? last : Math.max(last, page.head) };
  }

  /** Deletes changes older than the retention; returns how many. */
  async prune(now = Date.now()): Promise<number> {
    const before = new Date(now - this.options.retentionDays * 86_400_000).toISOString();
    return this.store.menuChanges.prune(before);
  }

  /** Prunes now and then every `pruneIntervalMs` (default hourly); the timer never holds the process. */
  start(onError?: (error: unknown) => void): void {
    const run = () => {
      if (this.pruning) return;
      this.pruning = this.prune()
        .catch((error: unknown) => onError?.(error))
        .finally(() => {
          this.pruning = undefined;
        });
    };
    run();
    this.timer = setInterval(run, this.options.pruneIntervalMs ?? 3_600_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.pruning;
  }
}

/**
 * The feed cursor a value read from the store is consistent with (Menu-Cursor), carried beside the
 * value: menus and store information are tagged when read, and what is made of them (a form's view,
 * a snapshot) carries the tag on, without changing their types.
 */
const cursors = new WeakMap<object, number>();

export function withCursor<T extends object>(value: T, cursor: number | undefined): T {
  if (cursor !== undefined) cursors.set(value, cursor);
  return value;
}

export function cursorOf(value: unknown): number | undefined {
  return typeof value === 'object' && value !== null ? cursors.get(value) : undefined;
}

/** `to`, tagged with the cursor of `from` (what it was made of). */
export const carryCursor = <T extends object>(from: object, to: T): T => withCursor(to, cursorOf(from));
