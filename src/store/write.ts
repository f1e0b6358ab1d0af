import type { Transaction } from 'kysely';
import type { FeedEntry } from './batches.js';
import type { Dialect } from './dialect.js';
import { claimIn } from './idempotency-claim.js';
import type { Database } from './schema.js';
import { type Actor, type ChangeKind, ConflictError, type FeedHook, type MenuChange } from './store.js';
import { WriteTurns } from './write-turns.js';

/** The actor of writes that name none: the operator at the command line. */
export const OPERATOR: Actor = 'cli';

export const now = (): string => new Date().toISOString();

/** What a write changed: the change notice caches act on, and the audit entry. */
export interface ChangeRecord {
  kind: ChangeKind;
  dispensaryId: number | null;
  /** For credential and admin key changes, the name; for menu changes, see INACTIVE_ITEMS_CHANGED. */
  subject?: string;
  action: string;
  detail: Record<string, unknown>;
  /**
   * The live feed entries of this write (for `dispensaryId`), at most one per item: inserted after
   * the change notice is numbered, so that their cursors commit in order.
   */
  feed?: FeedEntry[];
  /**
   * The write changed no row (a full sync identical to the stored menu): only the audit entry is
   * recorded, no change notice, so that no cache is dropped for nothing.
   */
  unchanged?: boolean;
}

/** A write's result, and what it changed; no `change` when it changed nothing (an unknown id, say). */
export interface Written<T> {
  result: T;
  change?: ChangeRecord;
}

/** The answer of a write to one row found by key: true with its change, or false and nothing recorded. */
export function foundIf(rows: number | bigint, change: ChangeRecord): Written<boolean> {
  return rows > 0 ? { result: true, change } : { result: false };
}

export interface WriteOptions {
  actor: Actor;
  /**
   * Locks this dispensary first (see Dialect.lockDispensary), for writes to its menu or row; such
   * writes also take turns in this process before taking a connection (see WriteTurns).
   */
  lockDispensary?: number;
  /** The ConflictError message for a unique violation; without it, the violation is thrown as is. */
  conflict?: string;
}

/**
 * Every recorded write goes through here: one transaction, the dispensary lock when asked, and — when
 * the write changed something — its change notice and audit entry in that same transaction, so that
 * a failed write leaves neither. A unique violation becomes a ConflictError with the given message.
 * Writes wait for their turn (WriteTurns) before the transaction takes a connection.
 */
export class Writer {
  private readonly feedHooks: FeedHook[] = [];
  private readonly turns: WriteTurns;

  constructor(private readonly dialect: Dialect) {
    this.turns = new WriteTurns(
      dialect.writeSlots ?? Number.POSITIVE_INFINITY,
      dialect.writeWaitMs ?? Number.POSITIVE_INFINITY,
    );
  }

  /** Adds a hook run in every write that records feed entries, after inserting them (Store.afterFeed). */
  afterFeed(hook: FeedHook): void {
    this.feedHooks.push(hook);
  }

  write<T>(options: WriteOptions, work: (trx: Transaction<Database>) => Promise<Written<T>>): Promise<T> {
    return this.turns.run(options.lockDispensary, () => this.transaction(options, work));
  }

  private async transaction<T>(
    options: WriteOptions,
    work: (trx: Transaction<Database>) => Promise<Written<T>>,
  ): Promise<T> {
    try {
      let claimed: { claimed: boolean } | undefined;
      const result = await this.dialect.db.transaction().execute(async (trx) => {
        // An Idempotency-Key being served is claimed first, in this same transaction (idempotency-claim.ts).
        claimed = await claimIn(trx, (error) => this.dialect.isUniqueViolation(error));
        if (options.lockDispensary !== undefined) {
          await this.dialect.lockDispensary?.(trx, options.lockDispensary);
        }
        const { result, change } = await work(trx);
        if (change) await this.record(trx, options.actor, change);
        return result;
      });
      if (claimed) claimed.claimed = true;
      return result;
    } catch (error) {
      if (options.conflict !== undefined && this.dialect.isUniqueViolation(error)) {
        throw new ConflictError(options.conflict);
      }
      throw error;
    }
  }

  private async record(trx: Transaction<Database>, actor: Actor, change: ChangeRecord): Promise<void> {
    const at = now();
    if (change.unchanged) {
      await this.audit(trx, actor, change, at);
      return;
    }
    await this.dialect.beforeChange?.(trx);
    await trx
      .insertInto('changes')
      .values({ kind: change.kind, dispensary_id: change.dispensaryId, subject: change.subject ?? null, at })
      .execute();
    if (change.feed && change.feed.length > 0 && change.dispensaryId !== null) {
      const rows = await this.insertFeed(trx, change.dispensaryId, change.feed, at);
      for (const hook of this.feedHooks) await hook(trx, rows);
    }
    await this.audit(trx, actor, change, at);
    await this.dialect.afterChange?.(trx);
  }

  /**
   * Inserts the feed entries after the change notice, so after `beforeChange`: on PostgreSQL that
   * holds the advisory lock until commit, so feed cursors commit in the order they are drawn and a
   * reader that has seen cursor N never later finds a smaller one.
   */
  private async insertFeed(
    trx: Transaction<Database>,
    dispensaryId: number,
    feed: readonly FeedEntry[],
    at: string,
  ): Promise<MenuChange[]> {
    const inserted = await this.dialect.batches.insertFeed(trx, dispensaryId, at, feed);
    // Matched by item (a write records at most one entry per item, and store.updated once).
    const seqs = new Map(
      inserted.map((row) => [row.item_id === null ? null : Number(row.item_id), Number(row.seq)]),
    );
    const rows = feed.map(
      (entry): MenuChange => ({
        seq: seqs.get(entry.itemId)!,
        dispensaryId,
        at,
        type: entry.type,
        itemId: entry.itemId,
        reason: entry.reason,
        item: entry.item,
      }),
    );
    rows.sort((a, b) => a.seq - b.seq);
    return rows;
  }

  private async audit(
    trx: Transaction<Database>,
    actor: Actor,
    change: ChangeRecord,
    at: string,
  ): Promise<void> {
    await trx
      .insertInto('audit_log')
      .values({
        at,
        actor,
        dispensary_id: change.dispensaryId,
        action: change.action,
        detail: JSON.stringify(change.detail),
      })
      .execute();
  }
}
